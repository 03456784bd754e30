/**
 * Promoting and replaying runs whose scripts did not all come from an LLM, against the scripted LLM
 * server and a real sandbox container: an INTERACTIVE step that reads `collected` is not a template
 * (served alone it fails with a NameError every time), and a run no LLM answered has nothing to replay
 * (refused, naming why, instead of a new failed run that blames the replay for running out of answers).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProviders } from '../../../src-main/app/providers.ts';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { RunService } from '../../../src-main/app/runs.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let llm: LlmServer;
let svc: ToolsmithService;
let runs: RunService;
let ws: string;

const providers = () => createProviders(svc.config, { baseUrl: llm.openaiUrl, model: 'scripted-coder' });
const fence = (code: string) => '```python\n' + code + '\n```';

beforeAll(async () => {
  llm = await startLlmServer();
  ws = tempWorkspace();
  svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
  runs = await svc.runs();
});
afterAll(async () => {
  await svc.close();
  await llm.close();
  removeWorkspace(ws);
});
beforeEach(() => llm.reset());

describe('templates from INTERACTIVE runs', () => {
  it('a step that reads `collected` is refused as a template, naming why; a step that does not is kept', async () => {
    const step = fence(
      'r = get_orders()\nemit_intermediate([o["id"] for o in r.data if o["status"] == "pending"])',
    );
    llm.push(step, step, fence('emit_result({"pending": collected[0]})'));
    const outcome = await (
      await runs.start({
        task: 'Which orders are pending?',
        sandbox: 'ecommerce',
        mode: 'interactive',
        providers: providers(),
        maxSteps: 6,
        noTemplates: true,
      })
    ).done;
    expect(outcome).toMatchObject({ status: 'succeeded', result: { pending: ['o2', 'o4'] } });
    const templates = await svc.templates();
    expect(() => templates.create({ name: 'pending', fromRun: outcome.runId })).toThrow(
      /is INTERACTIVE and the script of its step 3 reads `collected`/,
    );
    expect(existsSync(join(ws, 'templates/pending.tmpl'))).toBe(false);
    expect(templates.list().map((t) => t.name)).not.toContain('pending');
    // Step 1 stands on its own: it may be promoted.
    expect(templates.create({ name: 'pending-ids', fromRun: outcome.runId, attempt: 1 }).name).toBe(
      'pending-ids',
    );
  });
});

describe('replaying a run no LLM answered', () => {
  it('a template-served run is refused by name, and no failed replay run is recorded', async () => {
    llm.push(fence('r = get_user(user_id="u4")\nemit_result(r.data["tier"])'));
    const first = await (
      await runs.start({ task: 'Tier of user u4', sandbox: 'ecommerce', providers: providers() })
    ).done;
    expect(first.status).toBe('succeeded');
    (await svc.templates()).create({ name: 'user-tier', fromRun: first.runId });
    const served = await (
      await runs.start({ task: 'Tier of user u1', sandbox: 'ecommerce', providers: providers() })
    ).done;
    expect(served).toMatchObject({ status: 'succeeded', result: 'gold' });
    expect(runs.get(served.runId).tier).toBe('template');

    const before = runs.list({}).total;
    await expect(runs.replay(served.runId)).rejects.toThrow(
      /has no recorded LLM answer to replay: its script came from the template tier, not from an LLM/,
    );
    expect(runs.list({}).total).toBe(before);
    // A run an LLM answered still replays.
    const replay = await (await runs.replay(first.runId)).done;
    expect(replay).toMatchObject({ status: 'succeeded', result: 'bronze' });
  });
});
