/** The suites part of the contract: requests (zod) and responses for the Suites view. */
import { z } from 'zod';
import type { SuiteComparison } from '../core/suites/matrix.ts';
import type { SuiteRunFull, SuiteRunSummary } from '../core/suites/run.ts';
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
  /** A new suite file with its first case (refused when the name is taken). */
  'suites.create': z
    .object({
      name: suiteName,
      sandbox: z.string().min(1).max(64),
      task: z.string().min(1).max(20_000),
      description: z.string().max(2000).optional(),
    })
    .strict(),
  'suites.delete': z.object({ name: suiteName }).strict(),
  /** Appends a case (a run's task) to a suite; its id is made from the task unless given. */
  'suites.addCase': z
    .object({
      name: suiteName,
      task: z.string().min(1).max(20_000),
      sandbox: z.string().min(1).max(64).optional(),
    })
    .strict(),
  'suites.start': z
    .object({
      name: suiteName,
      /** Overrides the suite's models: provider ids, `provider:model`, or models of the first provider. */
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

/** The suite run shapes are defined once, in core/suites/run.ts; the contract names them as views. */
export type {
  SuiteRunStatus as SuiteRunStatusView,
  SuiteRunSummary as SuiteRunSummaryView,
  SuiteRunFull as SuiteRunFullView,
  SuiteProgress as SuiteProgressView,
} from '../core/suites/run.ts';

export interface SuiteResponses {
  'suites.list': { name: string; cases: number; error?: string; last?: SuiteRunSummary }[];
  'suites.read': { name: string; text: string; problems: SuiteProblem[] };
  'suites.check': { problems: SuiteProblem[] };
  'suites.save': { file: string; problems: SuiteProblem[] };
  'suites.create': { file: string };
  'suites.delete': { removed: true };
  'suites.addCase': { file: string; id: string };
  'suites.start': { suiteRun: string };
  'suites.cancel': { cancelled: boolean };
  'suites.runs': SuiteRunSummary[];
  'suites.get': SuiteRunFull;
  'suites.compare': SuiteComparison;
}
