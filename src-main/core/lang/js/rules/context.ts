/**
 * What the JS rule modules share: the context a handler gets (where to report, the tools, the names bound
 * so far, the node's parent, key and ancestors) and small helpers over Babel's tree. Nodes are narrowed
 * with @babel/types' guards (`t.isIdentifier(n)`), never by comparing `type` strings.
 */
import * as t from '@babel/types';
import type { RuleHandler, RuleModule } from '../../rules.ts';
import type { CallShape } from '../../signature.ts';
import type { Violation } from '../../violation.ts';

/** The state of one walk over a script, handed to every handler. */
export class JsRuleContext {
  readonly violations: Violation[] = [];
  /** The tool names the script may call. */
  readonly tools: ReadonlySet<string>;
  /** The Identifier nodes bound so far (declarations, parameters, assignment targets), by the scopes rules. */
  readonly stores = new Set<t.Node>();
  /** Calls to emitResult / emitIntermediate. */
  emits = 0;
  /** The callee of every call by name (calls.ts), checked once the whole script's bindings are known. */
  readonly called: t.Identifier[] = [];
  /** The node's parent and the parent's key holding it (set by the driver before each handler). */
  parent: t.Node | undefined = undefined;
  key = '';
  /** Every ancestor of the node, the root first (the driver's stack: read it, never keep it). */
  readonly ancestors: t.Node[] = [];
  /** What a call of each tool may pass (`ValidateOptions.shapes`), when known. */
  readonly shapes: Readonly<Record<string, CallShape>> | undefined;
  constructor(tools: ReadonlySet<string>, shapes?: Readonly<Record<string, CallShape>>) {
    this.tools = tools;
    this.shapes = shapes;
  }
  /** Reports a violation over the node's range (1-based columns); a node without a location is skipped. */
  at(n: t.Node, rule: string, message: string): void {
    const loc = n.loc;
    if (!loc) return;
    this.violations.push({
      rule,
      message,
      line: loc.start.line,
      column: loc.start.column + 1,
      endLine: loc.end.line,
      endColumn: loc.end.column + 1,
    });
  }
}

export type JsHandler = RuleHandler<t.Node, JsRuleContext>;

/** The node type of a `type` name: `NodeOf<'Identifier'>` is `t.Identifier`. */
export type NodeOf<K extends t.Node['type']> = Extract<t.Node, { type: K }>;

/**
 * A JS rule module: handlers keyed by Babel node type, each typed by its key (the driver only calls the
 * `Identifier` handler with a `t.Identifier`), and `*` for every node.
 */
export type JsRuleModule = {
  readonly [K in t.Node['type']]?: (node: NodeOf<K>, ctx: JsRuleContext) => boolean | void;
} & { readonly '*'?: JsHandler };

/** The modules as the shared merge sees them (handlers by kind name, each given nodes of its kind). */
export const asRuleModules = (
  modules: readonly JsRuleModule[],
): readonly RuleModule<t.Node, JsRuleContext>[] => modules as readonly RuleModule<t.Node, JsRuleContext>[];

/** `a.b` and `a?.b`. */
export const isMemberLike = (
  n: t.Node | null | undefined,
): n is t.MemberExpression | t.OptionalMemberExpression =>
  t.isMemberExpression(n) || t.isOptionalMemberExpression(n);

/** `f()` and `f?.()`. */
export const isCallLike = (n: t.Node | null | undefined): n is t.CallExpression | t.OptionalCallExpression =>
  t.isCallExpression(n) || t.isOptionalCallExpression(n);

/** Folds a string-valued expression made of literals (`"con" + "structor"`, `` `proto` ``). */
export function staticString(n: t.Node | null | undefined): string | undefined {
  if (!n) return undefined;
  if (t.isStringLiteral(n)) return String(n.value);
  if (t.isTemplateLiteral(n)) {
    if (n.expressions.length) return undefined;
    return n.quasis.map((q) => String(q.value.cooked ?? '')).join('');
  }
  if (t.isBinaryExpression(n) && n.operator === '+') {
    const l = staticString(n.left);
    const r = staticString(n.right);
    return l !== undefined && r !== undefined ? l + r : undefined;
  }
  return undefined;
}

/** Identifiers that are property names or labels, not variable references. */
export function isLabel(parent: t.Node | undefined, key: string): boolean {
  if (!parent) return false;
  if (isMemberLike(parent)) return key === 'property' && !parent.computed;
  if (
    (t.isObjectProperty(parent) ||
      t.isObjectMethod(parent) ||
      t.isClassMethod(parent) ||
      t.isClassProperty(parent)) &&
    key === 'key' &&
    !parent.computed
  )
    return true;
  if (
    (t.isLabeledStatement(parent) || t.isBreakStatement(parent) || t.isContinueStatement(parent)) &&
    key === 'label'
  )
    return true;
  // Type positions: every TS node (@babel/types' TypeScript alias is every TS* node type) but the
  // expressions that wrap a value (`x as T`, `x!`, `x satisfies T`, `<T>x`, `f<T>`, `export = x`) and an
  // enum member's initializer (`enum E { A = x }`): there the name is a value, `eval` as much as anywhere.
  if (t.isTSEnumMember(parent)) return key !== 'initializer';
  return (
    t.isTypeScript(parent) &&
    !t.isTSAsExpression(parent) &&
    !t.isTSNonNullExpression(parent) &&
    !t.isTSSatisfiesExpression(parent) &&
    !t.isTSTypeAssertion(parent) &&
    !t.isTSInstantiationExpression(parent) &&
    !t.isTSExportAssignment(parent)
  );
}
