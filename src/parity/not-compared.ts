import type { NotCompared, NotComparedNote } from './types.ts';

/**
 * The report's requests that were forwarded and replayed but not compared (an answer too large
 * to compare, docs/parity.md, "Bounds on what a target sends"), one line per (reason, method,
 * path template) with a count, like the differences: a thousand huge exports are one line. A
 * client can grow the lines (paths no route has keep their words), so they are bounded too.
 */

/** distinct (reason, method, path) lines; past it the report counts the request in `omitted` */
export const NOT_COMPARED_LINES = 500;

export class NotComparedLines {
  readonly #lines = new Map<string, NotCompared>();

  /** Counts one request; false when it makes a new line past the bound (not kept). */
  note(method: string, path: string, requestId: string, note: NotComparedNote): boolean {
    const key = JSON.stringify([note.reason, method, path]);
    const known = this.#lines.get(key);
    if (known) {
      known.count++;
      // the largest seen, and its sentence
      if (note.bytes !== undefined && (known.bytes === undefined || note.bytes > known.bytes)) {
        known.bytes = note.bytes;
        known.detail = note.detail;
      }
      return true;
    }
    if (this.#lines.size >= NOT_COMPARED_LINES) return false;
    this.#lines.set(key, {
      reason: note.reason,
      method,
      path,
      count: 1,
      requestId,
      ...(note.bytes !== undefined ? { bytes: note.bytes } : {}),
      detail: note.detail,
    });
    return true;
  }

  /** Most frequent first, then by operation, so the order is stable; copies. */
  list(): NotCompared[] {
    return [...this.#lines.values()]
      .map((line) => ({ ...line }))
      .sort((a, b) => b.count - a.count || a.path.localeCompare(b.path) || a.method.localeCompare(b.method) || a.reason.localeCompare(b.reason));
  }

  clear(): void {
    this.#lines.clear();
  }
}
