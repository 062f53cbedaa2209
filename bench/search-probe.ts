/**
 * In-process probe of the `q` search of GET /v1/bookings (docs/storage.md, "Text search";
 * docs/benchmarks.md section 12): seeds `--bookings N` through seedWorkspace,
 * then measures the heap the search structures add per booking (a forced GC
 * before and after the first search) and the in-process time of searches of
 * several kinds (the bench's 4 characters of an id, a code, an e-mail, a last
 * name, 1 and 2 characters, no match). Not part of `npm run bench`.
 *
 *   node --expose-gc --import tsx bench/search-probe.ts [--bookings 30000]
 */
import { getHeapStatistics } from 'node:v8';
import { parseArgs } from 'node:util';
import { createSandbox } from '../src/sandbox.ts';
import { seedWorkspace } from '../src/control/seed.ts';
import type { Booking } from '../src/resources/bookings/schemas.ts';
import { BookingSearchText } from '../src/resources/bookings/search-text.ts';
import type { Person } from '../src/resources/people/schemas.ts';
import { median, percentile, round } from './lib/stats.ts';

const { values } = parseArgs({ options: { bookings: { type: 'string', default: '30000' } } });
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const used = () => {
  gc();
  gc();
  return getHeapStatistics().used_heap_size;
};

const sandbox = await createSandbox({ storage: 'memory', listen: false, enforceRateLimits: false });
const ws = sandbox.workspaces.find((w) => w.mode === 'live')!.id;
const want = Number(values.bookings);
const seedStarted = performance.now();
for (let made = 0; made < want; ) {
  const ask = Math.min(want - made, 50_000);
  made += (await seedWorkspace(sandbox.context, { workspaceId: ws, bookings: ask, products: Math.ceil(ask / 200) })).created.bookings!;
}
const headers = { authorization: 'Bearer tcs_live_aurora_full_0000000000000000000001' };
const get = async (url: string) => {
  const started = performance.now();
  const res = await sandbox.app.inject({ method: 'GET', url, headers });
  const ms = performance.now() - started;
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  return { ms, total: (res.json() as { meta: { total: number } }).meta.total };
};
const seedSeconds = round((performance.now() - seedStarted) / 1000, 1);
await get('/v1/bookings?limit=1');
const bookings = sandbox.store.list<Booking>('bookings', ws);
// kept from the seed's writes; dropped and rebuilt by one search, to weigh it (a rebuilt index holds its own copy of each id)
const search = BookingSearchText.of(sandbox.store);
const kept = used();
search.forget(ws);
const before = used();
const first = await get('/v1/bookings?q=zzzz&limit=20');
const after = used();
console.log(
  JSON.stringify({
    bookings: bookings.length,
    seedSeconds,
    firstSearchMs: round(first.ms, 1),
    searchBytesPerBooking: Math.round((after - before) / bookings.length),
    keptFromSeedBytesPerBooking: Math.round((kept - before) / bookings.length),
    heapMiB: round(after / 1048576, 1),
  }),
);

const pick = (i: number) => bookings[(i * 7919) % bookings.length]!;
const person = (b: Booking) => (b.customerId ? sandbox.store.get<Person>('people', ws, b.customerId) : undefined);
const kinds: Record<string, (i: number) => string> = {
  'id tail (the bench)': (i) => pick(i).id.slice(-4),
  code: (i) => pick(i).code,
  'e-mail': (i) => person(pick(i))?.email ?? 'none',
  'last name': (i) => person(pick(i))?.lastName ?? 'none',
  '2 chars': (i) => pick(i).id.slice(-2),
  '1 char': (i) => pick(i).id.slice(-1),
  'no match': (i) => `zq${i}x`,
};
for (const [kind, query] of Object.entries(kinds)) {
  const times: number[] = [];
  const totals: number[] = [];
  for (let i = 0; i < 30; i++) {
    const { ms, total } = await get(`/v1/bookings?q=${encodeURIComponent(query(i))}&limit=20&offset=${i % 3 === 0 ? 0 : 5}`);
    times.push(ms);
    totals.push(total);
  }
  times.sort((a, b) => a - b);
  totals.sort((a, b) => a - b);
  console.log(JSON.stringify({ kind, medianMs: round(median(times), 2), p95Ms: round(percentile(times, 95), 2), medianTotal: median(totals) }));
}
await sandbox.stop();
