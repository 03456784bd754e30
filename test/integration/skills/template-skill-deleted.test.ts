/**
 * A template whose script calls a skill, after the skill is deleted: the template still matches its
 * intent, its script no longer validates (the skill was deleted), and the run falls to the LLM. That
 * is a failure of the template, counted as one (its counters said it had never failed), and the run's
 * record keeps the template's attempt with the reason. Real Docker sandboxes, the scripted LLM server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProviders } from '../../../src-main/app/providers.ts';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace();
const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager, oneShot: true });
let llm: LlmServer;
beforeAll(async () => {
  llm = await startLlmServer();
  llm.fallback = { text: '```python\nemit_result(201)\n```' };
});
afterAll(async () => {
  await svc.close();
  await llm?.close();
  removeWorkspace(ws);
});

const SPENT_BY = `def spent_by(user_id: str) -> float:
    """What a customer spent.

    Args:
        user_id: The customer's id.
    """
    return sum(o["total"] for o in get_orders().data if o["user_id"] == user_id)
`;

describe('a template that calls a deleted skill', () => {
  it('is a failure of the template; the run falls to the LLM and keeps why', async () => {
    const saved = await svc.skills().save({
      sandbox: 'ecommerce',
      name: 'spent_by',
      source: SPENT_BY,
      tests: [{ args: { user_id: 'u1' }, assert: [{ type: 'equals', value: 201 }] }],
    });
    expect(saved.test.passed).toBe(true);
    const templates = await svc.templates();
    templates.create({
      name: 'spent',
      body: 'emit_result(spent_by(user_id={{who}}))\n',
      pattern: 'how much did {who} spend',
      sandbox: 'ecommerce',
      examples: [{ intent: 'how much did u1 spend' }],
    });
    const runs = await svc.runs();
    const providers = createProviders(svc.config, { baseUrl: llm.openaiUrl, model: 'scripted' });
    const ask = async () =>
      (await runs.start({ task: 'how much did u1 spend', sandbox: 'ecommerce', providers })).done;

    const served = await ask();
    expect(served).toMatchObject({ status: 'succeeded', result: 201 });
    expect(runs.get(served.runId).tier).toBe('template');
    expect(llm.requests).toHaveLength(0);
    expect(templates.list().find((t) => t.name === 'spent')).toMatchObject({ successes: 1, failures: 0 });

    svc.skills().delete('ecommerce', 'spent_by');
    const fell = await ask();
    expect(fell).toMatchObject({ status: 'succeeded', result: 201 });
    const rec = runs.get(fell.runId);
    expect(rec.tier).toBe('llm');
    expect(llm.requests).toHaveLength(1);
    // The template's script is in the record with the reason it was not run.
    expect(rec.attempts[0]?.rejected.map((r) => [r.script.source, r.violations.map((v) => v.rule)])).toEqual([
      ['template', ['skill-not-offered']],
    ]);
    expect(rec.attempts[0]?.rejected[0]?.violations[0]?.message).toContain(
      'skill spent_by of sandbox ecommerce was deleted (its last version, v1, is kept',
    );
    expect(templates.list().find((t) => t.name === 'spent')).toMatchObject({ successes: 1, failures: 1 });
  }, 120_000);
});
