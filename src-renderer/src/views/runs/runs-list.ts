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

const TEXT_FILTERS = ['sandbox', 'mode', 'model', 'tier', 'text', 'suiteRun', 'sort', 'dir'] as const;
const LIST_FILTERS = ['status', 'kind'] as const;

/**
 * The filters as the tab's sessionStorage kept them (lib/session-draft.ts): a reload (F5, the page
 * restarted) showed the whole list again, the search and the chips gone. Only the known fields of their
 * types are taken back (the service checks their values, and a value it refuses says so in the list).
 */
export function restoreRunFilters(raw: unknown): RunFilters | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of TEXT_FILTERS) if (typeof r[k] === 'string' && r[k] !== '') out[k] = r[k];
  for (const k of LIST_FILTERS) {
    const v = r[k];
    if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) out[k] = v;
  }
  for (const k of ['from', 'to'] as const)
    if (typeof r[k] === 'number' && Number.isFinite(r[k])) out[k] = r[k];
  return out as RunFilters;
}
