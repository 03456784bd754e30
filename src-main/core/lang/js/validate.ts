/**
 * The JS/TS validator: @babel/parser with error recovery, one walk over the tree, every violation
 * collected with its range and an instruction for the LLM. The walk is a driver: each node goes to the one
 * handler the rule modules (rules/*.ts, merged in rules/index.ts) have for its type.
 */
import { parse } from '@babel/parser';
import type * as t from '@babel/types';
import { BIDI_RULE, bidiViolations } from '../bidi.ts';
import type { MergedRules } from '../rules.ts';
import { sortViolations } from '../violation.ts';
import { closest } from '../../script/hints.ts';
import { JS_FORBIDDEN_NAMES, JS_FRAMEWORK_NAMES, JS_SAFE_GLOBALS } from '../builtins.ts';
import type { ValidateOptions, ValidationResult } from '../violation.ts';
import { JsRuleContext } from './rules/context.ts';
import { JS_RULES_DISPATCH, JS_STRICT_RULES_DISPATCH } from './rules/index.ts';

export { staticString } from './rules/context.ts';

export const JS_RULES: Readonly<Record<string, string>> = {
  syntax: 'the script does not parse',
  'bidi-control': BIDI_RULE,
  'empty-script': 'the script has no statements',
  'no-import': 'import/export declarations, require(), dynamic import(), import.meta',
  'forbidden-name':
    'a reference to eval, Function, process, globalThis, require, Reflect, arguments, timers, fetch and the like',
  'forbidden-property': 'constructor, prototype, __proto__ and other properties that reach the runtime',
  'forbidden-syntax':
    'with, debugger, new.target, getters/setters, `this` and `super` outside a class, decorators, accessors',
  'property-definition':
    'defining properties or prototypes (Object.defineProperty, Object.setPrototypeOf, ...), well-known symbols, then/toJSON methods, writing to built-in or framework objects',
  'rebind-framework': 'rebinding emitResult, emitIntermediate, emitLog, credential, collected or a tool name',
  'tool-not-called': 'a tool referenced without being called',
  'tool-not-awaited': 'a tool call that is not awaited',
  'unknown-function': 'a call to a name that is not a tool, a helper, a global or defined in the script',
  'missing-emit': 'no call to emitResult or emitIntermediate',
  'strict-node': 'strict mode: a construct outside the restricted subset',
  'strict-call': 'strict mode: a call to something other than a tool, a helper or a whitelisted method',
};

/**
 * Any node-like value: an object with a string `type` and a `loc`. Wider than `t.isNode` (known node types
 * only) on purpose: the walk has always reached the File's comments too, and strict mode reports them.
 */
function isNode(v: unknown): v is t.Node {
  return (
    typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string' && 'loc' in v
  );
}

/** Keys that hold no child node (locations, attached comments, parser extras). */
const NOT_CHILDREN: ReadonlySet<string> = new Set([
  'loc',
  'leadingComments',
  'trailingComments',
  'innerComments',
  'extra',
]);

/**
 * Depth-first pre-order walk: the node's handler, then its children in key order (each key's value, or
 * each node of an array value). A handler returning false skips the node's children.
 */
function walk(
  n: t.Node,
  parent: t.Node | undefined,
  key: string,
  ctx: JsRuleContext,
  rules: MergedRules<t.Node, JsRuleContext>,
): void {
  const handle = rules.byKind.get(n.type) ?? rules.other;
  if (handle !== undefined) {
    ctx.parent = parent;
    ctx.key = key;
    if (handle(n, ctx) === false) return;
  }
  ctx.ancestors.push(n);
  for (const k in n) {
    if (NOT_CHILDREN.has(k)) continue;
    const v = (n as unknown as Record<string, unknown>)[k];
    if (Array.isArray(v)) {
      for (const x of v) if (isNode(x)) walk(x, n, k, ctx, rules);
    } else if (isNode(v)) walk(v, n, k, ctx, rules);
  }
  ctx.ancestors.pop();
}

/** Globals a script may call beside JS_SAFE_GLOBALS (the runtime has them; the prompt does not list them). */
const CALLABLE_GLOBALS: ReadonlySet<string> = new Set([
  ...JS_SAFE_GLOBALS,
  ...JS_FRAMEWORK_NAMES,
  'encodeURI',
  'decodeURI',
  'structuredClone',
]);

/** The JS name of a helper written the Python way (`emit_result` -> `emitResult`). */
const helperNamed = (name: string): string | undefined =>
  JS_FRAMEWORK_NAMES.find((h) => h === name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()));

/**
 * Each call by name names a tool, a helper, a global or something the script binds (anywhere: a
 * function declared below its call is callable): else it would fail at run time as a ReferenceError,
 * after the whole sandbox round trip. Forbidden names have their own rule.
 */
function unknownCalls(
  ctx: JsRuleContext,
  excluded: ValidateOptions['excluded'],
  unoffered: ValidateOptions['unoffered'],
): void {
  const bound = new Set<string>();
  for (const n of ctx.stores) if (n.type === 'Identifier') bound.add(n.name);
  for (const c of ctx.called) {
    const name = c.name;
    if (ctx.tools.has(name) || CALLABLE_GLOBALS.has(name) || bound.has(name) || name in JS_FORBIDDEN_NAMES)
      continue;
    const why = excluded?.[name];
    if (why !== undefined) {
      ctx.at(
        c,
        'tool-excluded',
        `${name}() is a tool of this sandbox but this script may not call it: ${why}`,
      );
      continue;
    }
    const notOffered = unoffered?.[name];
    if (notOffered !== undefined) {
      ctx.at(c, 'skill-not-offered', `${name}() is a skill this script is not offered: ${notOffered}`);
      continue;
    }
    const helper = helperNamed(name);
    const guess = helper ? undefined : closest(name, [...ctx.tools]);
    ctx.at(
      c,
      'unknown-function',
      `${name}() is not defined: ${helper ? `the helper is ${helper}() in JavaScript` : `${guess ? `did you mean the tool ${guess}? ` : ''}the tools are ${[...ctx.tools].join(', ') || '(none)'}`}`,
    );
  }
}

export function validateJs(
  code: string,
  options: ValidateOptions & { typescript?: boolean },
): ValidationResult {
  const result = validateJsTree(code, options);
  // A scan of the source, whatever the parser made of it (a control outside a string may be a syntax
  // error that ends the parse).
  const bidi = bidiViolations(code, 'js');
  if (!bidi.length) return result;
  return { valid: false, violations: sortViolations([...result.violations, ...bidi]) };
}

function validateJsTree(code: string, options: ValidateOptions & { typescript?: boolean }): ValidationResult {
  const ctx = new JsRuleContext(new Set(options.tools), options.shapes);
  const violations = ctx.violations;
  let file: ReturnType<typeof parse>;
  try {
    file = parse(code, {
      sourceType: 'script',
      errorRecovery: true,
      allowAwaitOutsideFunction: true,
      allowReturnOutsideFunction: false,
      plugins: options.typescript ? ['typescript'] : [],
    });
  } catch (e) {
    const err = e as { message?: string; loc?: { line: number; column: number } };
    const line = err.loc?.line ?? 1;
    const column = (err.loc?.column ?? 0) + 1;
    return {
      valid: false,
      violations: [
        {
          rule: 'syntax',
          // (Babel ends its message with its own 0-based "(line:column)": the violation has the position)
          message: `syntax error: ${(err.message ?? String(e)).replace(/ \(\d+:\d+\)$/, '')}`,
          line,
          column,
          endLine: line,
          endColumn: column + 1,
        },
      ],
    };
  }
  for (const e of file.errors) {
    const loc = e.loc;
    violations.push({
      rule: 'syntax',
      message: `syntax error: ${e.reasonCode}: ${e.message ?? ''}`.trim(),
      line: loc.line,
      column: loc.column + 1,
      endLine: loc.line,
      endColumn: loc.column + 2,
    });
  }
  const body = file.program.body;
  if (body.length === 0) {
    violations.push({
      rule: 'empty-script',
      message: 'the script is empty: write the code that solves the task and ends with emitResult(...)',
      line: 1,
      column: 1,
      endLine: 1,
      endColumn: 1,
    });
    return { valid: false, violations };
  }
  walk(file, undefined, '', ctx, options.strict ? JS_STRICT_RULES_DISPATCH : JS_RULES_DISPATCH);
  // (strict mode refuses every call that is not a tool, a helper or a global already: strict-call)
  if (!options.strict) unknownCalls(ctx, options.excluded, options.unoffered);
  if (options.requireEmit !== false && ctx.emits === 0 && file.errors.length === 0) {
    ctx.at(
      body[body.length - 1] as t.Node,
      'missing-emit',
      'the script never calls emitResult(...) or emitIntermediate(...): end it with emitResult(answer)',
    );
  }
  const sorted = sortViolations(violations);
  return { valid: sorted.length === 0, violations: sorted };
}
