/**
 * Issue 14: text search in a non-default order walks the sort order through a window instead of
 * collecting every full-text match. The pages must be those of the collecting query, in every order,
 * with other filters, short text (LIKE) and the characters the full-text index folds beyond ASCII.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { RUN_SORT_KEYS } from '../../../src-main/core/records/sort.ts';
import type { RunFilter } from '../../../src-main/infra/store/run-store.ts';
import { orderBy, RunStore } from '../../../src-main/infra/store/run-store.ts';
import { LARGE_STORE_MS } from '../../support/budgets.ts';

const RUNS = 3_000;
const file = join(mkdtempSync(join(tmpdir(), 'toolsmith-window-')), 'runs.db');
const seeded = new RunStore(file);
const WORDS = ['Inventory', 'orders', 'tickets', 'SKU stock'];
seeded.batch(() => {
  for (let i = 0; i < RUNS; i++) {
    const ts = 1_000_000 + i * 10;
    // Most tasks name a word (any case); a few hold characters the index folds to k and s.
    const word = i % 97 === 0 ? 'inventory \u212aeep' : i % 89 === 0 ? 'order\u017f \u212aU' : WORDS[i % 4];
    const id = seeded.createRun(
      {
        task: `check ${word} number ${i}`,
        sandbox: i % 3 ? 'ecommerce' : 'support',
        mode: 'plan',
        language: 'python',
        maxRetries: 0,
        maxSteps: 1,
        ...(i % 5 ? { model: `m${i % 7}` } : {}),
      },
      undefined,
      ts,
    );
    if (i % 4 === 1) seeded.append(id, 'tier', { n: 1, tier: i % 8 === 1 ? 'template' : 'llm' }, ts + 1);
    if (i % 2)
      seeded.append(
        id,
        'script',
        {
          n: 1,
          code: '',
          body: i % 6 === 1 ? 'get_inventory()' : 'emit_result(1)',
          bodyStartLine: 1,
          language: 'python',
          source: 'llm',
        },
        ts + 2,
      );
    seeded.append(
      id,
      'llm_response',
      {
        n: 1 + (i % 3),
        text: '',
        promptTokens: i % 50,
        completionTokens: 0,
        model: 'm',
        provider: 'p',
        latencyMs: 1,
        retries: [],
      },
      ts + 3,
    );
    seeded.append(
      id,
      'run_finished',
      {
        status: i % 4 === 0 ? 'failed' : 'succeeded',
        ...(i % 4 === 0 ? { error: i % 8 === 0 ? 'KeyError: inventory' : 'ValueError: x' } : {}),
      },
      ts + 4 + (i % 13),
    );
  }
});

seeded.close();
// The same runs through a small window (the defaults, 20,000 runs and 2,000 matches, are for big stores):
// pages within 600 runs are walked, deeper ones and rare text collected.
const store = new RunStore(file, { textWindow: 600, fewMatches: 20 });
const windowed = vi.spyOn(store as unknown as { windowText: () => unknown }, 'windowText');
// A window over every run: rare text is walked too.
const wide = new RunStore(file, { textWindow: 10_000, fewMatches: 1 });
const widely = vi.spyOn(wide as unknown as { windowText: () => unknown }, 'windowText');

/** The page as the collecting query answers it (every match, then the order). */
const collected = (f: RunFilter): string[] => {
  const where: string[] = [];
  const args: (string | number)[] = [];
  const text = f.text ?? '';
  if ([...text].length >= 3) {
    where.push('r.fts_id IN (SELECT rowid FROM runs_fts WHERE runs_fts MATCH ?)');
    args.push(`"${text}"`);
  } else {
    where.push(
      "r.fts_id IN (SELECT rowid FROM runs_fts WHERE task LIKE ? ESCAPE '\\' OR scripts LIKE ? ESCAPE '\\' OR errors LIKE ? ESCAPE '\\')",
    );
    const like = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    args.push(like, like, like);
  }
  if (f.status) {
    where.push('r.status = ?');
    args.push(f.status as string);
  }
  if (f.sandbox) {
    where.push('r.sandbox = ?');
    args.push(f.sandbox);
  }
  for (const [term, v] of [
    ['r.created_at >= ?', f.from],
    ['r.created_at <= ?', f.to],
  ] as const)
    if (v !== undefined) {
      where.push(term);
      args.push(v);
    }
  const sql = `SELECT r.id FROM runs r WHERE ${where.join(' AND ')} ORDER BY ${orderBy(f.sort, f.dir)} LIMIT ? OFFSET ?`;
  return (store.db.prepare(sql).all(...args, f.limit ?? 100, f.offset ?? 0) as { id: string }[]).map(
    (r) => r.id,
  );
};
const ids = (f: RunFilter) => store.list(f).runs.map((r) => r.id);

describe('windowed text search', () => {
  it(
    'pages like the collecting query in every sort, both ways, with filters',
    () => {
      for (const sort of RUN_SORT_KEYS)
        for (const dir of ['asc', 'desc'] as const)
          for (const f of [
            { text: 'inventory' },
            { text: 'INVENTORY', status: 'failed' as const },
            { text: 'inventory', sandbox: 'support' },
            { text: 'emit_result' },
          ])
            for (const offset of [0, 150]) {
              const filter: RunFilter = { ...f, sort, dir, limit: 50, offset };
              expect(ids(filter), JSON.stringify(filter)).toEqual(collected(filter));
            }
      // Both ways were taken: pages walked in a window, and pages collected (deeper than the window).
      const answers = windowed.mock.results.map((r) => r.value as unknown[] | undefined);
      expect(answers.filter((a) => a !== undefined).length).toBeGreaterThan(50);
      expect(answers.filter((a) => a === undefined).length).toBeGreaterThan(0);
    },
    LARGE_STORE_MS,
  );

  it('finds the runs whose text matches only through the folded characters (K, ſ)', () => {
    for (const text of ['keep', 'KEEP', 'orders ku', 'ders'])
      for (const sort of ['tokens', 'task'] as const) {
        const filter: RunFilter = { text, sort, dir: 'desc', limit: 100 };
        const got = wide.list(filter).runs.map((r) => r.id);
        expect(got, text).toEqual(collected(filter));
        expect(got.length, text).toBeGreaterThan(0);
      }
    expect(widely.mock.results.every((r) => r.value !== undefined)).toBe(true);
    // 'keep' is only ever written with the Kelvin sign.
    expect(
      wide.list({ text: 'keep', sort: 'tokens', limit: 100 }).runs.every((r) => r.task.includes('\u212aeep')),
    ).toBe(true);
  });

  it('short text (LIKE) and pages deep or past the window answer as before', () => {
    for (const filter of [
      { text: 'x', sort: 'tokens', limit: 30 },
      { text: 'ic', dir: 'asc', limit: 30, offset: 60 },
      { text: '%', limit: 10 },
      { text: 'inventory', sort: 'attempts', limit: 100, offset: 1_200 },
      { text: 'number 12', sort: 'task', limit: 20 },
      // Few runs in the date range (the window would walk past them all): collected.
      { text: 'inventory', sort: 'tokens', from: 1_010_000, to: 1_012_000, limit: 20 },
      { text: 'inventory', sort: 'tokens', from: 1_010_000, limit: 20, offset: 40 },
    ] as RunFilter[])
      expect(ids(filter), JSON.stringify(filter)).toEqual(collected(filter));
    // Totals keep their meaning: a lower bound while more match, exact on the last page.
    const first = store.list({ text: 'inventory', sort: 'tokens', limit: 100 });
    expect(first).toMatchObject({ total: 100, totalExact: false });
    const all = store.list({ text: 'inventory', sort: 'tokens', limit: 100, count: true }).total;
    expect(all).toBe(
      (
        store.db.prepare(`SELECT COUNT(*) AS n FROM runs_fts WHERE runs_fts MATCH '"inventory"'`).get() as {
          n: number;
        }
      ).n,
    );
    expect(store.list({ text: 'inventory', sort: 'tokens', limit: 100, offset: all - 10 })).toMatchObject({
      total: all,
      totalExact: true,
    });
  });

  it('walks the sort index, without a temporary sort', () => {
    const plan = (
      store.db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT r.* FROM (SELECT r.rowid AS rid FROM runs r ORDER BY ${orderBy('tokens', 'desc')} LIMIT 100) w
           CROSS JOIN runs r ON r.rowid = w.rid CROSS JOIN runs_fts_content c ON c.id = r.fts_id LIMIT 10`,
        )
        .all() as { detail: string }[]
    )
      .map((p) => p.detail)
      .join('; ');
    expect(plan).toMatch(/COVERING INDEX runs_sort_tokens/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });
});
