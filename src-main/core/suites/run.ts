/**
 * The shapes of a suite run, defined once: the store writes and reads them, the service produces them,
 * the contract hands them to the front ends (as its `*View` names) and the CLI formats them.
 */
import type { SkillSaving } from '../skills/savings.ts';
import type { CaseResult, SuiteColumn, SuiteMatrix } from './matrix.ts';

export type SuiteRunStatus = 'running' | 'passed' | 'failed' | 'cancelled' | 'interrupted' | 'error';

/** What a suite run set out to do: enough to draw its matrix without the suite file. */
export interface SuiteRunSpec {
  suite: string;
  sandbox: string;
  columns: SuiteColumn[];
  cases: { id: string; task: string; threshold: number; repeat: number }[];
  concurrency: number;
  /** Total case runs planned (instances x columns x repeats). */
  planned: number;
  /** A hash of the sandbox's tools.py at the start: tool versions compared run over run. */
  toolsHash: string;
}

/** One suite run as the store holds it, with its counts of finished and passed case runs. */
export interface SuiteRunSummary {
  id: string;
  suite: string;
  createdAt: number;
  finishedAt: number | null;
  status: SuiteRunStatus;
  spec: SuiteRunSpec;
  error: string | null;
  /** Finished case runs so far. */
  done: number;
  passed: number;
}

/** A suite run with every case result and the matrix drawn from them. */
export interface SuiteRunFull extends SuiteRunSummary {
  results: CaseResult[];
  matrix: SuiteMatrix;
  /**
   * Once the run has finished: per skill of the sandbox, the runs whose scripts made its tool calls
   * inline ("would have saved N tool-call lines in M runs", core/skills/savings.ts).
   */
  skillSavings?: SkillSaving[];
}

/** Progress of a running suite, pushed after every finished case. */
export interface SuiteProgress {
  suiteRun: string;
  suite: string;
  planned: number;
  done: number;
  passed: number;
  failed: number;
  /** Cases that could not be judged (infrastructure errors): neither passed nor failed. */
  errors: number;
  running: number;
  last?: CaseResult;
  status: SuiteRunStatus;
}
