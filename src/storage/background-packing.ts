/**
 * Packing a loaded file's large partitions a few milliseconds at a time
 * (packed-rows.ts, `adopt(rows, 'background')`): packing 100k bookings' rows
 * takes seconds, which a start should not wait for (docs/storage.md).
 */

import { BULK_ROWS, bulkRuns } from './heap.ts';

/** A partition packed in the background: 'busy' while a walk over it is in progress. */
export interface PacksInSlices {
  packSlice(deadline: number): 'done' | 'more' | 'busy';
}

/** background packing works in slices of this much, between other work */
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

function scheduleSlice(wait: boolean): void {
  if (sliceScheduled) return;
  sliceScheduled = true;
  // unref'd: background packing never keeps a process alive. A timer, not setImmediate: an
  // unref'd immediate runs only when something else wakes the event loop
  setTimeout(packSlices, wait ? 20 : 0).unref();
}

function packSlices(): void {
  sliceScheduled = false;
  const deadline = performance.now() + SLICE_MS;
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
