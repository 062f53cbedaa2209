import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The one clock. Nothing else in the sandbox reads Date.now(): rate limits,
 * idempotency retention, key expiry, OTP expiry, webhook backoff and gallery
 * jobs all read this clock and schedule on it, so tests and scenarios advance
 * time instead of sleeping.
 *
 * - real: wall time plus an offset (time travel with advance/set works too).
 * - manual: time moves only when advance() or set() is called.
 *
 * Workspace clocks (issue 12, docs/architecture.md "Workspace clocks"): a
 * workspace's time is the global time plus that workspace's own advance.
 * The workspace a piece of code serves is carried by AsyncLocalStorage (set
 * by the /v1 auth hook, by control routes that act on a workspace, and by
 * timers), so `now()` needs no argument and no service had to change. A timer
 * belongs to the workspace it was scheduled under and runs when that
 * workspace's time reaches it: advancing one workspace runs only its timers.
 */
export type ClockMode = 'real' | 'manual';

/**
 * What a clock change leaves to save with the data (src/core/saved-clock.ts,
 * issue 35): the global time (a real clock's offset from wall time with it),
 * or one workspace's own advance.
 */
export type ClockChange =
  | { workspaceId: null; mode: ClockMode; nowMs: number; offsetMs: number }
  | { workspaceId: string; offsetMs: number };

/**
 * Saves changes. It must apply them at once, before it returns (as Store.commit does, then
 * resolves when durable): a change is handed over before the clock moves, so every write a
 * due timer makes while the clock moves is journaled after the time it is dated at.
 */
export type ClockSaver = (changes: readonly ClockChange[]) => Promise<void>;

/**
 * What a timer is, for `clock advance --to-next` (issue 38): a label people read ("webhook
 * retry dlv_..."), and whether it is housekeeping (a periodic sweep), which --to-next does not stop at.
 */
export interface TimerLabel {
  label: string;
  housekeeping?: boolean;
}

/** A timer that ran: what it was, its workspace, and when it fell due (its workspace's time). */
export interface TimerRun {
  label: string;
  workspaceId: string | null;
  atMs: number;
}

type Timer = { id: number; at: number; run: () => unknown; workspaceId: string | null } & TimerLabel;

export interface ClockState {
  mode: ClockMode;
  now: string;
  nowMs: number;
  pendingTimers: number;
  /**
   * How far advance and set have moved the clock from where it started (issue 37: `sandbox clock`
   * shows it); back to 0 after a reset. A workspace's adds its own advance.
   */
  advancedMs: number;
}

export interface WorkspaceClockState extends ClockState {
  workspaceId: string;
  /** this workspace's own advance on top of the global clock */
  offsetMs: number;
}

/** the key of timers scheduled outside any workspace */
const GLOBAL = '';

export class Clock {
  private offset = 0;
  private manualNow: number;
  /** per workspace (GLOBAL for none): timers sorted by their own due time */
  private timers = new Map<string, Timer[]>();
  private readonly offsets = new Map<string, number>();
  private readonly scope = new AsyncLocalStorage<string>();
  private nextId = 1;
  private wake: NodeJS.Timeout | undefined;
  private firing: Promise<void> = Promise.resolve();
  private save: ClockSaver = () => Promise.resolve();
  /** the lists recordRuns() fills while it moves the clock */
  private readonly recorders = new Set<TimerRun[]>();

  constructor(
    readonly mode: ClockMode,
    start?: number,
    private readonly wallClock: () => number = Date.now,
  ) {
    this.manualNow = start ?? Date.UTC(2026, 0, 15, 9, 0, 0);
    if (mode === 'real' && start !== undefined) this.offset = start - wallClock();
    this.initial = { manualNow: this.manualNow, offset: this.offset };
  }

  private readonly initial: { manualNow: number; offset: number };

  /**
   * Back to where the clock started (a sandbox reset, issue 15): a manual clock
   * to its start time, a real clock to no time-travel offset. Pending timers stay.
   */
  restart(): ClockState {
    this.manualNow = this.initial.manualNow;
    this.offset = this.initial.offset;
    this.arm();
    return this.state();
  }

  /**
   * A manual clock may be set backwards: no timer runs, and timers already run
   * do not run again; pending ones fire when the clock reaches them once more.
   * A real clock never goes back (its timers are tied to wall time).
   */
  async rewindTo(at: number): Promise<ClockState> {
    if (this.mode !== 'manual') throw new RangeError('a real clock cannot go backwards');
    this.manualNow = Math.min(this.manualNow, at);
    await this.save([this.globalChange(this.manualNow)]);
    return this.state();
  }

  /**
   * Every move from now on (advance, set, a workspace's advance, a rewind) is
   * handed to `save` and answered once it is saved (src/core/saved-clock.ts).
   * A restart is not: the reset that restarts the clock saves it with its state.
   */
  saveWith(save: ClockSaver): void {
    this.save = save;
  }

  /**
   * Where a saved clock was (a start on a database file, issue 35): the global
   * time, in this clock's own mode, and each workspace's own advance. The start
   * a reset goes back to is not changed, nor any timer.
   */
  restore(global: { atMs: number } | { wallOffsetMs: number }, workspaceOffsets: Iterable<readonly [string, number]>): void {
    const at = 'atMs' in global ? global.atMs : this.wallClock() + global.wallOffsetMs;
    if (this.mode === 'manual') this.manualNow = at;
    else this.offset = 'wallOffsetMs' in global ? global.wallOffsetMs : at - this.wallClock();
    this.offsets.clear();
    for (const [workspaceId, offset] of workspaceOffsets) this.offsets.set(workspaceId, offset);
    this.arm();
  }

  /** The whole clock as changes to save: the global time, then every workspace's own advance. */
  changes(): ClockChange[] {
    // one reading of the wall clock: a real clock's saved offset is its offset, exactly
    const wall = this.wallClock();
    const global = this.globalChange(this.mode === 'manual' ? this.manualNow : wall + this.offset, wall);
    return [global, ...[...this.offsets].map(([workspaceId, offsetMs]) => ({ workspaceId, offsetMs }))];
  }

  /** The time of the workspace the current code serves (the global time outside any). */
  now(): number {
    return this.nowIn(this.current());
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** The time of one workspace (null: the global clock). */
  nowIn(workspaceId: string | null): number {
    const global = this.mode === 'manual' ? this.manualNow : this.wallClock() + this.offset;
    return workspaceId ? global + (this.offsets.get(workspaceId) ?? 0) : global;
  }

  isoIn(workspaceId: string | null): string {
    return new Date(this.nowIn(workspaceId)).toISOString();
  }

  /** The workspace the current code serves, or null. */
  current(): string | null {
    return this.scope.getStore() || null;
  }

  /** Runs `fn` (and everything asynchronous it starts) on `workspaceId`'s clock. */
  run<T>(workspaceId: string | null, fn: () => T): T {
    return this.scope.run(workspaceId ?? GLOBAL, fn);
  }

  /**
   * Run `run` once the clock of `workspaceId` (default: the current
   * workspace) reaches `at` (ms). Returns a cancel function.
   */
  schedule(at: number, run: () => unknown, workspaceId: string | null = this.current(), what: TimerLabel = { label: 'a timer' }): () => void {
    const key = workspaceId ?? GLOBAL;
    const timer: Timer = { id: this.nextId++, at, run, workspaceId: workspaceId || null, ...what };
    let list = this.timers.get(key);
    if (!list) this.timers.set(key, (list = []));
    const index = list.findIndex((t) => t.at > at);
    if (index === -1) list.push(timer);
    else list.splice(index, 0, timer);
    this.arm();
    return () => {
      const current = this.timers.get(key);
      const i = current?.indexOf(timer) ?? -1;
      if (i >= 0) current!.splice(i, 1);
      this.arm();
    };
  }

  /** Moves the global time (every workspace with it) and runs, in order, every timer that falls due. */
  async advance(ms: number): Promise<ClockState> {
    checkMs(ms);
    return this.moveTo(this.nowIn(null) + ms);
  }

  /** Jumps to an absolute global time; never backwards past already-fired timers. */
  async set(at: number): Promise<ClockState> {
    return this.moveTo(at);
  }

  /** Moves one workspace's time alone and runs its own timers that fall due, in order. */
  async advanceWorkspace(workspaceId: string, ms: number): Promise<WorkspaceClockState> {
    checkMs(ms);
    // one reading of the global clock for the whole move: on a real clock, a second reading a
    // millisecond later made an advance of 600000 ms an offset of 599999
    const global = this.nowIn(null);
    const target = global + (this.offsets.get(workspaceId) ?? 0) + ms;
    // saved first (see ClockSaver): its own advance once it reaches target, never less than now
    const saved = this.save([{ workspaceId, offsetMs: Math.max(this.offsets.get(workspaceId) ?? 0, target - global) }]);
    saved.catch(() => undefined); // awaited below, once the timers have run
    for (;;) {
      const next = this.timers.get(workspaceId)?.[0];
      if (!next || next.at > target) break;
      this.setWorkspaceNow(workspaceId, next.at, global);
      await this.fireDue();
    }
    this.setWorkspaceNow(workspaceId, target, global);
    await this.fireDue();
    await saved;
    return this.stateOf(workspaceId);
  }

  /**
   * The first timer that is not housekeeping: of one workspace, due on its own time, or (null)
   * of any workspace, due on the global time. What `clock advance --to-next` moves to.
   */
  nextDue(workspaceId: string | null): { dueMs: number; label: string; workspaceId: string | null } | undefined {
    const timers = workspaceId ? (this.timers.get(workspaceId) ?? []) : [...this.timers.values()].flat();
    let best: { dueMs: number; label: string; workspaceId: string | null } | undefined;
    for (const timer of timers) {
      if (timer.housekeeping) continue;
      const dueMs = workspaceId ? timer.at : this.globalDue(timer);
      if (!best || dueMs < best.dueMs) best = { dueMs, label: timer.label, workspaceId: timer.workspaceId };
    }
    return best;
  }

  /** Runs `move` and answers, beside its result, every timer that ran meanwhile, in order. */
  async recordRuns<T>(move: () => Promise<T>): Promise<{ result: T; ran: TimerRun[] }> {
    const ran: TimerRun[] = [];
    this.recorders.add(ran);
    try {
      return { result: await move(), ran };
    } finally {
      this.recorders.delete(ran);
    }
  }

  state(): ClockState {
    let pending = 0;
    for (const list of this.timers.values()) pending += list.length;
    return { mode: this.mode, now: this.isoIn(null), nowMs: this.nowIn(null), pendingTimers: pending, advancedMs: this.advancedMs() };
  }

  /** The global clock's travel from its start: a manual clock's moves, a real clock's offset added since. */
  private advancedMs(): number {
    return this.mode === 'manual' ? this.manualNow - this.initial.manualNow : this.offset - this.initial.offset;
  }

  stateOf(workspaceId: string): WorkspaceClockState {
    return {
      mode: this.mode,
      now: this.isoIn(workspaceId),
      nowMs: this.nowIn(workspaceId),
      pendingTimers: this.timers.get(workspaceId)?.length ?? 0,
      advancedMs: this.advancedMs() + (this.offsets.get(workspaceId) ?? 0),
      workspaceId,
      offsetMs: this.offsets.get(workspaceId) ?? 0,
    };
  }

  /** A deleted workspace: its timers are dropped and its own advance forgotten. */
  forget(workspaceId: string): void {
    this.timers.delete(workspaceId);
    this.offsets.delete(workspaceId);
    this.arm();
  }

  /** Stops the real-time wake-up; pending timers stay registered. */
  dispose(): void {
    if (this.wake) clearTimeout(this.wake);
    this.wake = undefined;
  }

  /** The global time at which a timer falls due, given its workspace's advance. */
  private globalDue(timer: Timer): number {
    return timer.workspaceId ? timer.at - (this.offsets.get(timer.workspaceId) ?? 0) : timer.at;
  }

  /** The timer that falls due first in global time. */
  private earliest(): Timer | undefined {
    let best: Timer | undefined;
    for (const list of this.timers.values()) {
      const head = list[0];
      if (head && (!best || this.globalDue(head) < this.globalDue(best))) best = head;
    }
    return best;
  }

  private async moveTo(target: number): Promise<ClockState> {
    // saved first (see ClockSaver); a real clock's saved offset may thus be ahead of where it
    // ends by the time its due timers took to run, never behind
    const saved = this.save([this.globalChange(Math.max(this.nowIn(null), target))]);
    saved.catch(() => undefined); // awaited below, once the timers have run
    // Timers fire at their own due time, so a timer that schedules another
    // (a webhook retry, say) sees the clock where it would have been.
    for (;;) {
      const next = this.earliest();
      if (!next || this.globalDue(next) > target) break;
      this.setNow(Math.max(this.nowIn(null), this.globalDue(next)));
      await this.fireDue();
    }
    this.setNow(Math.max(this.nowIn(null), target));
    await this.fireDue();
    await saved;
    return this.state();
  }

  private globalChange(nowMs: number, wall = this.wallClock()): ClockChange {
    // a manual clock has no offset from wall time (and a saved one thus no wall time in it)
    return { workspaceId: null, mode: this.mode, nowMs, offsetMs: this.mode === 'manual' ? 0 : nowMs - wall };
  }

  private setNow(value: number): void {
    if (this.mode === 'manual') this.manualNow = value;
    else this.offset = value - this.wallClock();
  }

  private setWorkspaceNow(workspaceId: string, value: number, global = this.nowIn(null)): void {
    const offset = value - global;
    if (offset > (this.offsets.get(workspaceId) ?? 0)) this.offsets.set(workspaceId, offset);
  }

  private fireDue(): Promise<void> {
    this.firing = this.firing.then(async () => {
      for (;;) {
        const timer = this.earliest();
        if (!timer || this.nowIn(timer.workspaceId) < timer.at) break;
        this.timers.get(timer.workspaceId ?? GLOBAL)!.shift();
        for (const ran of this.recorders) ran.push({ label: timer.label, workspaceId: timer.workspaceId, atMs: timer.at });
        try {
          await this.run(timer.workspaceId, timer.run);
        } catch {
          // a failing timer must not stop the others; its owner logs its own errors
        }
      }
      this.arm();
    });
    return this.firing;
  }

  private arm(): void {
    if (this.mode !== 'real') return;
    if (this.wake) clearTimeout(this.wake);
    this.wake = undefined;
    const next = this.earliest();
    if (!next) return;
    const delay = Math.max(0, Math.min(this.globalDue(next) - this.nowIn(null), 2 ** 31 - 1));
    this.wake = setTimeout(() => void this.fireDue(), delay);
    this.wake.unref();
  }
}

function checkMs(ms: number): void {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError('ms must be a non-negative number');
}
