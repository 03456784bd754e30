/** A PLAN run as events and as the record they fold into, for the run view's node and browser tests. */
import type { RunEventView, RunRecordView } from '../../../../src-main/contract/api.ts';
import { foldView } from './run-detail.ts';

export const RUN = 'run-detail-1';

/** A PLAN run's events: started, then per attempt a tier, a script and a failed or good execution. */
export function events(attempts: number, finished = false): RunEventView[] {
  const out: RunEventView[] = [];
  const add = (type: string, data: unknown) =>
    out.push({ v: 1, runId: RUN, seq: out.length, ts: 1000 + out.length, type, data } as RunEventView);
  add('run_started', {
    task: 'totals per customer',
    sandbox: 'ecommerce',
    mode: 'plan',
    language: 'python',
    provider: 'openai',
    model: 'm',
    maxRetries: 3,
    maxSteps: 1,
  });
  for (let n = 1; n <= attempts; n++) {
    add('tier', { n, tier: 'llm', provider: 'openai' });
    add('llm_response', {
      n,
      text: 'emit_result(1)',
      promptTokens: 10,
      completionTokens: 5,
      model: 'm',
      provider: 'openai',
      latencyMs: 9,
      retries: [],
    });
    add('script', {
      n,
      code: 'emit_result(1)',
      body: `emit_result(${n})`,
      bodyStartLine: 1,
      language: 'python',
      source: 'llm',
    });
  }
  if (finished) add('run_finished', { status: 'succeeded', result: { total: 3 } });
  return out;
}

export const derive = (evs: readonly RunEventView[]): RunRecordView =>
  evs.reduce<RunRecordView | undefined>(
    (r, e) => (r ? foldView(r, e) : foldView(undefined as never, e)),
    undefined,
  )!;
