/**
 * One problem found by a validator. Lines and columns are 1-based (editor convention); the range is
 * [line:column, endLine:endColumn). Every validator collects all violations and never stops at the first.
 */
export interface Violation {
  /** Stable rule id, e.g. `no-import`, `forbidden-name`, `dunder-attribute`, `syntax`. */
  rule: string;
  /** What is wrong and what to do instead, written for an LLM to correct itself. */
  message: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export type ScriptLanguage = 'python' | 'js' | 'ts';

export interface ValidationResult {
  valid: boolean;
  violations: Violation[];
}

/** Options shared by the Python and JS validators. */
export interface ValidateOptions {
  /** Names of the tools the script may call (sandbox tools, host tools, kit aliases). */
  tools: readonly string[];
  /** Restricted subset: whitelisted node types only, no def/class/while/try, calls only to tools and builtins. */
  strict?: boolean;
  /** Require at least one emit call (default true). */
  requireEmit?: boolean;
  /**
   * Tools of the sandbox the script may not call, each with the reason (above the workspace's maximum
   * grade, outside the kit): a call says so instead of "is not defined".
   */
  excluded?: Readonly<Record<string, string>>;
  /**
   * Skills of the workspace this script is not offered, each with why (another sandbox's, a language its
   * scripts may not call, untested or failing, a tool it calls outside the script's tools; app/skills.ts
   * `notOffered`): a call says so instead of "is not defined".
   */
  unoffered?: Readonly<Record<string, string>>;
}

/** Sorts violations by position, the order every front end shows them in. */
export function sortViolations(violations: Violation[]): Violation[] {
  return violations.sort((a, b) => a.line - b.line || a.column - b.column || a.rule.localeCompare(b.rule));
}

/**
 * Violations as a person reads them (run errors, the CLI): one short line, `line:column rule` and the
 * message's first sentence, never the paragraph written to make an LLM rewrite its script.
 */
export function describeViolations(violations: readonly Violation[]): string {
  if (!violations.length) return 'the script failed validation';
  const first = (m: string) => /^.*?[.;:](?=\s|$)/.exec(m)?.[0].replace(/[.;:]$/, '') ?? m;
  const shown = violations
    .slice(0, 3)
    .map((v) => `line ${v.line}:${v.column} ${v.rule} (${first(v.message)})`);
  const more = violations.length > 3 ? `, and ${violations.length - 3} more` : '';
  return `the script failed validation: ${shown.join('; ')}${more}`;
}
