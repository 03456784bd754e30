/**
 * `toolsmith init [DIR] --empty [--name NAME] [--json]` answered before main loads (bin/start.mjs, through
 * verb-cache.ts `initBeforeMain`, a chunk of its own): the workspace made and said as main's verb makes
 * and says it (commands/init.ts: initWorkspace, rememberWorkspace, init-text.ts), without commander and
 * main's verbs table, which were most of the verb's start (docs/scaling.md, "Issue 29: what runs list,
 * template list and init --empty still loaded").
 * Only a command line that main takes the same way is answered here: `init` first (no workspace option
 * before it), `--empty`, at most one DIR, `--name` once, `--json`; anything else (a help, `--`, another
 * option, a value that is empty or looks like an option, a second DIR, `help`) is main's, before anything
 * is done. Once the workspace's folder may have been touched, every outcome is said here as main says it
 * (cli/main.ts): a refused target (WorkspaceError: a file, a workspace, a folder not empty) is a usage
 * error, exit 2; a system error one line, its exit; with `--json` the error object on stdout too. No
 * secret is known on this path (main's `init` opens no config), so nothing is redacted, as in main.
 */
import { WorkspaceError } from '../infra/workspace/atomic.ts';
import { initWorkspace, rememberWorkspace } from '../infra/workspace/init.ts';
import { systemErrorLine } from '../core/errors.ts';
import { visible } from '../core/text/visible.ts';
import { printEarly, writeAll } from './early-write.ts';
import { initText } from './init-text.ts';

interface InitAsked {
  dir: string;
  name: string | undefined;
  json: boolean;
}

/** The command line read as `init [DIR] --empty ...`, or undefined for main to run. */
export function initEmptyAsked(argv: readonly string[]): InitAsked | undefined {
  if (argv[0] !== 'init') return undefined;
  let dir: string | undefined;
  let name: string | undefined;
  let empty = false;
  let json = false;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--empty') empty = true;
    else if (a === '--json') json = true;
    else if (a === '--name' || a.startsWith('--name=')) {
      const v = a === '--name' ? argv[++i] : a.slice('--name='.length);
      // (an empty or blank name, one that looks like an option, or two names: main's to say)
      if (name !== undefined || v === undefined || v.trim() === '' || (a === '--name' && v.startsWith('-')))
        return undefined;
      name = v;
    } else if (a.startsWith('-') || a === 'help' || dir !== undefined || a.trim() === '') return undefined;
    else dir = a;
  }
  return empty ? { dir: dir ?? '.', name, json } : undefined;
}

/**
 * bin/start.mjs's step for `init --empty`: the answer printed and its exit code, or undefined (nothing
 * done, nothing printed) for main() to run.
 */
export function answerInitEmpty(argv: readonly string[]): number | undefined {
  const asked = initEmptyAsked(argv);
  if (!asked) return undefined;
  let out: string;
  try {
    const root = initWorkspace(asked.dir, { empty: true, ...(asked.name ? { name: asked.name } : {}) });
    rememberWorkspace(root);
    out = initText(root, true, asked.json);
  } catch (e) {
    // As main says an error of the verb (cli/main.ts): the line on stderr, then with --json the object.
    const said = (line: string, kind: string, exit: number): number => {
      writeAll(2, `toolsmith: ${visible(line)}\n`);
      if (asked.json) writeAll(1, `${JSON.stringify({ error: { kind, message: line, exit } })}\n`);
      return exit;
    };
    if (e instanceof WorkspaceError)
      return said(e.message.split('\n')[0]?.replace(/^error: /, '') ?? e.message, 'usage', 2);
    const sys = systemErrorLine(e);
    if (sys) return said(sys.line, 'system', sys.exit);
    return said(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`, 'internal', 3);
  }
  return printEarly(out, '', 0);
}
