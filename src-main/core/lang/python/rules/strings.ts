/**
 * Strings: no double-underscore name in a string, after escapes and implicit concatenation (the tree's
 * string value is the decoded, concatenated text), so `"__cla" "ss__"` and `"\x5f_class__"` are caught.
 */
import { textOf } from '../pyright.ts';
import type { PyRuleModule } from './context.ts';

const DUNDER_IN_STRING = /__[A-Za-z_]\w*/;

export const stringRules: PyRuleModule = {
  StringList: (n, ctx) => {
    if (DUNDER_IN_STRING.test(textOf(n) ?? ''))
      ctx.at(
        n,
        'dunder-string',
        'strings may not contain double-underscore names (they are used to reach interpreter internals)',
      );
  },
};
