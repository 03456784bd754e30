import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastTraceback } from '../../../src-main/core/records/records.ts';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import { RunStore, RunStoreError } from '../../../src-main/infra/store/run-store.ts';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { runStarted } from '../../support/run-records.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const dbFile = () => join(mkdtempSync(join(tmpdir(), 'toolsmith-store-')), 'runs.db');
const failedExec = (type: string, message: string, line: number): ExecutionResult => ({
  success: false,
  intermediates: [],
  logs: [],
  toolCalls: [],
  exitReason: 'error',
  isolation: 'docker',
  durationMs: 12,
  runtime: 'python',
  error: { type, message, frames: [{ line, name: '<script>', text: 'x' }] },
});

function fullRun(store: RunStore): string {
  const id = store.createRun(runStarted('Find pending orders', { provider: 'p', model: 'm' }));
  store.append(id, 'tier', { n: 1, tier: 'llm', provider: 'p' });
  store.append(id, 'prompt', { n: 1, kind: 'first', system: 's', user: 'u', sections: [], hints: [] });
  store.append(id, 'llm_response', {
    n: 1,
    text: 'import os',
    promptTokens: 100,
    completionTokens: 20,
    model: 'm',
    provider: 'p',
    latencyMs: 50,
    retries: [],
  });
  store.append(id, 'script', {
    n: 1,
    code: 'import os',
    body: 'import os',
    bodyStartLine: 1,
    language: 'python',
    source: 'llm',
  });
  store.append(id, 'validation', {
    n: 1,
    valid: false,
    violations: [{ rule: 'no-import', message: 'no imports', line: 1, column: 1, endLine: 1, endColumn: 10 }],
  });
  store.append(id, 'llm_response', {
    n: 2,
    text: 'x',
    promptTokens: 150,
    completionTokens: 30,
    model: 'm',
    provider: 'p',
    latencyMs: 40,
    retries: [{ attempt: 1, reason: '429', waitMs: 10 }],
  });
  store.append(id, 'script', {
    n: 2,
    code: 'orders = get_orders()',
    body: 'orders = get_orders()\nemit_result(orders.data[0])',
    bodyStartLine: 1,
    language: 'python',
    source: 'llm',
  });
  store.append(id, 'validation', { n: 2, valid: true, violations: [] });
  store.append(id, 'execution', { n: 2, result: failedExec('KeyError', '0', 2) });
  store.append(id, 'run_finished', { status: 'failed', error: 'KeyError: 0' });
  return id;
}

describe('RunStore (real SQLite file)', () => {
  it('derives the record: attempts, tokens, model, tier, traceback', () => {
    const store = new RunStore(dbFile());
    const id = fullRun(store);
    const rec = store.get(id);
    expect(rec?.status).toBe('failed');
    expect(rec?.attempts.map((a) => a.n)).toEqual([1, 2]);
    expect(rec?.attempts[0]?.validation?.violations[0]?.rule).toBe('no-import');
    expect(rec?.attempts[1]?.tokens).toEqual({ prompt: 150, completion: 30 });
    expect(rec?.tokens).toEqual({ prompt: 250, completion: 50, total: 300 });
    expect(rec?.tier).toBe('llm');
    expect(rec && lastTraceback(rec)).toMatchObject({ type: 'KeyError', attempt: 2, frames: [{ line: 2 }] });
    expect(store.summary(id)).toMatchObject({
      status: 'failed',
      attempts: 2,
      tokens: 300,
      model: 'm',
      tier: 'llm',
      error: 'KeyError: 0',
    });
  });

  it('filters by status, sandbox, mode, model, tier, date and free text over task, script and error', () => {
    const store = new RunStore(dbFile());
    const a = fullRun(store);
    const b = store.createRun(runStarted('Check stock of p1', { sandbox: 'support', mode: 'interactive' }));
    store.append(b, 'run_finished', { status: 'succeeded', result: 3 });
    const ids = (f: Parameters<RunStore['list']>[0]) =>
      store
        .list(f)
        .runs.map((r) => r.id)
        .sort();
    expect(ids({ status: 'failed' })).toEqual([a]);
    expect(ids({ status: ['failed', 'succeeded'] })).toEqual([a, b].sort());
    expect(ids({ sandbox: 'support' })).toEqual([b]);
    expect(ids({ mode: 'interactive' })).toEqual([b]);
    expect(ids({ model: 'm' })).toEqual([a]);
    expect(ids({ tier: 'llm' })).toEqual([a]);
    expect(ids({ text: 'pending' })).toEqual([a]);
    expect(ids({ text: 'GET_ORDERS' })).toEqual([a]);
    expect(ids({ text: 'KeyError' })).toEqual([a]);
    expect(ids({ text: 'no-import' })).toEqual([a]);
    expect(ids({ text: 'p1' })).toEqual([b]);
    expect(ids({ text: 'zzzz' })).toEqual([]);
    expect(ids({ text: '"quoted' })).toEqual([]);
    expect(ids({ from: Date.now() + 60_000 })).toEqual([]);
    expect(store.list({ limit: 1 }).runs).toHaveLength(1);
    expect(store.list({ limit: 1 }).total).toBe(2);
  });

  it('exports a run to JSON and imports it into another store, rebuilding summary and index', () => {
    const src = new RunStore(dbFile());
    const id = fullRun(src);
    const doc = JSON.parse(JSON.stringify(src.export(id))) as unknown;
    const dst = new RunStore(dbFile());
    const imported = dst.import(doc);
    expect(imported).toBe(id);
    expect(dst.get(imported)).toEqual(src.get(id));
    expect(dst.list({ text: 'KeyError' }).runs.map((r) => r.id)).toEqual([id]);
    // Importing again keeps both, under a new id.
    const again = dst.import(doc);
    expect(again).not.toBe(id);
    expect(() => dst.import({ format: 'other' })).toThrow(RunStoreError);
    expect(() => dst.import({ format: 'toolsmith-run', version: 99, events: [{}] })).toThrow(/newer/);
  });

  it('deletes a run with its events and index entry', () => {
    const store = new RunStore(dbFile());
    const id = fullRun(store);
    expect(store.delete(id)).toBe(true);
    expect(store.get(id)).toBeUndefined();
    expect(store.events(id)).toEqual([]);
    expect(store.list({ text: 'pending' }).total).toBe(0);
    expect(store.delete(id)).toBe(false);
  });

  it(
    'a run whose process was killed mid-run reads as interrupted, with nothing written lost',
    () => {
      const file = dbFile();
      const script = join(mkdtempSync(join(tmpdir(), 'toolsmith-kill-')), 'kill.ts');
      writeFileSync(
        script,
        `import { RunStore } from ${JSON.stringify(join(root, 'src-main/infra/store/run-store.ts'))};
const s = new RunStore(${JSON.stringify(file)});
const id = s.createRun({ task: 'dies', sandbox: 'ecommerce', mode: 'plan', language: 'python', maxRetries: 1, maxSteps: 1 });
s.append(id, 'prompt', { n: 1, kind: 'first', system: 's', user: 'u', sections: [], hints: [] });
s.append(id, 'llm_response', { n: 1, text: 'emit_result(1)', promptTokens: 5, completionTokens: 3, model: 'm', provider: 'p', latencyMs: 1, retries: [] });
process.stdout.write(id + '\\n');
process.kill(process.pid, 'SIGKILL');
`,
      );
      const r = spawnSync(join(root, 'node_modules/.bin/node'), [script], { encoding: 'utf8' });
      expect(r.signal).toBe('SIGKILL');
      const id = r.stdout.trim();
      const store = new RunStore(file);
      const rec = store.get(id);
      expect(rec?.status).toBe('interrupted');
      expect(rec?.attempts[0]?.llm?.text).toBe('emit_result(1)');
      expect(store.list({ status: 'interrupted' }).runs.map((x) => x.id)).toEqual([id]);
    },
    STARTS_PROCESSES_MS,
  );

  it('refuses a database from a newer Toolsmith', async () => {
    const file = dbFile();
    new RunStore(file).close();
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(file);
    db.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
    db.close();
    expect(() => new RunStore(file)).toThrow(/schema version 99, newer/);
  });
});

describe('full-text rows', () => {
  it('a v2 store migrates: every run gets its full-text row, and appends update only that row', async () => {
    const file = dbFile();
    const { DatabaseSync } = await import('node:sqlite');
    const old = new DatabaseSync(file);
    // The schema as version 2 wrote it (before runs knew their full-text rowid).
    old.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO meta VALUES ('schema_version', '2');
      CREATE TABLE runs (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, status TEXT NOT NULL,
        task TEXT NOT NULL, sandbox TEXT NOT NULL, kit TEXT, mode TEXT NOT NULL, model TEXT, tier TEXT, provider TEXT,
        attempts INTEGER NOT NULL DEFAULT 0, tokens INTEGER NOT NULL DEFAULT 0, duration_ms INTEGER NOT NULL DEFAULT 0,
        error TEXT, owner_pid INTEGER, origin_run TEXT, next_seq INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, v INTEGER NOT NULL,
        ts INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
      CREATE VIRTUAL TABLE runs_fts USING fts5(run_id UNINDEXED, task, scripts, errors, tokenize='trigram');
      CREATE TABLE template_stats (name TEXT PRIMARY KEY, successes INTEGER NOT NULL DEFAULT 0,
        failures INTEGER NOT NULL DEFAULT 0, last_used INTEGER);`);
    for (const [id, task] of [
      ['a', 'count the orders'],
      ['b', 'check the warehouse'],
    ] as const) {
      old
        .prepare(
          `INSERT INTO runs (id, created_at, updated_at, status, task, sandbox, mode, next_seq) VALUES (?, 1, 1, 'succeeded', ?, 'ecommerce', 'plan', 1)`,
        )
        .run(id, task);
      old
        .prepare('INSERT INTO events VALUES (?, 0, ?, 1, 1, ?)')
        .run(id, 'run_started', JSON.stringify(runStarted(task)));
      old.prepare(`INSERT INTO runs_fts (run_id, task, scripts, errors) VALUES (?, ?, '', '')`).run(id, task);
    }
    old.close();
    const store = new RunStore(file);
    expect(store.list({ text: 'warehouse' }).runs.map((r) => r.id)).toEqual(['b']);
    store.append('a', 'script', {
      n: 1,
      code: '',
      body: 'r = get_inventory_report()',
      bodyStartLine: 1,
      language: 'python',
      source: 'llm',
    });
    expect(store.list({ text: 'inventory_report' }).runs.map((r) => r.id)).toEqual(['a']);
    expect(store.list({ text: 'warehouse' }).runs.map((r) => r.id)).toEqual(['b']);
    expect(store.delete('b')).toBe(true);
    expect(store.list({ text: 'warehouse' }).total).toBe(0);
    const id = store.createRun(runStarted('a new warehouse run'));
    expect(store.list({ text: 'warehouse' }).runs.map((r) => r.id)).toEqual([id]);
    store.close();
  });
});
