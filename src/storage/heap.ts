/**
 * A full garbage collection once a bulk write has settled (docs/benchmarks.md
 * "Memory"). Seeding 100k bookings allocates several times what it keeps (the
 * generator's drafts, each row's JSON for its page, large-files/packed-rows.ts); V8 keeps
 * the heap it grew to, ~125 MiB committed for ~30 MiB live, until a later full
 * GC that an idle sandbox may never reach, and its memory reducer did not run in
 * 10 s of idleness. So a large seed asks for one full GC when no other seed has
 * followed it for a moment: with the rows packed, the live heap is small and the
 * pause short (measured in docs/benchmarks.md). V8's gc() is reached by
 * exposing it to a new context; where that fails, nothing is done.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** rows written by bulk runs since the last collection from which another is worth it */
export const BULK_ROWS = 20_000;
/** quiet time after the last bulk run: `sandbox seed` sends its runs back to back */
export const SETTLE_MS = 300;

let gc: (() => void) | null | undefined;

/** True once --expose-gc has been set in this process (src/cli/young-generation.ts puts it back to write a code cache). */
export function gcExposed(): boolean {
  return gc !== undefined;
}

/** V8's gc(), or null where it cannot be had. */
export function gcFunction(): (() => void) | null {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as () => void;
    } catch {
      gc = null;
    }
  }
  return gc;
}

/** Collects once bulk runs that wrote at least BULK_ROWS rows in all have been quiet for SETTLE_MS. */
export class BulkCollector {
  #pending: NodeJS.Timeout | null = null;
  /** rows written by bulk runs since the last collection (a large run then a small one still collect) */
  #written = 0;

  constructor(private readonly collect: () => void) {}

  /** A bulk run starts: a collection scheduled by the previous one waits for this one. */
  started(): void {
    if (this.#pending) clearTimeout(this.#pending);
    this.#pending = null;
  }

  /** A bulk run has written `rows`. */
  ended(rows: number): void {
    this.started();
    this.#written += rows;
    if (this.#written < BULK_ROWS) return;
    this.#pending = setTimeout(() => {
      this.#pending = null;
      this.#written = 0;
      this.collect();
    }, SETTLE_MS);
    this.#pending.unref();
  }
}

/**
 * The process's collector. One collection (~30 ms at 100k bookings); a second
 * one would move the survivors off fragmented pages for ~45 MiB more, but pause
 * ~45 ms (docs/benchmarks.md).
 */
export const bulkRuns = new BulkCollector(() => gcFunction()?.());
