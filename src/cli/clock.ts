import type { ClockState } from '../control/client.ts';
import { plural } from './format.ts';
import { controlClient, report, type ScriptFlags } from './control.ts';
import { parseAdvance } from './duration.ts';
import { formatDuration } from '../inspector/time/duration.ts';

export { parseDuration } from './duration.ts';

/**
 * `sandbox clock [advance <duration> | set <iso>]`: the sandbox clock
 * (GET /__sandbox/clock, POST /clock/advance {ms}, POST /clock/set {at}).
 * Advancing runs every timer that falls due (webhook retries, holds, jobs).
 */
export async function runClockShow(flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  show(await client.clock(), flags);
}

export interface ClockAdvanceFlags extends ScriptFlags {
  toNext?: boolean;
}

export async function runClockAdvance(duration: string | undefined, flags: ClockAdvanceFlags): Promise<void> {
  if (flags.toNext) {
    if (duration !== undefined) throw new Error(`give a duration or --to-next, not both ("${duration}")`);
    return (await import('./clock-next.ts')).runClockAdvanceToNext(flags);
  }
  if (duration === undefined) throw new Error('clock advance needs a duration (90s, 5m, 2h, 1d) or --to-next');
  if (flags.workspace !== undefined)
    throw new Error(`--workspace goes with --to-next; to move one workspace's clock by ${duration}, \`sandbox workspace advance <id|name> ${duration}\``);
  const ms = parseAdvance(duration, 'clock advance');
  const client = await controlClient(flags);
  show(await client.advanceClock(ms), flags, `advanced ${duration} (${ms} ms)`);
}

export async function runClockSet(at: string, flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  show(await client.setClock(at), flags, 'set');
}

function show(state: ClockState, flags: ScriptFlags, action?: string): void {
  report(
    flags,
    state,
    () => `${state.now}  (${state.mode} clock${action ? `, ${action}` : ''}; ${offsetText(state.advancedMs)}; ${plural(state.pendingTimers, 'timer')} pending)`,
  );
}

/** `offset +2h from its start`: how far the clock was moved, or that it was not. */
function offsetText(ms: number): string {
  if (ms === 0) return 'no offset';
  return `offset ${ms < 0 ? '-' : '+'}${formatDuration(Math.abs(ms))} from its start`;
}
