/**
 * The one module that touches pyright's internal parser API (@zzzen/pyright-internal, pinned exactly).
 * Two views of one parse, so that validators and the tool extractor never depend on pyright internals:
 * - `parsePython()`: a small, stable tree of our own (`PyNode` objects with properties), for the tool
 *   extractor, template inference and tests;
 * - `parsePythonTree()`: pyright's own nodes behind an opaque type (`PyTreeNode`) read through functions
 *   (`kindOf`, `textOf`, `child`, `walkTree`...), for the validator: no second tree is built, which is
 *   what validation of a large script spends most of its time on after the parse itself.
 * Both read the same fields (the generated visitor in pyright-fields.ts) and give the same kinds and
 * values. Pyright applies NFKC to identifiers and decodes string escapes, which the security rules rely on.
 */
import { DiagnosticSink } from '@zzzen/pyright-internal/dist/common/diagnosticSink.js';
import { convertOffsetToPosition } from '@zzzen/pyright-internal/dist/common/positionUtils.js';
import { pythonVersion3_12 } from '@zzzen/pyright-internal/dist/common/pythonVersion.js';
import * as parseNodesModule from '@zzzen/pyright-internal/dist/parser/parseNodes.js';
import { getNextNodeId } from '@zzzen/pyright-internal/dist/parser/parseNodes.js';
import type { ParseNode } from '@zzzen/pyright-internal/dist/parser/parseNodes.js';
import { ParseOptions, Parser } from '@zzzen/pyright-internal/dist/parser/parser.js';
import { setForceEnglishDiagnostics } from '@zzzen/pyright-internal/dist/localization/localize.js';
import { forEachNodeField, PYRIGHT_NODE_TYPES } from './pyright-fields.ts';
import { decodePythonEscapes } from './escapes.ts';
import { getUnescapedString } from '@zzzen/pyright-internal/dist/parser/stringTokenUtils.js';
import * as tokenizerTypesModule from '@zzzen/pyright-internal/dist/parser/tokenizerTypes.js';
import type { FStringMiddleToken, Token } from '@zzzen/pyright-internal/dist/parser/tokenizerTypes.js';
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
const TOKEN_TYPE = runtimeEnum(tokenizerTypesModule, 'TokenType');
const EXCLAMATION_TOKEN = TOKEN_TYPE['ExclamationMark'];
const IDENTIFIER_TOKEN = TOKEN_TYPE['Identifier'];
/** Node kinds are pyright's `ParseNodeType` names: `Name`, `Call`, `MemberAccess`, `StringList`, ... */
export type PyKind = string;
export interface PyNode {
  readonly kind: PyKind;
  /** UTF-16 offsets into the source, end exclusive. */
  readonly start: number;
  readonly end: number;
  readonly parent: PyNode | undefined;
  /** The parent's field that holds this node (`leftExpr`, `member`, `args`, ...); '' for the module. */
  readonly role: string;
  /** Child nodes in field order (which follows the source for the constructs the rules inspect). */
  readonly children: readonly PyNode[];
  /**
   * The node's text value: identifier (Name, after NFKC), attribute name (MemberAccess), decoded string
   * (String; StringList = implicit concatenation incl. f-string literal parts), keyword (Argument),
   * constant name (Constant: True/False/None/Debug), operator name (UnaryOperation/BinaryOperation),
   * function/class name, parameter name.
   */
  readonly value: string | undefined;
  /** Numbers: the numeric value. */
  readonly num: number | bigint | undefined;
  /** Argument: 'simple' | 'list' | 'dict'; Parameter: 'simple' | 'args' | 'kwargs'. */
  readonly category: string | undefined;
  /** StringList containing at least one f-string. */
  readonly formatted: boolean | undefined;
  /** The parser's own node (read by `field()` / `fieldList()` only). */
  readonly ref: PyRef;
}

/** Opaque to everything but this module. */
export interface PyRef {
  readonly __opaque: unique symbol;
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

// Syntax errors read in English whatever the locale, as every other message of Toolsmith does (pyright
// would pick its strings from LC_ALL / LANG / LANGUAGE). The CLI bundle carries the English strings only
// (scripts/cli-pyright.mjs).
setForceEnglishDiagnostics(true);

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
  member?: { d: { value: string } };
  name?: { d: { value: string } };
  argCategory?: number;
  category?: number;
  constType?: number;
  operator?: number;
  middleTokens?: FStringMiddleToken[];
  strings?: ParseNode[];
  token?: { escapedValue: string; flags: number };
}

/** The converted nodes of one parse, by pyright node id (ids of one parse are consecutive from the module's). */
interface Table {
  readonly base: number;
  readonly nodes: (Node | undefined)[];
}

/** Each converted module's table, for the rare field that repeats a node held by another field. */
const TABLES = new WeakMap<Node, Table>();

/**
 * A PyNode as stored. Every instance has the same fields (the rules' property reads stay monomorphic);
 * the rarely read `num`, `category` and `formatted` are computed from pyright's node on access.
 */
class Node {
  value: string | undefined = undefined;
  children: Node[] = NO_CHILDREN;
  readonly kind: PyKind;
  readonly start: number;
  readonly end: number;
  readonly parent: Node | undefined;
  readonly role: string;
  readonly ref: ParseNode;
  constructor(p: ParseNode, parent: Node | undefined, role: string) {
    this.kind = NODE_KINDS[p.nodeType] ?? `Unknown${p.nodeType}`;
    this.start = p.start;
    this.end = p.start + p.length;
    this.parent = parent;
    this.role = role;
    this.ref = p;
  }
  get num(): number | bigint | undefined {
    const v = (this.ref.d as Data).value;
    return this.kind === 'Number' && (typeof v === 'number' || typeof v === 'bigint') ? v : undefined;
  }
  get category(): string | undefined {
    const d = this.ref.d as Data;
    if (this.kind === 'Argument') return ARG_CATEGORIES[d.argCategory ?? 0];
    if (this.kind === 'Parameter') return PARAM_CATEGORIES[d.category ?? 0];
    return undefined;
  }
  get formatted(): boolean | undefined {
    if (this.kind === 'FormatString') return true;
    if (this.kind === 'StringList') return this.children.some((c) => c.kind === 'FormatString');
    return undefined;
  }
}

const ARG_CATEGORIES = ['simple', 'list', 'dict'] as const;
const PARAM_CATEGORIES = ['simple', 'args', 'kwargs'] as const;
const NO_CHILDREN: Node[] = Object.freeze([]) as unknown as Node[];

// The generated field visitor is keyed by ParseNodeType numbers: it must match the installed pyright.
for (const [name, n] of Object.entries(PYRIGHT_NODE_TYPES))
  if (NODE_KINDS[n] !== name)
    throw new Error(
      'pyright-fields.ts does not match the installed pyright: run node scripts/gen-pyright-fields.ts',
    );

// StringTokenFlags (a const enum in pyright): Raw, Bytes, NamedUnicodeEscape.
const RAW = 8;
const BYTES = 32;
const NAMED_ESCAPE = 1024;
/** Pyright decodes `\N{...}` as "-" and `\U` above U+FFFF as one UTF-16 unit: those get ours. */
const needsOwnDecoding = (t: { escapedValue: string; flags: number }): boolean =>
  (t.flags & RAW) === 0 && ((t.flags & NAMED_ESCAPE) !== 0 || t.escapedValue.includes('\\U'));
const decodeToken = (t: { escapedValue: string; flags: number }): string =>
  decodePythonEscapes(t.escapedValue, { bytes: (t.flags & BYTES) !== 0 });

type TextReader = (d: Data) => string | undefined;
const nameText: TextReader = (d) => d.name?.d.value;
const operatorText: TextReader = (d) => OPERATORS[d.operator ?? -1];
/**
 * How each node kind's text value is read (see `PyNode.value`), by ParseNodeType: one small function per
 * kind, so each read sees one shape of pyright's `d` (a switch over kinds would share one read site).
 */
const TEXT_READERS: (TextReader | undefined)[] = NODE_KINDS.map((kind) => {
  switch (kind) {
    case 'Name':
      return (d: Data) => String(d.value);
    case 'String':
      return (d: Data) => (d.token && needsOwnDecoding(d.token) ? decodeToken(d.token) : String(d.value));
    case 'MemberAccess':
      return (d: Data) => d.member?.d.value;
    case 'Function':
    case 'Class':
    case 'Parameter':
    case 'Argument':
    case 'PatternClassArgument':
    case 'ImportFromAs':
      return nameText;
    case 'Constant':
      return (d: Data) => KEYWORDS[d.constType ?? -1];
    case 'UnaryOperation':
    case 'BinaryOperation':
    case 'AugmentedAssignment':
      return operatorText;
    case 'FormatString':
      return (d: Data) =>
        (d.middleTokens ?? [])
          .map((t) => (needsOwnDecoding(t) ? decodeToken(t) : getUnescapedString(t).value))
          .join('');
    case 'StringList':
      return (d: Data) => {
        let value = '';
        for (const part of d.strings ?? []) value += rawText(part) ?? '';
        return value;
      };
    default:
      return undefined;
  }
});

/** The text value of a pyright node (see `PyNode.value`). */
function rawText(p: ParseNode): string | undefined {
  const read = TEXT_READERS[p.nodeType];
  return read === undefined ? undefined : read(p.d as Data);
}

/** The table of the parse being converted (conversion is synchronous and never re-entered). */
let converting: Table = { base: 0, nodes: [] };

/**
 * Converts a pyright node and its subtree. Each pyright node is converted once, reached through the
 * node-valued fields its type declares (the generated visitor in pyright-fields.ts); a field that repeats
 * a node seen before adds no second child. Fields are not copied: field()/fieldList() find them among the
 * children by role. Leaves share one empty children list: fewer allocations, less GC.
 */
function convertNode(p: ParseNode, parent: Node | undefined, role: string): Node {
  const node = new Node(p, parent, role);
  converting.nodes[p.id - converting.base] = node;
  readFields(p, node, addChild);
  node.value = rawText(p);
  return node;
}

function addChild(parent: Node, v: unknown, role: string): void {
  if (!isParseNode(v) || converting.nodes[v.id - converting.base] !== undefined) return;
  const child = convertNode(v, parent, role);
  if (parent.children === NO_CHILDREN) parent.children = [child];
  else parent.children.push(child);
}

function convert(root: ParseNode): Node {
  // Node ids of one parse are consecutive from the module's; a table sized up front keeps fast elements.
  const table: Table = { base: root.id, nodes: new Array<Node | undefined>(getNextNodeId() - root.id) };
  converting = table;
  try {
    const module = convertNode(root, undefined, '');
    TABLES.set(module, table);
    return module;
  } finally {
    converting = { base: 0, nodes: [] };
  }
}

/** The converted node for a pyright node of the same parse as `node`. */
function converted(node: Node, p: ParseNode): Node | undefined {
  let root = node;
  while (root.parent) root = root.parent;
  const table = TABLES.get(root);
  return table?.nodes[p.id - table.base];
}

/** pyright's own node of a `parsePythonTree()` parse; opaque outside this module. */
export interface PyTreeNode {
  readonly __pyrightNode: unique symbol;
}

export interface PyTree {
  root: PyTreeNode;
  syntaxErrors: PySyntaxError[];
  /** 1-based line and column of a UTF-16 offset. */
  position(offset: number): { line: number; column: number };
  source: string;
}

const NO_HASH = { primary: 0, secondary: 0 };

function parseRaw(source: string): PyTree & { raw: ParseNode } {
  const sink = new DiagnosticSink();
  // The content hash is for pyright's file cache, which is not used here: skip computing it.
  const parsed = new Parser().parseSourceFile(source, parseOptions, sink, NO_HASH);
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
  if (source.includes('!'))
    for (const e of fStringConversionErrors(source, parsed.tokenizerOutput.tokens))
      addSyntaxError(syntaxErrors, {
        message: e.message,
        start: position(e.start),
        end: position(e.end),
      });
  const raw = parsed.parserOutput.parseTree;
  return { root: raw as unknown as PyTreeNode, raw, syntaxErrors, position, source };
}

/**
 * The f-string conversions (`{x!r}`) pyright lets through but the worker's CPython (3.11) refuses: pyright
 * checks only that a name follows the `!` and keeps no trace of it in the tree, where Python takes exactly
 * `r`, `s` or `a`, written right after the `!` and followed at once by `:` or `}` (`{x!z}`, `{x!R}`,
 * `{x!rr}`, `{x! r}`, `{x!r }` are syntax errors). A `!` with no name after it pyright reports itself.
 * UTF-16 offsets, end exclusive.
 */
function fStringConversionErrors(
  source: string,
  tokens: TextRangeCollection<Token>,
): { message: string; start: number; end: number }[] {
  const errors: { message: string; start: number; end: number }[] = [];
  const count = tokens.count;
  for (let i = 0; i + 1 < count; i++) {
    const bang = tokens.getItemAt(i);
    if (bang.type !== EXCLAMATION_TOKEN) continue;
    const name = tokens.getItemAt(i + 1);
    if (name.type !== IDENTIFIER_TOKEN) continue;
    const start = name.start;
    const end = name.start + name.length;
    // The name as written (pyright's token value is NFKC-normalised: Python compares the characters).
    const text = source.slice(start, end);
    if (start !== bang.start + 1) {
      errors.push({
        message: "f-string: the conversion character must come right after the '!'",
        start: bang.start + 1,
        end: start,
      });
    } else if (text !== 'r' && text !== 's' && text !== 'a') {
      errors.push({
        message: `f-string: invalid conversion character '${text}': expected 's', 'r', or 'a'`,
        start,
        end,
      });
    } else if (source[end] !== ':' && source[end] !== '}') {
      errors.push({
        message: `f-string: expecting ':' or '}' right after the conversion '!${text}'`,
        start: end,
        end: end + 1,
      });
    }
  }
  return errors;
}

/**
 * Adds a syntax error found after the parse among the parser's own, before the first of them that comes
 * later in the source (the validator reports the first error only); none where the parser reported one.
 */
function addSyntaxError(errors: PySyntaxError[], e: PySyntaxError): void {
  const after = (a: PySyntaxError['start'], b: PySyntaxError['start']) =>
    a.line > b.line || (a.line === b.line && a.column > b.column);
  if (errors.some((p) => p.start.line === e.start.line && p.start.column === e.start.column)) return;
  const i = errors.findIndex((p) => after(p.start, e.start));
  errors.splice(i === -1 ? errors.length : i, 0, e);
}

/** Parses Python 3.12 source into our own tree. Never throws on bad input: syntax errors come back with positions. */
export function parsePython(source: string): PyParseResult {
  const { raw, syntaxErrors, position } = parseRaw(source);
  return { module: convert(raw) as unknown as PyNode, syntaxErrors, position, source };
}

/** Parses Python 3.12 source, keeping pyright's tree (read it with the functions below). Never throws. */
export function parsePythonTree(source: string): PyTree {
  const { root, syntaxErrors, position } = parseRaw(source);
  return { root, syntaxErrors, position, source };
}

const rawOf = (n: PyTreeNode) => n as unknown as ParseNode;
const treeOf = (p: ParseNode | undefined) => p as unknown as PyTreeNode | undefined;

/** The node's kind (pyright's ParseNodeType name, as `PyNode.kind`). */
export function kindOf(n: PyTreeNode): PyKind {
  const t = rawOf(n).nodeType;
  return NODE_KINDS[t] ?? `Unknown${t}`;
}
/**
 * Numeric kind ids (pyright's ParseNodeType values) by kind name, for hot code that compares kinds:
 * `kindIdOf(n) === PY_KIND_ID.Name` is a small-integer compare where `kindOf(n) === 'Name'` is a string one.
 */
export const PY_KIND_ID: Readonly<Record<PyKind, number>> = Object.fromEntries(
  NODE_KINDS.map((k, i) => [k, i] as const).filter(([k]) => k !== undefined),
);
/** The kind id of a node (see `PY_KIND_ID`). */
export function kindIdOf(n: PyTreeNode): number {
  return rawOf(n).nodeType;
}
/** The kind id of a kind name; throws for a name the installed pyright does not have. */
export function pyKindId(kind: PyKind): number {
  const id = PY_KIND_ID[kind];
  if (id === undefined) throw new Error(`pyright has no node kind ${kind}`);
  return id;
}
/** UTF-16 offset of the node's first character. */
export function startOf(n: PyTreeNode): number {
  return rawOf(n).start;
}
/** UTF-16 offset after the node's last character. */
export function endOf(n: PyTreeNode): number {
  const p = rawOf(n);
  return p.start + p.length;
}
export function parentOf(n: PyTreeNode): PyTreeNode | undefined {
  return treeOf(rawOf(n).parent);
}
/** The node's text value, as `PyNode.value`. */
export function textOf(n: PyTreeNode): string | undefined {
  return rawText(rawOf(n));
}
/** Argument: 'simple' | 'list' | 'dict'; Parameter: 'simple' | 'args' | 'kwargs' (as `PyNode.category`). */
export function categoryOf(n: PyTreeNode): string | undefined {
  const p = rawOf(n);
  const d = p.d as Data;
  const kind = NODE_KINDS[p.nodeType];
  if (kind === 'Argument') return ARG_CATEGORIES[d.argCategory ?? 0];
  if (kind === 'Parameter') return PARAM_CATEGORIES[d.category ?? 0];
  return undefined;
}
/** A Number literal's kind: `int`, `float` or `complex` (`1j`); undefined for any other node. */
export function numberKindOf(n: PyTreeNode): 'int' | 'float' | 'complex' | undefined {
  const p = rawOf(n);
  if (NODE_KINDS[p.nodeType] !== 'Number') return undefined;
  const d = p.d as { isInteger?: boolean; isImaginary?: boolean };
  return d.isImaginary ? 'complex' : d.isInteger ? 'int' : 'float';
}
/** A StringList of bytes literals (`b"..."`). */
export function isBytes(n: PyTreeNode): boolean {
  const p = rawOf(n);
  if (NODE_KINDS[p.nodeType] !== 'StringList') return false;
  const first = (p.d as Data).strings?.[0];
  const flags = (first?.d as { token?: { flags: number } } | undefined)?.token?.flags ?? 0;
  return (flags & BYTES) !== 0;
}
/** A StringList containing an f-string, or a FormatString (as `PyNode.formatted`). */
export function isFormatted(n: PyTreeNode): boolean {
  const p = rawOf(n);
  const kind = NODE_KINDS[p.nodeType];
  if (kind === 'FormatString') return true;
  return (
    kind === 'StringList' &&
    ((p.d as Data).strings ?? []).some((s) => NODE_KINDS[s.nodeType] === 'FormatString')
  );
}
/** A Function, For, With or ComprehensionFor written with `async` (pyright's own flag on the node). */
export function isAsync(n: PyTreeNode): boolean {
  return (rawOf(n).d as { isAsync?: boolean }).isAsync === true;
}
// child()/childList() find a field through the generated visitor: its reads are per node type and stay
// monomorphic, where reading `d[name]` with a variable name is a megamorphic keyed load on every call.
let wanted = '';
let picked: ParseNode | undefined;
let pickedList: PyTreeNode[] | undefined;
const pickFirst = (_ctx: undefined, v: unknown, role: string): void => {
  if (picked === undefined && role === wanted) picked = v as ParseNode;
};
const pickAll = (_ctx: undefined, v: unknown, role: string): void => {
  if (role === wanted) pickedList?.push(v as PyTreeNode);
};

/** Calls `add` with each node held by a node-valued field of `p` (never anything but a pyright node). */
function readFields<P>(p: ParseNode, ctx: P, add: (ctx: P, v: unknown, role: string) => void): void {
  const d = p.d as Record<string, unknown>;
  if (forEachNodeField(p.nodeType, d, ctx, add)) return;
  // A node type the generated visitor does not know (a newer pyright): enumerate its fields.
  for (const key of Object.keys(d)) {
    const v = d[key];
    if (Array.isArray(v)) {
      for (const c of v as unknown[]) if (isParseNode(c)) add(ctx, c, key);
    } else if (isParseNode(v)) add(ctx, v, key);
  }
}

/** The node-valued field `name` (the first item of a list field), as `field()`. */
export function child(n: PyTreeNode, name: string): PyTreeNode | undefined {
  wanted = name;
  picked = undefined;
  readFields(rawOf(n), undefined, pickFirst);
  const found = picked;
  picked = undefined;
  return treeOf(found);
}
/** The node-valued field `name` as a list (empty when absent), as `fieldList()`. */
export function childList(n: PyTreeNode, name: string): PyTreeNode[] {
  const out: PyTreeNode[] = [];
  wanted = name;
  pickedList = out;
  readFields(rawOf(n), undefined, pickAll);
  pickedList = undefined;
  return out;
}

/** A set of nodes of one `parsePythonTree()` parse (a bitmap by node id: no hashing). */
export class PyTreeNodeSet {
  private readonly base: number;
  private readonly bits: Uint8Array;
  /** The members, in the order they were added. */
  readonly nodes: PyTreeNode[] = [];
  constructor(tree: PyTree) {
    this.base = rawOf(tree.root).id;
    this.bits = new Uint8Array(getNextNodeId() - this.base);
  }
  add(n: PyTreeNode): void {
    const i = rawOf(n).id - this.base;
    if (this.bits[i] === 1) return;
    this.bits[i] = 1;
    this.nodes.push(n);
  }
  has(n: PyTreeNode): boolean {
    return this.bits[rawOf(n).id - this.base] === 1;
  }
}

/**
 * Depth-first pre-order walk over pyright's tree through the same fields as the conversion (each node
 * once); return false from `visit` to skip a node's children. `visit` also gets the node's parent and the
 * parent's field that holds it (`role`, as `PyNode.role`: `member` for the attribute name of a
 * MemberAccess, `leftExpr` for a callee...), so that rules need no field lookups to place a node.
 */
export function walkTree(
  root: PyTreeNode,
  visit: (n: PyTreeNode, parent: PyTreeNode | undefined, role: string) => boolean | void,
): void {
  const r = rawOf(root);
  const seen = new Uint8Array(getNextNodeId() - r.id);
  const enter = (from: ParseNode | undefined, node: unknown, field: string): void => {
    const v = node as ParseNode;
    const i = v.id - r.id;
    if (i >= 0 && i < seen.length) {
      if (seen[i] === 1) return;
      seen[i] = 1;
    }
    // The role is relative to the node's own parent; a node reached through another node's field (not
    // seen in practice) gets the field its parent holds it in.
    const parent = v.parent;
    const role = from === parent || parent === undefined ? field : roleIn(parent, v);
    if (visit(treeOf(v) as PyTreeNode, treeOf(parent), role) === false) return;
    readFields(v, v, enter);
  };
  if (visit(root, treeOf(r.parent), '') === false) return;
  seen[0] = 1;
  readFields(r, r, enter);
}

/** The field of `parent` that holds `node` ('' when none does). */
function roleIn(parent: ParseNode, node: ParseNode): string {
  let role = '';
  readFields(parent, undefined, (_ctx, v, field) => {
    if (role === '' && v === node) role = field;
  });
  return role;
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

/**
 * A node-valued field by pyright's field name (`leftExpr`, `args`, `member`, `valueExpr`, `targetExpr`...)
 * as a single node (undefined when absent; the first item of a list field).
 */
export function field(node: PyNode, name: string): PyNode | undefined {
  const children = node.children;
  for (let i = 0; i < children.length; i++) if ((children[i] as PyNode).role === name) return children[i];
  // Not a child: absent, or a field repeating a node held by another field.
  const v = ((node as unknown as Node).ref.d as Record<string, unknown>)[name];
  return isParseNode(v) ? (converted(node as unknown as Node, v) as PyNode | undefined) : undefined;
}

/** The field as a list of nodes (empty when absent). */
export function fieldList(node: PyNode, name: string): PyNode[] {
  const out: PyNode[] = [];
  for (const c of node.children) if (c.role === name) out.push(c);
  if (out.length > 0) return out;
  const v = ((node as unknown as Node).ref.d as Record<string, unknown>)[name];
  const items = Array.isArray(v) ? (v as unknown[]) : [v];
  for (const c of items) {
    const n = isParseNode(c) ? converted(node as unknown as Node, c) : undefined;
    if (n) out.push(n as unknown as PyNode);
  }
  return out;
}

/** The docstring of a module/function/class suite, when its first statement is a string. */
export function docstringOf(suite: PyNode | undefined): string | undefined {
  const first = suite ? fieldList(suite, 'statements')[0] : undefined;
  const expr = first && first.kind === 'StatementList' ? fieldList(first, 'statements')[0] : undefined;
  return expr && expr.kind === 'StringList' && !expr.formatted ? expr.value : undefined;
}
