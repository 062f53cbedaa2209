import type { ClockState } from '../control/client.ts';
import { plural, say } from './format.ts';
import { controlClient, report, type ScriptFlags } from './control.ts';
import { looksNegative, negativeDuration } from './commands/options.ts';

/**
 * `sandbox clock [advance <duration> | set <iso>]`: the sandbox clock
 * (GET /__sandbox/clock, POST /clock/advance {ms}, POST /clock/set {at}).
 * Advancing runs every timer that falls due (webhook retries, holds, jobs).
 */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * `90s`, `5m`, `2h`, `1d`, `1500ms`, a plain number of milliseconds, or a
 * combination such as `1h30m` -> milliseconds (a whole number).
 */
export function parseDuration(text: string): number {
  const input = text.trim().toLowerCase();
  if (looksNegative(input)) throw new Error(negativeDuration(text));
  const invalid = () => new Error(`invalid duration "${text}": use e.g. 90s, 5m, 2h, 1d, 1500ms, 1h30m or plain milliseconds`);
  if (/^\d+$/.test(input)) return Number(input);
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(input)) throw invalid();
  let ms = 0;
  for (const [, amount, unit] of input.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) ms += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  if (!Number.isSafeInteger(Math.round(ms))) throw invalid();
  return Math.round(ms);
}

export async function runClockShow(flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  show(await client.clock(), flags);
}

export async function runClockAdvance(duration: string, flags: ScriptFlags): Promise<void> {
  const ms = parseDuration(duration);
  const client = await controlClient(flags);
  show(await client.advanceClock(ms), flags, `advanced ${duration} (${ms} ms)`);
}

export async function runClockSet(at: string, flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  show(await client.setClock(at), flags, 'set');
}

function show(state: ClockState, flags: ScriptFlags, action?: string): void {
  report(flags, state, () => `${state.now}  (${state.mode} clock${action ? `, ${action}` : ''}; ${plural(state.pendingTimers, 'timer')} pending)`);
}
