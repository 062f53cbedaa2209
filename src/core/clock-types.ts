/**
 * What the clock (clock.ts) says and is given: its modes, the shapes of its
 * state, what a move leaves to save, and what a timer is called. Apart from
 * the clock so that a reader of these shapes (the saved clock, the control
 * plane's answers) need not open its scheduling.
 */
export type ClockMode = 'real' | 'manual';

/**
 * What a clock change leaves to save with the data (src/core/saved-clock.ts,
 * docs/storage.md "The clock is saved"): the global time (a real clock's offset from wall time with it),
 * or one workspace's own advance.
 */
export type ClockChange = { workspaceId: null; mode: ClockMode; nowMs: number; offsetMs: number } | { workspaceId: string; offsetMs: number };

/**
 * Saves changes. It must apply them at once, before it returns (as Store.commit does, then
 * resolves when durable): a change is handed over before the clock moves, so every write a
 * due timer makes while the clock moves is journaled after the time it is dated at.
 */
export type ClockSaver = (changes: readonly ClockChange[]) => Promise<void>;

/**
 * What a timer is, for `clock advance --to-next`: a label people read ("webhook
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

export interface ClockState {
  mode: ClockMode;
  now: string;
  nowMs: number;
  pendingTimers: number;
  /**
   * How far advance and set have moved the clock from where it started (`sandbox clock`
   * shows it); back to 0 after a reset. A workspace's adds its own advance.
   */
  advancedMs: number;
}

export interface WorkspaceClockState extends ClockState {
  workspaceId: string;
  /** this workspace's own advance on top of the global clock */
  offsetMs: number;
}
