/**
 * Cancel while a script waits for its worker or runs ends the run as cancelled: the attempt's job ends
 * `Cancelled` (it read "runtime error" and the run "failed"), and a cancelled job no longer runs to its
 * time limit. The run's limit is an hour: a cancel that did not reach the job would hang the test until
 * its budget ends it (no elapsed time is asserted).
 */
import { describe, expect, it } from 'vitest';
import { createProviders } from '../../../src-main/app/providers.ts';
import { useLlmService } from '../../support/llm-service.ts';

const fx = useLlmService();
// Says it is running (an intermediate, pushed live) before it loops for hours.
const LOOP =
  '```python\nemit_intermediate("looping")\nx = 0\nfor i in range(10**10):\n    x += i\nemit_result(x)\n```';

/** Starts a looping run and cancels it once `when` has seen its events (the script's or the first). */
async function cancelWhen(when: 'script' | 'running') {
  const runs = await fx.svc.runs();
  fx.llm.push(LOOP);
  let cancel: () => void = () => {};
  const reached = new Promise<void>((resolve) => (cancel = resolve));
  const s = await runs.start({
    task: 'count for a long time',
    sandbox: 'ecommerce',
    providers: createProviders(fx.svc.config, { baseUrl: fx.llm.openaiUrl, model: 'scripted' }),
    maxRetries: 0,
    noTemplates: true,
    timeoutMs: 3_600_000,
    onEvent: (e) => {
      if (when === 'script' && e.type === 'script') cancel();
      if (when === 'running' && e.type === 'emit') cancel();
    },
  });
  await reached;
  expect(runs.cancel(s.runId)).toBe(true);
  const outcome = await s.done;
  return { outcome, rec: runs.get(s.runId) };
}

describe('cancel', () => {
  it('a run cancelled as its script goes to a worker (first use) or while it runs ends cancelled', async () => {
    for (const when of ['script', 'running'] as const) {
      const { outcome, rec } = await cancelWhen(when);
      expect(outcome.status).toBe('cancelled');
      expect(rec.status).toBe('cancelled');
      const ex = rec.attempts[0]?.execution;
      if (when === 'running') expect(ex?.error?.type).toBe('Cancelled');
      else if (ex) expect(ex.error?.type).toBe('Cancelled');
    }
  }, 180_000);
});
