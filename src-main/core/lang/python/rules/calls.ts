/**
 * Calls: counts the emit_* calls (missing-emit) and keeps calls to names no part could make known, for
 * `finishPython`'s unknown-function rule (it needs every part's bound names).
 */
import { child } from '../pyright.ts';
import type { PyTreeNode as PyNode } from '../pyright.ts';
import { callName, isDunder } from './context.ts';
import type { PyRuleModule } from './context.ts';
import { EMIT, KNOWN_CALLABLE } from './known.ts';

export const callRules: PyRuleModule = {
  Call: (n, ctx) => {
    const fnName = callName(n);
    if (!fnName) return;
    if (EMIT.has(fnName)) ctx.emits++;
    // Only names no part could make known are kept (spans cost a line lookup).
    if (!ctx.tools.has(fnName) && !KNOWN_CALLABLE.has(fnName) && !isDunder(fnName))
      ctx.calledNames.push(child(n, 'leftExpr') as PyNode);
  },
};
