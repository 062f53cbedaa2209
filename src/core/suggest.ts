/**
 * "Did you mean" for one-line errors: the closest known word by edit distance,
 * offered only when it is close enough to be a typo of it.
 */
export function suggest(word: string, known: readonly string[]): string {
  const best = closest(word, known);
  return best === null ? '' : ` (did you mean "${best}"?)`;
}

/** The closest known word, when it is close enough to be a typo of it; else null. */
export function closest(word: string, known: readonly string[]): string | null {
  let best: { word: string; distance: number } | null = null;
  for (const candidate of known) {
    const distance = editDistance(word, candidate);
    if (!best || distance < best.distance) best = { word: candidate, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(word.length / 3)) ? best.word : null;
}

export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}
