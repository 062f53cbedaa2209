/**
 * The chaos suite: kill -9 during background packing (of a
 * database with 12,000 more bookings, packed in the background at start), and
 * during a snapshot restore or `PUT /__sandbox/state` ("before or after, never
 * mixed"), at moments drawn from the seed within how long the operation took
 * in a first run on this machine.
 *
 * CHAOS_SEED and CHAOS_ROUNDS override the defaults (CI runs the full rounds, a local run the first: test/setup/depth.ts); the seed is in every message.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { auth, exported, formWriters, prng, startSandbox, stopSandbox, type Row, type Started } from './process.ts';
import { depth } from '../setup/depth.ts';

const SEED = Number(process.env.CHAOS_SEED ?? 20261125);
const ROUNDS = depth('CHAOS_ROUNDS', 4, 1);
/** over 4,096 rows in one partition: packed in the background when the file is loaded (pack-policy.ts) */
const EXTRA_BOOKINGS = 12_000;
const EXTRA_PREFIX = 'book_chaos-';

const root = await mkdtemp(join(tmpdir(), 'tcs-chaos-state-'));
afterAll(() => rm(root, { recursive: true, force: true }));

interface BigDatabase {
  file: string;
  customerId: string;
  /** departures with seats to book */
  departures: string[];
}

/** A sandbox database with EXTRA_BOOKINGS more bookings (copies of a seeded one) in its largest partition. */
async function bigDatabase(name: string): Promise<BigDatabase> {
  await mkdir(join(root, name));
  const file = join(root, name, 'db.json');
  await stopSandbox((await startSandbox(file)).run);
  const db = JSON.parse(await readFile(file, 'utf8')) as { collections: Record<string, Record<string, Record<string, Row>>> };
  const bookings = db.collections.bookings!;
  const ws = Object.keys(bookings).sort((a, b) => Object.keys(bookings[b]!).length - Object.keys(bookings[a]!).length)[0]!;
  const template = Object.values(bookings[ws]!)[0]!;
  for (let i = 0; i < EXTRA_BOOKINGS; i++) {
    const id = `${EXTRA_PREFIX}${String(i).padStart(6, '0')}`;
    bookings[ws]![id] = { ...template, id, code: `CHS-${i}` };
  }
  await writeFile(file, JSON.stringify(db));
  const today = new Date().toISOString().slice(0, 10);
  const departures = Object.values(db.collections.departures![ws]!)
    .filter((d) => ['scheduled', 'guaranteed'].includes(d.status as string) && (d.seatsLeft as number) >= 10 && (d.startDate as string) > today)
    .map((d) => d.id);
  return { file, customerId: Object.keys(db.collections.people![ws]!)[0]!, departures };
}

const post = (url: string, path: string, body: unknown) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function created(url: string, path: string, body: unknown): Promise<string> {
  const res = await post(url, path, body);
  const json = (await res.json()) as { data?: Row } & Row;
  if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return (json.data ?? json).id;
}

async function killAfter(started: Started, ms: number, where: string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
  started.run.child.kill('SIGKILL');
  const exit = await started.run.exit;
  expect(exit.signal, `${where}: the sandbox exited by itself before the kill: ${exit.stderr}`).toBe('SIGKILL');
}

describe('chaos: kill -9 in the middle of long operations', () => {
  it(`loses no acknowledged write when killed while packing in the background (seed ${SEED})`, async () => {
    const random = prng(SEED);
    const { file, customerId, departures } = await bigDatabase('packing');
    let acked = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      const where = `packing round ${round} (seed ${SEED})`;
      const victim = await startSandbox(file);
      const forms = formWriters(victim.url, 4, `packing r${round}`);
      // bookings go into the very partition being packed
      const bookings = new Set<string>();
      let alive = true;
      const bookingWriters = Array.from({ length: 2 }, async () => {
        while (alive) {
          try {
            const res = await post(victim.url, '/v1/bookings', { departureId: departures[Math.floor(random() * departures.length)]!, adults: 1, customerId });
            const json = (await res.json()) as { data?: Row } & Row;
            if (res.status === 201) bookings.add((json.data ?? json).id);
          } catch {
            return; // killed
          }
        }
      });
      // killed within its first 1.5 s of serving: packing 12,000 bookings takes 0.3 s on an idle
      // machine, several times that on a loaded one
      await killAfter(victim, Math.floor(random() * 1500), where);
      alive = false;
      await Promise.all([forms.stop(), ...bookingWriters]);

      const again = await startSandbox(file);
      const data = await exported(again.url, again.workspaceId);
      const formIds = new Set(data.forms!.map((f) => f.id));
      const bookingIds = new Set(data.bookings!.map((b) => b.id));
      for (const id of forms.acked) expect(formIds.has(id), `${where}: acknowledged form ${id} lost`).toBe(true);
      for (const id of bookings) expect(bookingIds.has(id), `${where}: acknowledged booking ${id} lost`).toBe(true);
      expect([...bookingIds].filter((id) => id.startsWith(EXTRA_PREFIX)).length, `${where}: the loaded bookings`).toBe(EXTRA_BOOKINGS);
      acked += forms.acked.size + bookings.size;
      await stopSandbox(again.run);
    }
    console.log(
      `chaos figures: ${ROUNDS} kill -9 during background packing of ${EXTRA_BOOKINGS} bookings, ${acked} acknowledged writes, lost 0 (seed ${SEED})`,
    );
    expect(acked).toBeGreaterThan(0);
  }, 240_000);

  it(`a snapshot restore or PUT /__sandbox/state killed at any moment is before or after, never mixed (seed ${SEED})`, async () => {
    const random = prng(SEED + 1);
    await mkdir(join(root, 'restore'));
    const file = join(root, 'restore', 'db.json');
    // how long each takes here, so that the kills land before, during and after it
    const took = { restore: 0, 'PUT state': 0 };
    {
      const { run, url } = await startSandbox(file);
      expect((await post(url, '/__sandbox/snapshots', { name: 'dry' })).status).toBe(201);
      let start = performance.now();
      expect((await post(url, '/__sandbox/snapshots/dry/restore', {})).status).toBe(200);
      took.restore = performance.now() - start;
      const state = await (await fetch(`${url}/__sandbox/state`)).text();
      start = performance.now();
      expect((await fetch(`${url}/__sandbox/state`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: state })).status).toBe(200);
      took['PUT state'] = performance.now() - start;
      await stopSandbox(run);
    }
    const outcomes: string[] = [];
    for (let round = 1; round <= 2 * ROUNDS; round++) {
      const kind = round % 2 === 1 ? 'restore' : 'PUT state';
      const where = `${kind} round ${round} (seed ${SEED})`;
      // --watch: compactions every 2 s under the writers, so a restore may land while one is being written
      const victim = await startSandbox(file, ['--watch']);
      const { url } = victim;
      const markA = await created(url, '/v1/forms', { name: `A ${round}`, fields: [] });
      let stateA = '';
      if (kind === 'restore') expect((await post(url, '/__sandbox/snapshots', { name: `a${round}` })).status).toBe(201);
      else stateA = await (await fetch(`${url}/__sandbox/state`)).text();
      // only in the state before: one form and one folder, two collections
      const markForm = await created(url, '/v1/forms', { name: `B ${round}`, fields: [] });
      const markFolder = await created(url, '/v1/gallery/folders', { name: `B ${round}` });

      // each form is classed by when its request was sent: before the kind's request, or after its answer
      let phase = 'before';
      const writers = formWriters(url, 2, `state r${round}`, () => phase);
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.floor(random() * 200)));
      const ackedBeforeSent = new Set(writers.acked); // acknowledged before the request below is sent
      phase = 'during';
      let answered = false;
      const request = (
        kind === 'restore'
          ? fetch(`${url}/__sandbox/snapshots/a${round}/restore`, { method: 'POST' })
          : fetch(`${url}/__sandbox/state`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: stateA })
      ).then(
        (res) => {
          answered = res.ok;
          if (answered) phase = 'after';
        },
        () => undefined, // killed first
      );
      await killAfter(victim, Math.floor(random() * 1.5 * took[kind]), where);
      await Promise.all([request, writers.stop()]);
      const ackedAfterAnswer = [...writers.sentIn].filter(([, sent]) => sent === 'after').map(([id]) => id);

      const again = await startSandbox(file);
      const data = await exported(again.url, again.workspaceId);
      await stopSandbox(again.run);
      const forms = new Set(data.forms!.map((f) => f.id));
      const folders = new Set(data.galleryFolders!.map((f) => f.id));
      const before = forms.has(markForm);
      outcomes.push(`${kind}: ${answered ? 'acknowledged, ' : ''}${before ? 'before' : 'after'}`);
      expect(forms.has(markA), `${where}: the form made before the saved state is lost`).toBe(true);
      expect(folders.has(markFolder), `${where}: mixed: the form made after the saved state is ${before ? 'there' : 'gone'}, its folder is not`).toBe(before);
      if (answered) expect(before, `${where}: the ${kind} was acknowledged, and the state is from before it`).toBe(false);
      for (const id of ackedBeforeSent)
        expect(forms.has(id), `${where}: mixed: form ${id}, acknowledged before the ${kind} was sent, vs the state ${before ? 'before' : 'after'} it`).toBe(
          before,
        );
      for (const id of ackedAfterAnswer) expect(forms.has(id), `${where}: form ${id}, acknowledged after the ${kind}, is lost`).toBe(true);
    }
    console.log(
      `chaos figures: ${2 * ROUNDS} kill -9 during restore (${Math.round(took.restore)} ms) / PUT state (${Math.round(took['PUT state'])} ms): ${outcomes.join('; ')} (seed ${SEED})`,
    );
  }, 300_000);
});
