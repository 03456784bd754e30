/**
 * The one module that touches pyright's internal parser API (@zzzen/pyright-internal, pinned exactly).
 * It parses Python source and converts pyright's tree into a small, stable tree of our own (`PyNode`),
 * so that validators and the tool extractor never depend on pyright internals. Pyright applies NFKC to
 * identifiers and decodes string escapes, which the security rules rely on.
 */
import { DiagnosticSink } from '@zzzen/pyright-internal/dist/common/diagnosticSink.js';
import { convertOffsetToPosition } from '@zzzen/pyright-internal/dist/common/positionUtils.js';
import { pythonVersion3_12 } from '@zzzen/pyright-internal/dist/common/pythonVersion.js';
import * as parseNodesModule from '@zzzen/pyright-internal/dist/parser/parseNodes.js';
import type { ParseNode } from '@zzzen/pyright-internal/dist/parser/parseNodes.js';
import { ParseOptions, Parser } from '@zzzen/pyright-internal/dist/parser/parser.js';
import { getUnescapedString } from '@zzzen/pyright-internal/dist/parser/stringTokenUtils.js';
import * as tokenizerTypesModule from '@zzzen/pyright-internal/dist/parser/tokenizerTypes.js';
import type { FStringMiddleToken } from '@zzzen/pyright-internal/dist/parser/tokenizerTypes.js';
import type { TextRange } from '@zzzen/pyright-internal/dist/common/textRange.js';
import type { TextRangeCollection } from '@zzzen/pyright-internal/dist/common/textRangeCollection.js';

/** Pyright declares its enums as `const enum`; the compiled JS still carries them as objects. */
type RuntimeEnum = Record<string, number | string>;
const enumNames = (e: RuntimeEnum): string[] => {
  const names: string[] = [];
  for (const [k, v] of Object.entries(e)) if (typeof v === 'number') names[v] = k;
  return names;
};
const runtimeEnum = (mod: object, name: string): RuntimeEnum =>
  (mod as Record<string, RuntimeEnum>)[name] ?? {};
const NODE_KINDS = enumNames(runtimeEnum(parseNodesModule, 'ParseNodeType'));
const KEYWORDS = enumNames(runtimeEnum(tokenizerTypesModule, 'KeywordType'));
const OPERATORS = enumNames(runtimeEnum(tokenizerTypesModule, 'OperatorType'));
const ARG_CATEGORIES = ['simple', 'list', 'dict'] as const;

/** Node kinds are pyright's `ParseNodeType` names: `Name`, `Call`, `MemberAccess`, `StringList`, ... */
export type PyKind = string;
export type PyField = PyNode | PyNode[] | undefined;

export interface PyNode {
  readonly kind: PyKind;
  /** UTF-16 offsets into the source, end exclusive. */
  readonly start: number;
  readonly end: number;
  parent: PyNode | undefined;
  /** Child nodes in field order (which follows the source for the constructs the rules inspect). */
  readonly children: PyNode[];
  /** Node-valued fields by pyright's field name (`leftExpr`, `args`, `member`, `valueExpr`, `targetExpr`...). */
  readonly fields: Readonly<Record<string, PyField>>;
  /**
   * The node's text value: identifier (Name, after NFKC), attribute name (MemberAccess), decoded string
   * (String; StringList = implicit concatenation incl. f-string literal parts), keyword (Argument),
   * constant name (Constant: True/False/None/Debug), operator name (UnaryOperation/BinaryOperation),
   * function/class name, parameter name.
   */
  readonly value?: string;
  /** Numbers: the numeric value; Argument: 'simple' | 'list' | 'dict'; Parameter: 0 simple, 1 *args, 2 **kwargs. */
  readonly num?: number | bigint;
  readonly category?: string;
  /** StringList containing at least one f-string. */
  readonly formatted?: boolean;
}

export interface PySyntaxError {
  message: string;
  start: { line: number; column: number };
  end: { line: number; column: number };
}

export interface PyParseResult {
  module: PyNode;
  syntaxErrors: PySyntaxError[];
  /** 1-based line and column of a UTF-16 offset. */
  position(offset: number): { line: number; column: number };
  source: string;
}

const parseOptions = (() => {
  const o = new ParseOptions();
  o.pythonVersion = pythonVersion3_12;
  o.reportInvalidStringEscapeSequence = false;
  return o;
})();

function isParseNode(v: unknown): v is ParseNode {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { nodeType?: unknown }).nodeType === 'number' &&
    (v as { d?: unknown }).d !== undefined
  );
}

interface Data {
  value?: unknown;
  strings?: ParseNode[];
  member?: { d: { value: string } };
  name?: { d: { value: string } };
  argCategory?: number;
  category?: number;
  constType?: number;
  operator?: number;
  middleTokens?: FStringMiddleToken[];
}

function textValue(
  kind: string,
  d: Data,
  fields: Record<string, PyField>,
): { value?: string; formatted?: boolean } {
  switch (kind) {
    case 'Name':
    case 'String':
      return { value: String(d.value) };
    case 'MemberAccess':
      return { value: d.member?.d.value };
    case 'Function':
    case 'Class':
    case 'Parameter':
    case 'Argument':
    case 'PatternClassArgument':
    case 'ImportFromAs':
      return { value: d.name?.d.value };
    case 'Constant':
      return { value: KEYWORDS[d.constType ?? -1] };
    case 'UnaryOperation':
    case 'BinaryOperation':
    case 'AugmentedAssignment':
      return { value: OPERATORS[d.operator ?? -1] };
    case 'FormatString':
      return {
        value: (d.middleTokens ?? []).map((t) => getUnescapedString(t).value).join(''),
        formatted: true,
      };
    case 'StringList': {
      const parts = (fields['strings'] as PyNode[] | undefined) ?? [];
      return {
        value: parts.map((p) => p.value ?? '').join(''),
        formatted: parts.some((p) => p.kind === 'FormatString'),
      };
    }
    default:
      return {};
  }
}

const NO_CHILDREN: PyNode[] = Object.freeze([]) as unknown as PyNode[];
const NO_FIELDS: Record<string, PyField> = Object.freeze({}) as Record<string, PyField>;

function convert(root: ParseNode): PyNode {
  // Built from the node-valued fields of pyright's nodes (each node is reached once); children are kept
  // in field order, which follows the source for every construct the rules look at. Every PyNode is
  // created with the same shape (all properties present) so that the rules' property reads stay
  // monomorphic.
  const memo = new Map<ParseNode, PyNode>();
  const visit = (p: ParseNode, parent: PyNode | undefined): PyNode => {
    const seen = memo.get(p);
    if (seen) return seen;
    const kind = NODE_KINDS[p.nodeType] ?? `Unknown${p.nodeType}`;
    const d = p.d as Data & Record<string, unknown>;
    // Leaves (most nodes) share the empty children list and field map: fewer allocations, less GC.
    let children = NO_CHILDREN;
    let fields = NO_FIELDS;
    const node = {
      kind,
      start: p.start,
      end: p.start + p.length,
      parent,
      children,
      fields,
      value: undefined as string | undefined,
      num: undefined as number | bigint | undefined,
      category: undefined as string | undefined,
      formatted: undefined as boolean | undefined,
    };
    memo.set(p, node);
    for (const key in d) {
      // destExpr duplicates leftExpr of an augmented assignment (a synthesized node, not source).
      if (key === 'destExpr') continue;
      const v = d[key];
      if (typeof v !== 'object' || v === null) continue;
      if (Array.isArray(v)) {
        if (v.length === 0 || !isParseNode(v[0])) continue;
        const list: PyNode[] = [];
        for (const c of v as ParseNode[]) {
          if (!isParseNode(c)) continue;
          const fresh = !memo.has(c);
          const n = visit(c, node);
          list.push(n);
          if (fresh) {
            if (children === NO_CHILDREN) node.children = children = [];
            children.push(n);
          }
        }
        if (fields === NO_FIELDS) node.fields = fields = {};
        fields[key] = list;
      } else if (isParseNode(v)) {
        // A field may repeat another one: one child.
        const fresh = !memo.has(v);
        const n = visit(v, node);
        if (fields === NO_FIELDS) node.fields = fields = {};
        fields[key] = n;
        if (fresh) {
          if (children === NO_CHILDREN) node.children = children = [];
          children.push(n);
        }
      }
    }
    const text = textValue(kind, d, fields);
    node.value = text.value;
    node.formatted = text.formatted;
    if (kind === 'Number' && (typeof d.value === 'number' || typeof d.value === 'bigint')) node.num = d.value;
    else if (kind === 'Argument') node.category = ARG_CATEGORIES[d.argCategory ?? 0];
    else if (kind === 'Parameter') node.category = ['simple', 'args', 'kwargs'][d.category ?? 0];
    return node;
  };
  return visit(root, undefined);
}

/** Parses Python 3.12 source. Never throws on bad input: syntax errors come back with positions. */
export function parsePython(source: string): PyParseResult {
  const sink = new DiagnosticSink();
  const parsed = new Parser().parseSourceFile(source, parseOptions, sink);
  const lines: TextRangeCollection<TextRange> = parsed.tokenizerOutput.lines;
  const position = (offset: number) => {
    const p = convertOffsetToPosition(offset, lines);
    return { line: p.line + 1, column: p.character + 1 };
  };
  const syntaxErrors = sink.getErrors().map((e) => ({
    message: e.message,
    start: { line: e.range.start.line + 1, column: e.range.start.character + 1 },
    end: { line: e.range.end.line + 1, column: e.range.end.character + 1 },
  }));
  return { module: convert(parsed.parserOutput.parseTree), syntaxErrors, position, source };
}

/** Depth-first pre-order walk; return false from `visit` to skip a node's children. */
export function walk(node: PyNode, visit: (n: PyNode) => boolean | void): void {
  const stack: PyNode[] = [node];
  while (stack.length > 0) {
    const n = stack.pop() as PyNode;
    if (visit(n) === false) continue;
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as PyNode);
  }
}

/** The field as a single node (or undefined). */
export function field(node: PyNode, name: string): PyNode | undefined {
  const f = node.fields[name];
  return Array.isArray(f) ? undefined : f;
}

/** The field as a list of nodes (empty when absent). */
export function fieldList(node: PyNode, name: string): PyNode[] {
  const f = node.fields[name];
  return Array.isArray(f) ? f : f ? [f] : [];
}

/** The docstring of a module/function/class suite, when its first statement is a string. */
export function docstringOf(suite: PyNode | undefined): string | undefined {
  const first = suite ? fieldList(suite, 'statements')[0] : undefined;
  const expr = first && first.kind === 'StatementList' ? fieldList(first, 'statements')[0] : undefined;
  return expr && expr.kind === 'StringList' && !expr.formatted ? expr.value : undefined;
}
