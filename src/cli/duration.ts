import { InvalidArgumentError } from 'commander';
import { formatDuration, parseBoundedDuration, parseDuration as parseAnyDuration } from '../core/duration.ts';
import { looksNegative, negativeDuration } from './commands/options.ts';

/**
 * `sandbox clock advance`, `sandbox workspace advance`, `--stop-timeout` and
 * `fault add --latency` read durations alike, with src/core/duration.ts (the
 * one syntax scenario files use too).
 */

/**
 * `90s`, `5m`, `2h`, `1d`, `1500ms`, a plain number of milliseconds, or a
 * combination such as `1h30m` -> milliseconds (a whole number). A negative one
 * gets the clock's way back, since only the clock commands take them.
 */
export function parseDuration(text: string): number {
  if (looksNegative(text.trim())) throw new Error(negativeDuration(text));
  return parseAnyDuration(text);
}

/** What POST /__sandbox/clock/advance (and a workspace's) accepts at most. */
const MAX_ADVANCE_MS = 10 * 365 * 86_400_000;

/**
 * The <duration> of `clock advance` and `workspace advance`: past the control
 * plane's bound, said in the command's words rather than its `body.ms`.
 */
export function parseAdvance(text: string, command: string): number {
  const ms = parseDuration(text);
  if (ms > MAX_ADVANCE_MS) throw new Error(`${command} moves the clock ${formatDuration(MAX_ADVANCE_MS)} (ten years) at most; "${text}" is more`);
  return ms;
}

/**
 * A commander parser for a duration option, as milliseconds: its usage error
 * names the flag the user typed. `plainSeconds` keeps an option that took whole
 * seconds before it took durations (`--webhook-timeout 10`) meaning what it did.
 */
export function durationOption(flag: string, min: number, max: number, { plainSeconds = false } = {}): (value: string) => number {
  return (value: string) => {
    try {
      return parseBoundedDuration(flag, plainSeconds && /^\s*\d+\s*$/.test(value) ? `${value.trim()}s` : value, min, max);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
  };
}
