/**
 * Attribute access: attributes starting with an underscore (dunder, private, name-mangled) and the frame,
 * code and generator internals; match class patterns capturing such attributes.
 */
import { child, textOf } from '../pyright.ts';
import type { PyRuleModule } from './context.ts';
import { FORBIDDEN_ATTRIBUTES } from './known.ts';

export const attributeRules: PyRuleModule = {
  MemberAccess: (n, ctx) => {
    const attr = textOf(n) ?? '';
    const member = child(n, 'member') ?? n;
    if (attr.startsWith('_')) {
      ctx.at(
        member,
        'dunder-attribute',
        `.${attr}: attributes starting with an underscore are not available; use the documented fields (a ToolResponse has .success, .message and .data)`,
      );
    } else if (FORBIDDEN_ATTRIBUTES.has(attr)) {
      ctx.at(member, 'forbidden-attribute', `.${attr} reaches interpreter internals and is not available`);
    }
  },
  PatternClassArgument: (n, ctx) => {
    const kw = textOf(n) ?? '';
    if (kw.startsWith('_'))
      ctx.at(
        n,
        'match-dunder',
        `match patterns may not capture attribute ${kw}; match on public fields or use dict patterns`,
      );
  },
};
