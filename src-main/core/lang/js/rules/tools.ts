/**
 * Tools and emits: a tool is only ever called, and awaited (directly or inside Promise.all); the emit
 * calls are counted for missing-emit.
 */
import * as t from '@babel/types';
import { JS_EMIT_NAMES } from '../../builtins.ts';
import { isCallLike, isLabel } from './context.ts';
import type { JsRuleContext, JsRuleModule } from './context.ts';

const EMIT: ReadonlySet<string> = new Set(JS_EMIT_NAMES);

/** `Promise.all(...)`: the tool calls in its arguments are awaited together. */
function isPromiseAll(n: t.Node): boolean {
  return (
    t.isCallExpression(n) &&
    t.isMemberExpression(n.callee) &&
    t.isIdentifier(n.callee.object, { name: 'Promise' }) &&
    t.isIdentifier(n.callee.property, { name: 'all' })
  );
}

function checkCall(
  n: t.CallExpression | t.OptionalCallExpression | t.NewExpression,
  ctx: JsRuleContext,
): void {
  const callee = n.callee;
  if (!t.isIdentifier(callee)) return;
  const name = callee.name;
  if (EMIT.has(name)) ctx.emits++;
  if (ctx.tools.has(name) && !t.isNewExpression(n)) {
    const awaited = t.isAwaitExpression(ctx.parent) || ctx.ancestors.some(isPromiseAll);
    if (!awaited) ctx.at(n, 'tool-not-awaited', `tools are async: write await ${name}(...)`);
  }
}

export const toolRules: JsRuleModule = {
  CallExpression: checkCall,
  OptionalCallExpression: checkCall,
  NewExpression: checkCall,
  Identifier: (n, ctx) => {
    const name = n.name;
    if (!ctx.tools.has(name) || isLabel(ctx.parent, ctx.key) || ctx.stores.has(n)) return;
    if (!(isCallLike(ctx.parent) && ctx.key === 'callee'))
      ctx.at(
        n,
        'tool-not-called',
        `the tool ${name} is referenced without being called: const r = await ${name}({...}) and use r.data`,
      );
  },
};
