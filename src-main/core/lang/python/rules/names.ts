/**
 * Names: a reference to a forbidden name (exec, eval, open...), a dunder name, and a store to a name the
 * framework provides (emit_*, credential, a pre-imported module, a tool).
 */
import {
  PYTHON_FORBIDDEN_NAMES,
  PYTHON_FRAMEWORK_NAMES,
  PYTHON_PREIMPORTED_MODULES,
} from '../../builtins.ts';
import { child, kindIdOf, parentOf, textOf } from '../pyright.ts';
import type { PyTreeNode as PyNode } from '../pyright.ts';
import { isDunder, isLabel, K } from './context.ts';
import type { PyRuleModule } from './context.ts';
import { FORBIDDEN_NAMES, FRAMEWORK, MODULES } from './known.ts';

/** Names some rule of this module applies to, whatever the tools (see the fast path below). */
const SPECIAL_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(PYTHON_FORBIDDEN_NAMES),
  ...PYTHON_FRAMEWORK_NAMES,
  ...PYTHON_PREIMPORTED_MODULES,
]);

/** `def __init__(self)` directly in a class body: defining a dunder method reaches nothing. */
export function isMethodName(n: PyNode): boolean {
  const fn = parentOf(n);
  if (!fn || kindIdOf(fn) !== K.Function || child(fn, 'name') !== n) return false;
  const up = parentOf(fn);
  const suite = up && kindIdOf(up) === K.StatementList ? parentOf(up) : up;
  const cls = suite && kindIdOf(suite) === K.Suite ? parentOf(suite) : undefined;
  return cls !== undefined && kindIdOf(cls) === K.Class;
}

export const nameRules: PyRuleModule = {
  Name: (n, ctx) => {
    const name = textOf(n) ?? '';
    // Most names are the script's own variables: no rule here applies to them (every rule needs a
    // special name, a tool, a leading underscore or an `emit_` prefix).
    const first = name.charCodeAt(0);
    if (first !== 95 /* _ */ && first !== 101 /* e */ && !SPECIAL_NAMES.has(name) && !ctx.tools.has(name))
      return;
    if (isLabel(ctx.parent, ctx.role)) return;
    const why = FORBIDDEN_NAMES.get(name);
    if (why !== undefined) ctx.at(n, 'forbidden-name', `${name} is not available: ${why}`);
    else if (isDunder(name) && !isMethodName(n))
      ctx.at(
        n,
        'dunder-name',
        `${name}: names with double underscores reach interpreter internals and are not available`,
      );
    if (!ctx.stores.has(n)) return;
    if (FRAMEWORK.has(name) || name.startsWith('emit_'))
      ctx.at(
        n,
        'rebind-framework',
        `do not rebind ${name}: it is provided by the framework; use another variable name`,
      );
    else if (MODULES.has(name))
      ctx.at(
        n,
        'rebind-framework',
        `do not rebind ${name}: it is the pre-imported ${name} module; use another variable name, e.g. ${name}_value`,
      );
    else if (ctx.tools.has(name))
      ctx.at(
        n,
        'rebind-framework',
        `do not rebind the tool ${name}: use another variable name, e.g. ${name}_result`,
      );
  },
};
