import { reportListenerError } from './listener-errors.ts';
import { OVERLAYS_COLLECTION } from './overlay-records.ts';
import { GLOBAL_PARTITION, type Op, type StoreChange } from './types.ts';

/**
 * A store's change listeners (Store.onChange): indexes, caches and the auth key
 * table keep themselves up to date from it, synchronously inside commit(). A
 * listener's throw never breaks a commit that is already applied: it is a bug,
 * reported (listener-errors.ts). The engine (store.ts) and the copy-on-write
 * view over it (overlay-store.ts) each keep one.
 */
export class ChangeFeed {
  readonly #listeners = new Set<(change: StoreChange) => void>();

  /** Adds a listener; returns what removes it. */
  listen(listener: (change: StoreChange) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  emit(change: StoreChange): void {
    if (this.#listeners.size === 0) return;
    // a copy: a listener may remove itself (or add another) while the change goes round
    for (const listener of Array.from(this.#listeners)) {
      try {
        listener(change);
      } catch (err) {
        reportListenerError(err, change);
      }
    }
  }
}

/**
 * The created workspace whose rows all change with this op, or undefined. An op on a created
 * workspace's overlay row (the workspace created, reset or deleted) makes its template's rows
 * appear or go without a change per row (overlay-store.ts): a listener that keeps something per
 * workspace drops that workspace's, to be built again when next asked.
 */
export function workspaceReplacedBy(op: Op): string | undefined {
  if (op.collection !== OVERLAYS_COLLECTION || op.workspaceId !== GLOBAL_PARTITION) return undefined;
  return op.type === 'put' ? op.row.id : op.id;
}
