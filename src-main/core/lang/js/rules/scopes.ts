/**
 * Names and scopes: which Identifier nodes a construct binds (declarations, parameters, catch and loop
 * targets, assignment and update targets, through destructuring patterns). The rules on names tell a
 * store from a use by `ctx.stores`. These handlers run first for their kinds: a node's bindings are known
 * before its children are walked.
 */
import * as t from '@babel/types';
import type { JsRuleContext, JsRuleModule } from './context.ts';

/** Collects the Identifier nodes a binding pattern stores to. */
export function patternTargets(p: t.Node | null | undefined, ctx: JsRuleContext): void {
  if (!p) return;
  if (t.isIdentifier(p)) ctx.stores.add(p);
  else if (t.isObjectPattern(p)) {
    for (const prop of p.properties) patternTargets(t.isRestElement(prop) ? prop.argument : prop.value, ctx);
  } else if (t.isArrayPattern(p)) {
    for (const el of p.elements) if (el) patternTargets(el, ctx);
  } else if (t.isRestElement(p)) patternTargets(p.argument, ctx);
  else if (t.isAssignmentPattern(p)) patternTargets(p.left, ctx);
  else if (t.isTSParameterProperty(p)) patternTargets(p.parameter, ctx);
}

type Declares =
  | t.FunctionDeclaration
  | t.FunctionExpression
  | t.ArrowFunctionExpression
  | t.ClassDeclaration
  | t.ClassExpression;

/** Functions bind their name and their parameters, classes their name. */
function bindsFunction(n: Declares, ctx: JsRuleContext): void {
  if (!t.isArrowFunctionExpression(n) && n.id) ctx.stores.add(n.id);
  if (!t.isClass(n)) for (const p of n.params) patternTargets(p, ctx);
}

/** `for (x of xs)` binds x; `for (const x of xs)` binds it in its VariableDeclarator. */
function bindsLoopTarget(n: t.ForXStatement, ctx: JsRuleContext): void {
  if (!t.isVariableDeclaration(n.left)) patternTargets(n.left, ctx);
}

export const scopeRules: JsRuleModule = {
  VariableDeclarator: (n, ctx) => patternTargets(n.id, ctx),
  FunctionDeclaration: bindsFunction,
  FunctionExpression: bindsFunction,
  ArrowFunctionExpression: bindsFunction,
  ClassDeclaration: bindsFunction,
  ClassExpression: bindsFunction,
  CatchClause: (n, ctx) => patternTargets(n.param, ctx),
  AssignmentExpression: (n, ctx) => patternTargets(n.left, ctx),
  UpdateExpression: (n, ctx) => patternTargets(n.argument, ctx),
  ForOfStatement: bindsLoopTarget,
  ForInStatement: bindsLoopTarget,
};
