/** Tools: a tool is only ever called (`r = get_orders(...)`), never referenced as a value. */
import { textOf } from '../pyright.ts';
import { isCalleeHere, isLabel } from './context.ts';
import type { PyRuleModule } from './context.ts';
import { MODULES } from './known.ts';

export const toolRules: PyRuleModule = {
  Name: (n, ctx) => {
    const name = textOf(n) ?? '';
    // A stored tool name is rebind-framework's, a module's name the module rules'.
    if (!ctx.tools.has(name) || MODULES.has(name) || isLabel(ctx.parent, ctx.role) || ctx.stores.has(n))
      return;
    if (!isCalleeHere(ctx))
      ctx.at(
        n,
        'tool-not-called',
        `the tool ${name} is referenced without being called; call it with its arguments, e.g. r = ${name}(...), and use r.data`,
      );
  },
};
