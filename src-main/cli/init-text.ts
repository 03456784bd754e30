/**
 * What `toolsmith init` prints once the workspace is made: for `commands/init.ts` (main's verb) and for
 * `init --empty` answered before main loads (init-early.ts), one text for both.
 */
import { commandHint } from './invocation.ts';

/** The answer of `init` for the workspace made at `root` (with `--json`: its JSON document). */
export function initText(root: string, empty: boolean, asJson: boolean): string {
  if (asJson) return JSON.stringify({ workspace: root, kind: empty ? 'empty' : 'sample' }, null, 2) + '\n';
  return (
    `created workspace ${root} (${empty ? 'empty skeleton' : 'a copy of the sample workspace'})\n` +
    `next: cd ${JSON.stringify(root)} && ${commandHint()} sandboxes   (add an LLM provider: see the README's "LLM setup")\n`
  );
}
