import type { StoreChange } from './types.ts';

/**
 * A change listener (an index, a cache, the auth key table) runs inside
 * commit(), after the write is applied: if it throws, the write stands and
 * the commit must not fail, but what that listener keeps may now be stale.
 * That is always a bug in the listener, never an expected event, so it is
 * reported naming the rows (collection, workspace, id) it choked on, in one
 * line. The report goes through a replaceable handler: the test setup
 * (test/setup/listener-errors.ts) turns it into a failure of the running test,
 * where a line on stderr went unnoticed.
 */
export interface ListenerFailure {
  readonly error: unknown;
  readonly change: StoreChange;
  /** the one-line report */
  readonly message: string;
}

export type ListenerErrorHandler = (failure: ListenerFailure) => void;

/** The production report: the one line on stderr. */
export const reportToConsole: ListenerErrorHandler = (failure) => console.error(failure.message);
let handler: ListenerErrorHandler = reportToConsole;

/** Sets how a failing change listener is reported (default: one line on stderr); returns the handler it replaces. */
export function onListenerError(next: ListenerErrorHandler): ListenerErrorHandler {
  const previous = handler;
  handler = next;
  return previous;
}

/** Called by a store's emit when `listener(change)` threw `error`. */
export function reportListenerError(error: unknown, change: StoreChange): void {
  handler({ error, change, message: listenerFailureMessage(error, change) });
}

/** How many rows a report names before it says "and N more". */
const NAMED_ROWS = 3;

export function listenerFailureMessage(error: unknown, change: StoreChange): string {
  const where = changedRows(change);
  const err = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const frame = error instanceof Error ? /\n\s+at (.+)/.exec(error.stack ?? '')?.[1] : undefined;
  return `[storage] a change listener threw on ${where}: ${err.split('\n')[0]}${frame ? ` (at ${frame})` : ''}; the write is applied, but what that listener keeps (an index, a cache) may be stale. This is a bug in the listener`;
}

/** `put people ws_1/ppl_2`, the first few of a change's rows; a replacement is named as one. */
function changedRows(change: StoreChange): string {
  if (change.kind === 'replaced') return 'the replacement of the whole store (reset, restore, import or a hand edit)';
  const named = change.ops.slice(0, NAMED_ROWS).map((op) => `${op.type} ${op.collection} ${op.workspaceId}/${op.type === 'put' ? op.row.id : op.id}`);
  const more = change.ops.length - named.length;
  return `${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}
