/**
 * The chaos suite: `sandbox start --data` under concurrent
 * writers of every kind, killed with SIGKILL at seeded random moments and
 * started again. After each start, every acknowledged write is there, no
 * booking is half-applied (its seats taken without it, or it without its
 * seats), and the files load.
 *
 * CHAOS_SEED and CHAOS_ROUNDS override the defaults (CI runs the full rounds, a local run the first: test/setup/depth.ts); the seed is printed on failure.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KEYS } from '../helpers/sandbox.ts';
import { runCli, type Running } from '../helpers/cli.ts';
import { prng } from './process.ts';
import { depth } from '../setup/depth.ts';

const SEED = Number(process.env.CHAOS_SEED ?? 20260115);
const ROUNDS = depth('CHAOS_ROUNDS', 10, 3);

type Row = { id: string } & Record<string, unknown>;
type Export = Record<string, Row[]>;

interface Acked {
  bookings: Map<string, { departureId: string; seats: number }>;
  passengers: Set<string>;
  forms: Set<string>;
  orgKeys: Set<string>;
  revokedOrgKeys: Set<string>;
  subscriptions: Set<string>;
  deletedSubscriptions: Set<string>;
  folders: Set<string>;
  deletedFiles: Set<string>;
}

/** deletions sent but not (yet) acknowledged: either outcome is allowed after a kill */
const deleteSent = new Set<string>();
const acked: Acked = {
  bookings: new Map(),
  passengers: new Set(),
  forms: new Set(),
  orgKeys: new Set(),
  revokedOrgKeys: new Set(),
  subscriptions: new Set(),
  deletedSubscriptions: new Set(),
  folders: new Set(),
  deletedFiles: new Set(),
};
const count = () => Object.values(acked).reduce((n, v: Map<string, unknown> | Set<string>) => n + v.size, 0);

const dir = await mkdtemp(join(tmpdir(), 'tcs-chaos-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const file = join(dir, 'db.json');

async function start(): Promise<{ run: Running; url: string; workspaceId: string }> {
  const run = runCli(['start', '--data', file, '--port', '0', '--json', '--no-rate-limits']);
  const line = await run.firstLine;
  let summary: { url: string; workspaces: { id: string; mode: string }[] };
  try {
    summary = JSON.parse(line);
  } catch {
    const { stderr } = await run.exit;
    throw new Error(`the sandbox did not start on ${file}: ${stderr.trim()} (seed ${SEED})`);
  }
  return { run, url: summary.url, workspaceId: summary.workspaces.find((w) => w.mode === 'live')!.id };
}

async function exported(url: string, workspaceId: string): Promise<Export> {
  const res = await fetch(`${url}/__sandbox/workspaces/${workspaceId}/export`);
  return ((await res.json()) as { data: Export }).data;
}

const byId = (rows: Row[]) => new Map(rows.map((r) => [r.id, r]));

/** Everything acknowledged is there, and every booking and its seats agree. */
function verify(data: Export, initialSeats: Map<string, number>, round: number): void {
  const where = `after kill ${round} (seed ${SEED})`;
  const bookings = byId(data.bookings!);
  for (const id of acked.bookings.keys()) expect(bookings.has(id), `${where}: acknowledged booking ${id} lost`).toBe(true);
  const passengers = byId(data.passengers!);
  for (const id of acked.passengers) expect(passengers.has(id), `${where}: acknowledged passenger ${id} lost`).toBe(true);
  const forms = byId(data.forms!);
  for (const id of acked.forms) expect(forms.has(id), `${where}: acknowledged form ${id} lost`).toBe(true);
  const keys = byId(data.orgApiKeys!);
  for (const id of acked.orgKeys) expect(keys.has(id), `${where}: acknowledged org key ${id} lost`).toBe(true);
  for (const id of acked.revokedOrgKeys) expect(keys.get(id)?.status, `${where}: acknowledged revocation of ${id} lost`).toBe('revoked');
  const subs = byId(data.webhookSubscriptions!);
  for (const id of acked.subscriptions) {
    if (!deleteSent.has(id)) expect(subs.has(id), `${where}: acknowledged subscription ${id} lost`).toBe(true);
  }
  for (const id of acked.deletedSubscriptions) expect(subs.has(id), `${where}: deleted subscription ${id} is back`).toBe(false);
  const folders = byId(data.galleryFolders!);
  for (const id of acked.folders) expect(folders.has(id), `${where}: acknowledged folder ${id} lost`).toBe(true);
  const files = byId(data.galleryFiles!);
  for (const id of acked.deletedFiles) expect(files.get(id)?.status ?? 'gone', `${where}: acknowledged deletion of ${id} lost`).not.toBe('active');

  // no half-applied booking: the seats taken on each departure since the start are exactly the
  // seats of the chaos bookings present, acknowledged or not
  const departures = byId(data.departures!);
  for (const [departureId, before] of initialSeats) {
    const present = data.bookings!.filter((b) => b.departureId === departureId && (b.metadata as { chaos?: boolean } | null)?.chaos === true);
    const seats = present.reduce((n, b) => n + (b.adults as number) + (b.children as number), 0);
    expect(before - (departures.get(departureId)!.seatsLeft as number), `${where}: departure ${departureId} seats vs its ${present.length} bookings`).toBe(
      seats,
    );
  }
}

describe('chaos: kill -9 under concurrent writers of every kind', () => {
  it(`loses no acknowledged write over ${ROUNDS} kills (seed ${SEED})`, async () => {
    const random = prng(SEED);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    let { run, url, workspaceId } = await start();
    const initial = await exported(url, workspaceId);
    const today = new Date().toISOString().slice(0, 10);
    const targets = initial
      .departures!.filter((d) => ['scheduled', 'guaranteed'].includes(d.status as string) && (d.seatsLeft as number) >= 20 && (d.startDate as string) > today)
      .slice(0, 4);
    expect(targets.length).toBeGreaterThan(0);
    const initialSeats = new Map(targets.map((d) => [d.id, d.seatsLeft as number]));
    const people = initial.people!.slice(0, 50).map((p) => p.id);
    const orgId = initial.organizations![0]!.id;
    const files = initial.galleryFiles!.filter((f) => f.status === 'active').map((f) => f.id);
    const auth = { authorization: `Bearer ${KEYS.liveFull}` };
    let requests = 0;

    for (let round = 1; round <= ROUNDS; round++) {
      let alive = true;
      const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> } | null> => {
        try {
          requests++;
          const res = await fetch(`${url}${path}`, {
            method,
            ...(body === undefined ? { headers: auth } : { headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) }),
          });
          const text = await res.text();
          return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
        } catch {
          alive = false; // killed: this write was never acknowledged
          return null;
        }
      };
      const writer = (step: () => Promise<void>) =>
        (async () => {
          while (alive) await step();
        })();
      const data = <T>(r: { json: Record<string, unknown> }) => (r.json.data ?? r.json) as T;
      const tag = () => `r${round}-${Math.floor(random() * 1e9)}`;

      const writers = [
        writer(async () => {
          const departureId = pick(targets).id;
          const adults = 1 + Math.floor(random() * 2);
          const r = await call('POST', '/v1/bookings', { departureId, adults, customerId: pick(people), metadata: { chaos: true } });
          if (r?.status === 201) acked.bookings.set(data<Row>(r).id, { departureId, seats: adults });
        }),
        writer(async () => {
          const bookingIds = [...acked.bookings.keys()];
          if (bookingIds.length === 0) return void (await call('GET', '/v1/bookings?limit=1'));
          const r = await call('POST', `/v1/bookings/${pick(bookingIds)}/passengers`, { passengers: [{ personId: pick(people), role: 'guest' }] });
          if (r?.status === 200) for (const p of r.json.passengers as Row[]) acked.passengers.add(p.id);
        }),
        writer(async () => {
          const r = await call('POST', '/v1/forms', { name: `chaos ${tag()}`, fields: [] });
          if (r?.status === 201) acked.forms.add(data<Row>(r).id);
        }),
        writer(async () => {
          const live = [...acked.orgKeys].filter((id) => !acked.revokedOrgKeys.has(id));
          if (live.length > 3 && random() < 0.5) {
            const id = pick(live);
            const r = await call('DELETE', `/v1/organizations/${orgId}/api-keys/${id}`);
            if (r?.status === 200) acked.revokedOrgKeys.add(id);
            return;
          }
          const r = await call('POST', `/v1/organizations/${orgId}/api-keys`, { name: `chaos ${tag()}` });
          if (r?.status === 201) acked.orgKeys.add(data<Row>(r).id);
        }),
        writer(async () => {
          const live = [...acked.subscriptions].filter((id) => !deleteSent.has(id));
          if (live.length > 3 && random() < 0.5) {
            const id = pick(live);
            deleteSent.add(id);
            const r = await call('DELETE', `/v1/webhooks/subscriptions/${id}`);
            if (r?.status === 204) acked.deletedSubscriptions.add(id);
            return;
          }
          const r = await call('POST', '/v1/webhooks/subscriptions', { url: 'http://127.0.0.1:9/hooks', events: ['payment.refunded'], description: tag() });
          if (r?.status === 201) acked.subscriptions.add(data<Row>(r).id);
        }),
        writer(async () => {
          const r = await call('POST', '/v1/gallery/folders', { name: `chaos ${tag()}` });
          if (r?.status === 201) acked.folders.add(data<Row>(r).id);
        }),
        writer(async () => {
          const id = files.pop();
          if (!id) return void (await call('GET', '/v1/bookings?limit=1'));
          const r = await call('DELETE', `/v1/gallery/files/${id}`);
          if (r?.status === 202) acked.deletedFiles.add(id);
        }),
      ];
      const killAfterMs = 200 + Math.floor(random() * 1300);
      await new Promise((resolve) => setTimeout(resolve, killAfterMs));
      run.child.kill('SIGKILL');
      const exit = await run.exit;
      expect(exit.signal, `the sandbox exited by itself before kill ${round}: ${exit.stderr}`).toBe('SIGKILL');
      await Promise.all(writers);

      ({ run, url, workspaceId } = await start());
      verify(await exported(url, workspaceId), initialSeats, round);
    }
    run.child.kill('SIGTERM');
    expect((await run.exit).code).toBe(0);
    const total = count();
    console.log(
      `chaos figures: ${ROUNDS} kill -9 rounds, ${requests} requests, ${total} acknowledged writes (${acked.bookings.size} bookings, ${acked.passengers.size} passengers, ${acked.forms.size} forms, ${acked.orgKeys.size + acked.revokedOrgKeys.size} org keys and revocations, ${acked.subscriptions.size + acked.deletedSubscriptions.size} subscriptions and deletions, ${acked.folders.size} folders, ${acked.deletedFiles.size} file deletions), lost 0 (seed ${SEED})`,
    );
    expect(acked.bookings.size).toBeGreaterThan(0);
    expect(acked.deletedSubscriptions.size + acked.revokedOrgKeys.size).toBeGreaterThan(0);
  }, 120_000);
});
