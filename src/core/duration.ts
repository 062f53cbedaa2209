/**
 * The one duration syntax (docs/cli.md, "Durations"): every CLI option and scenario
 * field that takes a time reads `250` (milliseconds), `250ms`, `2s`, `5m`,
 * `1h`, `2d`, or a combination such as `1h30m`, through this parser.
 */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export const DURATION_FORMS = '250 (ms), 250ms, 2s, 5m, 1h, 2d or 1h30m';

export class DurationError extends Error {
  override readonly name = 'DurationError';
}

/** A duration as text -> whole milliseconds; a DurationError says what the forms are. */
export function parseDuration(text: string): number {
  const input = text.trim().toLowerCase();
  if (/^-\d/.test(input)) throw new DurationError(`"${text}" is a negative duration`);
  const invalid = () => new DurationError(`invalid duration "${text}": use ${DURATION_FORMS}`);
  if (/^\d+$/.test(input)) return checked(Number(input), invalid);
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(input)) throw invalid();
  let ms = 0;
  for (const [, amount, unit] of input.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) ms += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  return checked(Math.round(ms), invalid);
}

function checked(ms: number, invalid: () => Error): number {
  if (!Number.isSafeInteger(ms)) throw invalid();
  return ms;
}

/** 120000 -> "2m", 1500 -> "1500ms": a bound as a user would type it. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0';
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/**
 * A duration within bounds, or one line naming `what` (a CLI flag such as
 * `--latency`, or a scenario field) with the bounds and the accepted forms.
 * Numbers (JSON) are milliseconds.
 */
export function parseBoundedDuration(what: string, value: string | number, min: number, max: number): number {
  const range = `from ${formatDuration(min)} to ${formatDuration(max)}`;
  let ms: number;
  if (typeof value === 'number') ms = value;
  else {
    try {
      ms = parseDuration(value);
    } catch {
      throw new DurationError(`${what} takes a duration ${range}, written ${DURATION_FORMS}; not ${JSON.stringify(value)}`);
    }
  }
  if (!Number.isInteger(ms)) throw new DurationError(`${what} takes a whole number of milliseconds, or a duration such as 2s; not ${value}`);
  if (ms < min || ms > max) throw new DurationError(`${what} takes a duration ${range}; ${JSON.stringify(value)} is ${ms < min ? 'less' : 'more'}`);
  return ms;
}
