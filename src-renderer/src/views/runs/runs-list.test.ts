import { describe, expect, it } from 'vitest';
import type { RunSummaryView } from '../../../../src-main/contract/api.ts';
import { isFiltered, listNote, pagesInView, rowCount, runAt, totalLabel } from './runs-list.ts';
import { restoreRunFilters } from '../../lib/run-filters.ts';

describe('the run list as data', () => {
  it('shows the exact total, or one page of placeholders after a lower bound', () => {
    expect(rowCount(250, true, 100)).toBe(250);
    expect(rowCount(250, false, 100)).toBe(350);
  });

  it('asks for every page the visible rows fall in, once each', () => {
    expect(pagesInView(0, 30, 100)).toEqual([0]);
    expect(pagesInView(95, 205, 100)).toEqual([0, 1, 2]);
    expect(pagesInView(0, 0, 100)).toEqual([0]);
  });

  it('finds a row in its page, or nothing while the page is loading', () => {
    const run = { id: 'r-101' } as RunSummaryView;
    const pages = { 1: [{ id: 'r-100' } as RunSummaryView, run] };
    expect(runAt(pages, 101, 100)).toBe(run);
    expect(runAt(pages, 5, 100)).toBeUndefined();
  });

  it('the sort order alone is not a filter', () => {
    expect(isFiltered({})).toBe(false);
    expect(isFiltered({ sort: 'task', dir: 'asc' })).toBe(false);
    expect(isFiltered({ status: ['failed'] })).toBe(true);
  });

  it('says the total as a count, a lower bound, or matching', () => {
    expect(totalLabel(1, true, false)).toBe('1 run');
    expect(totalLabel(0, true, false)).toBe('0 runs');
    expect(totalLabel(1, false, false)).toBe('1+ runs');
    expect(totalLabel(12, true, true)).toBe('12 runs matching');
  });

  it('says loading, empty or no match only while there are no rows, and nothing over an error', () => {
    const base = { listLoading: false, total: 0, listError: undefined, filtered: false };
    expect(listNote(base)).toBe('empty');
    expect(listNote({ ...base, filtered: true })).toBe('no-match');
    expect(listNote({ ...base, listLoading: true })).toBe('loading');
    expect(listNote({ ...base, listError: 'down' })).toBeUndefined();
    expect(listNote({ ...base, total: 3, listLoading: true })).toBeUndefined();
  });
});

describe('the filters kept for a reload', () => {
  it('takes back the known fields of their types, nothing else', () => {
    const kept = { text: 'nobody', status: ['failed'], sandbox: 'ecommerce', sort: 'started', from: 5 };
    expect(restoreRunFilters(JSON.parse(JSON.stringify(kept)))).toEqual(kept);
    expect(restoreRunFilters({ text: 3, status: 'failed', bogus: 'x', kind: [], to: 'soon' })).toEqual({});
    expect(restoreRunFilters(['x'])).toBeUndefined();
  });
});
