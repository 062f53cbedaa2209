/**
 * Packing a loaded file's large partitions a few milliseconds at a time
 * (packed-rows.ts, `adopt(rows, 'background')`): packing 100k bookings' rows
 * takes seconds, which a start should not wait for (docs/storage.md).
 */

import { BULK_ROWS, bulkRuns } from '../heap.ts';

/** A partition packed in the background: 'busy' while a walk over it is in progress. */
export interface PacksInSlices {
  packSlice(deadline: number): 'done' | 'more' | 'busy';
}

/** background packing works in slices of this much, between other work (half as much while writes come) */
const SLICE_MS = 4;

/** Partitions with rows to pack in the background (held weakly: a replaced one is simply dropped). */
const behind = new Set<WeakRef<PacksInSlices>>();
let sliceScheduled = false;
/**
 * Some partition behind holds a file's bytes (PackedRows.fromRaw): once all are packed, those
 * bytes (the whole file, 311 MiB at 100k bookings) are garbage, but an idle sandbox may run no
 * GC to free them for minutes (measured: RSS stayed at 539 MiB for 90 s). So then one full GC is
 * asked for, as after a large seed (heap.ts).
 */
let holdsFileBytes = false;

/**
 * After a slice, the next one waits this long when the store was written since the last: writes
 * come first. Back to back, a 4 ms slice ran between every two turns of the event loop, and an
 * acknowledged write, which takes a few turns (append, fsync, answer), waited ~5 ms at the median
 * while 100k seeded rows were packed. With the wait, and a slice of half the length
 * after a write, the median is back to ~0.6 ms and the p99 ~7 ms; packing still goes on, at about
 * a fifth of the time while writes keep coming.
 */
const GIVE_WAY_MS = 8;
let wroteSinceSlice = false;

/** The store calls this on each commit: background packing gives way to writes. */
export function noteForegroundWrite(): void {
  wroteSinceSlice = true;
}

function scheduleSlice(wait: boolean): void {
  if (sliceScheduled) return;
  sliceScheduled = true;
  // unref'd: background packing never keeps a process alive. A timer, not setImmediate: an
  // unref'd immediate runs only when something else wakes the event loop
  setTimeout(packSlices, wait ? 20 : 0).unref();
}

let lastSliceEnd = 0;

function packSlices(): void {
  sliceScheduled = false;
  const gap = performance.now() - lastSliceEnd;
  if (wroteSinceSlice && gap < GIVE_WAY_MS) {
    sliceScheduled = true;
    setTimeout(packSlices, GIVE_WAY_MS - gap).unref();
    return;
  }
  const deadline = performance.now() + (wroteSinceSlice ? SLICE_MS / 2 : SLICE_MS);
  wroteSinceSlice = false;
  let more = false;
  let waiting = false;
  for (const ref of behind) {
    const rows = ref.deref();
    const state = rows ? rows.packSlice(deadline) : 'done';
    if (state === 'done') behind.delete(ref);
    else if (state === 'busy') waiting = true;
    else more = true;
    if (performance.now() >= deadline) break;
  }
  lastSliceEnd = performance.now();
  if (behind.size > 0) scheduleSlice(!more && waiting);
  else if (holdsFileBytes) {
    holdsFileBytes = false;
    bulkRuns.ended(BULK_ROWS);
  }
}

/** Packs `rows` in slices until its slice says it is done; `fileBytes`: it holds a file's bytes until then. */
export function packInBackground(rows: PacksInSlices, fileBytes = false): void {
  if (fileBytes) holdsFileBytes = true;
  behind.add(new WeakRef(rows));
  scheduleSlice(false);
}

/** Resolves once no partition has rows waiting to be packed in the background (tests, benchmarks). */
export async function packedInBackground(): Promise<void> {
  while (behind.size > 0) await new Promise((resolve) => setTimeout(resolve, 5));
}
