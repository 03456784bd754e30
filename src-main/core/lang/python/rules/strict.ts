/**
 * Strict mode (`options.strict`): only the node kinds of the restricted subset (../strict.ts), lambda only
 * as a key= argument, calls only to tools, emit_* helpers, listed builtins and listed methods.
 */
import { child, kindOf, parentOf, textOf } from '../pyright.ts';
import { STRICT_METHODS, STRICT_NODE_KINDS } from '../strict.ts';
import { K, kindIs } from './context.ts';
import type { PyRuleModule } from './context.ts';
import { FRAMEWORK, MODULES, SAFE_BUILTINS } from './known.ts';

export const strictRules: PyRuleModule = {
  '*': (n, ctx) => {
    const kind = kindOf(n);
    if (!STRICT_NODE_KINDS.has(kind))
      ctx.at(
        n,
        'strict-node',
        `${kind === 'Function' ? 'def' : kind === 'Class' ? 'class' : kind} is not allowed in strict mode: use straight-line code, if/for and comprehensions`,
      );
  },
  Lambda: (n, ctx) => {
    const arg = parentOf(n);
    if (!kindIs(arg, K.Argument) || textOf(arg) !== 'key')
      ctx.at(
        n,
        'strict-node',
        'lambda is only allowed as a key= argument (e.g. sorted(xs, key=lambda x: x["total"]))',
      );
  },
  Call: (n, ctx) => {
    const f = child(n, 'leftExpr');
    if (kindIs(f, K.Name)) {
      const name = textOf(f) ?? '';
      if (!ctx.tools.has(name) && !FRAMEWORK.has(name) && !SAFE_BUILTINS.has(name))
        ctx.at(
          f,
          'strict-call',
          `${name}() is not callable in strict mode: call tools, emit_* helpers and listed builtins only`,
        );
    } else if (kindIs(f, K.MemberAccess)) {
      const recv = child(f, 'leftExpr');
      const moduleCall = kindIs(recv, K.Name) && MODULES.has(textOf(recv) ?? '');
      if (!moduleCall && !STRICT_METHODS.has(textOf(f) ?? ''))
        ctx.at(
          child(f, 'member') ?? f,
          'strict-call',
          `.${textOf(f)}() is not in the strict-mode method list`,
        );
    } else {
      ctx.at(n, 'strict-call', 'in strict mode only named functions and methods can be called');
    }
  },
};
