/**
 * The one clock. Nothing else in the sandbox reads Date.now(): rate limits,
 * idempotency retention, key expiry, OTP expiry, webhook backoff and gallery
 * jobs all read this clock and schedule on it, so tests and scenarios advance
 * time instead of sleeping.
 *
 * - real: wall time plus an offset (time travel with advance/set works too).
 * - manual: time moves only when advance() or set() is called.
 */
export type ClockMode = 'real' | 'manual';

type Timer = { id: number; at: number; run: () => unknown };

export interface ClockState {
  mode: ClockMode;
  now: string;
  nowMs: number;
  pendingTimers: number;
}

export class Clock {
  private offset = 0;
  private manualNow: number;
  private timers: Timer[] = [];
  private nextId = 1;
  private wake: NodeJS.Timeout | undefined;
  private firing: Promise<void> = Promise.resolve();

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
  rewindTo(at: number): ClockState {
    if (this.mode !== 'manual') throw new RangeError('a real clock cannot go backwards');
    this.manualNow = Math.min(this.manualNow, at);
    return this.state();
  }

  now(): number {
    return this.mode === 'manual' ? this.manualNow : this.wallClock() + this.offset;
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** Run `run` once the clock reaches `at` (ms). Returns a cancel function. */
  schedule(at: number, run: () => unknown): () => void {
    const timer: Timer = { id: this.nextId++, at, run };
    const index = this.timers.findIndex((t) => t.at > at);
    if (index === -1) this.timers.push(timer);
    else this.timers.splice(index, 0, timer);
    this.arm();
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
      this.arm();
    };
  }

  /** Moves time forward and runs, in order, every timer that falls due. */
  async advance(ms: number): Promise<ClockState> {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('ms must be a non-negative number');
    return this.moveTo(this.now() + ms);
  }

  /** Jumps to an absolute time; never backwards past already-fired timers. */
  async set(at: number): Promise<ClockState> {
    return this.moveTo(at);
  }

  state(): ClockState {
    return { mode: this.mode, now: this.iso(), nowMs: this.now(), pendingTimers: this.timers.length };
  }

  /** Stops the real-time wake-up; pending timers stay registered. */
  dispose(): void {
    if (this.wake) clearTimeout(this.wake);
    this.wake = undefined;
  }

  private async moveTo(target: number): Promise<ClockState> {
    // Timers fire at their own due time, so a timer that schedules another
    // (a webhook retry, say) sees the clock where it would have been.
    for (;;) {
      const next = this.timers[0];
      if (!next || next.at > target) break;
      this.setNow(Math.max(this.now(), next.at));
      await this.fireDue();
    }
    this.setNow(Math.max(this.now(), target));
    await this.fireDue();
    return this.state();
  }

  private setNow(value: number): void {
    if (this.mode === 'manual') this.manualNow = value;
    else this.offset = value - this.wallClock();
  }

  private fireDue(): Promise<void> {
    this.firing = this.firing.then(async () => {
      const now = this.now();
      while (this.timers[0] && this.timers[0].at <= now) {
        const timer = this.timers.shift()!;
        try {
          await timer.run();
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
    const next = this.timers[0];
    if (!next) return;
    const delay = Math.max(0, Math.min(next.at - this.now(), 2 ** 31 - 1));
    this.wake = setTimeout(() => void this.fireDue(), delay);
    this.wake.unref();
  }
}
