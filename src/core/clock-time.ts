import type { ClockChange, ClockMode } from './clock-types.ts';

/**
 * Where the clock's time is; clock.ts moves it and runs what falls due. The
 * global time is kept by a manual clock, and read by a real one from the wall
 * plus an offset (its time travel). A workspace's time is the global time plus
 * that workspace's own advance. Also where the clock started, which a reset
 * goes back to, and the whole of it as changes to save (saved-clock.ts).
 */
export class ClockTime {
  private offset = 0;
  private manualNow: number;
  /** each workspace's own advance on top of the global time */
  private readonly offsets = new Map<string, number>();
  private readonly initial: { manualNow: number; offset: number };

  constructor(
    readonly mode: ClockMode,
    start: number | undefined,
    private readonly wallClock: () => number,
  ) {
    this.manualNow = start ?? Date.UTC(2026, 0, 15, 9, 0, 0);
    if (mode === 'real' && start !== undefined) this.offset = start - wallClock();
    this.initial = { manualNow: this.manualNow, offset: this.offset };
  }

  /** The time of one workspace (null: the global clock). */
  nowIn(workspaceId: string | null): number {
    const global = this.mode === 'manual' ? this.manualNow : this.wallClock() + this.offset;
    return workspaceId ? global + this.offsetOf(workspaceId) : global;
  }

  /** A workspace's own advance on top of the global time. */
  offsetOf(workspaceId: string): number {
    return this.offsets.get(workspaceId) ?? 0;
  }

  /** Puts the global time at `value`; the caller sees that it never goes back past a timer that ran. */
  setNow(value: number): void {
    if (this.mode === 'manual') this.manualNow = value;
    else this.offset = value - this.wallClock();
  }

  /** Moves a workspace's time to `value` (`global` read once for a whole move); never backwards. */
  setWorkspaceNow(workspaceId: string, value: number, global = this.nowIn(null)): void {
    const offset = value - global;
    if (offset > this.offsetOf(workspaceId)) this.offsets.set(workspaceId, offset);
  }

  /** A manual clock's time back to `at`, if that is earlier; returns the time it is at. */
  rewindTo(at: number): number {
    this.manualNow = Math.min(this.manualNow, at);
    return this.manualNow;
  }

  /** Back to where the clock started: a manual clock to its start time, a real clock to no time-travel offset. */
  restart(): void {
    this.manualNow = this.initial.manualNow;
    this.offset = this.initial.offset;
  }

  /** Where a saved clock was: the global time, in this clock's own mode, and each workspace's own advance. */
  restore(global: { atMs: number } | { wallOffsetMs: number }, workspaceOffsets: Iterable<readonly [string, number]>): void {
    const at = 'atMs' in global ? global.atMs : this.wallClock() + global.wallOffsetMs;
    if (this.mode === 'manual') this.manualNow = at;
    else this.offset = 'wallOffsetMs' in global ? global.wallOffsetMs : at - this.wallClock();
    this.offsets.clear();
    for (const [workspaceId, offset] of workspaceOffsets) this.offsets.set(workspaceId, offset);
  }

  /** A workspace's own advance is forgotten (it was deleted). */
  forget(workspaceId: string): void {
    this.offsets.delete(workspaceId);
  }

  /** The whole clock as changes to save: the global time, then every workspace's own advance. */
  changes(): ClockChange[] {
    // one reading of the wall clock: a real clock's saved offset is its offset, exactly
    const wall = this.wallClock();
    const global = this.globalChange(this.mode === 'manual' ? this.manualNow : wall + this.offset, wall);
    return [global, ...[...this.offsets].map(([workspaceId, offsetMs]) => ({ workspaceId, offsetMs }))];
  }

  globalChange(nowMs: number, wall = this.wallClock()): ClockChange {
    // a manual clock has no offset from wall time (and a saved one thus no wall time in it)
    return { workspaceId: null, mode: this.mode, nowMs, offsetMs: this.mode === 'manual' ? 0 : nowMs - wall };
  }

  /** The global clock's travel from its start: a manual clock's moves, a real clock's offset added since. */
  advancedMs(): number {
    return this.mode === 'manual' ? this.manualNow - this.initial.manualNow : this.offset - this.initial.offset;
  }
}
