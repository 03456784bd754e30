/**
 * The run list: filters, the total, and pages fetched on demand. A list of 100,000 runs never loads
 * whole: the virtualized list asks for the pages its visible rows fall in.
 */
import type { StateCreator } from 'zustand';
import type { Request, RunSummaryView } from '../../../src-main/contract/api.ts';
import { api, errorMessage } from '../api/client.ts';
import type { Store } from './index.ts';
import { readDraft, writeDraft } from '../lib/session-draft.ts';
import { restoreRunFilters } from '../lib/run-filters.ts';

/** The filters are kept in the tab's sessionStorage: a reload shows the list as it was filtered. */
const FILTERS = 'run-filters';
const keepFilters = (f: RunFilters) => writeDraft(FILTERS, Object.keys(f).length ? f : undefined);

export const PAGE_SIZE = 100;

export type RunFilters = Omit<Request<'runs.list'>, 'limit' | 'offset'>;

export interface RunsSlice {
  filters: RunFilters;
  /** Exact when `totalExact`; otherwise the runs known to match so far, with more after them. */
  total: number;
  totalExact: boolean;
  /** An exact count asked for (the "count" button) is on its way. */
  counting: boolean;
  /** Page index -> rows. */
  pages: Record<number, RunSummaryView[]>;
  /** Bumped on every reload; a page answer from an older generation is dropped. */
  listGeneration: number;
  listLoading: boolean;
  listError?: string;
  setFilters(f: Partial<RunFilters>): void;
  clearFilters(): void;
  reloadRuns(): Promise<void>;
  ensurePage(page: number): Promise<void>;
  /** Counts the runs matching the filters exactly (a filtered list knows its total up to its pages). */
  countRuns(): Promise<void>;
}

const inflight = new Set<string>();

const clean = (f: RunFilters): RunFilters => {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(f))
    if (v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0)) out[k] = v;
  return out;
};

export const createRunsSlice: StateCreator<Store, [], [], RunsSlice> = (set, get) => ({
  filters: readDraft(FILTERS, restoreRunFilters) ?? {},
  total: 0,
  totalExact: true,
  counting: false,
  pages: {},
  listGeneration: 0,
  listLoading: false,
  setFilters(f) {
    const filters = clean({ ...get().filters, ...f });
    set({ filters });
    keepFilters(filters);
    void get().reloadRuns();
  },
  clearFilters() {
    set({ filters: {} });
    keepFilters({});
    void get().reloadRuns();
  },
  async reloadRuns() {
    const generation = get().listGeneration + 1;
    set({ listGeneration: generation, listLoading: true, listError: undefined, counting: false });
    // Page 0 of this generation is being fetched here: ensurePage must not ask for it again.
    const key = `${generation}:0`;
    inflight.add(key);
    try {
      const r = await api['runs.list']({ ...get().filters, limit: PAGE_SIZE, offset: 0 });
      if (get().listGeneration !== generation) return;
      set({ total: r.total, totalExact: r.totalExact, pages: { 0: r.runs }, listLoading: false });
    } catch (e) {
      if (get().listGeneration !== generation) return;
      set({ listLoading: false, listError: errorMessage(e) });
    } finally {
      inflight.delete(key);
    }
  },
  async ensurePage(page) {
    const generation = get().listGeneration;
    const key = `${generation}:${page}`;
    if (get().pages[page] || inflight.has(key)) return;
    inflight.add(key);
    try {
      const r = await api['runs.list']({ ...get().filters, limit: PAGE_SIZE, offset: page * PAGE_SIZE });
      if (get().listGeneration !== generation) return;
      // An exact total (a last page) replaces the known one; a lower bound only grows it and leaves an
      // exact count (the "count" button) that it does not contradict.
      const cur = get();
      set({
        ...(r.totalExact
          ? { total: r.total, totalExact: true }
          : cur.totalExact && cur.total > r.total
            ? {}
            : { total: Math.max(cur.total, r.total), totalExact: false }),
        pages: { ...get().pages, [page]: r.runs },
      });
    } catch (e) {
      if (get().listGeneration === generation) set({ listError: errorMessage(e) });
    } finally {
      inflight.delete(key);
    }
  },
  async countRuns() {
    const generation = get().listGeneration;
    set({ counting: true });
    try {
      const r = await api['runs.list']({ ...get().filters, limit: 1, offset: 0, count: true });
      if (get().listGeneration !== generation) return;
      set({ total: r.total, totalExact: true, counting: false });
    } catch (e) {
      if (get().listGeneration === generation) set({ counting: false, listError: errorMessage(e) });
    }
  },
});
