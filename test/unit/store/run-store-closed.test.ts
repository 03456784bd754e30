/**
 * Events that land after the run store closed (a run still emitting while its process stops) are dropped
 * and counted, never written to the closed connection (node:sqlite: "statement has been finalized" /
 * "database is not open", thrown from wherever the event came from).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { RunStore, RunStoreError } from '../../../src-main/infra/store/run-store.ts';

const started = {
  task: 'late events',
  sandbox: 'ecommerce',
  mode: 'plan',
  language: 'python',
  maxRetries: 0,
  maxSteps: 1,
} as const;

it('after close: appends are dropped and counted, template uses ignored, no new run, close again is a no-op', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'toolsmith-store-')), 'runs.db');
  const store = new RunStore(file);
  const id = store.createRun(started);
  store.append(id, 'tier', { n: 1, tier: 'edit' });
  store.close();
  expect(store.isClosed()).toBe(true);
  const late = store.append(id, 'emit', { n: 1, kind: 'log', data: 'late' });
  expect(late).toMatchObject({ runId: id, seq: -1, type: 'emit' });
  store.append(id, 'run_finished', { status: 'cancelled', error: 'cancelled: stopping' });
  expect(store.droppedAfterClose()).toBe(2);
  expect(() => store.recordTemplateUse('t', true)).not.toThrow();
  expect(() => store.createRun(started)).toThrow(RunStoreError);
  expect(() => store.close()).not.toThrow();
  // What was written before the close is all there; nothing after it.
  const again = new RunStore(file);
  try {
    expect(again.events(id).map((e) => e.type)).toEqual(['run_started', 'tier']);
  } finally {
    again.close();
  }
});
