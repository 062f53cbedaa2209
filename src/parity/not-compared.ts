import { redactShapes } from '../core/redact.ts';
import type { Exchange, NotCompared, NotComparedNote } from './types.ts';

/**
 * The report's requests that were forwarded but not compared, each with its one reason
 * (docs/parity.md, "Reading the report"), one line per (reason, method, path template) with a
 * count, like the differences: a thousand huge exports are one line. A client can grow the lines
 * (paths no route has keep their words), so they are bounded too; past the bound a request still
 * counts, on one line per reason for every other operation, so that `requests` is always
 * `compared` plus the counts of these lines.
 */

/** distinct (reason, method, path) lines; past it, a request counts on its reason's `* *` line */
export const NOT_COMPARED_LINES = 500;
/** the method and path of a reason's line for the operations past the bound */
export const OTHER_OPERATIONS = '*';

export class NotComparedLines {
  readonly #lines = new Map<string, NotCompared>();

  /** Counts one request, on its operation's line, or past the bound on its reason's line for every other operation. */
  note(method: string, path: string, requestId: string, given: NotComparedNote): void {
    // a sentence may quote what a client sent (an id that holds a key) or an error: never a secret in the report
    const note = { ...given, detail: redactShapes(given.detail) };
    const key = JSON.stringify([note.reason, method, path]);
    const known = this.#lines.get(key) ?? (this.#lines.size >= NOT_COMPARED_LINES ? this.#overflow(note, requestId) : undefined);
    if (known) {
      known.count++;
      // the largest seen, and its sentence
      if (note.bytes !== undefined && (known.bytes === undefined || note.bytes > known.bytes)) {
        known.bytes = note.bytes;
        if (known.method !== OTHER_OPERATIONS) known.detail = note.detail;
      }
      return;
    }
    this.#lines.set(key, {
      reason: note.reason,
      method,
      path,
      count: 1,
      requestId,
      ...(note.bytes !== undefined ? { bytes: note.bytes } : {}),
      detail: note.detail,
    });
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

  /** The reason's line for the operations past the bound (at most one per reason), made with a count of 0 on first use. */
  #overflow(note: NotComparedNote, requestId: string): NotCompared {
    const key = JSON.stringify([note.reason, OTHER_OPERATIONS, OTHER_OPERATIONS]);
    let line = this.#lines.get(key);
    if (!line) {
      line = {
        reason: note.reason,
        method: OTHER_OPERATIONS,
        path: OTHER_OPERATIONS,
        count: 0,
        requestId,
        detail: `requests of operations past the report's ${NOT_COMPARED_LINES} lines, counted together; the first: ${note.detail}`,
      };
      this.#lines.set(key, line);
    }
    return line;
  }
}

/**
 * Why the recorder does not compare an exchange the proxy handed it whole, or null when it does.
 * An error answer is compared like any other: an exchange with an unknown id still is when both
 * sides answered the same error status, so that their error bodies (`code`, `error`) are.
 */
export function whyNotCompared(exchange: Exchange): NotComparedNote | null {
  const { target, sandbox } = exchange;
  if (exchange.learned)
    return {
      reason: 'learned',
      detail: "learned: the sandbox did not hold the record and learned it from the target's answer; the calls after it are compared",
    };
  if (sandbox === null) return exchange.unknownIds.length > 0 ? unknownIdNote(exchange, null) : { reason: 'no-replay', detail: 'not replayed in the sandbox' };
  if (target.status === 429 || sandbox.status === 429) {
    const who = target.status === sandbox.status ? 'both sides' : target.status === 429 ? 'the target' : 'the sandbox';
    return { reason: 'rate-limited', detail: `rate-limited: ${who} answered 429; the target's budget is not the sandbox's` };
  }
  const sameError = target.status >= 400 && sandbox.status === target.status;
  if (exchange.unknownIds.length > 0 && !sameError) return unknownIdNote(exchange, sandbox.status);
  return null;
}

function unknownIdNote(exchange: Exchange, sandboxStatus: number | null): NotComparedNote {
  const [first, ...more] = exchange.unknownIds;
  const ids = more.length > 0 ? `${first} (and ${more.length} more)` : first;
  const answered = sandboxStatus === null ? '' : `; the sandbox answered ${sandboxStatus}, the target ${exchange.target.status}`;
  return { reason: 'unknown-id', detail: `unknown-id: it carries ${ids}, which the sandbox neither holds nor could learn${answered}` };
}
