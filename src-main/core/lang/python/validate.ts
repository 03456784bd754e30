/**
 * The Python validator: parses with pyright (via pyright.ts) and walks the tree once, collecting every
 * violation with its range and an instruction for the LLM. The walk is a driver: each node goes to the
 * one handler the rule modules (rules/*.ts, merged in rules/index.ts) have for its kind; what needs the
 * whole script (unknown functions, missing emit) is decided here, in `finishPython`. The container is the security boundary;
 * these rules stop honest mistakes early and make the known AST-sandbox escapes fail before anything runs.
 */
import { BIDI_RULE, bidiViolations } from '../bidi.ts';
import { sortViolations } from '../violation.ts';
import type { ValidateOptions, ValidationResult, Violation } from '../violation.ts';
import {
  childList,
  endOf,
  kindIdOf,
  parsePythonTree,
  PyTreeNodeSet,
  startOf,
  textOf,
  walkTree,
} from './pyright.ts';
import type { PyTreeNode as PyNode } from './pyright.ts';
import { PyRuleContext, isDunder } from './rules/context.ts';
import type { Span } from './rules/context.ts';
import { PYTHON_RULES_DISPATCH, PYTHON_STRICT_RULES_DISPATCH } from './rules/index.ts';
import { FORBIDDEN_NAMES, FRAMEWORK, MODULES, SAFE_BUILTINS } from './rules/known.ts';
import { splitPythonBySize } from './split.ts';
import { closest } from '../../script/hints.ts';

export { FORMAT_FIELD, formatWalks } from './rules/format.ts';

/** Rule ids and what each catches (for docs and the UI). */
export const PYTHON_RULES: Readonly<Record<string, string>> = {
  syntax: 'the script does not parse',
  'bidi-control': BIDI_RULE,
  'empty-script': 'the script has no statements',
  'encoding-declaration': 'a source-encoding declaration on line 1 or 2 (changes how the bytes decode)',
  'no-import': 'import / from-import statements',
  'forbidden-name': 'a reference (not only a call) to exec, eval, open, globals, vars and the like',
  'dunder-name': 'a name that starts and ends with double underscores',
  'dunder-attribute': 'an attribute that starts with an underscore (dunder, private or name-mangled)',
  'forbidden-attribute':
    'frame, code, generator and traceback internals (gi_frame, f_globals, tb_frame, co_code, ...), by attribute or match keyword',
  'dunder-string': 'a string containing a double-underscore name, after escapes and implicit concatenation',
  'format-attribute-walk':
    'str.format / format_map on a template that is not a plain string literal, or whose fields walk attributes',
  'module-attribute':
    'an attribute of a pre-imported module outside its allow-list, a module used as a value (aliased, passed) or a module attribute assigned',
  'guarded-getattr': 'getattr/hasattr without a literal public attribute name, or passed as a value',
  'guarded-type': 'type() with other than one argument (three arguments create classes)',
  'match-dunder': 'a match class pattern keyword starting with an underscore',
  'attribute-assign':
    'an attribute assigned or deleted (x.a = v, x.a += v, del x.a, for x.a in ...): scripts keep values in variables, lists and dicts',
  'rebind-framework': 'rebinding emit_*, credential, collected, a pre-imported module or a tool name',
  'tool-not-called': 'a tool referenced without being called',
  'tool-arguments':
    'a tool or skill call whose arguments cannot bind to its signature: too many positional arguments, an unknown, repeated or positional-only keyword, an argument given twice, a required one missing (calls that unpack *args/**kwargs are not checked)',
  'tool-argument-type':
    'a literal argument of the wrong type for its parameter (a string for an int, None where None is not taken)',
  'unknown-function': 'a call to a name that is not a tool, a helper, a builtin or defined in the script',
  'missing-emit': 'no call to emit_result or emit_intermediate',
  'no-global': 'global / nonlocal statements',
  'no-async': 'async functions, await, async for/with, async comprehensions',
  'no-yield': 'generators (yield)',
  'no-class': 'class definitions',
  'strict-node': 'strict mode: a construct outside the restricted subset',
  'strict-call':
    'strict mode: a call to something other than a tool, a helper or a whitelisted builtin/method',
};

const ENCODING_DECL = /^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+/;

/**
 * What validating one part of a script yields: a run of whole top-level statements, validated on its own
 * (see `finishPython` for what needs the whole script). A whole script is one part.
 */
export interface PythonPart {
  /** Violations found in the part alone, at their lines in the whole script. */
  violations: Violation[];
  syntaxErrors: number;
  statements: number;
  /** The range of the part's last top-level statement. */
  last?: Span;
  emits: number;
  /** Names the part binds (assignments, defs, parameters, loop targets...). */
  bound: string[];
  /**
   * Calls to plain names that are not tools, framework names, builtins, modules or forbidden names (those
   * are known without the other parts), checked against every part's bound names by `finishPython`.
   */
  called: { name: string; span: Span }[];
}

/** Validates a part of a script that starts at line `firstLine` (1 for a whole script). */
export function validatePythonPart(code: string, options: ValidateOptions, firstLine = 1): PythonPart {
  const parsed = parsePythonTree(code);
  const ctx = new PyRuleContext(parsed, firstLine - 1, new Set(options.tools), new PyTreeNodeSet(parsed));
  ctx.shapes = options.shapes;
  // Only the first syntax error the parser met, as Python itself reports: it recovers and goes on, and
  // what it finds after that is mostly the same error seen again (`def f(:` gave seven). finishPython
  // also drops what other rules found after it.
  const e = parsed.syntaxErrors[0];
  if (e) {
    // A closing bracket nothing opened: said as Python says it (the parser reads it as the start of a
    // new statement).
    const at = code.split(/\r\n|\r|\n/, e.start.line)[e.start.line - 1]?.[e.start.column - 1];
    const unmatched =
      (at === ')' || at === ']' || at === '}') && /^Statements must be separated/.test(e.message);
    ctx.violations.push({
      rule: 'syntax',
      message: `syntax error: ${unmatched ? `unmatched '${at}'` : e.message}`,
      line: e.start.line + firstLine - 1,
      column: e.start.column,
      endLine: e.end.line + firstLine - 1,
      endColumn: Math.max(e.end.column, e.start.column + 1),
    });
  }
  const statements = childList(parsed.root, 'statements');
  const part: PythonPart = {
    violations: ctx.violations,
    syntaxErrors: parsed.syntaxErrors.length,
    statements: statements.length,
    emits: 0,
    bound: [],
    called: [],
  };
  if (statements.length === 0) return part;
  const last = statements[statements.length - 1] as PyNode;
  part.last = ctx.span(startOf(last), endOf(last));
  const { byId, other } = options.strict ? PYTHON_STRICT_RULES_DISPATCH : PYTHON_RULES_DISPATCH;
  walkTree(parsed.root, (n, parent, role) => {
    const handle = byId[kindIdOf(n)] ?? other;
    if (handle === undefined) return true;
    ctx.parent = parent;
    ctx.role = role;
    return handle(n, ctx) !== false;
  });
  part.emits = ctx.emits;
  part.bound = [...new Set(ctx.stores.nodes.map((s) => textOf(s) ?? ''))];
  part.called = ctx.calledNames.map((callee) => ({
    name: textOf(callee) ?? '',
    span: ctx.span(startOf(callee), endOf(callee)),
  }));
  return part;
}

/**
 * The whole-script rules over the parts of one script, in order: encoding declaration, empty script,
 * calls to names nothing defines, missing emit; then every violation, sorted, with the bidirectional
 * controls (`bidi-control`, a scan of the source) kept even after a syntax error they may have caused.
 */
export function finishPython(code: string, options: ValidateOptions, parts: PythonPart[]): ValidationResult {
  const tools = new Set(options.tools);
  const violations: Violation[] = parts.flatMap((p) => p.violations);
  const lines = code.split(/\r\n|\r|\n/, 2);
  lines.forEach((l, i) => {
    if (ENCODING_DECL.test(l)) {
      violations.push({
        rule: 'encoding-declaration',
        message: 'remove the source-encoding declaration: scripts are UTF-8 and nothing else',
        line: i + 1,
        column: 1,
        endLine: i + 1,
        endColumn: l.length + 1,
      });
    }
  });
  if (parts.every((p) => p.statements === 0)) {
    violations.push({
      rule: 'empty-script',
      message: 'the script is empty: write the code that solves the task and ends with emit_result(...)',
      line: 1,
      column: 1,
      endLine: 1,
      endColumn: 1,
    });
    return { valid: false, violations: sortViolations([...violations, ...bidiViolations(code, 'python')]) };
  }
  const bound = new Set(parts.flatMap((p) => p.bound));
  for (const { name, span } of parts.flatMap((p) => p.called)) {
    if (
      tools.has(name) ||
      FRAMEWORK.has(name) ||
      SAFE_BUILTINS.has(name) ||
      MODULES.has(name) ||
      bound.has(name) ||
      FORBIDDEN_NAMES.has(name) ||
      isDunder(name)
    )
      continue;
    const excluded = options.excluded?.[name];
    if (excluded !== undefined) {
      violations.push({
        rule: 'tool-excluded',
        message: `${name}() is a tool of this sandbox but this script may not call it: ${excluded}`,
        ...span,
      });
      continue;
    }
    const unoffered = options.unoffered?.[name];
    if (unoffered !== undefined) {
      violations.push({
        rule: 'skill-not-offered',
        message: `${name}() is a skill this script is not offered: ${unoffered}`,
        ...span,
      });
      continue;
    }
    const guess = closest(name, [...tools]);
    violations.push({
      rule: 'unknown-function',
      message: `${name}() is not defined: ${guess ? `did you mean the tool ${guess}? ` : ''}the tools are ${[...tools].join(', ') || '(none)'}`,
      ...span,
    });
  }
  const emits = parts.reduce((n, p) => n + p.emits, 0);
  const syntaxErrors = parts.reduce((n, p) => n + p.syntaxErrors, 0);
  const last = parts.filter((p) => p.last).at(-1)?.last;
  if (options.requireEmit !== false && emits === 0 && syntaxErrors === 0 && last) {
    violations.push({
      rule: 'missing-emit',
      message:
        'the script never calls emit_result(...) or emit_intermediate(...): end it with emit_result(answer)',
      ...last,
    });
  }
  sortViolations(violations);
  const kept = untilFirstSyntaxError(violations);
  const bidi = bidiViolations(code, 'python');
  if (bidi.length) {
    kept.push(...bidi);
    sortViolations(kept);
  }
  return { valid: kept.length === 0, violations: kept };
}

/**
 * A script that does not parse: its syntax error (the first the parser met: validatePythonPart) and what
 * the other rules found before it; what they found after it is on a tree the parser rebuilt around the
 * error. The list is sorted; a script with a syntax error is never valid whatever is kept.
 */
function untilFirstSyntaxError(violations: Violation[]): Violation[] {
  const first = violations.find((v) => v.rule === 'syntax');
  if (!first) return violations;
  return violations.filter(
    (v) =>
      v === first ||
      (v.rule !== 'syntax' && (v.line < first.line || (v.line === first.line && v.column < first.column))),
  );
}

/**
 * Scripts longer than this are validated in pieces of about this size (UTF-16 code units, ~250 lines):
 * pyright's parse of a whole 2,000-line script spends much of its time in garbage collection, copying the
 * partly built tree at each scavenge, while the trees of small pieces die young. Measured on the
 * 2,000-line script of `npm run bench:validate`: p50 ~15 ms whole, ~10.5 ms in 8 pieces.
 */
export const PYTHON_CHUNK_CHARS = 8_000;

/** One part's result for several consecutive parts (in order), as if they had been validated together. */
export function mergePythonParts(parts: readonly PythonPart[]): PythonPart {
  if (parts.length === 1) return parts[0] as PythonPart;
  const last = parts.filter((p) => p.last).at(-1)?.last;
  return {
    violations: parts.flatMap((p) => p.violations),
    syntaxErrors: parts.reduce((n, p) => n + p.syntaxErrors, 0),
    statements: parts.reduce((n, p) => n + p.statements, 0),
    ...(last ? { last } : {}),
    emits: parts.reduce((n, p) => n + p.emits, 0),
    bound: [...new Set(parts.flatMap((p) => p.bound))],
    called: parts.flatMap((p) => p.called),
  };
}

/**
 * Validates a run of whole top-level statements starting at line `firstLine`, in pieces of about
 * `PYTHON_CHUNK_CHARS` when it is longer (see `splitPython`). A result with `syntaxErrors > 0` from more
 * than one piece may come from a cut inside a bracket or a string: the caller then validates the whole
 * script in one piece (`validatePython` does).
 */
export function validatePythonChunked(
  code: string,
  options: ValidateOptions,
  firstLine = 1,
): PythonPart & { pieces: number } {
  const chunks = code.length > PYTHON_CHUNK_CHARS * 1.5 ? splitPythonBySize(code, PYTHON_CHUNK_CHARS) : [];
  if (chunks.length <= 1) return { ...validatePythonPart(code, options, firstLine), pieces: 1 };
  const parts = chunks.map((c) => validatePythonPart(c.code, options, firstLine + c.firstLine - 1));
  return { ...mergePythonParts(parts), pieces: parts.length };
}

/**
 * Validates a whole script: in pieces when it is long (see `PYTHON_CHUNK_CHARS`), in one piece when it
 * is short or when a piece does not parse on its own, so the answer is always that of the whole script.
 */
export function validatePython(code: string, options: ValidateOptions): ValidationResult {
  const part = validatePythonChunked(code, options);
  if (part.pieces > 1 && part.syntaxErrors > 0)
    return finishPython(code, options, [validatePythonPart(code, options)]);
  return finishPython(code, options, [part]);
}
