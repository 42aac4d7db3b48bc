/** Levenshtein distance, small and allocation-light: used only on config keys and names. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The closest candidate when it is close enough to be a likely typo (case-insensitive). */
export function didYouMean(input: string, candidates: readonly string[]): string | undefined {
  const lower = input.toLowerCase();
  let best: { name: string; score: number } | undefined;
  for (const name of candidates) {
    const score = distance(lower, name.toLowerCase());
    if (!best || score < best.score) best = { name, score };
  }
  if (!best) return undefined;
  const limit = Math.max(1, Math.floor(Math.max(input.length, best.name.length) / 3));
  return best.score <= limit ? best.name : undefined;
}
