/** Imports: no import statement is available; the pre-imported modules are named in the message. */
import { PYTHON_PREIMPORTED_MODULES } from '../../builtins.ts';
import { child, childList, textOf } from '../pyright.ts';
import type { PyHandler, PyRuleModule } from './context.ts';
import { MODULES } from './known.ts';

/** Reports the statement once and skips its names (they are not references). */
const noImport =
  (plain: boolean): PyHandler =>
  (n, ctx) => {
    const names = plain
      ? childList(n, 'list').map((a) =>
          childList(child(a, 'module') ?? a, 'nameParts')
            .map((x) => textOf(x))
            .join('.'),
        )
      : [];
    const pre = names.filter((m) => MODULES.has(m));
    ctx.at(
      n,
      'no-import',
      `imports are not available; ${pre.length ? `${pre.join(', ')} is already available by name; ` : ''}the pre-imported modules are ${PYTHON_PREIMPORTED_MODULES.join(', ')}`,
    );
    return false;
  };

export const importRules: PyRuleModule = {
  Import: noImport(true),
  ImportFrom: noImport(false),
};
