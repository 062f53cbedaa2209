import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { gcExposed } from '../storage/index.ts';

/**
 * Starting allocates a few MB that all survive (the database, parsed once).
 * V8 answers a high survival rate by doubling its young generation up to 16 MB,
 * which then stays committed until its memory reducer runs, 10 s or more
 * later: about 8 MiB of idle RSS (docs/benchmarks.md). Holding the growth
 * factor at 1 while the sandbox starts keeps the young generation at its
 * initial size; once the server listens, load can grow it again, up to
 * YOUNG_GENERATION_CAP_BYTES (capYoungGeneration). V8 reads this flag each
 * time it grows the space.
 */
export function holdYoungGeneration(): () => void {
  setFactor(1);
  return () => {
    capYoungGeneration();
  };
}

/**
 * Under load V8 grows the young generation to its maximum (two semi-spaces of
 * 16 MiB on 64-bit) and keeps it: 32 MiB of RSS after 10k requests, and still
 * at 100k bookings (docs/benchmarks.md "Memory"). The maximum can
 * only be set on the command line (`--max-semi-space-size`, read when the heap
 * is made), so the sandbox stops the growth instead: after each GC it looks at
 * the young generation's size and lets it double only while the result stays
 * within this cap. A young generation of 8 MiB still holds all that a request
 * allocates; GET /v1/products throughput stays well above its target (see
 * docs/benchmarks.md).
 */
export const YOUNG_GENERATION_CAP_BYTES = 8 * 1024 * 1024;

/** The growth factor for a young generation of `bytes`: double only while that stays within the cap. */
export const youngGenerationFactor = (bytes: number): 1 | 2 => (bytes * 2 <= YOUNG_GENERATION_CAP_BYTES ? 2 : 1);

let factor = 0;
let watcher: PerformanceObserver | null = null;

function setFactor(next: number): void {
  if (next === factor) return;
  factor = next;
  setFlagsFromString(`--semi-space-growth-factor=${next}`);
}

function checkYoungGeneration(): void {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  setFactor(youngGenerationFactor(space?.space_size ?? 0));
}

/** Watches every GC and holds the young generation within the cap, for as long as the process runs (or until stopped). */
export function capYoungGeneration(): void {
  checkYoungGeneration();
  if (watcher) return;
  watcher = new PerformanceObserver(checkYoungGeneration);
  watcher.observe({ entryTypes: ['gc'] });
}

/** V8's default growth again (tests that run `start` in-process, then go on in the same worker). */
export function releaseYoungGenerationCap(): void {
  watcher?.disconnect();
  watcher = null;
  factor = 0;
  setFlagsFromString('--semi-space-growth-factor=2');
}

/**
 * After each full GC, V8 lets the old generation grow to up to 4× what survived
 * before the next one, and keeps what it has grown to. Seeding 100k bookings
 * (a few hundred MiB of live rows) left ~400 MiB committed for ~250 MiB live:
 * the heap grew by up to 4× while the seed allocated fast, and V8 never gives
 * that back while the process stays busy. A fixed 30% keeps the committed heap
 * close to the live data (RSS 614 -> 466 MiB in-process at 100k bookings, the
 * seed 12 -> 14 s: more, smaller full GCs). See docs/benchmarks.md
 * "Memory". V8 reads the flag each time it sets a new limit.
 */
export const HEAP_GROWING_PERCENT = 30;

let heapGrowthLimited = false;

export function limitHeapGrowth(): void {
  heapGrowthLimited = true;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/**
 * V8's default growth of both generations again, for a burst of short-lived work at the end of a
 * run (`exec` writing its bundle): the limits are there to keep a serving sandbox's memory close
 * to its data; held here, they make the bundle's garbage collect over and over (docs/benchmarks.md,
 * "The failure bundle").
 */
export function releaseHeapLimits(): void {
  releaseYoungGenerationCap();
  if (!heapGrowthLimited) return;
  heapGrowthLimited = false;
  setFlagsFromString('--heap-growing-percent=0');
}

/**
 * Runs `fn` with the V8 flags a running sandbox changes (here, and --expose-gc:
 * src/storage/heap.ts) at their defaults, then sets them back. V8 stamps a code
 * cache with the flags that differ from their defaults and refuses it to a
 * process whose flags differ; a new process has the defaults
 * (bin/code-cache.js writes the cache inside this).
 */
export function withDefaultV8Flags<T>(fn: () => T): T {
  const gc = gcExposed();
  setFlagsFromString('--semi-space-growth-factor=2');
  setFlagsFromString('--heap-growing-percent=0');
  if (gc) setFlagsFromString('--no-expose-gc');
  try {
    return fn();
  } finally {
    if (factor !== 0) setFlagsFromString(`--semi-space-growth-factor=${factor}`);
    if (heapGrowthLimited) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    if (gc) setFlagsFromString('--expose-gc');
  }
}
