/**
 * One request, one commit (docs/storage.md, "One request, one commit").
 *
 * A mutating request runs inside a CommitGroup (src/http/commit-hooks.ts opens it
 * before the handler and closes it in the last onSend hook). Every commit made in
 * its async context (the handler's records, the outbox rows of the events it
 * causes, its saved idempotency outcome) is applied to memory at once, as any
 * commit, but its journal line is held: at close the group's commits are written
 * as ONE journal line and made durable, and only then does the answer go out. A
 * crash before that line is whole leaves none of it; after, all of it.
 *
 * Inside a group a commit's promise resolves when it is applied, not when it is
 * durable: the handler that awaits it must not wait for its own close. Code that
 * must not act before durability (a webhook delivery) awaits `store.flush()`,
 * which waits for the groups open at the time of the call.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** What holds a group's lines: one per store file the group wrote to (file-writer.ts). */
export interface GroupHolder {
  /** the group's lines may be written now; resolves once they are durable */
  releaseGroup(group: CommitGroup): Promise<void>;
  /** the group's lines are never to be written (a request cut at the stop deadline) */
  dropGroup(group: CommitGroup): void;
}

/**
 * A group holding lines for longer than this is released as it stands: its
 * handler waits on something slow (a receiver, a timer) while every later commit
 * of the sandbox waits behind it. Its commits so far become one line, the rest
 * commit one by one. Real time, like fsync: durability, not emulated behaviour.
 */
export const GROUP_HOLD_LIMIT_MS = 1_000;

const groups = new AsyncLocalStorage<CommitGroup>();

export class CommitGroup {
  #closed = false;
  #dropped = false;
  readonly #holders = new Set<GroupHolder>();
  /** what releasing cost: awaited by close() */
  readonly #released: Promise<void>[] = [];
  #timer: NodeJS.Timeout | null = null;

  get open(): boolean {
    return !this.#closed;
  }

  /** whether any of its commits went to a file (else closing it waits for nothing) */
  get held(): boolean {
    return this.#holders.size > 0 || this.#released.length > 0;
  }

  /** A holder took one of this group's lines (the first time per holder). */
  holdIn(holder: GroupHolder): void {
    if (this.#holders.has(holder)) return;
    this.#holders.add(holder);
    if (!this.#timer) {
      this.#timer = setTimeout(() => this.release(), GROUP_HOLD_LIMIT_MS);
      this.#timer.unref();
    }
  }

  holds(holder: GroupHolder): boolean {
    return this.#holders.has(holder);
  }

  /**
   * Lets the group's lines be written, and ends the group: later commits in its
   * context commit on their own. Used by close(), by a replaceAll() (whose
   * snapshot must not wait for the request that asked for it), and by the hold limit.
   */
  release(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    for (const holder of this.#holders) this.#released.push(holder.releaseGroup(this));
    this.#holders.clear();
  }

  /**
   * A request cut at the stop deadline (src/http/drain.ts, answered 503): none of its lines is
   * written, and a commit its handler makes later in its context is refused (store.ts), so the
   * request is committed not at all.
   */
  drop(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#dropped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    for (const holder of this.#holders) holder.dropGroup(this);
    this.#holders.clear();
  }

  get dropped(): boolean {
    return this.#dropped;
  }

  /** Releases the group and resolves once everything it committed is durable. */
  async close(): Promise<void> {
    this.release();
    await Promise.all(this.#released);
  }
}

/** Runs `fn` (and everything it starts) inside `group`. */
export function runInCommitGroup<T>(group: CommitGroup, fn: () => T): T {
  return groups.run(group, fn);
}

/** Whether the current async context is a request that was cut at the stop deadline (its group dropped). */
export function inDroppedGroup(): boolean {
  return groups.getStore()?.dropped === true;
}

/** The open group of the current async context, if any. */
export function currentCommitGroup(): CommitGroup | undefined {
  const group = groups.getStore();
  return group?.open ? group : undefined;
}

/**
 * For a request that commits in many steps on purpose (a seed of 50,000 bookings
 * in chunks): what it committed so far is released, and each later commit is
 * durable on its own, so the rest of the sandbox does not wait behind it.
 */
export function leaveCommitGroup(): void {
  currentCommitGroup()?.release();
}
