/** Small numeric helpers shared by the bench sections. */

/** Nearest-rank percentile of an ascending array (p in 0..100); NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

export function round(x: number, digits = 2): number {
  return Number.isFinite(x) ? Number(x.toFixed(digits)) : x;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
