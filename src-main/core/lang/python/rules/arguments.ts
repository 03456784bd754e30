/**
 * Tool-call arguments (`tool-arguments`, `tool-argument-type`): a call of a tool or skill by its name is
 * checked against its signature (core/lang/signature.ts), so `add_numbers(1)` for `add_numbers(a: int,
 * b: int)` is refused before a sandbox runs it. Only calls whose arguments are all written out: one
 * that unpacks (`f(*xs)`, `f(**kw)`) is left alone.
 */
import { checkArguments } from '../../signature.ts';
import type { CallArgs, LiteralType } from '../../signature.ts';
import {
  categoryOf,
  child,
  childList,
  isBytes,
  kindIdOf,
  numberKindOf,
  pyKindId,
  textOf,
} from '../pyright.ts';
import type { PyTreeNode as PyNode } from '../pyright.ts';
import { callName, K } from './context.ts';
import type { PyRuleModule } from './context.ts';

const KIND = {
  Number: pyKindId('Number'),
  Constant: pyKindId('Constant'),
  Dictionary: pyKindId('Dictionary'),
  UnaryOperation: pyKindId('UnaryOperation'),
} as const;

/** The type of a literal argument (`"a"`, `f"{x}"`, `-1`, `2.5`, `True`, `None`, `[...]`, `(...)`, `{...}`). */
function literalType(n: PyNode | undefined): LiteralType | undefined {
  if (!n) return undefined;
  const k = kindIdOf(n);
  if (k === K.StringList) return isBytes(n) ? undefined : 'str'; // (an f-string is a str too)
  if (k === KIND.Number) {
    const nk = numberKindOf(n);
    return nk === 'complex' ? undefined : nk;
  }
  if (k === KIND.UnaryOperation) {
    const inner = child(n, 'expr');
    const op = textOf(n);
    const nk = inner && kindIdOf(inner) === KIND.Number ? numberKindOf(inner) : undefined;
    return (op === 'Subtract' || op === 'Add') && nk !== 'complex' ? nk : undefined;
  }
  if (k === KIND.Constant) {
    const v = textOf(n);
    return v === 'True' || v === 'False' ? 'bool' : v === 'None' ? 'none' : undefined;
  }
  if (k === K.List || k === K.Tuple) return 'list';
  if (k === KIND.Dictionary) return 'dict';
  return undefined;
}

export const argumentRules: PyRuleModule = {
  Call: (n, ctx) => {
    const name = callName(n);
    if (name === undefined || !ctx.tools.has(name) || !ctx.shapes) return;
    const shape = Object.hasOwn(ctx.shapes, name) ? ctx.shapes[name] : undefined;
    if (!shape) return;
    const positional: PyNode[] = [];
    const keywords: { node: PyNode; name: string }[] = [];
    for (const arg of childList(n, 'args')) {
      if (categoryOf(arg) !== 'simple') return; // *xs / **kw: not statically certain
      const kw = child(arg, 'name');
      if (kw) keywords.push({ node: arg, name: textOf(kw) ?? '' });
      else positional.push(arg);
    }
    const args: CallArgs = {
      positional: positional.map((a) => literalType(child(a, 'valueExpr'))),
      keywords: keywords.map((k) => ({ name: k.name, type: literalType(child(k.node, 'valueExpr')) })),
    };
    for (const p of checkArguments(name, shape, args)) {
      const at =
        p.positional !== undefined
          ? positional[p.positional]
          : p.keyword !== undefined
            ? keywords[p.keyword]?.node
            : undefined;
      ctx.at(at ?? n, p.rule, p.message);
    }
  },
};
