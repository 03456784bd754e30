/**
 * Names: a reference to a forbidden global (eval, Function, process, globalThis, require, timers...) and a
 * store to a name the framework provides (emitResult, credential, a tool...).
 */
import { JS_FORBIDDEN_NAMES, JS_FRAMEWORK_NAMES } from '../../builtins.ts';
import { isLabel } from './context.ts';
import type { JsRuleModule } from './context.ts';

const FRAMEWORK: ReadonlySet<string> = new Set(JS_FRAMEWORK_NAMES);

export const nameRules: JsRuleModule = {
  Identifier: (n, ctx) => {
    const name = n.name;
    if (isLabel(ctx.parent, ctx.key)) return;
    if (Object.hasOwn(JS_FORBIDDEN_NAMES, name))
      ctx.at(n, 'forbidden-name', `${name} is not available: ${JS_FORBIDDEN_NAMES[name]}`);
    if (!ctx.stores.has(n)) return;
    if (FRAMEWORK.has(name))
      ctx.at(
        n,
        'rebind-framework',
        `do not rebind ${name}: it is provided by the framework; use another name`,
      );
    else if (ctx.tools.has(name))
      ctx.at(n, 'rebind-framework', `do not rebind the tool ${name}: use another name, e.g. ${name}Result`);
  },
};
