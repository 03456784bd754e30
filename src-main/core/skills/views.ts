/** What front ends see of skills (the contract's responses): views, test results, checks. */
import type { AssertionVerdict } from '../suites/assert.ts';
import type { Violation } from '../lang/violation.ts';
import type { Grade } from '../tools/grade.ts';
import type { JsonValue, ToolParameter } from '../tools/model.ts';
import type { SkillTest } from './skill.ts';

export type SkillStatus = 'passed' | 'failed' | 'untested';

/** A skill as front ends show it. */
export interface SkillView {
  name: string;
  sandbox: string;
  language: 'python' | 'js' | 'ts';
  version: number;
  file: string;
  source: string;
  description: string;
  signature: string;
  parameters: ToolParameter[];
  returns?: string;
  /** The tools it calls, and its grade (the highest of theirs). */
  tools: string[];
  grade: Grade;
  tests: SkillTest[];
  origin?: string;
  /** `passed`: offered to scripts; `failed` or `untested` (changed since its last test): not offered. */
  status: SkillStatus;
  failures: string[];
  testedAt: number | null;
  /** Earlier versions kept in the history. */
  versions: number[];
}

export interface SkillCaseResult {
  args: Record<string, JsonValue>;
  passed: boolean;
  runId?: string;
  result?: JsonValue;
  error?: string;
  verdicts: AssertionVerdict[];
}

export interface SkillTestResult {
  name: string;
  sandbox: string;
  passed: boolean;
  cases: SkillCaseResult[];
  /** Why it did not pass, one line per failed case (or why no case ran). */
  failures: string[];
}

/** What checking a skill's source finds: shape problems, and the script validator's violations. */
export interface SkillCheck {
  valid: boolean;
  problems: string[];
  violations: Violation[];
  signature?: string;
  tools: string[];
  grade?: Grade;
}
