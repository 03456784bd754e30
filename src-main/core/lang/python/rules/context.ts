/**
 * What the Python rule modules share: the context a handler gets (where to report, the tools, the names
 * bound so far, the node's parent and role) and small helpers over pyright's tree.
 */
import type { CallShape } from '../../signature.ts';
import type { Violation } from '../../violation.ts';
import type { RuleHandler, RuleModule } from '../../rules.ts';
import {
  child,
  childList,
  endOf,
  isFormatted,
  kindIdOf,
  parentOf,
  pyKindId,
  startOf,
  textOf,
} from '../pyright.ts';
import type { PyTree, PyTreeNode as PyNode, PyTreeNodeSet } from '../pyright.ts';

export type Span = Pick<Violation, 'line' | 'column' | 'endLine' | 'endColumn'>;

/** The state of one walk over one part of a script, handed to every handler. */
export class PyRuleContext {
  readonly violations: Violation[] = [];
  /** The tool names the script may call. */
  readonly tools: ReadonlySet<string>;
  /** What a call of each tool may pass (`ValidateOptions.shapes`), when known. */
  shapes: Readonly<Record<string, CallShape>> | undefined = undefined;
  /** The Name nodes bound so far (assignment targets, defs, parameters...), filled by the scopes rules. */
  readonly stores: PyTreeNodeSet;
  /** Calls to emit_result / emit_intermediate. */
  emits = 0;
  /** Callees no part could make known (kept for `finishPython`'s unknown-function rule). */
  readonly calledNames: PyNode[] = [];
  /** The node's parent and the parent's field holding it (set by the driver before each handler). */
  parent: PyNode | undefined = undefined;
  role = '';
  readonly parsed: PyTree;
  /** Lines before the part being validated (0 for a whole script). */
  private readonly lineOffset: number;
  constructor(parsed: PyTree, lineOffset: number, tools: ReadonlySet<string>, stores: PyTreeNodeSet) {
    this.parsed = parsed;
    this.lineOffset = lineOffset;
    this.tools = tools;
    this.stores = stores;
  }
  /** Reports a violation over the node's range. */
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

export type PyHandler = RuleHandler<PyNode, PyRuleContext>;
export type PyRuleModule = RuleModule<PyNode, PyRuleContext>;

/** Numeric kind ids of the node kinds the rules compare against. */
export const K = {
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
  Function: pyKindId('Function'),
  Class: pyKindId('Class'),
  StringList: pyKindId('StringList'),
  Call: pyKindId('Call'),
  StatementList: pyKindId('StatementList'),
  Suite: pyKindId('Suite'),
} as const;

export const kindIs = (n: PyNode | undefined, kind: number): n is PyNode =>
  n !== undefined && kindIdOf(n) === kind;

/** `f` in `f(...)`. */
export const isCallee = (n: PyNode): boolean => {
  const p = parentOf(n);
  return kindIs(p, K.Call) && child(p, 'leftExpr') === n;
};

/** The called name of `name(...)`, or undefined for any other callee. */
export function callName(call: PyNode): string | undefined {
  const f = child(call, 'leftExpr');
  return kindIs(f, K.Name) ? textOf(f) : undefined;
}

export function positionalArgs(call: PyNode): PyNode[] {
  return childList(call, 'args');
}

/** The text of a plain string literal (not an f-string), or undefined. */
export function literalString(n: PyNode | undefined): string | undefined {
  return kindIs(n, K.StringList) && !isFormatted(n) ? (textOf(n) ?? '') : undefined;
}

/**
 * Name nodes that are not namespace lookups: attribute names, keyword-argument names, import paths.
 * `role` is the parent's field holding the node (from the walk).
 */
export function isLabel(parent: PyNode | undefined, role: string): boolean {
  if (!parent) return false;
  const pk = kindIdOf(parent);
  if (pk === K.MemberAccess) return role === 'member';
  if (pk === K.Argument || pk === K.PatternClassArgument || pk === K.ImportFromAs) return role === 'name';
  return pk === K.ModuleName;
}

/** `name` in `name(...)`, from the walk's parent and role. */
export const isCalleeHere = (ctx: PyRuleContext): boolean =>
  ctx.role === 'leftExpr' && kindIs(ctx.parent, K.Call);

/** `__name__`: a name that starts and ends with two underscores. */
export const isDunder = (name: string): boolean =>
  name.length >= 4 && name.startsWith('__') && name.endsWith('__');
