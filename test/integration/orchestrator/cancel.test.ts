/**
 * Issue 10: Cancel while a script runs (or waits for its worker) ends the run as cancelled, promptly: the
 * attempt's job ends `Cancelled` (it read "runtime error" and the run "failed"), and a job cancelled before
 * a worker took it no longer runs to its time limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProviders } from '../../../src-main/app/providers.ts';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let llm: LlmServer;
let svc: ToolsmithService;
const ws = tempWorkspace();
const LOOP = '```python\nx = 0\nfor i in range(10**10):\n    x += i\nemit_result(x)\n```';

beforeAll(async () => {
  llm = await startLlmServer();
  svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
});
afterAll(async () => {
  await svc.close();
  await llm.close();
  removeWorkspace(ws);
});

async function cancelAfter(ms: number) {
  const runs = await svc.runs();
  llm.push(LOOP);
  const s = await runs.start({
    task: 'count for a long time',
    sandbox: 'ecommerce',
    providers: createProviders(svc.config, { baseUrl: llm.openaiUrl, model: 'scripted' }),
    maxRetries: 0,
    noTemplates: true,
  });
  const id = s.runId;
  await new Promise((r) => setTimeout(r, ms));
  expect(runs.cancel(id)).toBe(true);
  const t0 = Date.now();
  const outcome = await s.done;
  return { outcome, waited: Date.now() - t0, rec: runs.get(id) };
}

describe('cancel', () => {
  it('a run cancelled while its job waits for a worker (first use) or runs ends cancelled within seconds', async () => {
    for (const ms of [50, 3000]) {
      const { outcome, waited, rec } = await cancelAfter(ms);
      expect(outcome.status).toBe('cancelled');
      expect(rec.status).toBe('cancelled');
      expect(waited).toBeLessThan(15_000);
      const ex = rec.attempts[0]?.execution;
      if (ex) expect(ex.error?.type).toBe('Cancelled');
    }
  }, 180_000);
});
