/** 318_500 -> "5m 18.5s"; 0 -> "0s": how the CLI prints a span of sandbox time it moved. */
export function formatMs(ms: number): string {
  let rest = Math.max(0, Math.round(ms));
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0 || parts.length === 0) parts.push(`${rest / 1000}s`);
  return parts.join(' ');
}
