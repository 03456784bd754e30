/**
 * Assertion evaluation on a case's outcome (pure). Predicates are not evaluated here: they run in the
 * sandbox, so `evaluate` returns them as pending and the runner fills in their verdicts.
 */
import { escapeBidi } from '../lang/bidi.ts';
import { JSONPath } from 'jsonpath-plus';
import type { RunRecord } from '../records/records.ts';
import type { Assertion } from './schema.ts';
import { errorMessage } from '../errors.ts';

/** What assertions look at: derived from the case's recorded run. */
export interface CaseOutcome {
  status: RunRecord['status'];
  result?: unknown;
  error?: string;
  attempts: number;
  tokens: { prompt: number; completion: number; total: number };
  durationMs: number;
  tier?: string;
  template?: string;
  /** Calls of the attempt that produced the outcome (the last one). */
  finalCalls: { name: string; args: Record<string, unknown> }[];
  /** Calls of every attempt. */
  allCalls: { name: string; args: Record<string, unknown> }[];
  /** Candidate scripts refused by validation, over all attempts. */
  validationFailures: number;
}

export interface AssertionVerdict {
  type: Assertion['type'];
  passed: boolean;
  /** What was expected and what was found, in words. */
  message: string;
}

/** The outcome of a run record, with the template that served it (from its tier events). */
export function outcomeOf(rec: RunRecord, template?: string): CaseOutcome {
  const last = rec.attempts[rec.attempts.length - 1];
  const calls = (a: RunRecord['attempts'][number]) =>
    a.toolCalls.map((t) => ({ name: t.name, args: t.args }));
  return {
    status: rec.status,
    ...(rec.result !== undefined ? { result: rec.result } : {}),
    ...(rec.error !== undefined ? { error: rec.error } : {}),
    attempts: rec.attempts.length,
    tokens: rec.tokens,
    durationMs: rec.endedAt !== undefined ? rec.endedAt - rec.startedAt : 0,
    ...(rec.tier ? { tier: rec.tier } : {}),
    ...(template ? { template } : {}),
    finalCalls: last ? calls(last) : [],
    allCalls: rec.attempts.flatMap(calls),
    validationFailures: rec.attempts.reduce(
      (n, a) => n + a.rejected.length + (a.validation && !a.validation.valid ? 1 : 0),
      0,
    ),
  };
}

/** Deep equality of JSON values (object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) < 1e-9;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return (
      ka.length === kb.length &&
      ka.every((k) => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return false;
}

/** `expected` is inside `actual`: a substring, an element of a list, or a subset of an object. */
export function jsonContains(actual: unknown, expected: unknown): boolean {
  if (typeof actual === 'string') return typeof expected === 'string' && actual.includes(expected);
  if (Array.isArray(actual))
    return actual.some((x) => jsonEqual(x, expected) || (isObject(expected) && subset(x, expected)));
  if (isObject(actual) && isObject(expected)) return subset(actual, expected);
  return jsonEqual(actual, expected);
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function subset(actual: unknown, expected: Record<string, unknown>): boolean {
  if (!isObject(actual)) return false;
  return Object.entries(expected).every(([k, v]) =>
    isObject(v) ? subset(actual[k], v) : jsonEqual(actual[k], v),
  );
}

/** The value a path selects: one match as itself, several as a list; undefined when none. */
export function select(value: unknown, path: string | undefined): { found: boolean; value: unknown } {
  if (!path || path === '$') return { found: value !== undefined, value };
  let matches: unknown[];
  try {
    matches = JSONPath<unknown[]>({ path, json: value as object, wrap: true, eval: false });
  } catch (e) {
    throw new SuiteAssertionError(`JSONPath ${path}: ${errorMessage(e)}`);
  }
  if (!matches.length) return { found: false, value: undefined };
  return { found: true, value: matches.length === 1 ? matches[0] : matches };
}

export class SuiteAssertionError extends Error {
  override name = 'SuiteAssertionError';
}

const show = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s === undefined ? 'nothing' : s.length > 200 ? `${s.slice(0, 200)}…` : s;
};

const argsMatch = (call: { args: Record<string, unknown> }, args?: Record<string, unknown>) =>
  !args || Object.entries(args).every(([k, v]) => jsonEqual(call.args[k], v));

/** Evaluates one non-predicate assertion. */
export function evaluateAssertion(
  a: Exclude<Assertion, { type: 'predicate' }>,
  o: CaseOutcome,
): AssertionVerdict {
  const v = (passed: boolean, message: string): AssertionVerdict => ({ type: a.type, passed, message });
  try {
    switch (a.type) {
      case 'equals':
      case 'contains':
      case 'matches': {
        const at = a.path ? ` at ${a.path}` : '';
        if (o.status !== 'succeeded') return v(false, `no result: the run ${o.status}`);
        const sel = select(o.result, a.path);
        if (!sel.found) return v(false, `nothing${at} in ${show(o.result)}`);
        if (a.type === 'equals')
          return jsonEqual(sel.value, a.value)
            ? v(true, `equals ${show(a.value)}${at}`)
            : v(false, `expected ${show(a.value)}${at}, got ${show(sel.value)}`);
        if (a.type === 'contains')
          return jsonContains(sel.value, a.value)
            ? v(true, `contains ${show(a.value)}${at}`)
            : v(false, `expected ${show(sel.value)}${at} to contain ${show(a.value)}`);
        let re: RegExp;
        try {
          re = new RegExp(a.pattern, a.flags ?? '');
        } catch (e) {
          return v(false, `bad pattern /${a.pattern}/: ${errorMessage(e)}`);
        }
        const text = typeof sel.value === 'string' ? sel.value : JSON.stringify(sel.value);
        return re.test(text)
          ? v(true, `matches /${a.pattern}/${at}`)
          : v(false, `${show(sel.value)}${at} does not match /${a.pattern}/`);
      }
      case 'tool_called': {
        const n = o.finalCalls.filter((c) => c.name === a.tool && argsMatch(c, a.args)).length;
        const what = `${a.tool}${a.args ? ` with ${show(a.args)}` : ''}`;
        if (n < a.min) return v(false, `${what} called ${n} time(s), expected at least ${a.min}`);
        if (a.max !== undefined && n > a.max)
          return v(false, `${what} called ${n} time(s), expected at most ${a.max}`);
        return v(true, `${what} called ${n} time(s)`);
      }
      case 'tool_not_called': {
        const n = o.allCalls.filter((c) => c.name === a.tool && argsMatch(c, a.args)).length;
        const what = `${a.tool}${a.args ? ` with ${show(a.args)}` : ''}`;
        return n === 0 ? v(true, `${what} not called`) : v(false, `${what} called ${n} time(s)`);
      }
      case 'max_attempts':
        return o.attempts <= a.value
          ? v(true, `${o.attempts} attempt(s) <= ${a.value}`)
          : v(false, `${o.attempts} attempts, at most ${a.value} allowed`);
      case 'max_tokens':
        return o.tokens.total <= a.value
          ? v(true, `${o.tokens.total} tokens <= ${a.value}`)
          : v(false, `${o.tokens.total} tokens, at most ${a.value} allowed`);
      case 'max_ms':
        return o.durationMs <= a.value
          ? v(true, `${o.durationMs} ms <= ${a.value}`)
          : v(false, `${o.durationMs} ms, at most ${a.value} allowed`);
      case 'served_by_template':
        if (o.tier !== 'template') return v(false, `served by ${o.tier ?? 'nothing'}, not a template`);
        if (a.template && o.template !== a.template)
          return v(false, `served by template ${o.template ?? '?'}, expected ${a.template}`);
        return v(true, `served by template ${o.template ?? ''}`.trim());
      case 'no_validation_failure':
        return o.validationFailures === 0
          ? v(true, 'no script failed validation')
          : v(false, `${o.validationFailures} script(s) failed validation`);
    }
  } catch (e) {
    return v(false, errorMessage(e));
  }
}

/** A JSON value as a Python literal (for predicate scripts: `result = <literal>`). */
export function pythonLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'None';
  // (bidirectional controls as escapes: a script holding one is refused, core/lang/bidi.ts)
  if (typeof v === 'string') return escapeBidi(JSON.stringify(v));
  if (Array.isArray(v)) return `[${v.map(pythonLiteral).join(', ')}]`;
  if (typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${escapeBidi(JSON.stringify(k))}: ${pythonLiteral(x)}`)
      .join(', ')}}`;
  return 'None';
}
