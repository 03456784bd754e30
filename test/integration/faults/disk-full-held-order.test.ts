/**
 * The run list sorted by a column that a run's held events change (a full disk: its events are held in
 * memory, its row not yet written): the run is listed with its held status, tokens, model... and is
 * placed by them, on every page, with totals that agree. The store lives on a small tmpfs that is
 * filled. Before, it was placed by its stored row (`running`, 0 tokens, no model). Needs root (mount).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSortKey } from '../../../src-main/core/records/sort.ts';
import type { RunSummary } from '../../../src-main/core/records/summary.ts';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import type { RunFilter } from '../../../src-main/infra/store/run-store.ts';
import { runStarted } from '../../support/run-records.ts';
import { mountSmallDisk, type SmallDisk } from './support/small-disk.ts';

let disk: SmallDisk;
let root: string;
const fillDisk = () => disk.fill();
const freeDisk = () => disk.free();

beforeAll(() => {
  disk = mountSmallDisk('toolsmith-diskfull-order-', 16);
  root = disk.root;
});
afterAll(() => disk.remove());

/** An answer of the model: `tokens` in all, ~100 KB of text (it cannot be written on a full disk). */
const answer = (n: number, model: string, tokens: number) => ({
  n,
  model,
  provider: 'p',
  text: 'x'.repeat(100_000),
  promptTokens: tokens - 1,
  completionTokens: 1,
  latencyMs: 1,
  retries: [],
});

/** SQLite's order of a column sort as the list's: NULL first, text by bytes, then start time and id. */
function expectedOrder(runs: RunSummary[], sort: Exclude<RunSortKey, 'created'>, dir: 'asc' | 'desc') {
  const field = (
    {
      status: 'status',
      model: 'model',
      tier: 'tier',
      attempts: 'attempts',
      tokens: 'tokens',
      duration: 'durationMs',
      task: 'task',
      sandbox: 'sandbox',
      mode: 'mode',
    } as const
  )[sort];
  const cmp = (a: unknown, b: unknown): number =>
    a === b
      ? 0
      : a === null
        ? -1
        : b === null
          ? 1
          : typeof a === 'number' && typeof b === 'number'
            ? a - b
            : Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)));
  const sorted = [...runs].sort(
    (a, b) => cmp(a[field], b[field]) || a.createdAt - b.createdAt || cmp(a.id, b.id),
  );
  return (dir === 'asc' ? sorted : sorted.reverse()).map((r) => r.id);
}

/** Every page of `filter` at `limit` runs a page, in order, and the pages' totals. */
function pages(store: RunStore, filter: RunFilter, limit: number) {
  const ids: string[] = [];
  const totals: { total: number; totalExact: boolean }[] = [];
  for (let offset = 0; ; offset += limit) {
    const page = store.list({ ...filter, limit, offset });
    ids.push(...page.runs.map((r) => r.id));
    totals.push({ total: page.total, totalExact: page.totalExact });
    if (page.runs.length < limit) return { ids, totals };
  }
}

describe('a run list sorted by a column held events change', () => {
  it('places a run whose end is held by its held status, tokens and model, on every page, with its totals', () => {
    const store = new RunStore(join(root, 'few', 'runs.db'));
    const start = (task: string) => store.createRun(runStarted(task));
    try {
      const small = start('ended with 10 tokens');
      store.append(small, 'llm_response', { ...answer(1, 'a', 10), text: 'a' });
      store.append(small, 'run_finished', { status: 'succeeded', result: 1 });
      const failed = start('failed with 50 tokens');
      store.append(failed, 'llm_response', { ...answer(1, 'b', 50), text: 'b' });
      store.append(failed, 'run_finished', { status: 'failed', error: 'e' });
      const held = start('ends while the disk is full, 100 tokens');
      const going = start('still going');
      fillDisk();
      store.append(held, 'llm_response', answer(1, 'z', 100));
      store.append(held, 'run_finished', { status: 'succeeded', result: 2 });
      expect(store.pendingEvents()).toBe(2);
      const order = (f: RunFilter) => store.list(f).runs.map((r) => r.id);
      // Before: [failed, small, going, held] (held at its row's 0 tokens), though listed with 100.
      expect(order({ sort: 'tokens', dir: 'desc' })).toEqual([held, failed, small, going]);
      expect(store.list({ sort: 'tokens', dir: 'desc' }).runs[0]).toMatchObject({ id: held, tokens: 100 });
      // Before: [failed, held, going, small] (held among the running).
      expect(order({ sort: 'status' })).toEqual([failed, going, small, held]);
      // Before: [held, going, small, failed] (held with its row's model, none).
      expect(order({ sort: 'model' })).toEqual([going, small, failed, held]);
      expect(order({ sort: 'model', dir: 'desc' })).toEqual([held, failed, small, going]);
      // Filtered by its held status and sorted by its held tokens; by text (the collecting strategy).
      expect(order({ status: 'succeeded', sort: 'tokens', dir: 'desc' })).toEqual([held, small]);
      expect(order({ text: 'tokens', sort: 'tokens', dir: 'desc' })).toEqual([held, failed, small]);
      // Page by page (`--limit 1`): the same order, and totals that agree with it.
      expect(pages(store, { sort: 'tokens', dir: 'desc' }, 1).ids).toEqual([held, failed, small, going]);
      const filtered = pages(store, { sandbox: 'ecommerce', sort: 'tokens', dir: 'desc' }, 3);
      expect(filtered.ids).toEqual([held, failed, small, going]);
      expect(filtered.totals).toEqual([
        { total: 3, totalExact: false },
        { total: 4, totalExact: true },
      ]);
      expect(store.list({ sandbox: 'ecommerce', sort: 'tokens', limit: 1, count: true }).total).toBe(4);
      expect(store.list({ sort: 'tokens', dir: 'desc', offset: 1, limit: 2 }).runs.map((r) => r.id)).toEqual([
        failed,
        small,
      ]);
      // Written once space returns: the same order, now from the rows.
      freeDisk();
      expect(store.flush()).toBe(true);
      expect(order({ sort: 'tokens', dir: 'desc' })).toEqual([held, failed, small, going]);
    } finally {
      freeDisk();
      store.close();
    }
  });

  it('every sort, both ways, page by page, is the order of what is listed (40 runs written, 3 held)', () => {
    const store = new RunStore(join(root, 'many', 'runs.db'));
    const models = ['b', null, 'a', 'c'];
    try {
      for (let i = 0; i < 40; i++) {
        const id = store.createRun(runStarted(`run ${i}`));
        const model = models[i % 4];
        if (model)
          store.append(id, 'llm_response', { ...answer(1 + (i % 3), model, 1 + (i % 7) * 10), text: 't' });
        if (i % 5 !== 0)
          store.append(id, 'run_finished', { status: i % 2 ? 'succeeded' : 'failed', error: 'e' });
      }
      const held = [0, 1, 2].map((i) => store.createRun(runStarted(`held ${i}`)));
      // (the log emptied into the file and cut: a held run's answer needs room it no longer has)
      execFileSync('sqlite3', ['-cmd', '.timeout 5000', store.file, 'PRAGMA wal_checkpoint(TRUNCATE);']);
      fillDisk();
      held.forEach((id, i) => {
        store.append(
          id,
          'llm_response',
          answer(2 + i, ['c', 'a', 'bb'][i] as string, [65, 5, 31][i] as number),
        );
        if (i < 2) store.append(id, 'run_finished', { status: i ? 'failed' : 'succeeded', result: 1 });
      });
      expect(store.pendingEvents()).toBe(5);
      // What is listed (each run as shown), from the default order.
      const shown = store.list({ limit: 1000 }).runs;
      expect(shown).toHaveLength(43);
      for (const sort of ['status', 'model', 'tier', 'attempts', 'tokens', 'duration'] as const)
        for (const dir of ['asc', 'desc'] as const) {
          const { ids, totals } = pages(store, { sort, dir, sandbox: 'ecommerce' }, 7);
          expect({ sort, dir, ids }).toEqual({ sort, dir, ids: expectedOrder(shown, sort, dir) });
          expect(totals.at(-1)).toEqual({ total: 43, totalExact: true });
        }
    } finally {
      freeDisk();
      store.close();
    }
  });
});
