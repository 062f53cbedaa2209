import { z } from 'zod';
import {
  defineCollection,
  GLOBAL_PARTITION,
  isDeferred,
  withRows,
  type Collections,
  type InitialCollections,
  type Op,
  type Row,
  type Store,
} from '../storage/index.ts';
import type { Clock, ClockChange, ClockMode } from './clock.ts';

/**
 * The clock is state (docs/storage.md, "The clock is saved"): records are dated by it, keys expire and jobs
 * fall due on it, so it is saved with the data. One row for the sandbox's
 * global time and one per workspace that advanced alone, in the global
 * partition, written in a commit of their own before the clock moves (so as
 * durable as any acknowledged write), and in the state a reset or an import
 * writes. A start on the file puts the clock back where it was
 * (docs/storage.md, "The clock is saved").
 */
const SandboxClockRowSchema = z.object({
  id: z.literal('sandbox'),
  kind: z.literal('sandbox'),
  /** the mode it ran in when saved */
  mode: z.enum(['real', 'manual']),
  /** the global time when saved (a manual clock's time) */
  nowMs: z.number(),
  /** for people reading the file: nowMs as ISO 8601 */
  now: z.string(),
  /** a real clock: nowMs less the wall time when saved (its time travel); a manual clock: 0 */
  offsetMs: z.number(),
});
const WorkspaceClockRowSchema = z.object({
  /** the workspace id */
  id: z.string(),
  kind: z.literal('workspace'),
  /** the workspace's own advance on top of the global clock */
  offsetMs: z.number(),
});
export const SavedClockRowSchema = z.discriminatedUnion('kind', [SandboxClockRowSchema, WorkspaceClockRowSchema]);
type SandboxClockRow = z.output<typeof SandboxClockRowSchema>;
export type SavedClockRow = z.output<typeof SavedClockRowSchema>;

export const CLOCKS = defineCollection({ name: 'clocks', schema: SavedClockRowSchema, idPrefix: null, internal: true });
const SANDBOX_ROW = 'sandbox';

/** What a start did with the clock saved in its database file (the ready line says it). */
export interface ClockOrigin {
  /**
   * - fresh: no saved clock (a new file, memory, or --fresh-clock);
   * - restored: the saved clock, where it was (on a real clock: its time travel);
   * - configured-later: the clock asked for (--clock-start, or real time after a manual clock) is
   *   later than the saved one, so the clock moved on to it.
   */
  source: 'fresh' | 'restored' | 'configured-later';
  /** the mode of the saved clock (null: none) */
  savedMode: ClockMode | null;
  mode: ClockMode;
  /** the global time once started */
  now: string;
  /** a real clock's time travel once started (0: wall time) */
  offsetMs: number;
  /** workspaces whose own advance was restored */
  workspaces: number;
  /** restored although --clock-start asked for an earlier time (the saved clock wins) */
  overrodeStart: boolean;
  /** --fresh-clock set aside a saved clock */
  discarded: boolean;
}

export interface RestoreOptions {
  /** the store was just seeded (a new file, memory): whatever clock it holds is the one just configured */
  newDatabase: boolean;
  /** --fresh-clock: start as configured, and save that */
  fresh: boolean;
  /** --clock-start (or clockStart) was given */
  explicitStart: boolean;
}

/**
 * Puts `clock` where the clock saved in `store` was, in the clock's own mode:
 * a saved real clock gives wall time plus its offset, a saved manual clock its
 * time. The saved clock wins over an earlier --clock-start (records are never
 * dated ahead of the clock); a later --clock-start moves it on, as does real
 * time when a real clock starts on a file a manual clock wrote.
 */
export function restoreSavedClock(clock: Clock, store: Store, options: RestoreOptions): ClockOrigin {
  const rows = options.newDatabase ? [] : CLOCKS.in(store).list(GLOBAL_PARTITION);
  const saved = rows.find((row): row is SandboxClockRow => row.kind === 'sandbox');
  const configured = clock.nowIn(null);
  const origin = (source: ClockOrigin['source'], overrodeStart = false): ClockOrigin => ({
    source,
    mode: clock.mode,
    savedMode: saved?.mode ?? null,
    now: clock.isoIn(null),
    offsetMs: clock.mode === 'real' ? (clock.changes()[0]?.offsetMs ?? 0) : 0,
    workspaces: source === 'fresh' ? 0 : rows.length - 1,
    overrodeStart,
    discarded: options.fresh && saved !== undefined,
  });
  if (!saved || options.fresh) return origin('fresh');
  const savedNow = saved.mode === 'real' ? Date.now() + saved.offsetMs : saved.nowMs;
  const workspaces = rows.flatMap((row) => (row.kind === 'workspace' ? [[row.id, row.offsetMs] as const] : []));
  // a clock asked for in so many words (--clock-start, or another mode) may move the saved one on, never back
  const later = (options.explicitStart || saved.mode !== clock.mode) && configured > savedNow;
  // a saved real clock by its offset, exactly, so that an unchanged clock is not written again
  clock.restore(later ? { atMs: configured } : saved.mode === 'real' ? { wallOffsetMs: saved.offsetMs } : { atMs: saved.nowMs }, workspaces);
  return origin(later ? 'configured-later' : 'restored', options.explicitStart && savedNow > configured);
}

/** The clock as it is now, were it saved: has the store got exactly that? (a start writes it otherwise) */
export function clockIsSaved(clock: Clock, store: Store): boolean {
  const saved = CLOCKS.in(store).list(GLOBAL_PARTITION);
  const now = clock.changes().map(rowOf);
  if (saved.length !== now.length) return false;
  const same = (a: SavedClockRow, b: SavedClockRow | undefined) =>
    b !== undefined &&
    a.kind === b.kind &&
    a.offsetMs === b.offsetMs &&
    (a.kind === 'workspace' || (b.kind === 'sandbox' && a.mode === b.mode && (a.mode === 'real' || a.nowMs === b.nowMs)));
  const byId = new Map(saved.map((row) => [row.id, row]));
  return now.every((row) => same(row, byId.get(row.id)));
}

/** The store ops that save clock changes. */
export function clockOps(changes: readonly ClockChange[]): Op[] {
  return changes.map((change) => CLOCKS.putOp(GLOBAL_PARTITION, rowOf(change)));
}

/** The ops that write the whole clock (sandbox row and every workspace's), dropping rows it no longer has. */
export function wholeClockOps(clock: Clock, store: Store): Op[] {
  const changes = clock.changes();
  const kept = new Set(changes.map((change) => change.workspaceId ?? SANDBOX_ROW));
  const dropped = CLOCKS.in(store)
    .list(GLOBAL_PARTITION)
    .filter((row) => !kept.has(row.id));
  return [...dropped.map((row) => CLOCKS.deleteOp(GLOBAL_PARTITION, row.id)), ...clockOps(changes)];
}

/**
 * A whole state (a reset's, an import's, a hand edit's) with the clock as it is
 * now in place of whatever clock rows it had: the state and the clock are
 * written together, and a clock row edited by hand does not move the running clock.
 */
export function withClock(state: InitialCollections, clock: Clock): InitialCollections {
  if (!isDeferred(state)) delete state[CLOCKS.name];
  const rows: Record<string, Row> = {};
  for (const op of clockOps(clock.changes())) if (op.type === 'put') rows[op.row.id] = op.row;
  const extra: Collections = { [CLOCKS.name]: { [GLOBAL_PARTITION]: rows } };
  return withRows(state, extra);
}

function rowOf(change: ClockChange): SavedClockRow {
  if (change.workspaceId === null) {
    return { id: SANDBOX_ROW, kind: 'sandbox', mode: change.mode, nowMs: change.nowMs, now: new Date(change.nowMs).toISOString(), offsetMs: change.offsetMs };
  }
  return { id: change.workspaceId, kind: 'workspace', offsetMs: change.offsetMs };
}
