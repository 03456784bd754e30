/**
 * RunService over a scripted executor at the sandbox port (the real orchestrator and SQLite run store):
 * start() records the run before it runs; a script run directly (edit-and-rerun, tier `edit`) goes
 * through the orchestrator and records the events it always recorded, statuses and error strings
 * included. The executor is scripted to hold a job open and to return results a real sandbox gives only
 * by accident (an infra failure, a crash); test/integration covers the same paths on Docker.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { SandboxManager } from '../../../src-main/app/sandbox.ts';
import { Orchestrator } from '../../../src-main/core/orchestrator/orchestrator.ts';
import type { ExecuteRequest } from '../../../src-main/core/ports/executor.ts';
import { silentLogger } from '../../../src-main/core/ports/executor.ts';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import { failedResult, infraResult } from '../../../src-main/core/sandbox/execution.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

type Job = (req: ExecuteRequest) => Promise<ExecutionResult>;

const ok = (over: Partial<ExecutionResult> = {}): ExecutionResult => ({
  success: true,
  intermediates: [],
  logs: [],
  toolCalls: [],
  exitReason: 'ok',
  isolation: 'process',
  durationMs: 3,
  runtime: 'python',
  ...over,
});

const ws = tempWorkspace();
let svc: ToolsmithService;
let job: Job = () => Promise.resolve(ok());
const jobs: ExecuteRequest[] = [];

beforeAll(() => {
  const unused = () => Promise.reject(new Error('not used by these tests'));
  const manager: SandboxManager = {
    executor: {
      execute: (req: ExecuteRequest) => {
        jobs.push(req);
        return job(req);
      },
    },
    callTool: unused,
    status: unused,
    buildImage: unused,
    reload: unused,
    dispose: () => Promise.resolve(),
  };
  svc = ToolsmithService.open(ws, { sandboxFactory: () => Promise.resolve(manager), log: silentLogger });
});
afterEach(() => {
  jobs.length = 0;
  vi.restoreAllMocks();
});
afterAll(async () => {
  await svc.close();
  removeWorkspace(ws);
});

/** The recorded events of a run, without their sequence numbers and times. */
async function story(runId: string): Promise<{ type: string; data: unknown }[]> {
  return (await svc.runs()).store.events(runId).map((e) => ({ type: e.type, data: e.data }));
}

describe('RunService.start', () => {
  it('answers with the run id once the run is recorded, before the run ends', async () => {
    const runs = await svc.runs();
    let release: (r: ExecutionResult) => void = () => {};
    job = () => new Promise((res) => (release = res));
    const started = await runs.start({
      task: 'the answer',
      sandbox: 'ecommerce',
      providers: [],
      initialScript: 'emit_result(42)\n',
    });
    // Recorded and listed, running, cancellable: nothing waits for the orchestrator to say its id.
    expect(runs.store.summary(started.runId)?.status).toBe('running');
    expect(runs.list({}).runs.map((r) => r.id)).toContain(started.runId);
    expect(runs.isActive(started.runId)).toBe(true);
    expect(runs.get(started.runId).started).toMatchObject({ task: 'the answer', maxRetries: 3 });
    await vi.waitFor(() => expect(jobs).toHaveLength(1));
    release(ok({ data: 42 }));
    const outcome = await started.done;
    expect(outcome).toEqual({ runId: started.runId, status: 'succeeded', result: 42 });
    expect(runs.isActive(started.runId)).toBe(false);
  });

  it('rejects an empty task before recording anything', async () => {
    const runs = await svc.runs();
    const before = runs.list({}).runs.length;
    await expect(runs.start({ task: '  ', sandbox: 'ecommerce', providers: [] })).rejects.toThrow(
      /the task is empty/,
    );
    expect(runs.list({}).runs.length).toBe(before);
  });
});

describe('a script run directly (tier edit) goes through the orchestrator', () => {
  const BODY = 'r = get_user(user_id="u1")\nemit_log("found")\nemit_result(r.data["name"])\n';

  it('records tier, script, validation, tool calls, emits, execution and the end, as before', async () => {
    const runs = await svc.runs();
    const orchestrate = vi.spyOn(Orchestrator.prototype, 'run');
    const trace = { name: 'get_user', args: { user_id: 'u1' }, ms: 1, location: 'sandbox' as const };
    const result = ok({ data: 'Ada', logs: ['found'], toolCalls: [trace] });
    job = (req) => {
      req.onEvent?.({ type: 'tool_call', trace });
      req.onEvent?.({ type: 'emit', kind: 'log', data: 'found' });
      return Promise.resolve(result);
    };
    const live: string[] = [];
    const o = await runs.runScript({
      sandbox: 'ecommerce',
      body: BODY,
      task: 'name of u1 (edited)',
      origin: { runId: 'r0', attempt: 2, kind: 'edit' },
      onEvent: (e) => live.push(e.type),
    });
    expect(orchestrate).toHaveBeenCalledTimes(1);
    expect(orchestrate.mock.calls[0]?.[0]).toMatchObject({
      direct: true,
      initialScript: BODY,
      maxRetries: 0,
      maxSteps: 1,
      providers: [],
    });
    expect(o).toEqual({ runId: o.runId, status: 'succeeded', result: 'Ada' });
    const events = await story(o.runId);
    const script = events[2]?.data as { code: string; bodyStartLine: number };
    expect(events).toEqual([
      {
        type: 'run_started',
        data: {
          task: 'name of u1 (edited)',
          sandbox: 'ecommerce',
          mode: 'plan',
          language: 'python',
          maxRetries: 0,
          maxSteps: 1,
          // (the workspace's limit: the run it was edited from recorded none)
          timeoutMs: 300_000,
          origin: { runId: 'r0', attempt: 2, kind: 'edit' },
        },
      },
      { type: 'tier', data: { n: 1, tier: 'edit' } },
      {
        type: 'script',
        data: {
          n: 1,
          code: script.code,
          body: BODY,
          bodyStartLine: script.bodyStartLine,
          language: 'python',
          source: 'edit',
        },
      },
      { type: 'validation', data: { n: 1, valid: true, violations: [] } },
      { type: 'tool_call', data: { n: 1, trace } },
      { type: 'emit', data: { n: 1, kind: 'log', data: 'found' } },
      { type: 'execution', data: { n: 1, result } },
      { type: 'run_finished', data: { status: 'succeeded', result: 'Ada' } },
    ]);
    expect(script.code).toContain('# tools: ');
    expect(script.code).toContain('# helpers: emit_result');
    // Live listeners hear every event after the run is recorded.
    expect(live).toEqual(events.slice(1).map((e) => e.type));
    // The job: the whole script, the sandbox's tools (identity map without a kit), the workspace's timeout.
    expect(jobs[0]).toMatchObject({
      sandbox: 'ecommerce',
      language: 'python',
      code: script.code,
      bodyStartLine: script.bodyStartLine,
      timeoutMs: svc.config.limits.timeout_s * 1000,
    });
    expect(jobs[0]?.tools['get_user']).toBe('get_user');
    expect(runs.get(o.runId)).toMatchObject({ tier: 'edit', status: 'succeeded' });
  });

  it('a script that fails validation does not run and ends with the short validation error', async () => {
    const runs = await svc.runs();
    const o = await runs.runScript({ sandbox: 'ecommerce', body: 'import os\n' });
    expect(jobs).toHaveLength(0);
    expect(o.status).toBe('failed');
    expect(o.error).toMatch(/^the script failed validation: .*line 1:1 no-import/);
    const events = await story(o.runId);
    expect(events.map((e) => e.type)).toEqual([
      'run_started',
      'tier',
      'script',
      'validation',
      'run_finished',
    ]);
    expect(events[0]?.data).toEqual({
      task: '(script run directly)',
      sandbox: 'ecommerce',
      mode: 'plan',
      language: 'python',
      maxRetries: 0,
      maxSteps: 1,
      timeoutMs: 300_000,
    });
    expect(events[4]?.data).toEqual({ status: 'failed', error: o.error });
  });

  it("the outcome is the execution's own: `Type: message` (infra too), the exit reason, the result only", async () => {
    const runs = await svc.runs();
    const cases: [ExecutionResult, { status: string; error?: string; result?: unknown }][] = [
      [
        failedResult('error', { type: 'KeyError', message: "'x'" }, 'python', 'process'),
        { status: 'failed', error: "KeyError: 'x'" },
      ],
      [infraResult('no engine answers', 'python'), { status: 'failed', error: 'Infra: no engine answers' }],
      [
        { ...ok(), success: false, exitReason: 'crashed' },
        { status: 'failed', error: 'crashed' },
      ],
      // emit_intermediate without emit_result: succeeded, no result (a PLAN run would report the list).
      [ok({ intermediates: [1, 2] }), { status: 'succeeded' }],
    ];
    for (const [result, want] of cases) {
      job = () => Promise.resolve(result);
      const o = await runs.runScript({ sandbox: 'ecommerce', body: 'emit_result(1)\n' });
      expect(o).toEqual({ runId: o.runId, ...want });
      const events = await story(o.runId);
      expect(events.at(-2)).toEqual({ type: 'execution', data: { n: 1, result } });
      expect(events.at(-1)).toEqual({ type: 'run_finished', data: want });
    }
  });

  it('with a kit: the aliases are what the script calls and the validator accepts', async () => {
    const runs = await svc.runs();
    job = () => Promise.resolve(ok({ data: 1 }));
    const o = await runs.runScript({
      sandbox: 'ecommerce',
      kit: 'orders',
      body: 'r = user(user_id="u1")\nemit_result(1)\n',
    });
    expect(o.status).toBe('succeeded');
    expect(jobs[0]?.tools).toMatchObject({ orders: 'get_orders', user: 'get_user' });
    expect(jobs[0]?.tools).not.toHaveProperty('get_user');
    expect(runs.get(o.runId).started.kit).toBe('orders');
  });

  it('startScript answers with the recorded id before the script ends', async () => {
    const runs = await svc.runs();
    let release: (r: ExecutionResult) => void = () => {};
    job = () => new Promise((res) => (release = res));
    const started = await runs.startScript({ sandbox: 'ecommerce', body: 'emit_result(1)\n' });
    expect(runs.store.summary(started.runId)?.status).toBe('running');
    await vi.waitFor(() => expect(jobs).toHaveLength(1));
    release(ok({ data: 1 }));
    expect((await started.done).status).toBe('succeeded');
  });
});
