import { describe, expect, it } from 'vitest';
import { derive, events } from './run-fixture.ts';
import {
  attemptDrafts,
  attemptState,
  foldCaughtUp,
  foldQueued,
  followSelection,
  originLabel,
  executionFix,
  runActions,
  withTraceFix,
  runOutcome,
  selectedAttempt,
  stepSelection,
} from './run-detail.ts';

describe('the live event fold', () => {
  const all = events(2, true);
  const start = derive(all.slice(0, 4)); // run_started and attempt 1's tier, llm and script

  it('folds pushed events in sequence order whatever order they arrive in', () => {
    const rest = all.slice(4).reverse();
    const { run, held, gap } = foldQueued(start, rest);
    expect(gap).toBe(false);
    expect(held).toEqual([]);
    expect(run.events).toBe(all.length);
    expect(run.attempts.map((a) => a.n)).toEqual([1, 2]);
    expect(run.status).toBe('succeeded');
    expect(run).toEqual(derive(all));
  });

  it('drops events the record already holds and events of another run', () => {
    const other = { ...all[4]!, runId: 'another' };
    const { run, gap } = foldQueued(start, [all[1]!, all[3]!, other]);
    expect(gap).toBe(false);
    expect(run).toBe(start);
  });

  it('on a gap, folds up to it and holds the later events for after the catch-up', () => {
    const { run, held, gap } = foldQueued(start, [all[4]!, all[6]!, all[7]!]);
    expect(gap).toBe(true);
    expect(run.events).toBe(5);
    expect(held.map((e) => e.seq)).toEqual([6, 7]);
  });

  it('a catch-up folds the missing events once each, and marks a run nobody owns interrupted', () => {
    const caught = foldCaughtUp(start, [all[4]!, all[4]!, all[5]!], true);
    expect(caught.events).toBe(6);
    expect(caught.status).toBe('running');
    expect(foldCaughtUp(start, [], false).status).toBe('interrupted');
    expect(foldCaughtUp(derive(all), [], false).status).toBe('succeeded');
  });
});

describe('selection and history', () => {
  const one = derive(events(1));
  const two = derive(events(2));
  const three = derive(events(3));

  it('follows a live run while nothing or the last attempt is selected, and keeps any other choice', () => {
    expect(followSelection(undefined, one, undefined)).toBe(1);
    expect(followSelection(one, two, 1)).toBe(2);
    expect(followSelection(two, three, 1)).toBe(1);
    expect(followSelection(two, three, 2)).toBe(3);
  });

  it('shows the selected attempt, else the last', () => {
    expect(selectedAttempt(three, 2)?.n).toBe(2);
    expect(selectedAttempt(three, undefined)?.n).toBe(3);
    expect(selectedAttempt(three, 9)?.n).toBe(3);
    expect(selectedAttempt(undefined, 1)).toBeUndefined();
  });

  it('steps through the history, clamped to its ends', () => {
    expect(stepSelection(three, 2, 1)).toBe(3);
    expect(stepSelection(three, 3, 1)).toBe(3);
    expect(stepSelection(three, 1, -1)).toBe(1);
    expect(stepSelection(three, undefined, 1)).toBe(2);
    expect(stepSelection(derive(events(0)), 1, 1)).toBeUndefined();
  });
});

describe('what the run and an attempt allow', () => {
  const running = derive(events(2));
  const done = derive(events(2, true));

  it('cancel while running; replay and delete once ended, replay only with recorded LLM outputs', () => {
    expect(runActions(running)).toEqual({ cancel: true, replay: false, delete: false });
    expect(runActions(done)).toEqual({ cancel: false, replay: true, delete: true });
    const noLlm = { ...done, attempts: done.attempts.map((a) => ({ ...a, llm: undefined })) };
    expect(runActions(noLlm).replay).toBe(false);
  });

  it('says why Replay is off for a run that ended with no LLM output: a template, a script run directly', () => {
    const noLlm = { ...done, attempts: done.attempts.map((a) => ({ ...a, llm: undefined })) };
    expect(runActions({ ...noLlm, template: 'user-name', tier: 'template' }).replayWhy).toBe(
      'Nothing to replay: the template user-name served this run, no LLM output was recorded.',
    );
    expect(runActions({ ...noLlm, tier: 'edit' }).replayWhy).toBe(
      'Nothing to replay: this script was run directly, no LLM output was recorded; Run script runs it again.',
    );
    expect(runActions(noLlm).replayWhy).toMatch(/^Nothing to replay/);
    // Nothing to say when it replays, while the run runs (Cancel is there), or while an action is sent.
    expect(runActions(done).replayWhy).toBeUndefined();
    expect(runActions({ ...noLlm, status: 'running' }).replayWhy).toBeUndefined();
    expect(runActions(noLlm, 'Delete').replayWhy).toBeUndefined();
  });

  it("adds to a collector's refusal of Send trace what to do: start one or set its address, or credentials", () => {
    const refused =
      'the OTLP endpoint http://localhost:4318/v1/traces did not take the trace: connection refused';
    expect(withTraceFix(refused)).toBe(
      `${refused}. No collector answers there: start one (an OpenTelemetry collector or Jaeger, OTLP/HTTP on port 4318), or set its address in Settings, Run traces (Collector endpoint).`,
    );
    expect(
      withTraceFix('the OTLP endpoint http://c/v1/traces did not take the trace: HTTP 401: no'),
    ).toContain('The collector asks for credentials: set [telemetry] headers');
    expect(withTraceFix('the OTLP endpoint http://c/v1/traces did not take the trace: HTTP 500')).toContain(
      'Settings, Run traces (Collector endpoint)',
    );
    expect(withTraceFix('no run r1')).toBe('no run r1');
    // The proxy in front of the collector failed: the message names it, and no collector was asked.
    const proxy =
      'the OTLP endpoint http://c:4318/v1/traces did not take the trace: cannot connect to the proxy http://127.0.0.1:9 (from $http_proxy): connection refused';
    expect(withTraceFix(proxy)).toBe(proxy);
    // A collector whose own address says proxy is none: its refusal gets the way out.
    const gateway =
      'the OTLP endpoint http://otel-proxy:4318/v1/traces did not take the trace: connection refused';
    expect(withTraceFix(gateway)).toBe(
      `${gateway}. No collector answers there: start one (an OpenTelemetry collector or Jaeger, OTLP/HTTP on port 4318), or set its address in Settings, Run traces (Collector endpoint).`,
    );
  });

  it('names the way out of a timeout and of running out of memory, and of no other end', () => {
    expect(executionFix('timeout')).toMatch(/Timeout \(s\)" in New run.*\[limits\] timeout_s/);
    expect(executionFix('oom')).toMatch(/\[limits\] memory_mb/);
    for (const r of ['ok', 'error', 'output_limit', 'crashed', 'infra', undefined])
      expect(executionFix(r)).toBeUndefined();
  });

  it('allows no run action while one is sent and not answered (a double click made two replays)', () => {
    expect(runActions(done, 'Replay')).toEqual({ cancel: false, replay: false, delete: false });
    expect(runActions(running, 'Cancel').cancel).toBe(false);
    const a = done.attempts[1]!;
    expect(attemptState(done, a, 'emit_result(22)', undefined, 'Run edited script')).toMatchObject({
      canRun: false,
      canContinue: false,
    });
    expect(attemptState(done, a, 'emit_result(22)', undefined)).toMatchObject({
      canRun: true,
      canContinue: true,
    });
  });

  it('says the result, the error, an interruption or nothing', () => {
    expect(runOutcome(done)).toEqual({ kind: 'result', value: { total: 3 } });
    expect(runOutcome({ status: 'failed', error: 'KeyError', result: undefined })).toEqual({
      kind: 'error',
      label: 'Error',
      message: 'KeyError',
    });
    expect(runOutcome({ status: 'interrupted', error: 'killed', result: undefined })).toMatchObject({
      label: 'Interrupted',
    });
    expect(runOutcome({ status: 'interrupted', result: undefined })).toEqual({ kind: 'interrupted' });
    expect(runOutcome(running)).toEqual({ kind: 'none' });
  });

  it('names where a run came from', () => {
    expect(originLabel({ kind: 'replay', runId: '1a2b3c4d5e6f' })).toBe('replay of 1a2b3c4d');
    expect(originLabel({ kind: 'continue', runId: '1a2b3c4d5e6f', attempt: 2 })).toBe(
      'continue of 1a2b3c4d #2',
    );
  });

  it('an attempt streams until its script arrives; edits make it dirty; continue is PLAN-only and not while running', () => {
    const a = running.attempts[1]!;
    const clean = attemptState(running, a, 'emit_result(2)', undefined);
    expect(clean).toMatchObject({
      unit: 'attempt',
      streaming: false,
      dirty: false,
      canRun: true,
      canContinue: false,
    });
    expect(clean.caption).toBe('script (python, from llm)');
    const edited = attemptState(done, a, 'emit_result(22)', undefined);
    expect(edited).toMatchObject({
      dirty: true,
      canContinue: true,
      caption: 'script (python, from llm) · edited',
    });
    const streaming = attemptState(running, { script: undefined, execution: undefined }, '', 'emit_res');
    expect(streaming).toMatchObject({ streaming: true, canRun: false, text: 'emit_res' });
    expect(streaming.caption).toBe('Streaming from the LLM…');
    // The run was cancelled (or the LLM call failed) mid-stream: no longer streaming, no partial text.
    const stopped = attemptState(done, { script: undefined, execution: undefined }, '', 'emit_res');
    expect(stopped).toMatchObject({ streaming: false, text: '' });
    expect(stopped.caption).toBe('no script');
    const interactive = { ...done, started: { ...done.started, mode: 'interactive' as const } };
    expect(attemptState(interactive, a, 'x', undefined)).toMatchObject({
      unit: 'step',
      canContinue: undefined,
    });
  });

  it('promote and make-a-skill need a script that succeeded, in any language', () => {
    const ok = { script: running.attempts[0]!.script, execution: { success: true } as never };
    expect(attemptState(done, ok, 'x', undefined)).toMatchObject({ canPromote: true, canMakeSkill: true });
    const js = { ...done, started: { ...done.started, language: 'js' as const } };
    expect(attemptState(js, ok, 'x', undefined)).toMatchObject({ canPromote: true, canMakeSkill: true });
    expect(attemptState(done, running.attempts[0]!, 'x', undefined)).toMatchObject({
      canPromote: false,
      canMakeSkill: false,
    });
  });

  it('a run a template served is not promoted again (a second template of the same script), saying why', () => {
    const served = {
      script: { ...running.attempts[0]!.script!, source: 'template' as const },
      execution: { success: true } as never,
    };
    expect(attemptState({ ...done, template: 'order_total' }, served, 'x', undefined)).toMatchObject({
      canPromote: false,
      promoteWhy: 'Already a template: the template order_total served this attempt; change it in Templates.',
      canMakeSkill: true,
    });
    // An attempt an LLM wrote in the same run (the template's failed first): promoted as usual.
    const ok = { script: running.attempts[0]!.script, execution: { success: true } as never };
    expect(attemptState({ ...done, template: 'order_total' }, ok, 'x', undefined)).toMatchObject({
      canPromote: true,
    });
  });
});

describe('attempt drafts', () => {
  it('keep an edit per run and attempt until it is reset or edited back to the recorded script', () => {
    const d = attemptDrafts();
    d.set('r1', 1, 'emit_result(2)', 'emit_result(1)');
    expect(d.get('r1', 1)).toBe('emit_result(2)');
    // Another attempt, another run: their own text.
    expect(d.get('r1', 2)).toBeUndefined();
    expect(d.get('r2', 1)).toBeUndefined();
    d.set('r1', 1, 'emit_result(1)', 'emit_result(1)');
    expect(d.get('r1', 1)).toBeUndefined();
    d.set('r1', 2, 'x', 'y');
    d.drop('r1', 2);
    expect(d.get('r1', 2)).toBeUndefined();
  });
});
