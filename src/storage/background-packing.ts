/**
 * Packing a loaded file's large partitions a few milliseconds at a time
 * (packed-rows.ts, `adopt(rows, 'background')`): packing 100k bookings' rows
 * takes seconds, which a start should not wait for (docs/storage.md).
 */

/** A partition packed in the background: 'busy' while a walk over it is in progress. */
export interface PacksInSlices {
  packSlice(deadline: number): 'done' | 'more' | 'busy';
}

/** background packing works in slices of this much, between other work */
const SLICE_MS = 4;

/** Partitions with rows to pack in the background (held weakly: a replaced one is simply dropped). */
const behind = new Set<WeakRef<PacksInSlices>>();
let sliceScheduled = false;

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
}

/** Packs `rows` in slices until its slice says it is done. */
export function packInBackground(rows: PacksInSlices): void {
  behind.add(new WeakRef(rows));
  scheduleSlice(false);
}

/** Resolves once no partition has rows waiting to be packed in the background (tests, benchmarks). */
export async function packedInBackground(): Promise<void> {
  while (behind.size > 0) await new Promise((resolve) => setTimeout(resolve, 5));
}
