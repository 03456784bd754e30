/**
 * Guarded builtins: getattr / hasattr only called directly with a literal attribute name the attribute
 * table allows, type() only called directly with one argument (three create classes); none of them passed
 * around as a value (`t = type; t("K", (), {})`).
 */
import { categoryOf, child, isFormatted, kindOf, textOf } from '../pyright.ts';
import { callName, isCalleeHere, isLabel, positionalArgs } from './context.ts';
import type { PyRuleModule } from './context.ts';
import { PYTHON_SAFE_BUILTINS } from '../../builtins.ts';
import { attributeRefusal, USE_FSTRING } from './known.ts';

/** Names that are classes in every script (builtin types, exceptions, ToolResponse). */
const CLASS_NAMES = new Set([
  ...PYTHON_SAFE_BUILTINS.filter((b) => /^[A-Z]/.test(b)),
  'bool',
  'bytes',
  'dict',
  'float',
  'frozenset',
  'int',
  'list',
  'range',
  'set',
  'slice',
  'str',
  'tuple',
  'enumerate',
  'filter',
  'map',
  'reversed',
  'zip',
  'ToolResponse',
]);

export const guardedRules: PyRuleModule = {
  Name: (n, ctx) => {
    const name = textOf(n) ?? '';
    if (name !== 'getattr' && name !== 'hasattr' && name !== 'type') return;
    if (isLabel(ctx.parent, ctx.role) || isCalleeHere(ctx) || ctx.stores.has(n)) return;
    // As a value the guard could be called where the validator cannot see its arguments.
    if (name === 'type')
      ctx.at(n, 'guarded-type', 'type can only be called directly with one argument, not passed as a value');
    else
      ctx.at(
        n,
        'guarded-getattr',
        `${name} can only be called directly with a literal attribute name, not passed as a value`,
      );
  },
  Call: (n, ctx) => {
    const fnName = callName(n);
    if (fnName === 'getattr' || fnName === 'hasattr') {
      const attrArg = positionalArgs(n)[1];
      const lit =
        attrArg && categoryOf(attrArg) === 'simple' && !textOf(attrArg)
          ? child(attrArg, 'valueExpr')
          : undefined;
      const litText =
        lit && kindOf(lit) === 'StringList' && !isFormatted(lit) ? (textOf(lit) ?? '') : undefined;
      if (!lit || litText === undefined)
        ctx.at(
          n,
          'guarded-getattr',
          `${fnName} needs a literal attribute name as its second argument, e.g. ${fnName}(obj, "name")`,
        );
      else if (attributeRefusal(litText) === 'underscore')
        ctx.at(lit, 'guarded-getattr', `${fnName} cannot reach attributes starting with an underscore`);
      else if (attributeRefusal(litText) === 'internal')
        ctx.at(lit, 'guarded-getattr', `${fnName} cannot reach .${litText}: it is an interpreter internal`);
      else if (attributeRefusal(litText) === 'template')
        ctx.at(
          lit,
          'format-attribute-walk',
          `${fnName} cannot fetch .${litText} (a template's fields can walk attributes); ${USE_FSTRING}`,
        );
    }
    if (fnName === 'type' && positionalArgs(n).length !== 1)
      ctx.at(n, 'guarded-type', 'type() takes exactly one argument here (it tells the type of a value)');
    else if (fnName === 'type') {
      // The type of a class is a metaclass, which makes classes (and with them dunders no check sees):
      // refused here where the argument is plainly a class; the worker's type() refuses every class.
      const a = positionalArgs(n)[0];
      const v = a ? child(a, 'valueExpr') : undefined;
      const cls =
        v && kindOf(v) === 'Call'
          ? callName(v) === 'type'
          : v && kindOf(v) === 'Name' && CLASS_NAMES.has(textOf(v) ?? '');
      if (cls) ctx.at(n, 'guarded-type', 'type() of a class is not available: it tells the type of a value');
    }
  },
};
