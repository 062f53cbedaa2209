import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox, type Sandbox } from '../src/index.ts';
import type { Row } from '../src/storage/types.ts';
import { round } from './lib/stats.ts';

const KEY = 'tcs_live_aurora_full_0000000000000000000001';
const CREATES = 300;
const BATCH = 2_000;

export interface CreateRates {
  records: number;
  formsPerSec: number;
  bookingsPerSec: number;
}

export interface CreatesResult {
  at1k: CreateRates;
  at100k: CreateRates;
  /** rate at 100k / rate at 1k: 1 means no slowdown; the aim is >= 0.5 (within 2x) */
  formsRatio: number;
  bookingsRatio: number;
}

/**
 * Section 6: POST /v1/forms and POST /v1/bookings, one after another through
 * app.inject on a file store (fsync on), in a workspace that already holds
 * `records` forms and `records` bookings. A create that scanned its collection
 * (uniqueness of slugs or codes) would slow down with the size; an indexed one
 * does not.
 */
export async function runCreates(log: (line: string) => void): Promise<CreatesResult> {
  const at1k = await measure(1_000, log);
  const at100k = await measure(100_000, log);
  return {
    at1k,
    at100k,
    formsRatio: round(at100k.formsPerSec / at1k.formsPerSec, 2),
    bookingsRatio: round(at100k.bookingsPerSec / at1k.bookingsPerSec, 2),
  };
}

async function measure(records: number, log: (line: string) => void): Promise<CreateRates> {
  const dir = mkdtempSync(join(tmpdir(), 'tcs-bench-creates-'));
  const sandbox = await createSandbox({ listen: false, storage: join(dir, 'db.json'), clock: 'manual', enforceRateLimits: false });
  try {
    const ws = sandbox.workspaces.find((w) => w.mode === 'live')!.id;
    log(`creates: filling a workspace with ${records} forms and ${records} bookings ...`);
    const departureId = await fill(sandbox, ws, records);
    const formsPerSec = await rate(CREATES, (i) => post(sandbox, '/v1/forms', { name: `Bench form ${i}`, fields: [] }));
    const bookingsPerSec = await rate(CREATES, () => post(sandbox, '/v1/bookings', { departureId, adults: 1 }));
    log(`creates: at ${records} records ${round(formsPerSec, 0)} forms/s, ${round(bookingsPerSec, 0)} bookings/s`);
    return { records, formsPerSec: round(formsPerSec, 0), bookingsPerSec: round(bookingsPerSec, 0) };
  } finally {
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Copies of one existing form and booking, under fresh ids, slugs and codes; a departure with room for every create. */
async function fill(sandbox: Sandbox, ws: string, records: number): Promise<string> {
  const { store } = sandbox;
  const form = store.list('forms', ws)[0];
  const booking = store.list('bookings', ws)[0];
  if (!form || !booking) throw new Error('the live fixture workspace has no form or booking to copy');
  for (let start = 0; start < records; start += BATCH) {
    const ops = [];
    for (let i = start; i < Math.min(records, start + BATCH); i++) {
      ops.push({ type: 'put' as const, collection: 'forms', workspaceId: ws, row: { ...form, id: `form_bench${i}`, slug: `bench-${i}` } as Row });
      ops.push({ type: 'put' as const, collection: 'bookings', workspaceId: ws, row: { ...booking, id: `bkg_bench${i}`, code: `BENCH-${i}` } as Row });
    }
    await store.commit(ops);
  }
  const departure = store.list<Row & { capacity: number }>('departures', ws).find((d) => d.capacity > 0)!;
  await store.commit([{ type: 'put', collection: 'departures', workspaceId: ws, row: { ...departure, capacity: 1_000_000, seatsLeft: 1_000_000 } }]);
  return departure.id;
}

async function post(sandbox: Sandbox, url: string, body: unknown): Promise<void> {
  const res = await sandbox.app.inject({
    method: 'POST',
    url,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  if (res.statusCode !== 201) throw new Error(`POST ${url} answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
}

async function rate(count: number, create: (i: number) => Promise<void>): Promise<number> {
  await create(-1); // warm-up: first-use costs (indexes, JIT) are not the steady rate
  const started = performance.now();
  for (let i = 0; i < count; i++) await create(i);
  return count / ((performance.now() - started) / 1000);
}
