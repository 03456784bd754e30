/** Issue 10: the run list sorts on the server by any column, through an index (no sort of every row). */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { RUN_SORT_KEYS } from '../../../src-main/core/records/sort.ts';
import { orderBy, RunStore } from '../../../src-main/infra/store/run-store.ts';

const file = join(mkdtempSync(join(tmpdir(), 'toolsmith-sort-')), 'runs.db');
let t = 1_000;
const store = new RunStore(file, { now: () => (t += 1000) });
const add = (task: string, tokens: number, status: 'succeeded' | 'failed') => {
  const id = store.createRun({
    task,
    sandbox: task.startsWith('a') ? 'support' : 'ecommerce',
    mode: 'plan',
    language: 'python',
    maxRetries: 0,
    maxSteps: 1,
  });
  store.append(id, 'llm_response', {
    n: 1,
    text: '',
    promptTokens: tokens,
    completionTokens: 0,
    model: 'm',
    provider: 'p',
    latencyMs: 1,
    retries: [],
  });
  store.append(id, 'run_finished', { status });
  return id;
};
add('banana', 30, 'succeeded');
add('apple', 10, 'failed');
add('cherry', 20, 'succeeded');
const tasks = (f: Parameters<RunStore['list']>[0]) => store.list(f).runs.map((r) => r.task);
// (closed when the file ends, not by a test: each test runs alone too, in any order)
afterAll(() => store.close());

describe('run list sort', () => {
  it('newest first by default; oldest first with dir asc', () => {
    expect(tasks({})).toEqual(['cherry', 'apple', 'banana']);
    expect(tasks({ sort: 'created', dir: 'asc' })).toEqual(['banana', 'apple', 'cherry']);
  });

  it('by task, tokens and status, both ways, with paging', () => {
    expect(tasks({ sort: 'task' })).toEqual(['apple', 'banana', 'cherry']);
    expect(tasks({ sort: 'task', dir: 'desc' })).toEqual(['cherry', 'banana', 'apple']);
    expect(tasks({ sort: 'tokens', dir: 'desc' })).toEqual(['banana', 'cherry', 'apple']);
    expect(tasks({ sort: 'tokens', dir: 'asc', limit: 1, offset: 1 })).toEqual(['cherry']);
    expect(tasks({ sort: 'status', dir: 'asc' })).toEqual(['apple', 'banana', 'cherry']);
    expect(tasks({ sort: 'task', status: 'succeeded' })).toEqual(['banana', 'cherry']);
  });

  it('every sort column is an index walk, not a temporary sort', () => {
    // (a connection of its own beside the store's, read-only: the plans are the file's indexes')
    const db = new DatabaseSync(file, { readOnly: true });
    for (const key of RUN_SORT_KEYS) {
      for (const dir of ['asc', 'desc'] as const) {
        // The ORDER BY the store's list uses for this sort, explained.
        const sql = `SELECT r.* FROM runs r ORDER BY ${orderBy(key, dir)} LIMIT 100 OFFSET 50`;
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[])
          .map((p) => p.detail)
          .join('; ');
        expect(plan, `${key} ${dir}`).not.toMatch(/TEMP B-TREE/);
      }
    }
    db.close();
  });
});
