/**
 * In-process probe of heap per seeded booking (docs/benchmarks.md
 * "Memory"): an in-memory sandbox, `--bookings N` seeded through
 * seedWorkspace (the code behind POST /__sandbox/seed), RSS 1 s later, a
 * forced full GC, then heap used per booking. `--indexes` then reads one
 * booking through the API (which builds the passenger and item indexes) and
 * reports their heap; `--growing P` sets V8's --heap-growing-percent first
 * (the CLI uses 30); `--before`/`--snapshot <file>` write heap snapshots
 * before and after the seeding, to sum with bench/heap-summary.ts. Not part
 * of `npm run bench`.
 *
 *   node --expose-gc --import tsx bench/memory-probe.ts [--bookings 20000] [--indexes] [--growing 30] [--snapshot /tmp/x.heapsnapshot]
 */
import { getHeapStatistics, setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { parseArgs } from 'node:util';
import { createSandbox } from '../src/sandbox.ts';
import { seedWorkspace } from '../src/control/seed.ts';

const { values } = parseArgs({
  options: {
    bookings: { type: 'string', default: '20000' },
    snapshot: { type: 'string' },
    before: { type: 'string' },
    indexes: { type: 'boolean', default: false },
    growing: { type: 'string' },
  },
});
if (values.growing) setFlagsFromString(`--heap-growing-percent=${values.growing}`);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const mib = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
const used = () => {
  gc();
  gc();
  return getHeapStatistics().used_heap_size;
};

const sandbox = await createSandbox({ storage: 'memory', listen: false });
const ws = sandbox.workspaces.find((w) => w.mode === 'live')!.id;
await seedWorkspace(sandbox.context, { workspaceId: ws, products: 1, bookings: 1 }); // loads faker
if (values.before) writeHeapSnapshot(values.before);
const before = used();
const rssBefore = process.memoryUsage().rss;
const want = Number(values.bookings);
let made = 0;
const started = performance.now();
while (made < want) {
  const ask = Math.min(want - made, 50_000);
  const result = await seedWorkspace(sandbox.context, { workspaceId: ws, bookings: ask, products: Math.ceil(ask / 200) });
  made += result.created.bookings!;
}
const seconds = (performance.now() - started) / 1000;
await new Promise((resolve) => setTimeout(resolve, 1000));
const rssSettled = process.memoryUsage().rss;
const heapSettled = getHeapStatistics().used_heap_size;
const gcStarted = performance.now();
gc();
const gcMs = Math.round(performance.now() - gcStarted);
await new Promise((resolve) => setTimeout(resolve, 1000));
const rssAfterGc = process.memoryUsage().rss;
const after = used();
console.log(
  JSON.stringify({
    bookings: made,
    seconds: Math.round(seconds * 10) / 10,
    heapBeforeMiB: mib(before),
    heapAfterMiB: mib(after),
    bytesPerBooking: Math.round((after - before) / made),
    rssBeforeMiB: mib(rssBefore),
    rssSettledMiB: mib(rssSettled),
    heapSettledMiB: mib(heapSettled),
    gcMs,
    rssAfterGcMiB: mib(rssAfterGc),
  }),
);
if (values.indexes) {
  // what the API builds on its first read of a booking: its passengers and items by booking id
  const booking = sandbox.store.list<{ id: string; code: string }>('bookings', ws).at(-1)!;
  const headers = { authorization: 'Bearer tcs_live_aurora_full_0000000000000000000001' };
  for (const url of [`/v1/bookings/${booking.id}`]) {
    const res = await sandbox.app.inject({ method: 'GET', url, headers });
    if (res.statusCode !== 200) console.error(url, res.statusCode);
  }
  const indexed = used();
  console.log(JSON.stringify({ indexesMiB: mib(indexed - after), bytesPerBookingWithIndexes: Math.round((indexed - before) / made) }));
}
if (values.snapshot) writeHeapSnapshot(values.snapshot);
const counts = Object.fromEntries(['bookings', 'passengers', 'bookingItems', 'people'].map((c) => [c, sandbox.store.list(c, ws).length]));
console.log(JSON.stringify(counts));
await sandbox.stop();
