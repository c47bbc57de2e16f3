export interface Closeness {
  /** what does not tell two names apart (default: case) */
  normalize?: (name: string) => string;
  /** how many edits a word of this length may be away from the name meant (default: a third of it, 1 to 3) */
  tolerance?: (length: number) => number;
}

/** A third of the word, at most 3: `ech0` -> `echo`, `open-ai` -> `openai`, but nothing for an unrelated word. */
const aThird = (length: number) => Math.min(3, Math.max(1, Math.floor(length / 3)));

/**
 * The name a user most likely meant ("did you mean ...?"): the closest of `names` by edit distance (insertions,
 * deletions, substitutions and swaps of neighbours), if it is close enough to be a typo. The one implementation for
 * tool names, providers and request fields alike.
 */
export function closestName(word: string, names: Iterable<string>, closeness: Closeness = {}): string | undefined {
  const normalize = closeness.normalize ?? ((name: string) => name.toLowerCase());
  const typed = normalize(word);
  const allowed = (closeness.tolerance ?? aThird)(typed.length);
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(typed, normalize(name), allowed);
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/**
 * Optimal string alignment distance (Levenshtein plus swaps of neighbours), or `limit + 1` once it is known to
 * exceed `limit`. Only the band of cells within `limit` of the diagonal is computed: O(length × limit), so long
 * names cost little.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const far = limit + 1;
  let before = Array<number>(b.length + 1).fill(far);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => (j <= limit ? j : far));
  for (let i = 1; i <= a.length; i++) {
    const current = Array<number>(b.length + 1).fill(far);
    if (i <= limit) current[0] = i;
    let rowBest = current[0]!;
    for (let j = Math.max(1, i - limit); j <= Math.min(b.length, i + limit); j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let cell = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) cell = Math.min(cell, before[j - 2]! + 1);
      current[j] = Math.min(cell, far);
      rowBest = Math.min(rowBest, current[j]!);
    }
    if (rowBest > limit) return far;
    [before, previous] = [previous, current];
  }
  return previous[b.length]!;
}
