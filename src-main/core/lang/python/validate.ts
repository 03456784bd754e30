/**
 * The Python validator: parses with pyright (via pyright.ts) and walks the tree once, collecting every
 * violation with its range and an instruction for the LLM. The container is the security boundary;
 * these rules stop honest mistakes early and make the known AST-sandbox escapes fail before anything runs.
 */
import {
  PYTHON_EMIT_NAMES,
  PYTHON_FORBIDDEN_ATTRIBUTES,
  PYTHON_FORBIDDEN_NAMES,
  PYTHON_FRAMEWORK_NAMES,
  PYTHON_MODULE_ATTRIBUTES,
  PYTHON_PREIMPORTED_MODULES,
  PYTHON_SAFE_BUILTINS,
} from '../builtins.ts';
import { sortViolations } from '../violation.ts';
import type { ValidateOptions, ValidationResult, Violation } from '../violation.ts';
import {
  categoryOf,
  child,
  childList,
  endOf,
  isFormatted,
  kindIdOf,
  kindOf,
  parentOf,
  parsePythonTree,
  pyKindId,
  PyTreeNodeSet,
  startOf,
  textOf,
  walkTree,
} from './pyright.ts';
import type { PyTree, PyTreeNode as PyNode } from './pyright.ts';
import { splitPythonBySize } from './split.ts';
import { STRICT_METHODS, STRICT_NODE_KINDS } from './strict.ts';
import { closest } from '../../script/hints.ts';

/** Rule ids and what each catches (for docs and the UI). */
export const PYTHON_RULES: Readonly<Record<string, string>> = {
  syntax: 'the script does not parse',
  'empty-script': 'the script has no statements',
  'encoding-declaration': 'a source-encoding declaration on line 1 or 2 (changes how the bytes decode)',
  'no-import': 'import / from-import statements',
  'forbidden-name': 'a reference (not only a call) to exec, eval, open, globals, vars and the like',
  'dunder-name': 'a name that starts and ends with double underscores',
  'dunder-attribute': 'an attribute that starts with an underscore (dunder, private or name-mangled)',
  'forbidden-attribute': 'frame, code and generator internals (gi_frame, f_globals, tb_frame, co_code, ...)',
  'dunder-string': 'a string containing a double-underscore name, after escapes and implicit concatenation',
  'format-attribute-walk':
    'str.format / format_map on a template that is not a plain string literal, or whose fields walk attributes or keys',
  'module-attribute':
    'an attribute of a pre-imported module outside its allow-list, a module used as a value (aliased, passed) or a module attribute assigned',
  'guarded-getattr': 'getattr/hasattr without a literal public attribute name, or passed as a value',
  'guarded-type': 'type() with other than one argument (three arguments create classes)',
  'match-dunder': 'a match class pattern keyword starting with an underscore',
  'rebind-framework': 'rebinding emit_*, credential, collected, a pre-imported module or a tool name',
  'tool-not-called': 'a tool referenced without being called',
  'unknown-function': 'a call to a name that is not a tool, a helper, a builtin or defined in the script',
  'missing-emit': 'no call to emit_result or emit_intermediate',
  'no-global': 'global / nonlocal statements',
  'no-async': 'async functions, await, async for/with',
  'no-yield': 'generators (yield)',
  'class-keywords': 'class definitions with keywords (metaclass=...)',
  'strict-node': 'strict mode: a construct outside the restricted subset',
  'strict-call':
    'strict mode: a call to something other than a tool, a helper or a whitelisted builtin/method',
};

/** Attributes that reach interpreter internals even without underscores. */
const FORBIDDEN_ATTRIBUTES: ReadonlySet<string> = new Set(PYTHON_FORBIDDEN_ATTRIBUTES);

const ENCODING_DECL = /^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+/;
/** `__name__`: a name that starts and ends with two underscores. */
const isDunder = (name: string): boolean => name.length >= 4 && name.startsWith('__') && name.endsWith('__');
const DUNDER_IN_STRING = /__[A-Za-z_]\w*/;
/** Forbidden names and why (a Map: a plain object would also answer `constructor`, `toString`...). */
const FORBIDDEN_NAMES: ReadonlyMap<string, string> = new Map(Object.entries(PYTHON_FORBIDDEN_NAMES));
const FRAMEWORK = new Set(PYTHON_FRAMEWORK_NAMES);
const EMIT = new Set(PYTHON_EMIT_NAMES);
const SAFE_BUILTINS = new Set(PYTHON_SAFE_BUILTINS);
const MODULES = new Set(PYTHON_PREIMPORTED_MODULES);
/** Names some rule of the Name case applies to, whatever the tools (see the fast path there). */
const SPECIAL_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(PYTHON_FORBIDDEN_NAMES),
  ...PYTHON_FRAMEWORK_NAMES,
  ...PYTHON_PREIMPORTED_MODULES,
  'getattr',
  'hasattr',
]);
/** Names a call may use whatever the script defines (unknown-function never flags them). */
const KNOWN_CALLABLE: ReadonlySet<string> = new Set([
  ...PYTHON_FRAMEWORK_NAMES,
  ...PYTHON_SAFE_BUILTINS,
  ...PYTHON_PREIMPORTED_MODULES,
  ...Object.keys(PYTHON_FORBIDDEN_NAMES),
]);
/** Each pre-imported module's allowed attributes, and the list as messages show it. */
const MODULE_ATTRS: ReadonlyMap<string, { allowed: ReadonlySet<string>; shown: string }> = new Map(
  Object.entries(PYTHON_MODULE_ATTRIBUTES).map(([m, attrs]) => [
    m,
    { allowed: new Set(attrs), shown: attrs.join(', ') },
  ]),
);
const FORMAT_METHODS = new Set(['format', 'format_map']);
const USE_FSTRING =
  'build the text with an f-string (f"{name}: {total:.2f}") or call .format on a string literal ("{}: {:.2f}".format(name, total))';

/** A str.format replacement field's name (group 1), skipping `{{` and `}}` (FORMAT_FIELD in the worker). */
export const FORMAT_FIELD = /\{\{|\}\}|\{([^{}!:]*)/g;

/** Replacement fields of a str.format template that walk attributes (`{0.__class__}`) or keys (`{a[x]}`). */
export function formatWalks(template: string): string[] {
  const walks: string[] = [];
  for (const m of template.matchAll(FORMAT_FIELD)) {
    const name = m[1];
    if (name === undefined) continue;
    if (/[.[]/.test(name)) walks.push(name);
  }
  return walks;
}

class Collector {
  readonly violations: Violation[] = [];
  private readonly parsed: PyTree;
  /** Lines before the part being validated (0 for a whole script). */
  private readonly lineOffset: number;
  constructor(parsed: PyTree, lineOffset: number) {
    this.parsed = parsed;
    this.lineOffset = lineOffset;
  }
  at(node: PyNode, rule: string, message: string): void {
    this.range(startOf(node), endOf(node), rule, message);
  }
  range(start: number, end: number, rule: string, message: string): void {
    this.violations.push({ rule, message, ...this.span(start, end) });
  }
  span(start: number, end: number): Span {
    const s = this.parsed.position(start);
    const e = this.parsed.position(Math.max(end, start));
    return {
      line: s.line + this.lineOffset,
      column: s.column,
      endLine: e.line + this.lineOffset,
      endColumn: e.column,
    };
  }
}

/** Numeric kind ids of the node kinds the rules look at (compared on every node of the walk). */
const K = {
  Name: pyKindId('Name'),
  MemberAccess: pyKindId('MemberAccess'),
  Argument: pyKindId('Argument'),
  PatternClassArgument: pyKindId('PatternClassArgument'),
  ImportFromAs: pyKindId('ImportFromAs'),
  ImportAs: pyKindId('ImportAs'),
  ModuleName: pyKindId('ModuleName'),
  Tuple: pyKindId('Tuple'),
  List: pyKindId('List'),
  Unpack: pyKindId('Unpack'),
  TypeAnnotation: pyKindId('TypeAnnotation'),
  Assignment: pyKindId('Assignment'),
  AugmentedAssignment: pyKindId('AugmentedAssignment'),
  AssignmentExpression: pyKindId('AssignmentExpression'),
  Function: pyKindId('Function'),
  Class: pyKindId('Class'),
  Parameter: pyKindId('Parameter'),
  Except: pyKindId('Except'),
  TypeAlias: pyKindId('TypeAlias'),
  For: pyKindId('For'),
  ComprehensionFor: pyKindId('ComprehensionFor'),
  WithItem: pyKindId('WithItem'),
  With: pyKindId('With'),
  Del: pyKindId('Del'),
  Global: pyKindId('Global'),
  Nonlocal: pyKindId('Nonlocal'),
  PatternCapture: pyKindId('PatternCapture'),
  PatternMappingExpandEntry: pyKindId('PatternMappingExpandEntry'),
  PatternAs: pyKindId('PatternAs'),
  Import: pyKindId('Import'),
  ImportFrom: pyKindId('ImportFrom'),
  StringList: pyKindId('StringList'),
  Call: pyKindId('Call'),
  Await: pyKindId('Await'),
  Yield: pyKindId('Yield'),
  YieldFrom: pyKindId('YieldFrom'),
  StatementList: pyKindId('StatementList'),
  Suite: pyKindId('Suite'),
  Lambda: pyKindId('Lambda'),
} as const;

/**
 * Name nodes that are not namespace lookups: attribute names, keyword-argument names, import paths.
 * `role` is the parent's field holding the node (from the walk).
 */
function isLabel(parent: PyNode | undefined, role: string): boolean {
  if (!parent) return false;
  const pk = kindIdOf(parent);
  if (pk === K.MemberAccess) return role === 'member';
  if (pk === K.Argument || pk === K.PatternClassArgument || pk === K.ImportFromAs) return role === 'name';
  return pk === K.ModuleName;
}

/** Collects the Name nodes a binding construct stores to. */
function targets(n: PyNode | undefined, out: PyTreeNodeSet): void {
  if (!n) return;
  const k = kindIdOf(n);
  if (k === K.Name) out.add(n);
  else if (k === K.Tuple || k === K.List) for (const c of childList(n, 'items')) targets(c, out);
  else if (k === K.Unpack) targets(child(n, 'expr'), out);
  else if (k === K.TypeAnnotation) targets(child(n, 'valueExpr'), out);
}

/** The kinds `bindings` looks at (1), by kind id: most nodes bind nothing and skip the call. */
const BINDS = new Uint8Array(Math.max(...Object.values(K)) + 1);
for (const kind of [
  K.Assignment,
  K.AugmentedAssignment,
  K.AssignmentExpression,
  K.Function,
  K.Class,
  K.Parameter,
  K.Except,
  K.TypeAlias,
  K.For,
  K.ComprehensionFor,
  K.WithItem,
  K.Del,
  K.Global,
  K.Nonlocal,
  K.ImportAs,
  K.ImportFromAs,
  K.PatternCapture,
  K.PatternMappingExpandEntry,
  K.PatternAs,
])
  BINDS[kind] = 1;

function bindings(n: PyNode, k: number, out: PyTreeNodeSet): void {
  switch (k) {
    case K.Assignment:
    case K.AugmentedAssignment:
      targets(child(n, 'leftExpr'), out);
      break;
    case K.AssignmentExpression:
    case K.Function:
    case K.Class:
    case K.Parameter:
    case K.Except:
    case K.TypeAlias:
      targets(child(n, 'name'), out);
      break;
    case K.For:
    case K.ComprehensionFor:
      targets(child(n, 'targetExpr'), out);
      break;
    case K.WithItem:
      targets(child(n, 'target'), out);
      break;
    case K.Del:
    case K.Global:
    case K.Nonlocal:
      for (const t of childList(n, 'targets')) targets(t, out);
      break;
    case K.ImportAs:
    case K.ImportFromAs:
      targets(child(n, 'alias') ?? (k === K.ImportFromAs ? child(n, 'name') : undefined), out);
      break;
    case K.PatternCapture:
    case K.PatternMappingExpandEntry:
    case K.PatternAs:
      targets(child(n, 'target'), out);
      break;
    default:
      break;
  }
}

/** `def __init__(self)` directly in a class body: defining a dunder method reaches nothing. */
function isMethodName(n: PyNode): boolean {
  const fn = parentOf(n);
  if (!fn || kindIdOf(fn) !== K.Function || child(fn, 'name') !== n) return false;
  const up = parentOf(fn);
  const suite = up && kindIdOf(up) === K.StatementList ? parentOf(up) : up;
  const cls = suite && kindIdOf(suite) === K.Suite ? parentOf(suite) : undefined;
  return cls !== undefined && kindIdOf(cls) === K.Class;
}

const kindIs = (n: PyNode | undefined, kind: number): n is PyNode => n !== undefined && kindIdOf(n) === kind;

const isCallee = (n: PyNode): boolean => {
  const p = parentOf(n);
  return kindIs(p, K.Call) && child(p, 'leftExpr') === n;
};

function callName(call: PyNode): string | undefined {
  const f = child(call, 'leftExpr');
  return kindIs(f, K.Name) ? textOf(f) : undefined;
}

function positionalArgs(call: PyNode): PyNode[] {
  return childList(call, 'args');
}

/** The text of a plain string literal (not an f-string), or undefined. */
function literalString(n: PyNode | undefined): string | undefined {
  return kindIs(n, K.StringList) && !isFormatted(n) ? (textOf(n) ?? '') : undefined;
}

/**
 * A pre-imported module name is only ever the receiver of an allowed attribute (`json.dumps`): used as a
 * value (`m = json`, `getattr(json, "codecs")`, `f(json)`) it could be walked without the validator
 * seeing which module it is.
 */
function checkModuleReference(n: PyNode, name: string, c: Collector): void {
  const p = parentOf(n);
  if (kindIs(p, K.MemberAccess) && child(p, 'leftExpr') === n) return;
  c.at(
    n,
    'module-attribute',
    `${name} can only be used as ${name}.<attribute>, never aliased, passed or inspected; ${name} offers ${MODULE_ATTRS.get(name)?.shown ?? ''}`,
  );
}

/** `json.dumps` is fine, `json.codecs` / `statistics.sys` (the module's own imports) are not. */
function checkModuleAttribute(n: PyNode, module: string, attr: string, member: PyNode, c: Collector): void {
  const m = MODULE_ATTRS.get(module);
  if (!m) return;
  if (!m.allowed.has(attr)) {
    c.at(member, 'module-attribute', `${module}.${attr} is not available: ${module} offers only ${m.shown}`);
    return;
  }
  const p = parentOf(n);
  const pk = p ? kindOf(p) : '';
  if (
    ((pk === 'Assignment' || pk === 'AugmentedAssignment') && child(p as PyNode, 'leftExpr') === n) ||
    pk === 'Del'
  )
    c.at(n, 'module-attribute', `${module}.${attr} is read-only: store the value in a variable of your own`);
}

/**
 * `.format` / `.format_map` read attributes and keys named by the template, so the template must be a
 * plain literal whose fields are checked here: a computed template ("{0." + u + "class" + u + "}"), an
 * f-string receiver or a bound `t.format` passed around could walk to interpreter internals.
 */
function checkFormat(n: PyNode, attr: string, c: Collector): void {
  const recv = child(n, 'leftExpr');
  const call = isCallee(n) ? (parentOf(n) as PyNode) : undefined;
  let template = literalString(recv);
  if (template === undefined && kindIs(recv, K.Name) && textOf(recv) === 'str' && call) {
    const first = positionalArgs(call)[0];
    template =
      first && categoryOf(first) === 'simple' && !textOf(first)
        ? literalString(child(first, 'valueExpr'))
        : undefined;
    if (template === undefined) {
      c.at(
        call,
        'format-attribute-walk',
        `str.${attr}(template, ...) needs a string literal as its first argument; ${USE_FSTRING}`,
      );
      return;
    }
  }
  if (template === undefined) {
    c.at(
      call ?? n,
      'format-attribute-walk',
      `.${attr}(...) is only available directly on a string literal template (a computed template can walk attributes); ${USE_FSTRING}`,
    );
    return;
  }
  const walks = formatWalks(template);
  if (walks.length)
    c.at(
      call ?? n,
      'format-attribute-walk',
      `format fields may not walk attributes or keys ({${walks[0]}}); pass the values themselves: "{}".format(value), or use an f-string`,
    );
}

type Span = Pick<Violation, 'line' | 'column' | 'endLine' | 'endColumn'>;

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
  const c = new Collector(parsed, firstLine - 1);
  const tools = new Set(options.tools);
  for (const e of parsed.syntaxErrors) {
    c.violations.push({
      rule: 'syntax',
      message: `syntax error: ${e.message}`,
      line: e.start.line + firstLine - 1,
      column: e.start.column,
      endLine: e.end.line + firstLine - 1,
      endColumn: Math.max(e.end.column, e.start.column + 1),
    });
  }
  const statements = childList(parsed.root, 'statements');
  const part: PythonPart = {
    violations: c.violations,
    syntaxErrors: parsed.syntaxErrors.length,
    statements: statements.length,
    emits: 0,
    bound: [],
    called: [],
  };
  if (statements.length === 0) return part;
  const last = statements[statements.length - 1] as PyNode;
  part.last = c.span(startOf(last), endOf(last));
  const stores = new PyTreeNodeSet(parsed);
  let emits = 0;
  const calledNames: PyNode[] = [];
  walkTree(parsed.root, (n, parent, role) => {
    const k = kindIdOf(n);
    if (BINDS[k] === 1) bindings(n, k, stores);
    switch (k) {
      case K.Import:
      case K.ImportFrom: {
        const names =
          k === K.Import
            ? childList(n, 'list').map((a) =>
                childList(child(a, 'module') ?? a, 'nameParts')
                  .map((x) => textOf(x))
                  .join('.'),
              )
            : [];
        const pre = names.filter((m) => MODULES.has(m));
        c.at(
          n,
          'no-import',
          `imports are not available; ${pre.length ? `${pre.join(', ')} is already available by name; ` : ''}the pre-imported modules are ${PYTHON_PREIMPORTED_MODULES.join(', ')}`,
        );
        return false;
      }
      case K.Name: {
        const name = textOf(n) ?? '';
        // Most names are the script's own variables: no rule below applies to them (every rule needs a
        // special name, a tool, a leading underscore or an `emit_` prefix).
        const first = name.charCodeAt(0);
        if (first !== 95 /* _ */ && first !== 101 /* e */ && !SPECIAL_NAMES.has(name) && !tools.has(name))
          break;
        if (isLabel(parent, role)) break;
        const callee = role === 'leftExpr' && kindIs(parent, K.Call);
        const why = FORBIDDEN_NAMES.get(name);
        if (why !== undefined) c.at(n, 'forbidden-name', `${name} is not available: ${why}`);
        else if (isDunder(name) && !isMethodName(n))
          c.at(
            n,
            'dunder-name',
            `${name}: names with double underscores reach interpreter internals and are not available`,
          );
        if (stores.has(n)) {
          if (FRAMEWORK.has(name) || name.startsWith('emit_'))
            c.at(
              n,
              'rebind-framework',
              `do not rebind ${name}: it is provided by the framework; use another variable name`,
            );
          else if (MODULES.has(name))
            c.at(
              n,
              'rebind-framework',
              `do not rebind ${name}: it is the pre-imported ${name} module; use another variable name, e.g. ${name}_value`,
            );
          else if (tools.has(name))
            c.at(
              n,
              'rebind-framework',
              `do not rebind the tool ${name}: use another variable name, e.g. ${name}_result`,
            );
        } else if (MODULES.has(name)) {
          checkModuleReference(n, name, c);
        } else if (tools.has(name) && !callee) {
          c.at(
            n,
            'tool-not-called',
            `the tool ${name} is referenced without being called; call it with its arguments, e.g. r = ${name}(...), and use r.data`,
          );
        }
        if ((name === 'getattr' || name === 'hasattr') && !callee && !stores.has(n)) {
          c.at(
            n,
            'guarded-getattr',
            `${name} can only be called directly with a literal attribute name, not passed as a value`,
          );
        }
        break;
      }
      case K.MemberAccess: {
        const attr = textOf(n) ?? '';
        const member = child(n, 'member') ?? n;
        if (attr.startsWith('_')) {
          c.at(
            member,
            'dunder-attribute',
            `.${attr}: attributes starting with an underscore are not available; use the documented fields (a ToolResponse has .success, .message and .data)`,
          );
        } else if (FORBIDDEN_ATTRIBUTES.has(attr)) {
          c.at(member, 'forbidden-attribute', `.${attr} reaches interpreter internals and is not available`);
        } else {
          const recv = child(n, 'leftExpr');
          if (kindIs(recv, K.Name) && MODULES.has(textOf(recv) ?? ''))
            checkModuleAttribute(n, textOf(recv) ?? '', attr, member, c);
          if (FORMAT_METHODS.has(attr)) checkFormat(n, attr, c);
        }
        break;
      }
      case K.StringList: {
        const v = textOf(n) ?? '';
        if (DUNDER_IN_STRING.test(v))
          c.at(
            n,
            'dunder-string',
            'strings may not contain double-underscore names (they are used to reach interpreter internals)',
          );
        break;
      }
      case K.Call: {
        const fnName = callName(n);
        if (fnName && EMIT.has(fnName)) emits++;
        // Only names no part could make known are kept for finishPython (spans cost a line lookup).
        if (fnName && !tools.has(fnName) && !KNOWN_CALLABLE.has(fnName) && !isDunder(fnName))
          calledNames.push(child(n, 'leftExpr') as PyNode);
        if (fnName === 'getattr' || fnName === 'hasattr') {
          const attrArg = positionalArgs(n)[1];
          const lit =
            attrArg && categoryOf(attrArg) === 'simple' && !textOf(attrArg)
              ? child(attrArg, 'valueExpr')
              : undefined;
          const litText =
            lit && kindOf(lit) === 'StringList' && !isFormatted(lit) ? (textOf(lit) ?? '') : undefined;
          if (!lit || litText === undefined)
            c.at(
              n,
              'guarded-getattr',
              `${fnName} needs a literal attribute name as its second argument, e.g. ${fnName}(obj, "name")`,
            );
          else if (litText.startsWith('_'))
            c.at(lit, 'guarded-getattr', `${fnName} cannot reach attributes starting with an underscore`);
          else if (FORBIDDEN_ATTRIBUTES.has(litText))
            c.at(lit, 'guarded-getattr', `${fnName} cannot reach .${litText}: it is an interpreter internal`);
          else if (FORMAT_METHODS.has(litText))
            c.at(
              lit,
              'format-attribute-walk',
              `${fnName} cannot fetch .${litText} (a template's fields can walk attributes); ${USE_FSTRING}`,
            );
        }
        if (fnName === 'type' && positionalArgs(n).length !== 1)
          c.at(n, 'guarded-type', 'type() takes exactly one argument here (it tells the type of a value)');
        break;
      }
      case K.PatternClassArgument: {
        const kw = textOf(n) ?? '';
        if (kw.startsWith('_'))
          c.at(
            n,
            'match-dunder',
            `match patterns may not capture attribute ${kw}; match on public fields or use dict patterns`,
          );
        break;
      }
      case K.Global:
      case K.Nonlocal:
        c.at(
          n,
          'no-global',
          `${k === K.Global ? 'global' : 'nonlocal'} statements are not needed: pass values as arguments and return them`,
        );
        break;
      case K.Await:
        c.at(n, 'no-async', 'await is not available: tools are called synchronously');
        break;
      case K.Yield:
      case K.YieldFrom:
        c.at(n, 'no-yield', 'generators are not available: build a list and return it');
        break;
      case K.Function: {
        const first = parsed.source.slice(startOf(n), endOf(n));
        if (/^\s*(@[^\n]*\n\s*)*async\b/.test(first))
          c.at(child(n, 'name') ?? n, 'no-async', 'async functions are not available: write a plain def');
        break;
      }
      case K.For:
      case K.With: {
        if (/^async\b/.test(parsed.source.slice(startOf(n), startOf(n) + 6)))
          c.at(n, 'no-async', 'async for/with are not available');
        break;
      }
      case K.Class: {
        const kws = childList(n, 'arguments').filter((a) => textOf(a));
        if (kws.length)
          c.at(
            kws[0] as PyNode,
            'class-keywords',
            'class keywords such as metaclass= are not available; use plain classes or dicts',
          );
        break;
      }
      default:
        break;
    }
    if (options.strict) strictCheck(n, kindOf(n), c, tools);
    return true;
  });
  part.emits = emits;
  part.bound = [...new Set(stores.nodes.map((s) => textOf(s) ?? ''))];
  part.called = calledNames.map((callee) => ({
    name: textOf(callee) ?? '',
    span: c.span(startOf(callee), endOf(callee)),
  }));
  return part;
}

/**
 * The whole-script rules over the parts of one script, in order: encoding declaration, empty script,
 * calls to names nothing defines, missing emit; then every violation, sorted.
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
    return { valid: false, violations: sortViolations(violations) };
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
  return { valid: violations.length === 0, violations };
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

function strictCheck(n: PyNode, kind: string, c: Collector, tools: Set<string>): void {
  if (!STRICT_NODE_KINDS.has(kind)) {
    c.at(
      n,
      'strict-node',
      `${kind === 'Function' ? 'def' : kind === 'Class' ? 'class' : kind} is not allowed in strict mode: use straight-line code, if/for and comprehensions`,
    );
    return;
  }
  if (kind === 'Lambda') {
    const arg = parentOf(n);
    if (!kindIs(arg, K.Argument) || textOf(arg) !== 'key')
      c.at(
        n,
        'strict-node',
        'lambda is only allowed as a key= argument (e.g. sorted(xs, key=lambda x: x["total"]))',
      );
  }
  if (kind === 'Call') {
    const f = child(n, 'leftExpr');
    if (kindIs(f, K.Name)) {
      const name = textOf(f) ?? '';
      if (!tools.has(name) && !FRAMEWORK.has(name) && !SAFE_BUILTINS.has(name))
        c.at(
          f,
          'strict-call',
          `${name}() is not callable in strict mode: call tools, emit_* helpers and listed builtins only`,
        );
    } else if (kindIs(f, K.MemberAccess)) {
      const recv = child(f, 'leftExpr');
      const moduleCall = kindIs(recv, K.Name) && MODULES.has(textOf(recv) ?? '');
      if (!moduleCall && !STRICT_METHODS.has(textOf(f) ?? ''))
        c.at(child(f, 'member') ?? f, 'strict-call', `.${textOf(f)}() is not in the strict-mode method list`);
    } else {
      c.at(n, 'strict-call', 'in strict mode only named functions and methods can be called');
    }
  }
}
