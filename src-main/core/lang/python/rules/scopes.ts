/**
 * Names and scopes: which Name nodes a construct binds (assignment targets, defs, parameters, loop and
 * with targets, imports, match captures). The rules on names (rebind-framework, guarded-getattr...) tell
 * a store from a use by `ctx.stores`, and `finishPython` knows the script's own functions by them.
 * These handlers run first for their kinds: a node's bindings are known before its children are walked.
 */
import { child, childList, kindIdOf } from '../pyright.ts';
import type { PyTreeNode as PyNode, PyTreeNodeSet } from '../pyright.ts';
import { K } from './context.ts';
import type { PyHandler, PyRuleModule } from './context.ts';

/** Collects the Name nodes a binding construct stores to. */
export function targets(n: PyNode | undefined, out: PyTreeNodeSet): void {
  if (!n) return;
  const k = kindIdOf(n);
  if (k === K.Name) out.add(n);
  else if (k === K.Tuple || k === K.List) for (const c of childList(n, 'items')) targets(c, out);
  else if (k === K.Unpack) targets(child(n, 'expr'), out);
  else if (k === K.TypeAnnotation) targets(child(n, 'valueExpr'), out);
}

/** A handler binding the targets in one field of the node. */
const bindsField =
  (field: string): PyHandler =>
  (n, ctx) =>
    targets(child(n, field), ctx.stores);

const bindsList: PyHandler = (n, ctx) => {
  for (const t of childList(n, 'targets')) targets(t, ctx.stores);
};

export const scopeRules: PyRuleModule = {
  Assignment: bindsField('leftExpr'),
  AugmentedAssignment: bindsField('leftExpr'),
  AssignmentExpression: bindsField('name'),
  Function: bindsField('name'),
  Class: bindsField('name'),
  Parameter: bindsField('name'),
  Except: bindsField('name'),
  TypeAlias: bindsField('name'),
  For: bindsField('targetExpr'),
  ComprehensionFor: bindsField('targetExpr'),
  WithItem: bindsField('target'),
  Del: bindsList,
  Global: bindsList,
  Nonlocal: bindsList,
  ImportAs: bindsField('alias'),
  ImportFromAs: (n, ctx) => targets(child(n, 'alias') ?? child(n, 'name'), ctx.stores),
  PatternCapture: bindsField('target'),
  PatternMappingExpandEntry: bindsField('target'),
  PatternAs: bindsField('target'),
};
