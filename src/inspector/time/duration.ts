/** `90s`, `5m`, `2h`, `1d`, `1500ms`, `1h30m` or plain milliseconds -> ms, as `sandbox clock advance` reads them. */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export function parseDuration(text: string): number {
  const input = text.trim().toLowerCase();
  const invalid = new Error(`invalid duration "${text}": use e.g. 90s, 5m, 2h, 1d, 1h30m or plain milliseconds`);
  if (/^\d+$/.test(input)) return Number(input);
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(input)) throw invalid;
  let ms = 0;
  for (const [, amount, unit] of input.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) ms += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  if (!Number.isSafeInteger(Math.round(ms)) || ms <= 0) throw invalid;
  return Math.round(ms);
}

/** 5400000 -> "1h 30m"; an offset of 0 -> "0". */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0 || parts.length === 0) parts.push(`${rest}ms`);
  return sign + parts.join(' ');
}
