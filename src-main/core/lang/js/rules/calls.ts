/**
 * Calls by name (`f(x)`, `f?.(x)`): recorded for the check that each names something the script can
 * call (validate.ts, `unknown-function`), made once the whole script's bindings are known.
 */
import * as t from '@babel/types';
import type { JsRuleContext, JsRuleModule } from './context.ts';

function recordCall(n: t.CallExpression | t.OptionalCallExpression, ctx: JsRuleContext): void {
  if (t.isIdentifier(n.callee)) ctx.called.push(n.callee);
}

export const callRules: JsRuleModule = {
  CallExpression: recordCall,
  OptionalCallExpression: recordCall,
};
