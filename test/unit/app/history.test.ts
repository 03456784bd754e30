/**
 * Issue 10, honest history: replays spend no tokens, template tests are not uses and link to the
 * template's source run, runs served by a template show no model, a run says why no template matched,
 * a cancelled attempt reads "cancelled", and diffs read earlier -> later with labels.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { AttemptView } from '../../../src-main/contract/api.ts';
import { ReplayProvider } from '../../../src-main/core/orchestrator/replay.ts';
import type { RunEvent } from '../../../src-main/core/records/events.ts';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { attemptOutcome, defaultDiffTarget, diffPair } from '../../../src-renderer/src/views/run/attempts.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace();
afterAll(() => removeWorkspace(ws));

describe('replays', () => {
  it('answer with the recorded text and spend no tokens', async () => {
    const recorded = {
      v: 1,
      runId: 'r',
      seq: 1,
      ts: 0,
      type: 'llm_response',
      data: {
        n: 1,
        text: 'emit_result(1)',
        promptTokens: 900,
        completionTokens: 40,
        model: 'm',
        provider: 'p',
        latencyMs: 800,
        retries: [],
      },
    } as RunEvent;
    const r = await new ReplayProvider([recorded]).generate({ system: '', user: '' });
    expect(r).toMatchObject({ text: 'emit_result(1)', promptTokens: 0, completionTokens: 0 });
  });
});

describe('runs served by a template', () => {
  it('show no model, in the record and in the list', () => {
    const store = new RunStore(join(mkdtempSync(join(tmpdir(), 'toolsmith-hist-')), 'runs.db'));
    const id = store.createRun({
      task: 't',
      sandbox: 'ecommerce',
      mode: 'plan',
      language: 'python',
      maxRetries: 0,
      maxSteps: 1,
      provider: 'local',
      model: 'qwen2.5-coder:7b',
    });
    store.append(id, 'tier', { n: 1, tier: 'template', template: 'x' });
    store.append(id, 'run_finished', { status: 'succeeded', result: 1 });
    expect(store.get(id)?.model).toBeUndefined();
    expect(store.list().runs[0]).toMatchObject({ model: null, provider: null, tier: 'template' });
    // A template whose script was refused, then the LLM tier: the configured model is back.
    const id2 = store.createRun({
      task: 't2',
      sandbox: 'ecommerce',
      mode: 'plan',
      language: 'python',
      maxRetries: 0,
      maxSteps: 1,
      provider: 'local',
      model: 'qwen2.5-coder:7b',
    });
    store.append(id2, 'tier', { n: 1, tier: 'template', template: 'x' });
    store.append(id2, 'tier', { n: 1, tier: 'llm', provider: 'local' });
    expect(store.get(id2)?.model).toBe('qwen2.5-coder:7b');
    expect(store.list({ text: 't2' }).runs[0]?.model).toBe('qwen2.5-coder:7b');
    store.close();
  });
});

describe('templates in the run store', () => {
  const svc = ToolsmithService.open(ws);

  it('a run records why no template matched', async () => {
    const runs = await svc.runs();
    (await svc.templates()).files.write({
      name: 'user-name',
      pattern: 'What is the name of user {user_id}?',
      slots: { user_id: 'str' },
      sandbox: 'ecommerce',
      language: 'python',
      body: 'r = get_user(user_id={{user_id}})\nemit_result(r.data["name"])\n',
      examples: [],
    });
    const o = await (
      await runs.start({ task: 'What is the email of user u1?', sandbox: 'ecommerce', providers: [] })
    ).done;
    const rec = runs.get(o.runId);
    expect(rec.templateMiss).toMatchObject({ template: 'user-name', position: 12 });
    expect(rec.templateMiss?.reason).toMatch(/differs at character 13 of the task: expected "name of user/);
  });

  it('template tests are not counted as uses and link to the run the template came from', async () => {
    const runs = await svc.runs();
    // A source run (the script fails validation: no sandbox is needed).
    const src = await runs.runScript({ sandbox: 'ecommerce', body: 'import os\n', task: 'source' });
    (await svc.templates()).files.write({
      name: 'broken',
      pattern: 'broken {x}',
      slots: { x: 'str' },
      sandbox: 'ecommerce',
      language: 'python',
      body: 'import os\nemit_result({{x}})\n',
      examples: [{ intent: 'broken a' }],
      origin: src.runId,
    });
    const r = await (await svc.templates()).test('broken');
    expect(r.passed).toBe(false);
    const view = (await svc.templates()).list().find((t) => t.name === 'broken');
    expect(view).toMatchObject({ successes: 0, failures: 0, lastUsed: null });
    // A template test is its own kind: hidden from the list (and its totals) unless asked for.
    expect(runs.list({ text: 'template test broken' }).runs).toEqual([]);
    const shown = runs.list();
    const all = runs.list({ kind: ['run', 'template_test'] });
    expect(shown.totalExact && all.totalExact).toBe(true);
    expect(all.total).toBe(shown.total + 1);
    expect(runs.list({ kind: 'template_test' }).runs.map((x) => x.task)).toEqual([
      'template test broken: broken a',
    ]);
    const test = runs.list({ text: 'template test broken', kind: 'template_test' }).runs[0];
    expect(test?.kind).toBe('template_test');
    expect(runs.get(test?.id ?? '').started.kind).toBe('template_test');
    expect(test?.originRun).toBe(src.runId);
    expect(runs.get(test?.id ?? '').started.origin).toEqual({ runId: src.runId, kind: 'test' });
    // People read a short validation error, not the paragraph written for the LLM.
    expect(runs.get(test?.id ?? '').error).toMatch(/^the script failed validation: line 1:1 no-import/);
    expect(runs.get(test?.id ?? '').error).not.toMatch(/Fix every problem/);
  });
});

describe('attempts in the run view', () => {
  const attempt = (n: number, over: Partial<AttemptView> = {}): AttemptView => ({
    n,
    corrections: [],
    llmErrors: [],
    retries: [],
    rejected: [],
    toolCalls: [],
    emits: [],
    tokens: { prompt: 0, completion: 0 },
    llmLatencyMs: 0,
    script: { n, code: `s${n}`, body: `s${n}`, bodyStartLine: 1, language: 'python', source: 'llm' },
    ...over,
  });

  it('a cancelled job or an attempt cut short by Cancel reads "cancelled", never "runtime error"', () => {
    const cancelled = attempt(1, {
      execution: {
        success: false,
        intermediates: [],
        logs: [],
        toolCalls: [],
        exitReason: 'error',
        isolation: 'docker',
        durationMs: 5,
        runtime: 'python',
        error: { type: 'Cancelled', message: 'the run was cancelled', frames: [] },
      },
    });
    expect(attemptOutcome(cancelled)).toBe('cancelled');
    const waiting = attempt(2, { script: undefined });
    expect(attemptOutcome(waiting, { status: 'cancelled', attempts: [] })).toBe('cancelled');
    expect(attemptOutcome(waiting, { status: 'running', attempts: [] })).toBe('pending');
  });

  it('the diff puts the earlier attempt left and labels both', () => {
    const [a1, a2, a3] = [attempt(1), attempt(2), attempt(3)];
    expect(defaultDiffTarget(a1, [a2, a3])?.n).toBe(2);
    expect(defaultDiffTarget(a3, [a1, a2])?.n).toBe(2);
    expect(diffPair(a1, a3, 'attempt')).toEqual({
      original: 's1',
      modified: 's3',
      originalLabel: 'attempt 1 (before)',
      modifiedLabel: 'attempt 3 (after)',
    });
    expect(diffPair(a3, a1, 'attempt').original).toBe('s1');
  });
});
