import { looksNegative, negativeDuration } from './commands/options.ts';

/** `sandbox clock advance`, `sandbox workspace advance` and `--stop-timeout` read durations alike. */

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
