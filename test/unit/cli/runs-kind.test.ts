/**
 * Template tests are a run kind of their own: `toolsmith runs list` and the contract's `runs.list`
 * hide them by default (rows and totals), and show them when asked (`--kind`, `kind`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { RunStartedData } from '../../../src-main/core/records/events.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { cli } from '../../support/cli.ts';
import { runStarted } from '../../support/run-records.ts';

const workspaces: string[] = [];
afterAll(() => workspaces.forEach(removeWorkspace));

const started = (task: string, extra: Partial<RunStartedData> = {}) =>
  runStarted(task, { maxRetries: 0, maxSteps: 1, ...extra });

/** A workspace with two runs and one template test, all finished. */
async function seeded(): Promise<string> {
  const ws = tempWorkspace();
  workspaces.push(ws);
  const svc = ToolsmithService.open(ws);
  const store = (await svc.runs()).store;
  for (const [task, extra] of [
    ['check orders 1', {}],
    ['check orders 2', {}],
    ['template test orders: check orders 3', { kind: 'template_test' as const }],
  ] as const) {
    const id = store.createRun(started(task, extra));
    store.append(id, 'run_finished', { status: 'succeeded', result: 1 });
  }
  await svc.close();
  return ws;
}

type Listed = { total: number; totalExact: boolean; runs: { task: string; kind: string }[] };

// Opening the service and loading the CLI's verbs: seconds on a loaded machine (see budgets.ts).
describe('run kinds in runs list', { timeout: STARTS_PROCESSES_MS }, () => {
  it('`runs list` hides template tests by default; --kind shows them, with totals that agree', async () => {
    const ws = await seeded();
    const json = async (...args: string[]) => {
      const r = await cli('--workspace', ws, 'runs', 'list', ...args, '--json');
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      return JSON.parse(r.out) as Listed;
    };
    const plain = await json();
    expect(plain).toMatchObject({ total: 2, totalExact: true });
    expect(plain.runs.map((r) => r.kind)).toEqual(['run', 'run']);
    // Hidden from a search too, and from its exact count.
    expect(await json('--search', 'orders', '--count')).toMatchObject({ total: 2, runs: [{}, {}] });
    const tests = await json('--kind', 'template_test');
    expect(tests).toMatchObject({ total: 1, totalExact: true });
    expect(tests.runs.map((r) => r.task)).toEqual(['template test orders: check orders 3']);
    const all = await json('--kind', 'all');
    expect(all).toMatchObject({ total: 3, totalExact: true });
    expect(all.runs).toHaveLength(3);
    expect(await json('--kind', 'all', '--search', 'orders', '--count')).toMatchObject({ total: 3 });
    // The text output marks a template test.
    const text = await cli('--workspace', ws, 'runs', 'list', '--kind', 'all');
    expect(text.out).toMatch(/\[template test\] template test orders/);
    expect(text.out).toMatch(/3 of 3 run\(s\)/);
    // An unknown kind is a usage error naming the choices.
    const bad = await cli('--workspace', ws, 'runs', 'list', '--kind', 'tests');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--kind.*run.*template_test.*all/s);
  });

  it('the contract: `runs.list` hides template tests unless `kind` asks for them', async () => {
    const ws = await seeded();
    const svc = ToolsmithService.open(ws);
    try {
      const plain = await dispatch(svc, 'runs.list', {});
      expect(plain).toMatchObject({ ok: true, value: { total: 2, totalExact: true } });
      const all = await dispatch(svc, 'runs.list', { kind: ['run', 'template_test'] });
      expect(all).toMatchObject({ ok: true, value: { total: 3, totalExact: true } });
      const bad = await dispatch(svc, 'runs.list', { kind: ['nope'] });
      expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    } finally {
      await svc.close();
    }
  });
});
