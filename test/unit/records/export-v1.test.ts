/**
 * The v1 event schema, frozen: `test/fixtures/runs/run-v1.json` is a run exported by version 1 with
 * every event type, and every later version must import it into the record it had then. The file is
 * never edited (its hash is pinned below); a new event version adds `run-v2.json` beside it and keeps
 * this one, as the trace viewer keeps each old format.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../../src-main/core/records/schemas.ts';
import { summarize } from '../../../src-main/core/records/summary.ts';
import { EXPORT_FORMAT, RunStore } from '../../../src-main/infra/store/run-store.ts';

const file = new URL('../../fixtures/runs/run-v1.json', import.meta.url);
const text = readFileSync(file, 'utf8');
const doc = JSON.parse(text) as { format: string; version: number; events: { type: string }[] };
const store = () => new RunStore(join(mkdtempSync(join(tmpdir(), 'toolsmith-v1-')), 'runs.db'));

describe('a run exported by event version 1', () => {
  it('is the frozen file, with every v1 event type', () => {
    expect(createHash('sha256').update(text).digest('hex')).toBe(
      'f0ef36fb75ea85a9dc64a7167641485e761a75c1aa995c6063362672fc644162',
    );
    expect(doc.format).toBe(EXPORT_FORMAT);
    expect(doc.version).toBe(1);
    // The v1 types as they were: a later version may add types, never drop these.
    const v1 = [
      'run_started',
      'tier',
      'prompt',
      'llm_response',
      'llm_error',
      'llm_retry',
      'script',
      'validation',
      'tool_call',
      'emit',
      'execution',
      'step',
      'template_miss',
      'run_finished',
    ];
    expect(new Set(doc.events.map((e) => e.type))).toEqual(new Set(v1));
    expect(EVENT_TYPES).toEqual(expect.arrayContaining(v1));
  });

  it('imports into the record it had', () => {
    const s = store();
    const id = s.import(JSON.parse(text));
    expect(id).toBe('6f1c2a9e-0b7d-4c55-9a31-3f0e8d2b7c41');
    const rec = s.get(id);
    expect(rec).toMatchObject({
      status: 'succeeded',
      result: [],
      model: 'big-model',
      tier: 'llm',
      events: 25,
      tokens: { prompt: 580, completion: 42, total: 622 },
      started: {
        task: 'Total spent per customer in March, top 3',
        sandbox: 'ecommerce',
        kit: 'readonly',
        providers: [
          { id: 'local', model: 'coder-7b' },
          { id: 'cloud', model: 'big-model' },
        ],
        origin: { runId: 'r-0000-earlier', kind: 'replay' },
      },
      templateMiss: { template: 'orders-by-customer', found: 'Total' },
    });
    const [one, two] = rec?.attempts ?? [];
    expect(one).toMatchObject({
      n: 1,
      provider: 'local',
      model: 'coder-7b',
      prompt: { kind: 'first', user: 'Task: Total spent per customer in March, top 3' },
      corrections: [{ correction: true, completionTokens: 21 }],
      rejected: [{ script: { body: 'import os\n' }, violations: [{ rule: 'forbidden-import' }] }],
      validation: { valid: true },
      execution: { success: false, exitReason: 'error', error: { type: 'KeyError' } },
      toolCalls: [{ name: 'list_orders', location: 'sandbox' }],
      emits: [{ kind: 'log', data: 'fetched 1 order' }],
      retries: [{ attempt: 1, waitMs: 250 }],
    });
    expect(two).toMatchObject({
      n: 2,
      provider: 'cloud',
      model: 'big-model',
      llmErrors: [{ provider: 'local', message: 'connection refused' }],
      execution: { success: true, isolation: 'gvisor' },
      step: { final: true },
    });
    // The summary row folded on import is the fold of the same events.
    expect(s.summary(id)).toEqual(summarize(s.events(id)));
    s.close();
  });

  it('exports again to the same events', () => {
    const s = store();
    const id = s.import(JSON.parse(text));
    expect(s.export(id).events).toEqual(JSON.parse(text).events);
    s.close();
  });
});
