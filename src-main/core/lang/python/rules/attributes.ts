/**
 * Attributes, through the one attribute table (builtins.ts `pythonAttributeRefusal`) on every way a script
 * names one: attribute syntax, match class-pattern keywords (a real attribute read: `case G(gi_frame=f)`),
 * and (guarded.ts) getattr/hasattr. And no attribute is ever assigned or deleted: without classes a
 * script owns no object whose attributes it needs to set, and the objects it could set them on are the
 * runtime's (ToolResponse.to_dict = fake would make records lie).
 */
import { child, childList, kindIdOf, textOf } from '../pyright.ts';
import type { PyTreeNode as PyNode } from '../pyright.ts';
import { K } from './context.ts';
import type { PyHandler, PyRuleContext, PyRuleModule } from './context.ts';
import { attributeRefusal, USE_FSTRING } from './known.ts';

const INTERNAL = (attr: string) => `.${attr} reaches interpreter internals and is not available`;

/** Reports every attribute a binding target would assign (`x.a = 1`, `for x.a in ...`, `a, x.b = ...`). */
function attributeTargets(n: PyNode | undefined, ctx: PyRuleContext, verb: string): void {
  if (!n) return;
  const k = kindIdOf(n);
  if (k === K.MemberAccess) {
    const attr = textOf(n) ?? '';
    ctx.at(
      n,
      'attribute-assign',
      `attributes cannot be ${verb} (.${attr}): keep values in variables, lists and dicts of your own`,
    );
  } else if (k === K.Tuple || k === K.List)
    for (const c of childList(n, 'items')) attributeTargets(c, ctx, verb);
  else if (k === K.Unpack) attributeTargets(child(n, 'expr'), ctx, verb);
  else if (k === K.TypeAnnotation) attributeTargets(child(n, 'valueExpr'), ctx, verb);
}

const assigns =
  (field: string): PyHandler =>
  (n, ctx) =>
    attributeTargets(child(n, field), ctx, 'assigned');

export const attributeRules: PyRuleModule = {
  MemberAccess: (n, ctx) => {
    const attr = textOf(n) ?? '';
    const member = child(n, 'member') ?? n;
    const refusal = attributeRefusal(attr);
    if (refusal === 'underscore') {
      ctx.at(
        member,
        'dunder-attribute',
        `.${attr}: attributes starting with an underscore are not available; use the documented fields (a ToolResponse has .success, .message and .data)`,
      );
    } else if (refusal === 'internal') {
      ctx.at(member, 'forbidden-attribute', INTERNAL(attr));
    }
  },
  PatternClassArgument: (n, ctx) => {
    const kw = textOf(n) ?? '';
    const refusal = attributeRefusal(kw);
    if (refusal === 'underscore')
      ctx.at(
        n,
        'match-dunder',
        `match patterns may not capture attribute ${kw}; match on public fields or use dict patterns`,
      );
    else if (refusal === 'internal')
      ctx.at(n, 'forbidden-attribute', `match pattern keyword ${kw}: ${INTERNAL(kw)}`);
    else if (refusal === 'template')
      ctx.at(
        n,
        'format-attribute-walk',
        `match patterns may not capture .${kw} (a template's fields can walk attributes); ${USE_FSTRING}`,
      );
  },
  Assignment: assigns('leftExpr'),
  AugmentedAssignment: assigns('leftExpr'),
  For: assigns('targetExpr'),
  ComprehensionFor: assigns('targetExpr'),
  WithItem: assigns('target'),
  Del: (n, ctx) => {
    for (const t of childList(n, 'targets')) attributeTargets(t, ctx, 'deleted');
  },
};
