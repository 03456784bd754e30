import type { CallShape } from './signature.ts';

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
  /**
   * What a call of each tool or skill may pass (by script-visible name; core/tools/call-shape.ts): a call
   * whose arguments cannot bind is a `tool-arguments` violation, a literal of the wrong type a
   * `tool-argument-type` one. Without it, calls are not checked.
   */
  shapes?: Readonly<Record<string, CallShape>>;
}

/** Sorts violations by position, the order every front end shows them in. */
export function sortViolations(violations: Violation[]): Violation[] {
  return violations.sort((a, b) => a.line - b.line || a.column - b.column || a.rule.localeCompare(b.rule));
}

/**
 * A message's first sentence: up to the first `.`, `;` or `:` followed by a space or the end, outside
 * brackets (a signature such as `(add_numbers(a: int, b: int))` is never cut at its `a:`).
 */
function firstSentence(m: string): string {
  let depth = 0;
  for (let i = 0; i < m.length; i++) {
    const c = m[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
    else if (
      depth === 0 &&
      (c === '.' || c === ';' || c === ':') &&
      (i + 1 === m.length || /\s/.test(m[i + 1] ?? ''))
    )
      return m.slice(0, i);
  }
  return m;
}

/**
 * Violations as a person reads them (run errors, the CLI): one short line, `line:column rule` and the
 * message's first sentence, never the paragraph written to make an LLM rewrite its script.
 */
export function describeViolations(violations: readonly Violation[]): string {
  if (!violations.length) return 'the script failed validation';
  const shown = violations
    .slice(0, 3)
    .map((v) => `line ${v.line}:${v.column} ${v.rule} (${firstSentence(v.message)})`);
  const more = violations.length > 3 ? `, and ${violations.length - 3} more` : '';
  return `the script failed validation: ${shown.join('; ')}${more}`;
}
