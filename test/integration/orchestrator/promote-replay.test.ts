/**
 * Promoting and replaying runs whose scripts did not all come from an LLM, against the scripted LLM
 * server and a real sandbox container: an INTERACTIVE step that reads `collected` is not a template
 * (served alone it fails with a NameError every time), nor is an attempt that failed, and a run no LLM answered has nothing to replay
 * (refused, naming why, instead of a new failed run that blames the replay for running out of answers),
 * and an attempt a template served is not promoted again (a second template of the same script).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProviders } from '../../../src-main/app/providers.ts';
import { useLlmService } from '../../support/llm-service.ts';
import { fence } from '../../support/suite-oracle.ts';

const fx = useLlmService();

const providers = () =>
  createProviders(fx.svc.config, { baseUrl: fx.llm.openaiUrl, model: 'scripted-coder' });

describe('templates from INTERACTIVE runs', () => {
  it('a step that reads `collected` is refused as a template, naming why; a step that does not is kept', async () => {
    const step = fence(
      'r = get_orders()\nemit_intermediate([o["id"] for o in r.data if o["status"] == "pending"])',
    );
    fx.llm.push(step, step, fence('emit_result({"pending": collected[0]})'));
    const outcome = await (
      await fx.runs.start({
        task: 'Which orders are pending?',
        sandbox: 'ecommerce',
        mode: 'interactive',
        providers: providers(),
        maxSteps: 6,
        noTemplates: true,
      })
    ).done;
    expect(outcome).toMatchObject({ status: 'succeeded', result: { pending: ['o2', 'o4'] } });
    const templates = await fx.svc.templates();
    expect(() => templates.create({ name: 'pending', fromRun: outcome.runId })).toThrow(
      /is INTERACTIVE and the script of its step 3 reads `collected`/,
    );
    expect(existsSync(join(fx.ws, 'templates/pending.tmpl'))).toBe(false);
    expect(templates.list().map((t) => t.name)).not.toContain('pending');
    // Step 1 stands on its own: it may be promoted.
    expect(templates.create({ name: 'pending-ids', fromRun: outcome.runId, attempt: 1 }).name).toBe(
      'pending-ids',
    );
  });
});

describe('templates from a PLAN run that failed first', () => {
  it('an attempt that failed is refused as a template, naming why and the attempt that succeeded', async () => {
    fx.llm.push(
      fence('r = get_user(user_id="nobody")\nemit_result(r.data["name"])'),
      fence('r = get_user(user_id="u2")\nemit_result(r.data["name"])'),
    );
    const outcome = await (
      await fx.runs.start({
        task: 'Name of user u2',
        sandbox: 'ecommerce',
        providers: providers(),
        noTemplates: true,
      })
    ).done;
    expect(outcome).toMatchObject({ status: 'succeeded', result: 'Alan Turing' });
    const templates = await fx.svc.templates();
    expect(() => templates.create({ name: 'failed-name', fromRun: outcome.runId, attempt: 1 })).toThrow(
      /attempt 1 did not succeed \(TypeError: 'NoneType' object is not subscriptable\); a template is a verified script: promote a successful attempt \(--attempt 2\)/,
    );
    expect(existsSync(join(fx.ws, 'templates/failed-name.tmpl'))).toBe(false);
    expect(templates.create({ name: 'user-name', fromRun: outcome.runId, attempt: 2 }).body).toContain(
      'get_user(',
    );
  });
});

describe('replaying a run no LLM answered', () => {
  it('a template-served run is refused by name (replay, promote), and no failed replay run is recorded', async () => {
    fx.llm.push(fence('r = get_user(user_id="u4")\nemit_result(r.data["tier"])'));
    const first = await (
      await fx.runs.start({ task: 'Tier of user u4', sandbox: 'ecommerce', providers: providers() })
    ).done;
    expect(first.status).toBe('succeeded');
    (await fx.svc.templates()).create({ name: 'user-tier', fromRun: first.runId });
    const served = await (
      await fx.runs.start({ task: 'Tier of user u1', sandbox: 'ecommerce', providers: providers() })
    ).done;
    expect(served).toMatchObject({ status: 'succeeded', result: 'gold' });
    expect(fx.runs.get(served.runId).tier).toBe('template');
    // Nor is it promoted again: a second template of the same script, both matching the same tasks.
    await expect(
      fx.svc.templates().then((t) => t.create({ name: 'user-tier-again', fromRun: served.runId })),
    ).rejects.toThrow(
      `run ${served.runId}'s attempt 1 was served by the template user-tier: its script is that template's already; change the template (templates/user-tier.tmpl), or promote a script an LLM or a person wrote`,
    );
    expect((await fx.svc.templates()).list().map((t) => t.name)).not.toContain('user-tier-again');

    const before = fx.runs.list({}).total;
    await expect(fx.runs.replay(served.runId)).rejects.toThrow(
      /has no recorded LLM answer to replay: its script came from the template tier, not from an LLM/,
    );
    expect(fx.runs.list({}).total).toBe(before);
    // A run an LLM answered still replays.
    const replay = await (await fx.runs.replay(first.runId)).done;
    expect(replay).toMatchObject({ status: 'succeeded', result: 'bronze' });
  });
});
