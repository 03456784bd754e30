/** What the store tests record by hand, apart from a real run: a run's start and a suite case's result. */
import type { RunStartedData } from '../../src-main/core/records/events.ts';
import type { CaseResult } from '../../src-main/core/suites/matrix.ts';

/** The start of a run of `task`: PLAN mode, Python, in ecommerce, 3 retries and 8 steps; `extra` over it. */
export const runStarted = (task: string, extra: Partial<RunStartedData> = {}): RunStartedData => ({
  task,
  sandbox: 'ecommerce',
  mode: 'plan',
  language: 'python',
  maxRetries: 3,
  maxSteps: 8,
  ...extra,
});

/** Case c1 of column m passed at repeat `rep` in run `runId` (1 attempt, 10 + 5 tokens, 12 ms). */
export const passedCase = (runId: string, rep: number): CaseResult => ({
  caseId: 'c1',
  column: 'm',
  rep,
  runId,
  status: 'succeeded',
  passed: true,
  attempts: 1,
  promptTokens: 10,
  completionTokens: 5,
  cost: null,
  latencyMs: 12,
  verdicts: [],
  finishedAt: Date.now(),
});
