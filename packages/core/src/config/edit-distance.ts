/**
 * The optimal-string-alignment distance (Damerau–Levenshtein with adjacent transpositions) between two strings,
 * bounded: any distance above `max` is reported as `max + 1`.
 *
 * @remarks Only the diagonal band of width `2·max + 1` is computed and the computation stops as soon as a row
 * exceeds `max`, so comparing a long hostile key costs `O(length · max)`, and strings whose lengths differ by
 * more than `max` cost nothing. `tsp` → `tps` is 1 (one transposition).
 *
 * @example
 * ```ts
 * boundedEditDistance('tsp', 'tps', 2); // 1
 * boundedEditDistance('timeout', 'retries', 2); // 3 (more than 2)
 * ```
 */
export function boundedEditDistance(a: string, b: string, max: number): number {
  if (a === b) return 0;
  const n = a.length;
  const m = b.length;
  const over = max + 1;
  if (Math.abs(n - m) > max) return over;
  let beforePrevious = new Array<number>(m + 1).fill(over);
  let previous = new Array<number>(m + 1).fill(over);
  let current = new Array<number>(m + 1).fill(over);
  for (let j = 0; j <= Math.min(m, max); j++) previous[j] = j;
  for (let i = 1; i <= n; i++) {
    current.fill(over);
    current[0] = i <= max ? i : over;
    let rowMin = current[0] as number;
    const low = Math.max(1, i - max);
    const high = Math.min(m, i + max);
    for (let j = low; j <= high; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let value = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        value = Math.min(value, (beforePrevious[j - 2] as number) + 1);
      }
      current[j] = Math.min(value, over);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return over;
    const recycled = beforePrevious;
    beforePrevious = previous;
    previous = current;
    current = recycled;
  }
  return Math.min(previous[m] as number, over);
}
