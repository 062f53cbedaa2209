import { AsyncLocalStorage } from 'node:async_hooks';
import { ClockTime } from './clock-time.ts';
import type { ClockChange, ClockMode, ClockSaver, ClockState, TimerLabel, TimerRun, WorkspaceClockState } from './clock-types.ts';
import { TimerQueue, type Timer } from './timer-queue.ts';

/**
 * The one clock. Nothing else in the sandbox reads Date.now(): rate limits,
 * idempotency retention, key expiry, OTP expiry, webhook backoff and gallery
 * jobs all read this clock and schedule on it, so tests and scenarios advance
 * time instead of sleeping.
 *
 * - real: wall time plus an offset (time travel with advance/set works too).
 * - manual: time moves only when advance() or set() is called.
 *
 * Workspace clocks (docs/architecture.md "Workspace clocks"): a
 * workspace's time is the global time plus that workspace's own advance.
 * The workspace a piece of code serves is carried by AsyncLocalStorage (set
 * by the /v1 auth hook, by control routes that act on a workspace, and by
 * timers), so `now()` needs no argument and no service had to change. A timer
 * belongs to the workspace it was scheduled under and runs when that
 * workspace's time reaches it: advancing one workspace runs only its timers
 * (clock-time.ts keeps where the time is, timer-queue.ts the timers, and
 * clock-types.ts the shapes named here).
 */
export type { ClockChange, ClockMode, ClockSaver, ClockState, TimerLabel, TimerRun, WorkspaceClockState } from './clock-types.ts';

/** the key of code that runs outside any workspace (AsyncLocalStorage holds no null) */
const GLOBAL = '';

export class Clock {
  private readonly time: ClockTime;
  private readonly timers = new TimerQueue((timer) => this.globalDue(timer));
  private readonly scope = new AsyncLocalStorage<string>();
  private wake: NodeJS.Timeout | undefined;
  private firing: Promise<void> = Promise.resolve();
  private save: ClockSaver = () => Promise.resolve();
  /** the lists recordRuns() fills while it moves the clock */
  private readonly recorders = new Set<TimerRun[]>();

  constructor(
    readonly mode: ClockMode,
    start?: number,
    wallClock: () => number = Date.now,
  ) {
    this.time = new ClockTime(mode, start, wallClock);
  }

  /**
   * Back to where the clock started (a sandbox reset): a manual clock
   * to its start time, a real clock to no time-travel offset. Pending timers stay.
   */
  restart(): ClockState {
    this.time.restart();
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
    await this.save([this.time.globalChange(this.time.rewindTo(at))]);
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
   * Where a saved clock was (a start on a database file, docs/storage.md "The clock is saved"): the global
   * time, in this clock's own mode, and each workspace's own advance. The start
   * a reset goes back to is not changed, nor any timer.
   */
  restore(global: { atMs: number } | { wallOffsetMs: number }, workspaceOffsets: Iterable<readonly [string, number]>): void {
    this.time.restore(global, workspaceOffsets);
    this.arm();
  }

  /** The whole clock as changes to save: the global time, then every workspace's own advance. */
  changes(): ClockChange[] {
    return this.time.changes();
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
    return this.time.nowIn(workspaceId);
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
    const remove = this.timers.add(at, run, workspaceId, what);
    this.arm();
    return () => {
      remove();
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
    const target = global + this.time.offsetOf(workspaceId) + ms;
    // saved first (see ClockSaver): its own advance once it reaches target, never less than now
    const saved = this.save([{ workspaceId, offsetMs: Math.max(this.time.offsetOf(workspaceId), target - global) }]);
    saved.catch(() => undefined); // awaited below, once the timers have run
    for (;;) {
      const next = this.timers.first(workspaceId);
      if (!next || next.at > target) break;
      this.time.setWorkspaceNow(workspaceId, next.at, global);
      await this.fireDue();
    }
    this.time.setWorkspaceNow(workspaceId, target, global);
    await this.fireDue();
    await saved;
    return this.stateOf(workspaceId);
  }

  /**
   * The first timer that is not housekeeping: of one workspace, due on its own time, or (null)
   * of any workspace, due on the global time. What `clock advance --to-next` moves to.
   */
  nextDue(workspaceId: string | null): { dueMs: number; label: string; workspaceId: string | null } | undefined {
    return this.timers.nextDue(workspaceId);
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
    return { mode: this.mode, now: this.isoIn(null), nowMs: this.nowIn(null), pendingTimers: this.timers.count(null), advancedMs: this.time.advancedMs() };
  }

  stateOf(workspaceId: string): WorkspaceClockState {
    return {
      mode: this.mode,
      now: this.isoIn(workspaceId),
      nowMs: this.nowIn(workspaceId),
      pendingTimers: this.timers.count(workspaceId),
      advancedMs: this.time.advancedMs() + this.time.offsetOf(workspaceId),
      workspaceId,
      offsetMs: this.time.offsetOf(workspaceId),
    };
  }

  /** A deleted workspace: its timers are dropped and its own advance forgotten. */
  forget(workspaceId: string): void {
    this.timers.forget(workspaceId);
    this.time.forget(workspaceId);
    this.arm();
  }

  /** Stops the real-time wake-up; pending timers stay registered. */
  dispose(): void {
    if (this.wake) clearTimeout(this.wake);
    this.wake = undefined;
  }

  /**
   * The last step of a sandbox's stop: disables the AsyncLocalStorage that carries the
   * workspace. Node 20 keeps every enabled one, and runs each on every promise the process
   * creates, so a process that made and stopped many sandboxes (a test suite, a programmatic
   * user's) paid for all of them on each promise: the fast tier took 99 s of CPU with it, 77 s
   * without (docs/testing.md). A later run() enables it again.
   */
  release(): void {
    this.dispose();
    this.scope.disable();
  }

  /** The global time at which a timer falls due, given its workspace's advance. */
  private globalDue(timer: Timer): number {
    return timer.workspaceId ? timer.at - this.time.offsetOf(timer.workspaceId) : timer.at;
  }

  private async moveTo(target: number): Promise<ClockState> {
    // saved first (see ClockSaver); a real clock's saved offset may thus be ahead of where it
    // ends by the time its due timers took to run, never behind
    const saved = this.save([this.time.globalChange(Math.max(this.nowIn(null), target))]);
    saved.catch(() => undefined); // awaited below, once the timers have run
    // Timers fire at their own due time, so a timer that schedules another
    // (a webhook retry, say) sees the clock where it would have been.
    for (;;) {
      const next = this.timers.earliest();
      if (!next || this.globalDue(next) > target) break;
      this.time.setNow(Math.max(this.nowIn(null), this.globalDue(next)));
      await this.fireDue();
    }
    this.time.setNow(Math.max(this.nowIn(null), target));
    await this.fireDue();
    await saved;
    return this.state();
  }

  private fireDue(): Promise<void> {
    this.firing = this.firing.then(async () => {
      for (;;) {
        const timer = this.timers.earliest();
        if (!timer || this.nowIn(timer.workspaceId) < timer.at) break;
        this.timers.takeFirst(timer);
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
    const next = this.timers.earliest();
    if (!next) return;
    const delay = Math.max(0, Math.min(this.globalDue(next) - this.nowIn(null), 2 ** 31 - 1));
    this.wake = setTimeout(() => void this.fireDue(), delay);
    this.wake.unref();
  }
}

function checkMs(ms: number): void {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError('ms must be a non-negative number');
}
