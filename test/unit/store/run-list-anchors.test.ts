/**
 * Issue 14: a page deep in the run list starts from the keyset anchor of a page fetched before (while
 * nothing was written), not from the top. The pages must be exactly the OFFSET pages, in every order,
 * with filters, after writes on this connection and on another one.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_SORT_KEYS } from '../../../src-main/core/records/sort.ts';
import type { RunFilter } from '../../../src-main/infra/store/run-store.ts';
import { orderBy, RunStore } from '../../../src-main/infra/store/run-store.ts';
import { LARGE_STORE_MS } from '../../support/budgets.ts';

const RUNS = 2_600;
const file = join(mkdtempSync(join(tmpdir(), 'toolsmith-anchors-')), 'runs.db');
const store = new RunStore(file);
const ids: string[] = [];
store.batch(() => {
  for (let i = 0; i < RUNS; i++) {
    // Runs share start times (ties broken by id) and sort values; model and tier are sometimes NULL.
    const ts = 1_000_000 + Math.floor(i / 3) * 10;
    const id = store.createRun(
      {
        task: `task ${i % 37}`,
        sandbox: i % 3 ? 'ecommerce' : 'support',
        mode: 'plan',
        language: 'python',
        maxRetries: 0,
        maxSteps: 1,
        ...(i % 5 ? { model: `m${i % 7}` } : {}),
      },
      `run-${String((i * 7919) % RUNS).padStart(5, '0')}`,
      ts,
    );
    ids.push(id);
    if (i % 4 === 1) store.append(id, 'tier', { n: 1, tier: i % 8 === 1 ? 'template' : 'llm' }, ts + 1);
    store.append(
      id,
      'llm_response',
      {
        n: 1 + (i % 3),
        text: '',
        promptTokens: i % 50,
        completionTokens: 0,
        model: `m${i % 3}`,
        provider: 'p',
        latencyMs: 1,
        retries: [],
      },
      ts + 2,
    );
    store.append(id, 'run_finished', { status: i % 4 === 0 ? 'failed' : 'succeeded' }, ts + 3 + (i % 13));
  }
});

/** The page by OFFSET alone, straight from SQLite. */
const byOffset = (f: RunFilter): string[] => {
  const where = f.status ? `WHERE r.status = '${String(f.status)}'` : '';
  return (
    store.db
      .prepare(`SELECT r.id FROM runs r ${where} ORDER BY ${orderBy(f.sort, f.dir)} LIMIT ? OFFSET ?`)
      .all(f.limit ?? 100, f.offset ?? 0) as { id: string }[]
  ).map((r) => r.id);
};
const page = (s: RunStore, f: RunFilter) => s.list(f).runs.map((r) => r.id);

describe('deep pages from keyset anchors', () => {
  it(
    'scrolling page by page, and back, gives the OFFSET pages in every order',
    () => {
      for (const sort of RUN_SORT_KEYS)
        for (const dir of ['asc', 'desc'] as const)
          for (const status of [undefined, 'succeeded' as const]) {
            const base: RunFilter = { sort, dir, limit: 100, ...(status ? { status } : {}) };
            for (const offset of [1_000, 1_100, 1_200, 1_300, 1_250, 1_900, 2_500, 1_050, 2_600])
              expect(page(store, { ...base, offset }), `${sort} ${dir} ${status} ${offset}`).toEqual(
                byOffset({ ...base, offset }),
              );
          }
      // The pages were anchored (a query whose anchors were all dropped would pass the above too).
      const anchors = (store as unknown as { anchors: Map<string, { at: Map<number, unknown> }> }).anchors;
      expect(Math.max(...[...anchors.values()].map((a) => a.at.size))).toBeGreaterThanOrEqual(8);
    },
    LARGE_STORE_MS,
  );

  it('a write here or on another connection drops the anchors', () => {
    const f: RunFilter = { sort: 'tokens', dir: 'desc', limit: 50 };
    for (const offset of [1_000, 1_050, 1_100]) page(store, { ...f, offset });
    // The run at the top of the next page gets the most tokens: every page from there on shifts.
    const moved = byOffset({ ...f, offset: 1_150, limit: 1 })[0] as string;
    store.append(moved, 'llm_response', {
      n: 9,
      text: '',
      promptTokens: 1_000,
      completionTokens: 0,
      model: 'm',
      provider: 'p',
      latencyMs: 1,
      retries: [],
    });
    for (const offset of [1_150, 1_200])
      expect(page(store, { ...f, offset })).toEqual(byOffset({ ...f, offset }));
    // Another connection (the CLI, another window) adds the newest run: the default order shifts by one.
    for (const offset of [1_000, 1_100]) page(store, { limit: 100, offset });
    const other = new RunStore(file);
    other.createRun(
      { task: 'newest', sandbox: 'support', mode: 'plan', language: 'python', maxRetries: 0, maxSteps: 1 },
      'run-new',
      9_000_000,
    );
    other.close();
    expect(page(store, { limit: 100, offset: 1_200 })).toEqual(byOffset({ limit: 100, offset: 1_200 }));
    expect(page(store, { limit: 100, offset: 1_100 })).toEqual(byOffset({ limit: 100, offset: 1_100 }));
  });

  it('the anchored query seeks in the sort index (no temporary sort)', () => {
    for (const [sort, seek] of [
      ['tokens', '(r.tokens, r.created_at, r.id) <= (?, ?, ?)'],
      ['created', '(r.created_at <= ? AND (r.created_at < ? OR r.id >= ?))'],
    ] as const) {
      const plan = (
        store.db
          .prepare(
            `EXPLAIN QUERY PLAN SELECT r.* FROM runs r WHERE ${seek} ORDER BY ${orderBy(sort, 'desc')} LIMIT 100 OFFSET 10`,
          )
          .all(5, 1_000_500, 'run-00001') as { detail: string }[]
      )
        .map((p) => p.detail)
        .join('; ');
      expect(plan, sort).toMatch(/SEARCH r USING INDEX/);
      expect(plan, sort).not.toMatch(/TEMP B-TREE/);
    }
  });
});
