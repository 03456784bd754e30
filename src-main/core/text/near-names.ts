/**
 * "Did you mean" for a name typed with a slip (a sandbox, a tool, a skill): the nearest of the names
 * there are by edit distance. On its own, with no import: the CLI's light paths (a cached `image build`)
 * load it without the hinters' tool prompts.
 */

/** Levenshtein distance, for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] as number;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j] as number;
      prev[j] = Math.min(
        (prev[j] as number) + 1,
        (prev[j - 1] as number) + 1,
        diag + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      diag = tmp;
    }
  }
  return prev[b.length] as number;
}

/** `did you mean X? ` when one of `candidates` is close to a name that is none of them, else ''. */
export function didYouMean(name: string, candidates: readonly string[]): string {
  const near = closest(name, candidates);
  return near !== undefined && near !== name ? `did you mean ${near}? ` : '';
}

export function closest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase());
    if (d < bestD) [best, bestD] = [c, d];
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}
