/**
 * The run list's view state as data: how many rows the virtualized list shows, which pages its visible
 * rows fall in, and what the head says about the total. Pure (tested in node); `useRuns.ts` binds it to
 * React and the store (the pages themselves live in store/runs.ts).
 */
import type { RunSummaryView } from '../../../../src-main/contract/api.ts';
import type { RunFilters } from '../../store/runs.ts';

/**
 * Rows the list shows: the exact total, or (not counted yet: a filtered list counts up to its pages) one
 * page of placeholder rows after the known runs, fetched when it scrolls into view, which grows the list.
 */
export function rowCount(total: number, totalExact: boolean, pageSize: number): number {
  return totalExact ? total : total + pageSize;
}

/** The pages the visible rows `first..last` fall in. */
export function pagesInView(first: number, last: number, pageSize: number): number[] {
  const out: number[] = [];
  for (let p = Math.floor(first / pageSize); p <= Math.floor(Math.max(first, last) / pageSize); p++)
    out.push(p);
  return out;
}

/** The run at a row index, when its page is loaded. */
export function runAt(
  pages: Record<number, RunSummaryView[]>,
  index: number,
  pageSize: number,
): RunSummaryView | undefined {
  return pages[Math.floor(index / pageSize)]?.[index % pageSize];
}

/** Whether any filter beyond the sort order is set. */
export function isFiltered(filters: RunFilters): boolean {
  return Object.keys(filters).some((k) => k !== 'sort' && k !== 'dir');
}

/** The head's count: "1 run", "12 runs matching", "100+ runs" (a lower bound). */
export function totalLabel(total: number, totalExact: boolean, filtered: boolean): string {
  return `${total}${totalExact ? '' : '+'} run${total === 1 && totalExact ? '' : 's'}${filtered ? ' matching' : ''}`;
}

/** What the list area shows besides its rows. */
export type ListNote = 'loading' | 'empty' | 'no-match' | undefined;

export function listNote(s: {
  listLoading: boolean;
  total: number;
  listError?: string | undefined;
  filtered: boolean;
}): ListNote {
  if (s.total > 0) return undefined;
  if (s.listLoading) return 'loading';
  if (s.listError) return undefined;
  return s.filtered ? 'no-match' : 'empty';
}
