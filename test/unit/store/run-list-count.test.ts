/** Issue 14: the run list is O(page): no exact COUNT on every page; exact totals when cheap or on demand. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { runStarted } from '../../support/run-records.ts';

const newStore = () => {
  let t = 1_000;
  return new RunStore(join(mkdtempSync(join(tmpdir(), 'toolsmith-count-')), 'runs.db'), {
    now: () => (t += 1000),
  });
};
const add = (store: RunStore, task: string, status: 'succeeded' | 'failed' | 'running') => {
  const id = store.createRun(runStarted(task, { maxRetries: 0, maxSteps: 1 }));
  if (status !== 'running')
    store.append(id, 'run_finished', { status, ...(status === 'failed' ? { error: 'KeyError: x' } : {}) });
  return id;
};
/** The exact counts, by COUNT(*), to compare with what the trigger-kept counts say. */
const counted = (store: RunStore, where = '') =>
  (store.db.prepare(`SELECT COUNT(*) AS n FROM runs ${where}`).get() as { n: number }).n;

describe('run list totals', () => {
  it('unfiltered and status-only totals are exact on every page, through inserts, finishes, deletes and imports', () => {
    const store = newStore();
    const ids: string[] = [];
    for (let i = 0; i < 25; i++)
      ids.push(add(store, `task ${i}`, i % 3 === 0 ? 'failed' : i % 3 === 1 ? 'succeeded' : 'running'));
    const check = () => {
      for (const offset of [0, 10, 20]) {
        const all = store.list({ limit: 5, offset });
        expect(all).toMatchObject({ total: counted(store), totalExact: true });
        expect(store.list({ status: 'failed', limit: 2, offset })).toMatchObject({
          total: counted(store, "WHERE status = 'failed'"),
          totalExact: true,
        });
        expect(store.list({ status: ['failed', 'running'], limit: 2, offset })).toMatchObject({
          total: counted(store, "WHERE status IN ('failed', 'running')"),
          totalExact: true,
        });
      }
    };
    check();
    expect(store.list({ limit: 5 }).total).toBe(25);
    store.append(ids[2] as string, 'run_finished', { status: 'failed', error: 'late' }); // running -> failed
    check();
    store.delete(ids[0] as string);
    store.delete(ids[1] as string);
    check();
    expect(store.list({}).total).toBe(23);
    const copy = store.import(store.export(ids[3] as string));
    expect(copy).not.toBe(ids[3]);
    check();
    expect(store.list({ status: 'interrupted' })).toMatchObject({ totalExact: true });
    store.close();
  });

  it('a filtered page counts only up to itself: a lower bound while more match, exact on the last page or on demand', () => {
    const store = newStore();
    for (let i = 0; i < 12; i++) add(store, `check inventory ${i}`, i % 2 ? 'failed' : 'succeeded');
    for (let i = 0; i < 5; i++) add(store, `other ${i}`, 'failed');
    // 12 runs match the text, 6 of them failed.
    const first = store.list({ text: 'inventory', limit: 5 });
    expect(first).toMatchObject({ total: 5, totalExact: false });
    expect(first.runs.map((r) => r.task)).toEqual([11, 10, 9, 8, 7].map((i) => `check inventory ${i}`));
    expect(store.list({ text: 'inventory', limit: 5, offset: 5 })).toMatchObject({
      total: 10,
      totalExact: false,
    });
    const last = store.list({ text: 'inventory', limit: 5, offset: 10 });
    expect(last).toMatchObject({ total: 12, totalExact: true });
    expect(last.runs).toHaveLength(2);
    // Exactly a full last page: the extra row fetched says nothing comes after it.
    expect(store.list({ text: 'inventory', limit: 6, offset: 6 })).toMatchObject({
      total: 12,
      totalExact: true,
    });
    expect(store.list({ text: 'inventory', limit: 5, count: true })).toMatchObject({
      total: 12,
      totalExact: true,
    });
    // text + status, paged, then counted on demand.
    const ts = store.list({ text: 'inventory', status: 'failed', limit: 4 });
    expect(ts).toMatchObject({ total: 4, totalExact: false });
    expect(ts.runs.every((r) => r.status === 'failed' && r.task.includes('inventory'))).toBe(true);
    expect(store.list({ text: 'inventory', status: 'failed', limit: 4, count: true }).total).toBe(6);
    expect(store.list({ text: 'inventory', status: 'failed', limit: 4, offset: 4 })).toMatchObject({
      total: 6,
      totalExact: true,
    });
    // A page past the end (runs deleted meanwhile) counts, so the list can shrink back.
    expect(store.list({ text: 'inventory', limit: 5, offset: 50 })).toMatchObject({
      total: 12,
      totalExact: true,
      runs: [],
    });
    // Short text (the LIKE path) and a sandbox filter behave the same.
    expect(store.list({ text: 'in', limit: 3 })).toMatchObject({ total: 3, totalExact: false });
    expect(store.list({ sandbox: 'ecommerce', limit: 20 })).toMatchObject({ total: 17, totalExact: true });
    expect(store.list({ sandbox: 'ecommerce', limit: 10, count: true })).toMatchObject({
      total: 17,
      totalExact: true,
    });
    expect(store.list({ text: 'zzz', limit: 5 })).toMatchObject({ total: 0, totalExact: true, runs: [] });
    store.close();
  });

  it('text search in start-time order streams the matches: same pages as the full order, ties by id, both ways', () => {
    const store = newStore();
    const data = (task: string) => ({
      task,
      sandbox: 'ecommerce',
      mode: 'plan' as const,
      language: 'python' as const,
      maxRetries: 0,
      maxSteps: 1,
    });
    // Several runs per millisecond, inserted in an id order unlike the list's tie order.
    const rows: { id: string; ts: number; task: string }[] = [];
    for (let i = 0; i < 40; i++) {
      const ts = 10_000 + Math.floor(i / 3);
      const id = `run-${String((i * 7) % 40).padStart(2, '0')}`;
      const task = i % 4 === 3 ? `other ${i}` : `find inventory ${i}`;
      store.createRun(data(task), id, ts);
      rows.push({ id, ts, task });
    }
    const expected = (dir: 'asc' | 'desc') =>
      rows
        .filter((r) => r.task.includes('inventory'))
        .sort((a, b) =>
          dir === 'desc' ? b.ts - a.ts || (a.id < b.id ? -1 : 1) : a.ts - b.ts || (a.id < b.id ? 1 : -1),
        )
        .map((r) => r.id);
    const pages = (dir: 'asc' | 'desc') => {
      const out: string[] = [];
      for (let offset = 0; offset < 40; offset += 4)
        out.push(...store.list({ text: 'inventory', dir, limit: 4, offset }).runs.map((r) => r.id));
      return out;
    };
    const flag = () =>
      (
        store.db.prepare("SELECT value FROM meta WHERE key = 'fts_in_created_order'").get() as {
          value: string;
        }
      ).value;
    expect(flag()).toBe('1');
    expect(pages('desc')).toEqual(expected('desc'));
    expect(pages('asc')).toEqual(expected('asc'));
    expect(store.list({ text: 'inventory', limit: 4, offset: 28 })).toMatchObject({
      total: 30,
      totalExact: true,
    });
    // A run started earlier than the newest (an import): the rowids no longer follow the start times,
    // and the search collects its matches as before, in the same order.
    store.createRun(data('late inventory'), 'run-zz', 10_005);
    rows.push({ id: 'run-zz', ts: 10_005, task: 'late inventory' });
    expect(flag()).toBe('0');
    expect(pages('desc')).toEqual(expected('desc'));
    expect(pages('asc')).toEqual(expected('asc'));
    store.close();
  });

  it('keeps server-side sort and the suite-run filter with paging', () => {
    const store = newStore();
    const ids = ['delta', 'alpha', 'charlie', 'bravo', 'echo'].map((t) =>
      add(store, `${t} run`, 'succeeded'),
    );
    store.db
      .prepare("UPDATE runs SET suite_run = 'sr1' WHERE id IN (?, ?, ?)")
      .run(ids[0]!, ids[1]!, ids[2]!);
    const page = (offset: number) => store.list({ suiteRun: 'sr1', sort: 'task', limit: 2, offset });
    expect(page(0)).toMatchObject({ total: 2, totalExact: false });
    expect(page(0).runs.map((r) => r.task)).toEqual(['alpha run', 'charlie run']);
    expect(page(2)).toMatchObject({ total: 3, totalExact: true });
    expect(page(2).runs.map((r) => r.task)).toEqual(['delta run']);
    expect(store.list({ text: 'run', sort: 'task', dir: 'desc', limit: 2 }).runs.map((r) => r.task)).toEqual([
      'echo run',
      'delta run',
    ]);
    store.close();
  });
});
