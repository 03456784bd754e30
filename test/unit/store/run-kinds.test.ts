/**
 * Run kinds in the store: a template test is recorded as its own kind, the list hides it by default in
 * every strategy (page walk, text stream, text window, collected text) and every total (trigger-kept
 * counts, page bounds, exact counts) agrees with the rows; a store written before kinds opens with
 * its template tests found.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it, vi } from 'vitest';
import type { RunKind } from '../../../src-main/core/records/events.ts';
import { MIGRATIONS } from '../../../src-main/infra/store/connection.ts';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import type { RunFilter } from '../../../src-main/infra/store/run-store.ts';
import { runStarted } from '../../support/run-records.ts';

const dbFile = () => join(mkdtempSync(join(tmpdir(), 'toolsmith-kinds-')), 'runs.db');
const started = (task: string, kind?: RunKind) =>
  runStarted(task, { maxRetries: 0, maxSteps: 1, ...(kind ? { kind } : {}) });

/** 60 runs, every 4th a template test; every 3rd failed. Tasks all hold "orders". */
function seed(store: RunStore): { tests: Set<string> } {
  const tests = new Set<string>();
  store.batch(() => {
    for (let i = 0; i < 60; i++) {
      const test = i % 4 === 0;
      const id = store.createRun(
        started(`${test ? 'template test t: ' : ''}check orders ${i}`, test ? 'template_test' : undefined),
        undefined,
        1_000_000 + i * 1_000,
      );
      if (test) tests.add(id);
      store.append(
        id,
        'run_finished',
        { status: i % 3 === 0 ? 'failed' : 'succeeded' },
        1_000_500 + i * 1_000,
      );
    }
  });
  return { tests };
}

/** Every row of a filter, page by page, and the total each page told. */
function walk(store: RunStore, filter: RunFilter, limit = 7) {
  const rows: { id: string; kind: string }[] = [];
  const totals: { total: number; totalExact: boolean }[] = [];
  for (let offset = 0; offset < 200; offset += limit) {
    const p = store.list({ ...filter, limit, offset });
    totals.push({ total: p.total, totalExact: p.totalExact });
    rows.push(...p.runs.map((r) => ({ id: r.id, kind: r.kind })));
    if (p.runs.length < limit) break;
  }
  return { rows, totals };
}

describe('run kinds', () => {
  // Small windows so that the windowed text search is taken on this small store too.
  const stores = [
    ['default tuning', (f: string) => new RunStore(f)],
    ['a small text window', (f: string) => new RunStore(f, { textWindow: 40, fewMatches: 5 })],
  ] as const;

  for (const [name, open] of stores)
    it(`hides template tests by default, in every strategy and total (${name})`, () => {
      const store = open(dbFile());
      const windowed = vi.spyOn(store as unknown as { windowText: () => unknown }, 'windowText');
      const { tests } = seed(store);
      for (const base of [
        {},
        { status: 'failed' as const },
        { text: 'orders' },
        { text: 'orders', sort: 'task' as const, dir: 'desc' as const },
        { text: 'or' },
        { text: 'orders', status: 'failed' as const, sort: 'tokens' as const },
        { sandbox: 'ecommerce' },
      ] as RunFilter[]) {
        for (const [kind, want] of [
          [undefined, (id: string) => !tests.has(id)],
          ['template_test', (id: string) => tests.has(id)],
          [['run', 'template_test'], () => true],
        ] as const) {
          const filter: RunFilter = { ...base, ...(kind ? { kind: kind as RunFilter['kind'] } : {}) };
          const label = JSON.stringify(filter);
          const { rows, totals } = walk(store, filter);
          // The same runs as a filter over every run by hand.
          const every = walk(store, { ...base, kind: ['run', 'template_test'] }, 100).rows;
          expect(
            rows.map((r) => r.id),
            label,
          ).toEqual(every.map((r) => r.id).filter(want));
          // Totals agree with the rows: exact ones equal them, bounds never pass them.
          for (const t of totals)
            if (t.totalExact) expect(t.total, label).toBe(rows.length);
            else expect(t.total, label).toBeLessThanOrEqual(rows.length);
          expect(totals.at(-1)?.totalExact, label).toBe(true);
          expect(store.list({ ...filter, count: true }).total, label).toBe(rows.length);
        }
      }
      // The windowed text search answered pages here (the kind term is in its walk).
      expect(windowed.mock.results.filter((r) => r.value !== undefined).length).toBeGreaterThan(0);
      expect(store.list().total).toBe(45);
      expect(store.list({ kind: 'template_test' }).runs.every((r) => r.kind === 'template_test')).toBe(true);
      // Deleting a template test changes its kind's count only.
      store.delete([...tests][0] as string);
      expect(store.list()).toMatchObject({ total: 45, totalExact: true });
      expect(store.list({ kind: 'template_test' })).toMatchObject({ total: 14, totalExact: true });
      store.close();
    });

  it('a store with no template test lists as before (no kind term), and its total stays exact', () => {
    const store = new RunStore(dbFile());
    for (let i = 0; i < 5; i++) store.createRun(started(`run ${i}`));
    expect(store.list()).toMatchObject({ total: 5, totalExact: true });
    expect(store.list({ kind: 'template_test' })).toMatchObject({ total: 0, totalExact: true, runs: [] });
    store.close();
  });

  it('a store written before kinds opens: template tests that named their origin are found', () => {
    const file = dbFile();
    const old = new DatabaseSync(file);
    old.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    const before = MIGRATIONS.length - 1;
    for (const m of MIGRATIONS.slice(0, before)) old.exec(m);
    old.exec(`INSERT INTO meta (key, value) VALUES ('schema_version', '${before}')`);
    const put = (id: string, task: string, origin?: { runId: string; kind: string }) => {
      old
        .prepare(
          `INSERT INTO runs (id, created_at, updated_at, status, task, sandbox, mode, origin_run, next_seq)
           VALUES (?, ?, ?, 'succeeded', ?, 'ecommerce', 'plan', ?, 1)`,
        )
        .run(id, 1000, 1000, task, origin?.runId ?? null);
      old
        .prepare(
          `INSERT INTO events (run_id, seq, type, v, ts, data) VALUES (?, 0, 'run_started', 1, 1000, ?)`,
        )
        .run(id, JSON.stringify({ ...started(task), ...(origin ? { origin } : {}) }));
    };
    put('a-source', 'source');
    put('b-edit', 'source (edited)', { runId: 'a-source', kind: 'edit' });
    put('c-test', 'template test t: x', { runId: 'a-source', kind: 'test' });
    old.close();

    const store = new RunStore(file);
    expect(store.list()).toMatchObject({ total: 2, totalExact: true });
    expect(
      store
        .list()
        .runs.map((r) => r.id)
        .sort(),
    ).toEqual(['a-source', 'b-edit']);
    expect(store.list({ kind: 'template_test' }).runs.map((r) => r.id)).toEqual(['c-test']);
    expect(store.summary('c-test')?.kind).toBe('template_test');
    expect(store.list({ kind: ['run', 'template_test'] })).toMatchObject({ total: 3, totalExact: true });
    store.close();
  });
});
