/** The suites part of the contract: requests (zod) and responses for the Suites view. */
import { z } from 'zod';
import type { CaseResult, SuiteColumn, SuiteComparison, SuiteMatrix } from '../core/suites/matrix.ts';
import type { SuiteProblem } from '../core/suites/schema.ts';

const suiteName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/, 'letters, digits, _ . - only');
const suiteRun = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9-]+$/, 'a suite run id');

export const suiteRequests = {
  'suites.list': z.object({}).strict(),
  'suites.read': z.object({ name: suiteName }).strict(),
  'suites.check': z.object({ text: z.string().max(1_000_000) }).strict(),
  'suites.save': z.object({ name: suiteName, text: z.string().max(1_000_000) }).strict(),
  'suites.start': z
    .object({
      name: suiteName,
      models: z.array(z.string().min(1).max(200)).max(20).optional(),
      repeat: z.number().int().min(1).max(100).optional(),
      concurrency: z.number().int().min(1).max(64).optional(),
    })
    .strict(),
  'suites.cancel': z.object({ suiteRun }).strict(),
  'suites.runs': z
    .object({ suite: suiteName.optional(), limit: z.number().int().min(1).max(500).optional() })
    .strict(),
  'suites.get': z.object({ suiteRun }).strict(),
  'suites.compare': z.object({ head: suiteRun, base: suiteRun.optional() }).strict(),
} as const;

export type SuiteRunStatusView = 'running' | 'passed' | 'failed' | 'cancelled' | 'interrupted' | 'error';

export interface SuiteRunSummaryView {
  id: string;
  suite: string;
  createdAt: number;
  finishedAt: number | null;
  status: SuiteRunStatusView;
  spec: {
    suite: string;
    sandbox: string;
    columns: SuiteColumn[];
    cases: { id: string; task: string; threshold: number; repeat: number }[];
    concurrency: number;
    planned: number;
    toolsHash: string;
  };
  error: string | null;
  done: number;
  passed: number;
}

export interface SuiteRunFullView extends SuiteRunSummaryView {
  results: CaseResult[];
  matrix: SuiteMatrix;
}

export interface SuiteProgressView {
  suiteRun: string;
  suite: string;
  planned: number;
  done: number;
  passed: number;
  failed: number;
  /** Cases that could not be judged (infrastructure errors). */
  errors: number;
  running: number;
  last?: CaseResult;
  status: SuiteRunStatusView;
}

export interface SuiteResponses {
  'suites.list': { name: string; cases: number; error?: string; last?: SuiteRunSummaryView }[];
  'suites.read': { name: string; text: string; problems: SuiteProblem[] };
  'suites.check': { problems: SuiteProblem[] };
  'suites.save': { file: string; problems: SuiteProblem[] };
  'suites.start': { suiteRun: string };
  'suites.cancel': { cancelled: boolean };
  'suites.runs': SuiteRunSummaryView[];
  'suites.get': SuiteRunFullView;
  'suites.compare': SuiteComparison;
}
