/**
 * Skill calls in the run store, and runs stored before them (docs/run-store.md): a run recorded by event
 * version 1 (the frozen `run-v1.json`, written before skill calls were recorded) is read through a real
 * SQLite store into the record and trace it had (no skill call, no skill span, its chat spans without
 * gen_ai.response.id and with the finish reason they had); the same run with a job's skill calls and a
 * chat answer's id keeps both through the store (import, read, export) and traces them (before, the
 * schemas knew neither field and the trace had no skill span).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { runSpans } from '../../../src-main/infra/telemetry/run-trace.ts';

const text = readFileSync(new URL('../../fixtures/runs/run-v1.json', import.meta.url), 'utf8');
const store = () => new RunStore(join(mkdtempSync(join(tmpdir(), 'toolsmith-skill-calls-')), 'runs.db'));

interface Ev {
  type: string;
  data: Record<string, unknown> & { n?: number; result?: Record<string, unknown> };
}

describe('skill calls in stored runs', () => {
  it('a run stored before skill calls: read and traced as it was', () => {
    const s = store();
    const id = s.import(JSON.parse(text));
    const rec = s.get(id);
    for (const a of rec?.attempts ?? []) expect(a.execution?.skillCalls).toBeUndefined();
    const spans = runSpans(s.events(id), 'toolsmith');
    expect(spans.filter((x) => x.name.startsWith('skill '))).toEqual([]);
    const job = spans.find(
      (x) => x.name.startsWith('sandbox.execute') && x.attributes['toolsmith.sandbox.tool_calls'] === 1,
    )!;
    const tool = spans.find((x) => x.name === 'execute_tool list_orders')!;
    expect(tool.parentSpanContext?.spanId).toBe(job.spanContext().spanId);
    expect(job.attributes['toolsmith.sandbox.skill_calls']).toBeUndefined();
    const chats = spans.filter((x) => x.name.startsWith('chat '));
    expect(chats.length).toBeGreaterThan(0);
    for (const c of chats.filter((x) => x.attributes['gen_ai.response.model'])) {
      expect(c.attributes['gen_ai.response.id']).toBeUndefined();
      expect(c.attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
    }
    s.close();
  });

  it("a job's skill calls and an answer's id are kept through the store and traced", () => {
    const doc = JSON.parse(text) as { events: Ev[] };
    const exec = doc.events.find((e) => e.type === 'execution' && e.data.n === 1)!;
    const result = exec.data.result as { toolCalls: Record<string, unknown>[]; durationMs: number };
    result.toolCalls[0] = { ...result.toolCalls[0], skill: 'march_orders', skillCall: 2 };
    Object.assign(result, {
      skillCalls: [
        { id: 1, name: 'march_orders', args: { month: '2026-03', depth: 1 }, at: 5, ms: 40 },
        {
          id: 2,
          name: 'march_orders',
          parent: 1,
          args: { month: '2026-03', depth: 0 },
          at: 10,
          ms: 20,
          error: { type: 'KeyError', message: "'customer'" },
        },
      ],
      skillCallsNotRecorded: 3,
    });
    const answer = doc.events.find((e) => e.type === 'llm_response')!;
    Object.assign(answer.data, { responseId: 'chatcmpl-42', finishReason: 'stop', model: 'coder-7b-0325' });
    const s = store();
    const id = s.import(doc);
    const again = s.export(id).events.find((e) => e.type === 'execution' && e.data.n === 1) as unknown as Ev;
    expect(again.data.result?.['skillCalls']).toEqual(
      (exec.data.result as Record<string, unknown>)['skillCalls'],
    );
    const ex = s.get(id)?.attempts[0]?.execution;
    expect(ex?.skillCalls?.map((c) => [c.id, c.parent, c.error?.type])).toEqual([
      [1, undefined, undefined],
      [2, 1, 'KeyError'],
    ]);
    expect(ex?.skillCallsNotRecorded).toBe(3);
    expect(ex?.toolCalls[0]).toMatchObject({ skill: 'march_orders', skillCall: 2 });

    const spans = runSpans(s.events(id), 'toolsmith');
    const skills = spans.filter((x) => x.name === 'skill march_orders');
    expect(skills.map((x) => x.attributes['toolsmith.skill.call.id'])).toEqual(['1.s1', '1.s2']);
    const [outer, inner] = skills as [(typeof spans)[number], (typeof spans)[number]];
    expect(inner.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    expect(inner.status).toMatchObject({ code: 2, message: "'customer'" });
    const tool = spans.find((x) => x.name === 'execute_tool list_orders')!;
    expect(tool.parentSpanContext?.spanId).toBe(inner.spanContext().spanId);
    const job = spans.find((x) => x.spanContext().spanId === outer.parentSpanContext?.spanId)!;
    expect(job.attributes).toMatchObject({
      'toolsmith.sandbox.skill_calls': 2,
      'toolsmith.sandbox.skill_calls_not_recorded': 3,
    });
    const chat = spans.find((x) => x.attributes['gen_ai.response.id'] === 'chatcmpl-42')!;
    expect(chat.attributes).toMatchObject({
      'gen_ai.request.model': 'coder-7b',
      'gen_ai.response.model': 'coder-7b-0325',
    });
    s.close();
  });
});
