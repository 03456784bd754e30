/**
 * A small finished suite run for the tests of the Suites view: cases tokyo and paris, columns weak
 * and good; tokyo fails on weak, paris could not be judged on weak (infrastructure), good meets both.
 */
import type { SuiteRunFullView } from '../../../../src-main/contract/api.ts';
import type { CaseResult, MatrixCell } from '../../../../src-main/core/suites/matrix.ts';

const cell = (caseId: string, column: string, over: Partial<MatrixCell>): MatrixCell => ({
  caseId,
  column,
  runs: 1,
  passes: 1,
  passRate: 1,
  threshold: 1,
  meets: true,
  attempts: 1,
  tokens: 100,
  cost: null,
  latencyMs: 1500,
  runIds: [],
  errors: 0,
  outcome: 'met',
  ...over,
});

const result = (caseId: string, column: string, over: Partial<CaseResult>): CaseResult => ({
  caseId,
  column,
  rep: 0,
  runId: `${caseId}-${column}-run-0001`,
  status: 'succeeded',
  passed: true,
  attempts: 1,
  promptTokens: 60,
  completionTokens: 40,
  cost: null,
  latencyMs: 1500,
  verdicts: [{ type: 'equals', passed: true, message: 'equals "Tokyo"' }],
  finishedAt: 1,
  ...over,
});

export const suiteRun = (over: Partial<SuiteRunFullView> = {}): SuiteRunFullView => ({
  id: 'sr-1',
  suite: 'cities',
  createdAt: 1,
  finishedAt: 2,
  status: 'failed',
  error: null,
  done: 4,
  passed: 2,
  spec: {
    suite: 'cities',
    sandbox: 'geo',
    columns: [
      { id: 'weak', provider: 'local', model: 'weak', templates: false },
      { id: 'good', provider: 'local', model: 'good', templates: false },
    ],
    cases: [
      { id: 'tokyo', task: 'Capital of Japan?', threshold: 1, repeat: 1 },
      { id: 'paris', task: 'Capital of France?', threshold: 1, repeat: 1 },
    ],
    concurrency: 2,
    planned: 4,
    toolsHash: 'abc123',
  },
  results: [
    result('tokyo', 'weak', {
      passed: false,
      status: 'failed',
      verdicts: [{ type: 'equals', passed: false, message: 'expected "Tokyo", got "Kyoto"' }],
    }),
    result('tokyo', 'good', {}),
    result('paris', 'weak', {
      passed: false,
      status: 'error',
      runId: null,
      error: 'no engine',
      infra: 'no engine',
      verdicts: [],
    }),
    result('paris', 'good', {}),
  ],
  matrix: {
    cases: ['tokyo', 'paris'],
    columns: [
      { id: 'weak', provider: 'local', model: 'weak', templates: false },
      { id: 'good', provider: 'local', model: 'good', templates: false },
    ],
    cells: [
      cell('tokyo', 'weak', {
        passes: 0,
        passRate: 0,
        meets: false,
        outcome: 'failed',
        failure: 'expected "Tokyo"',
        cost: 0.002,
      }),
      cell('tokyo', 'good', {}),
      cell('paris', 'weak', { passes: 0, passRate: 0, meets: false, outcome: 'error', errors: 1 }),
      cell('paris', 'good', {}),
    ],
    totals: [
      {
        column: 'weak',
        cases: 2,
        met: 0,
        errors: 1,
        passRate: 0,
        tokens: 200,
        cost: null,
        latencyP50: 1500,
        latencyP95: 1500,
      },
      {
        column: 'good',
        cases: 2,
        met: 2,
        errors: 0,
        passRate: 1,
        tokens: 200,
        cost: null,
        latencyP50: 1500,
        latencyP95: 1500,
      },
    ],
    overall: { cells: 4, met: 2, errors: 1, runs: 4, passes: 2, tokens: 400, cost: null },
  },
  ...over,
});
