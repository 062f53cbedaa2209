import { setFlagsFromString } from 'node:v8';

/**
 * Starting allocates a few MB that all survive (the database, parsed once).
 * V8 answers a high survival rate by doubling its young generation up to 16 MB,
 * which then stays committed until its memory reducer runs, 10 s or more
 * later: about 8 MiB of idle RSS (docs/benchmarks.md). Holding the growth
 * factor at 1 while the sandbox starts keeps the young generation at its
 * initial size; V8's default factor (2) comes back once the server listens,
 * so load can still grow it. V8 reads this flag each time it grows the space.
 */
export function holdYoungGeneration(): () => void {
  setFlagsFromString('--semi-space-growth-factor=1');
  return () => setFlagsFromString('--semi-space-growth-factor=2');
}

/**
 * After each full GC, V8 lets the old generation grow to up to 4× what survived
 * before the next one, and keeps what it has grown to. Seeding 100k bookings
 * (a few hundred MiB of live rows) left ~400 MiB committed for ~250 MiB live:
 * the heap grew by up to 4× while the seed allocated fast, and V8 never gives
 * that back while the process stays busy. A fixed 30% keeps the committed heap
 * close to the live data (RSS 614 -> 466 MiB in-process at 100k bookings, the
 * seed 12 -> 14 s: more, smaller full GCs). Issue 11, docs/benchmarks.md
 * "Memory". V8 reads the flag each time it sets a new limit.
 */
export const HEAP_GROWING_PERCENT = 30;

export function limitHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
