import type { TimerLabel } from './clock-types.ts';

/** One scheduled run: due when its workspace's time (the global time, for null) reaches `at`. */
export type Timer = { id: number; at: number; run: () => unknown; workspaceId: string | null } & TimerLabel;

/** the key of timers scheduled outside any workspace */
const GLOBAL = '';

/**
 * The clock's pending timers (clock.ts), one list per workspace, each sorted by
 * its own due time: a workspace's advance runs only its own list, in order. Which
 * timer is due first across workspaces depends on each one's own advance, which
 * the clock keeps: it is asked through `globalDue`.
 */
export class TimerQueue {
  readonly #lists = new Map<string, Timer[]>();
  #nextId = 1;

  constructor(private readonly globalDue: (timer: Timer) => number) {}

  /** Files a timer in its workspace's list, after those due at the same time; returns what takes it out. */
  add(at: number, run: () => unknown, workspaceId: string | null, what: TimerLabel): () => void {
    const key = workspaceId ?? GLOBAL;
    const timer: Timer = { id: this.#nextId++, at, run, workspaceId: workspaceId || null, ...what };
    let list = this.#lists.get(key);
    if (!list) this.#lists.set(key, (list = []));
    const index = list.findIndex((t) => t.at > at);
    if (index === -1) list.push(timer);
    else list.splice(index, 0, timer);
    return () => {
      const current = this.#lists.get(key);
      const i = current?.indexOf(timer) ?? -1;
      if (i >= 0) current!.splice(i, 1);
    };
  }

  /** The first timer of one workspace, on its own time. */
  first(workspaceId: string): Timer | undefined {
    return this.#lists.get(workspaceId)?.[0];
  }

  /** The timer that falls due first in global time. */
  earliest(): Timer | undefined {
    let best: Timer | undefined;
    for (const list of this.#lists.values()) {
      const head = list[0];
      if (head && (!best || this.globalDue(head) < this.globalDue(best))) best = head;
    }
    return best;
  }

  /** Takes the first timer of `timer`'s workspace out, to run it (earliest() answered it). */
  takeFirst(timer: Timer): void {
    this.#lists.get(timer.workspaceId ?? GLOBAL)!.shift();
  }

  /**
   * The first timer that is not housekeeping: of one workspace, due on its own time, or (null)
   * of any workspace, due on the global time. What `clock advance --to-next` moves to.
   */
  nextDue(workspaceId: string | null): { dueMs: number; label: string; workspaceId: string | null } | undefined {
    const timers = workspaceId ? (this.#lists.get(workspaceId) ?? []) : [...this.#lists.values()].flat();
    let best: { dueMs: number; label: string; workspaceId: string | null } | undefined;
    for (const timer of timers) {
      if (timer.housekeeping) continue;
      const dueMs = workspaceId ? timer.at : this.globalDue(timer);
      if (!best || dueMs < best.dueMs) best = { dueMs, label: timer.label, workspaceId: timer.workspaceId };
    }
    return best;
  }

  /** Timers pending: of one workspace, or of all (null). */
  count(workspaceId: string | null): number {
    if (workspaceId !== null) return this.#lists.get(workspaceId)?.length ?? 0;
    let pending = 0;
    for (const list of this.#lists.values()) pending += list.length;
    return pending;
  }

  /** A deleted workspace's timers are dropped. */
  forget(workspaceId: string): void {
    this.#lists.delete(workspaceId);
  }
}
