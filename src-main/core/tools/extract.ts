/**
 * Static extraction of tool metadata from a sandbox's tools.py: `@tool` functions, their signature,
 * type hints, literal defaults, Google-style docstring and literal decorator arguments. Runs on every
 * keystroke in the editor, so it never executes code and never throws on bad input.
 */
import { docstringOf, field, fieldList, parsePython } from '../lang/python/pyright.ts';
import type { PyNode, PyParseResult } from '../lang/python/pyright.ts';
import { sortViolations } from '../lang/violation.ts';
import type { Violation } from '../lang/violation.ts';
import { WORST_GRADE, isGrade } from './grade.ts';
import type { Grade } from './grade.ts';
import type { JsonValue, ParamSource, ParamType, Tool, ToolParameter } from './model.ts';
import { scriptNameClash } from './script-names.ts';

export interface SandboxTool extends Tool {
  grade: Grade;
}

export interface ExtractResult {
  tools: SandboxTool[];
  /** Problems in tools.py: syntax errors, non-literal decorator arguments, duplicate names. */
  problems: Violation[];
}

/** What `literalValue` answers for an expression that is not a literal. */
export const NOT_LITERAL = Symbol('not-literal');
type Literal = JsonValue | typeof NOT_LITERAL;

/** Evaluates a literal expression (numbers, strings, True/False/None, lists, tuples, dicts). */
export function literalValue(node: PyNode | undefined): Literal {
  if (!node) return NOT_LITERAL;
  switch (node.kind) {
    case 'StringList':
      return node.formatted ? NOT_LITERAL : (node.value ?? '');
    case 'Number':
      return typeof node.num === 'bigint' ? Number(node.num) : (node.num ?? NOT_LITERAL);
    case 'Constant':
      return node.value === 'True'
        ? true
        : node.value === 'False'
          ? false
          : node.value === 'None'
            ? null
            : NOT_LITERAL;
    case 'UnaryOperation': {
      const v = literalValue(field(node, 'expr'));
      if (typeof v !== 'number') return NOT_LITERAL;
      return node.value === 'Subtract' ? -v : node.value === 'Add' ? v : NOT_LITERAL;
    }
    case 'List':
    case 'Tuple': {
      const items = fieldList(node, node.kind === 'List' ? 'items' : 'items');
      const out: JsonValue[] = [];
      for (const it of items) {
        const v = literalValue(it);
        if (v === NOT_LITERAL) return NOT_LITERAL;
        out.push(v);
      }
      return out;
    }
    case 'Dictionary': {
      const out: Record<string, JsonValue> = {};
      for (const entry of fieldList(node, 'items')) {
        if (entry.kind !== 'DictionaryKeyEntry') return NOT_LITERAL;
        const k = literalValue(field(entry, 'keyExpr'));
        const v = literalValue(field(entry, 'valueExpr'));
        if (k === NOT_LITERAL || v === NOT_LITERAL || (typeof k !== 'string' && typeof k !== 'number'))
          return NOT_LITERAL;
        out[String(k)] = v;
      }
      return out;
    }
    default:
      return NOT_LITERAL;
  }
}

const SIMPLE_TYPES: Record<string, ParamType> = {
  str: 'str',
  int: 'int',
  float: 'float',
  bool: 'bool',
  list: 'list',
  dict: 'dict',
  List: 'list',
  Dict: 'dict',
  Sequence: 'list',
  Mapping: 'dict',
  tuple: 'list',
  Tuple: 'list',
  Any: 'any',
};

interface TypeInfo {
  type: ParamType;
  options?: JsonValue[];
  optional?: boolean;
  /** The item type of `list[X]` / `List[X]` / `Sequence[X]` (X not Any). */
  items?: ParamType;
}

/** Maps a type annotation to a parameter type (and Literal[...] to options). */
export function annotationType(node: PyNode | undefined): TypeInfo {
  if (!node) return { type: 'any' };
  const nameOf = (n: PyNode | undefined): string | undefined =>
    n?.kind === 'Name' || n?.kind === 'MemberAccess' ? n.value : undefined;
  if (node.kind === 'Name' || node.kind === 'MemberAccess')
    return { type: SIMPLE_TYPES[node.value ?? ''] ?? 'any' };
  if (node.kind === 'Constant' && node.value === 'None') return { type: 'any', optional: true };
  if (node.kind === 'StringList')
    return annotationType(parsePython(node.value ?? '').module.children[0]?.children[0]);
  if (node.kind === 'Index') {
    const base = nameOf(field(node, 'leftExpr'));
    const args = fieldList(node, 'items')
      .map((a) => field(a, 'valueExpr'))
      .filter((a): a is PyNode => !!a);
    if (base === 'Optional') return { ...annotationType(args[0]), optional: true };
    if (base === 'Literal') {
      const options = args.map(literalValue).filter((v): v is JsonValue => v !== NOT_LITERAL);
      const first = options[0];
      const type: ParamType =
        typeof first === 'number'
          ? Number.isInteger(first)
            ? 'int'
            : 'float'
          : typeof first === 'boolean'
            ? 'bool'
            : 'str';
      return { type, options };
    }
    if (base === 'Union') {
      const parts = args.map(annotationType);
      const nonNone = parts.filter((p) => !p.optional || p.type !== 'any');
      return nonNone.length === 1 && nonNone[0]
        ? { ...nonNone[0], optional: parts.length > 1 }
        : { type: 'any' };
    }
    const type = SIMPLE_TYPES[base ?? ''] ?? 'any';
    if (type === 'list' && args.length === 1 && base !== 'tuple' && base !== 'Tuple') {
      const item = annotationType(args[0]).type;
      if (item !== 'any') return { type, items: item };
    }
    return { type };
  }
  if (node.kind === 'BinaryOperation' && node.value === 'BitwiseOr') {
    const l = annotationType(field(node, 'leftExpr'));
    const r = annotationType(field(node, 'rightExpr'));
    if (r.optional && r.type === 'any') return { ...l, optional: true };
    if (l.optional && l.type === 'any') return { ...r, optional: true };
    return { type: 'any' };
  }
  return { type: 'any' };
}

export interface Docstring {
  description: string;
  params: Record<string, string>;
  returns?: string;
}

/** Parses a Google-style docstring (`Args:`, `Returns:`); other sections are ignored. */
export function parseDocstring(doc: string | undefined): Docstring {
  const result: Docstring = { description: '', params: {} };
  if (!doc) return result;
  const lines = doc.replace(/\r\n/g, '\n').split('\n');
  const indentOf = (l: string) => l.length - l.trimStart().length;
  const body: string[] = [];
  let section: 'desc' | 'args' | 'returns' | 'other' = 'desc';
  let current: string | undefined;
  let returns: string[] = [];
  for (const raw of lines) {
    const line = raw.trimEnd();
    const head =
      /^\s*(Args|Arguments|Parameters|Params|Returns|Return|Yields|Raises|Examples?|Notes?)\s*:\s*$/.exec(
        line,
      );
    if (head) {
      const h = head[1] ?? '';
      section = /^(Args|Arguments|Parameters|Params)$/.test(h)
        ? 'args'
        : /^Returns?$/.test(h)
          ? 'returns'
          : 'other';
      current = undefined;
      continue;
    }
    if (section === 'desc') body.push(line.trim());
    else if (section === 'returns') returns.push(line.trim());
    else if (section === 'args') {
      const m = /^\s*\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?\s*:\s*(.*)$/.exec(line);
      if (m && (current === undefined || indentOf(line) <= 8)) {
        current = m[1] ?? '';
        result.params[current] = (m[2] ?? '').trim();
      } else if (current && line.trim()) {
        result.params[current] = `${result.params[current]} ${line.trim()}`.trim();
      }
    }
  }
  const paragraphs = body
    .join('\n')
    .trim()
    .split(/\n\s*\n/);
  result.description = (paragraphs[0] ?? '').replace(/\s*\n\s*/g, ' ').trim();
  returns = returns.filter(Boolean);
  if (returns.length) result.returns = returns.join(' ');
  return result;
}

const SOURCES: readonly ParamSource[] = ['context', 'history', 'all'];
const DECORATOR_KEYS = new Set([
  'name',
  'description',
  'options',
  'examples',
  'source',
  'display_name',
  'grade',
]);

function isToolDecorator(expr: PyNode | undefined): { call?: PyNode } | undefined {
  if (!expr) return undefined;
  if (expr.kind === 'Name' && expr.value === 'tool') return {};
  if (expr.kind === 'Call') {
    const f = field(expr, 'leftExpr');
    if (f?.kind === 'Name' && f.value === 'tool') return { call: expr };
  }
  return undefined;
}

/** Extracts the `@tool` functions of a tools.py source. */
export function extractTools(source: string, parsed: PyParseResult = parsePython(source)): ExtractResult {
  const problems: Violation[] = [];
  const at = (node: PyNode, rule: string, message: string) => {
    const s = parsed.position(node.start);
    const e = parsed.position(node.end);
    problems.push({ rule, message, line: s.line, column: s.column, endLine: e.line, endColumn: e.column });
  };
  for (const err of parsed.syntaxErrors) {
    problems.push({
      rule: 'syntax',
      message: err.message,
      line: err.start.line,
      column: err.start.column,
      endLine: err.end.line,
      endColumn: err.end.column,
    });
  }
  const tools: SandboxTool[] = [];
  const seen = new Set<string>();
  for (const stmt of fieldList(parsed.module, 'statements')) {
    if (stmt.kind !== 'Function') continue;
    let decorator: { call?: PyNode } | undefined;
    for (const dec of fieldList(stmt, 'decorators')) decorator ??= isToolDecorator(field(dec, 'expr'));
    if (!decorator) continue;
    const kw: Record<string, JsonValue> = {};
    for (const arg of decorator.call ? fieldList(decorator.call, 'args') : []) {
      if (!arg.value || !DECORATOR_KEYS.has(arg.value)) {
        at(arg, 'tool-decorator', `@tool accepts only keyword arguments ${[...DECORATOR_KEYS].join(', ')}`);
        continue;
      }
      const v = literalValue(field(arg, 'valueExpr'));
      if (v === NOT_LITERAL)
        at(
          arg,
          'tool-decorator',
          `@tool(${arg.value}=...) must be a literal (strings, numbers, lists, dicts)`,
        );
      else kw[arg.value] = v;
    }
    const doc = parseDocstring(docstringOf(field(stmt, 'suite')));
    const name = typeof kw['name'] === 'string' ? kw['name'] : (stmt.value ?? '');
    if (seen.has(name))
      at(stmt, 'tool-duplicate', `tool ${name} is defined twice; the later definition wins`);
    seen.add(name);
    // A tool is defined in the script's namespace under its name: one named `len`, `json` or
    // `emit_result` replaced the builtin, module or helper in every script of its sandbox (an MCP tool
    // named so is renamed instead, `len_`: core/tools/mcp.ts).
    if (scriptNameClash(name))
      at(
        stmt,
        'tool-name',
        `tool ${name} has a name scripts already have (a keyword, builtin, module, helper or global): ` +
          `it replaces it in every script of this sandbox; rename the function, or name the tool with @tool(name="...")`,
      );
    const perParam = (key: string): Record<string, JsonValue> => {
      const v = kw[key];
      return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
    };
    const options = perParam('options');
    const examples = perParam('examples');
    const sources = perParam('source');
    const displayNames = perParam('display_name');
    const parameters: ToolParameter[] = [];
    // How each parameter may be passed: before a bare `/` by position only, after `*` or `*args` by
    // name only (the validator checks calls against this: core/lang/signature.ts).
    let keywordOnly = false;
    let varArgs = false;
    let varKwargs = false;
    for (const p of fieldList(stmt, 'params')) {
      if (p.category === 'simple' && !p.value) {
        for (const before of parameters) before.kind = 'positional';
        continue;
      }
      if (p.category === 'args') {
        keywordOnly = true;
        if (p.value) varArgs = true;
        continue;
      }
      if (p.category === 'kwargs') {
        varKwargs = true;
        continue;
      }
      if (!p.value || p.category !== 'simple') continue;
      const t = annotationType(field(p, 'annotation'));
      const defNode = field(p, 'defaultValue');
      const param: ToolParameter = {
        name: p.value,
        type: t.type,
        description: doc.params[p.value] ?? '',
        required: !defNode,
        source: 'all',
        ...(t.items ? { items: t.items } : {}),
        ...(t.optional ? { nullable: true } : {}),
        ...(keywordOnly ? { kind: 'keyword' as const } : {}),
      };
      if (defNode) {
        const d = literalValue(defNode);
        if (d === NOT_LITERAL) at(defNode, 'tool-default', `the default of ${p.value} must be a literal`);
        else param.default = d;
      }
      const opts = options[p.value] ?? t.options;
      if (Array.isArray(opts)) param.options = opts;
      const ex = examples[p.value];
      if (ex !== undefined) param.examples = Array.isArray(ex) ? ex : [ex];
      const src = sources[p.value];
      if (typeof src === 'string' && (SOURCES as readonly string[]).includes(src))
        param.source = src as ParamSource;
      else if (src !== undefined)
        at(stmt, 'tool-decorator', `source for ${p.value} must be one of ${SOURCES.join(', ')}`);
      const dn = displayNames[p.value];
      if (typeof dn === 'string') param.displayName = dn;
      parameters.push(param);
    }
    for (const key of ['options', 'examples', 'source', 'display_name']) {
      for (const pname of Object.keys(perParam(key))) {
        if (!parameters.some((p) => p.name === pname))
          at(stmt, 'tool-decorator', `@tool(${key}=...) names ${pname}, which is not a parameter of ${name}`);
      }
    }
    const g = kw['grade'];
    const grade = Array.isArray(g) && g.length === 2 ? { w: Number(g[0]), d: Number(g[1]) } : WORST_GRADE;
    if (g !== undefined && !isGrade(grade))
      at(stmt, 'tool-decorator', 'grade must be a pair (w, d) of integers 0..2');
    const tool: SandboxTool = {
      name,
      description: typeof kw['description'] === 'string' ? kw['description'] : doc.description,
      parameters,
      location: 'sandbox',
      line: parsed.position(stmt.start).line,
      grade: isGrade(grade) ? grade : WORST_GRADE,
    };
    if (varArgs) tool.varArgs = true;
    if (varKwargs) tool.varKwargs = true;
    if (doc.returns) tool.returns = doc.returns;
    // The later definition wins (it rebinds the name, and the worker runs it): the earlier one leaves
    // the list, so the manual, the counts and the validator know one tool, the one that runs. Both
    // were listed, and the manual showed the LLM two entries for one name.
    const earlier = tools.findIndex((t) => t.name === name);
    if (earlier >= 0) tools.splice(earlier, 1);
    tools.push(tool);
  }
  // In position order, as the validators give theirs (violation.ts): the parser tells some syntax errors
  // after later ones (`def f(:` gave 1:7 before the "(" not closed at 1:6), and the workbench's list
  // started at 1:7 under a save refusal that named the first by position, 1:6.
  return { tools, problems: sortViolations(problems) };
}
