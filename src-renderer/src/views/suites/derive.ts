/** Pure helpers for the Suites view: matrix filtering, formatting, chart scales. */
import type { MatrixCell, SuiteMatrix } from '../../../../src-main/core/suites/matrix.ts';

export type CellFilter = 'all' | 'failing' | 'passing';

/** The cases (rows) to show: by text and by whether any shown cell fails. */
export function visibleCases(
  m: SuiteMatrix,
  opts: { text: string; filter: CellFilter; columns: string[] },
): string[] {
  const text = opts.text.trim().toLowerCase();
  return m.cases.filter((c) => {
    if (text && !c.toLowerCase().includes(text)) return false;
    const cells = m.cells.filter((x) => x.caseId === c && opts.columns.includes(x.column));
    if (opts.filter === 'failing') return cells.some((x) => !x.meets);
    if (opts.filter === 'passing') return cells.length > 0 && cells.every((x) => x.meets);
    return true;
  });
}

export const cellOf = (m: SuiteMatrix, caseId: string, column: string): MatrixCell | undefined =>
  m.cells.find((x) => x.caseId === caseId && x.column === column);

export const pct = (x: number): string => `${Math.round(x * 100)}%`;
export const ms = (x: number): string => (x >= 1000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`);
export const money = (x: number | null): string =>
  x === null ? '–' : `$${x < 0.01 ? x.toFixed(5) : x.toFixed(3)}`;

/** A linear scale from [0, max] onto [0, width]. */
export const scale = (max: number, width: number) => (v: number) => (max > 0 ? (v / max) * width : 0);

/** Histogram bins of `values` over [0, max]. */
export function bins(values: number[], count: number, max: number): number[] {
  const out = new Array<number>(count).fill(0);
  for (const v of values) {
    const i = max > 0 ? Math.min(count - 1, Math.floor((v / max) * count)) : 0;
    out[i] = (out[i] ?? 0) + 1;
  }
  return out;
}

/**
 * The run a suite run is compared with by default: the latest run of the same suite made before it
 * (what `toolsmith eval --compare` uses), or undefined for the first run.
 */
export function defaultBase(
  history: readonly { id: string; createdAt: number }[],
  head: { id: string; createdAt: number },
): string | undefined {
  let best: { id: string; createdAt: number } | undefined;
  for (const r of history)
    if (r.id !== head.id && r.createdAt < head.createdAt && (!best || r.createdAt > best.createdAt)) best = r;
  return best?.id;
}
