/**
 * Creating workspaces (`toolsmith init`, the workbench's "new workspace"), the per-user copy of the
 * sample workspace (the bundled one in resources/ is never edited in place) and the recent list.
 */
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { errnoWords, errorMessage, systemErrorLine } from '../../core/errors.ts';
import { atomicWrite, WorkspaceError } from './atomic.ts';
import { readRegularFile } from './regular-file.ts';
import { sampleWorkspaceDir } from './paths.ts';
import { ownPlace } from '../test-run-guard.ts';

// Builtins by process.getBuiltinModule, not ES imports: an ES import builds the module's namespace
// (node:fs's reads every export, its lazy `promises` too), ~3-5 ms of a one-shot verb's ~25 ms start
// (docs/scaling.md, "CLI start").
const {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} = process.getBuiltinModule('node:fs');

/** Per-user data: $TOOLSMITH_HOME, else $XDG_DATA_HOME/toolsmith, else ~/.local/share/toolsmith. */
export function userDataDir(): string {
  const env = process.env['TOOLSMITH_HOME'];
  if (env) return ownPlace(resolve(env));
  const xdg = process.env['XDG_DATA_HOME'];
  return ownPlace(join(xdg ? resolve(xdg) : join(homedir(), '.local', 'share'), 'toolsmith'));
}

const SKIP = /(^|[\\/])(runs\.db[^\\/]*|logs|__pycache__)$/;

/** Copies the bundled sample workspace to `dir` (without any run store or logs). */
export function copySample(dir: string): void {
  cpSync(sampleWorkspaceDir(), dir, { recursive: true, filter: (src) => !SKIP.test(src) });
}

/**
 * The workspace opened when none is named: the user's copy of the sample (made on first use), so
 * runs, edits and provider changes never touch the repository's resources/workspace.
 */
export function defaultWorkspaceDir(): string {
  const dir = join(userDataDir(), 'sample-workspace');
  if (existsSync(join(dir, '.toolsmith', 'config.toml'))) return dir;
  // Its folder one level at a time (a $TOOLSMITH_HOME under /proc made Node's recursive mkdir spin
  // forever), and the copy made aside and renamed into place whole: a copy cut short (a crash, a full
  // disk) or made by two processes at once never leaves a config.toml beside half of the files.
  const from = process.env['TOOLSMITH_HOME'] ? ' ($TOOLSMITH_HOME)' : '';
  const cannot = (why: string) =>
    new WorkspaceError(
      `no workspace is named and the sample workspace cannot be copied to ${dir}${from}: ${why}`,
    );
  try {
    makeFolder(dirname(dir));
  } catch (e) {
    throw cannot(errorMessage(e));
  }
  const aside = `${dir}.${process.pid}.tmp`;
  rmSync(aside, { recursive: true, force: true });
  try {
    // A data folder that exists but takes no writes (a read-only mount, a full disk, another user's):
    // named by its folder and the cause in words, not by the temporary copy's name.
    try {
      copySample(aside);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (typeof code !== 'string' || !errnoWords(code).includes(':')) throw e;
      throw cannot(
        `${dirname(dir)} cannot be written (${errnoWords(code)}); name a workspace (--workspace DIR) or set TOOLSMITH_HOME to a folder you can write`,
      );
    }
    try {
      renameSync(aside, dir);
    } catch {
      // Made meanwhile by another process, or a folder left without its config.toml: filled in.
      if (!existsSync(join(dir, '.toolsmith', 'config.toml')))
        cpSync(aside, dir, { recursive: true, force: false });
    }
  } finally {
    rmSync(aside, { recursive: true, force: true });
  }
  return dir;
}

/**
 * `--workspace DIR` if given, else the current directory when it holds `.toolsmith/`, else the user's
 * copy of the sample workspace (made on first use; the bundled one is never edited in place). Never
 * throws (but in a process of a test run about to use the workspace of the person running the tests,
 * src-main/infra/test-run-guard.ts): the caches read through it (verb-cache.ts, sandboxes-cache.ts)
 * before any verb runs. What
 * opens the folder to write into it (the CLI's service) asks `workspaceProblem` first.
 */
export function resolveWorkspaceDir(option: string | undefined, cwd = process.cwd()): string {
  // (in a process of a test run, a workspace of the person running the tests is refused: ownPlace)
  if (option) return ownWorkspace(resolve(cwd, option));
  // A current folder holding `.toolsmith/` without its config.toml is named too (workspaceProblem then
  // says how to complete it), rather than the sample opened in its place without a word.
  if (existsSync(join(cwd, '.toolsmith'))) return ownWorkspace(resolve(cwd));
  return defaultWorkspaceDir();
}

/** `dir`, unless a test run's process was about to use its `.toolsmith` of the person's (see ownPlace). */
function ownWorkspace(dir: string): string {
  ownPlace(join(dir, '.toolsmith'));
  return dir;
}

/**
 * Why `dir` cannot be opened as a workspace, as one line naming it as `shown` (the path as the user
 * typed it), or undefined when it is one (it holds `.toolsmith/config.toml`, see isWorkspace). Opening a
 * folder writes the run store and logs into its `.toolsmith/`, so a mistyped `--workspace` must be
 * refused before that, not turned into a half workspace that `init` then refuses. `hint` is how to run
 * Toolsmith again (cli/invocation.ts), asked only for a problem.
 */
export function workspaceProblem(
  dir: string,
  shown = dir,
  hint: () => string = () => 'toolsmith',
): string | undefined {
  const root = resolve(dir);
  let folder: boolean;
  try {
    folder = statSync(root).isDirectory();
  } catch {
    return `${shown} does not exist`;
  }
  if (!folder) return `${shown} is not a folder`;
  // A config.toml that cannot be read (a folder, a link to nothing) is the service's to name, with why.
  if (holdsConfig(root)) return undefined;
  const command = hint();
  // Quoted for a POSIX shell when the path holds anything else than plain path characters.
  const init = `${command} init ${/^[\w@%+=:,./-]+$/.test(root) ? root : `'${root.replace(/'/g, `'\\''`)}'`}`;
  if (initCanComplete(root))
    return existsSync(join(root, '.toolsmith'))
      ? `${shown} is not a Toolsmith workspace (it holds .toolsmith/ but no .toolsmith/config.toml): complete it with ${init}`
      : `${shown} is not a Toolsmith workspace (no .toolsmith/config.toml): make one with ${init}`;
  return `${shown} is not a Toolsmith workspace (no .toolsmith/config.toml): ${command} init makes one in a new or empty folder`;
}

/**
 * Whether `init` may fill the existing folder `root`: it is empty, or holds nothing but a `.toolsmith/`
 * without config.toml (what a command that opened a folder which was not a workspace left: the run
 * store, logs), which init completes and keeps.
 */
function initCanComplete(root: string): boolean {
  const names = readdirSync(root);
  return names.every((n) => n === '.toolsmith') && !holdsConfig(root);
}

/**
 * `.toolsmith/config.toml` is there, even as a link to nothing or a folder: isWorkspace without
 * following the link. Such a folder is meant as a workspace; opening it says what is wrong with the file.
 */
function holdsConfig(root: string): boolean {
  try {
    lstatSync(join(root, '.toolsmith', 'config.toml'));
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes `root` and its missing parents one level at a time. Node's recursive mkdirSync loops forever
 * (at 100% CPU, deaf to SIGTERM) when a parent that exists answers ENOENT to mkdir, as /proc does
 * (`toolsmith init /proc/qa`); one level at a time, that answer is an error naming the folder.
 */
function makeFolder(root: string): void {
  const missing: string[] = [];
  let p = root;
  while (!existsSync(p)) {
    missing.unshift(p);
    const up = dirname(p);
    if (up === p) break;
    p = up;
  }
  if (existsSync(p) && !statSync(p).isDirectory())
    throw new WorkspaceError(`cannot create ${root}: ${p} is not a folder`);
  for (const d of missing) {
    try {
      mkdirSync(d);
    } catch (e) {
      // Made meanwhile by another process: as good as made here.
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' && statSync(d).isDirectory()) continue;
      // ENOENT from a parent that exists: a file system that takes no new folders (/proc, /sys).
      const why =
        (e as NodeJS.ErrnoException).code === 'ENOENT'
          ? `${dirname(d)} takes no new folders (mkdir ${d} failed: ENOENT)`
          : (systemErrorLine(e)?.line ?? errorMessage(e));
      throw new WorkspaceError(`cannot create ${root}: ${why}`);
    }
  }
}

const EMPTY_CONFIG = `# Toolsmith workspace configuration.

[workspace]
name = "NAME"

# LLM providers, tried in order (see the README's "LLM setup"). Keys come from the environment variable
# named in api_key_env (CLI) or are set in the workbench's Settings; never write a key in this file.
# [[providers]]
# id = "local"
# kind = "openai"
# base_url = "http://127.0.0.1:11434/v1"
# model = "qwen2.5-coder:7b"

[runtimes.python]
enabled = true

[runtimes.node]
enabled = true
`;

export const TOOLS_SKELETON = `"""DESCRIPTION"""


@tool(grade=(0, 0))
def echo(text: str) -> ToolResponse:
    """Return the text it was given (replace this with your first tool).

    Args:
        text: Any text.
    """
    return ToolResponse(success=True, data={"text": text})
`;

/**
 * Creates a workspace in `dir` (made if missing; it must not already be a workspace, and a folder that
 * holds other files is refused unless it is empty): a copy of the sample, or with `empty` a skeleton
 * (config, sandboxes/, kits/, templates/). A folder is a workspace when it holds
 * `.toolsmith/config.toml` (isWorkspace, as every front end opens one): a folder holding only a
 * `.toolsmith/` without it is completed, its run store and logs kept.
 */
export function initWorkspace(dir: string, opts: { empty?: boolean; name?: string } = {}): string {
  const root = resolve(dir);
  if (existsSync(root)) {
    if (!statSync(root).isDirectory()) throw new WorkspaceError(`${root} is not a folder`);
    if (holdsConfig(root))
      throw new WorkspaceError(`${root} is already a workspace (it holds .toolsmith/config.toml)`);
    if (!initCanComplete(root))
      throw new WorkspaceError(`${root} is not empty; choose a new or empty folder`);
  } else makeFolder(root);
  const name = opts.name ?? basename(root);
  if (!opts.empty) {
    copySample(root);
    const file = join(root, '.toolsmith', 'config.toml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(/^name = "[^"\n]*"/m, `name = ${JSON.stringify(name)}`),
    );
    return root;
  }
  for (const d of ['.toolsmith', 'sandboxes', 'kits', 'templates'])
    mkdirSync(join(root, d), { recursive: true });
  writeFileSync(
    join(root, '.toolsmith', 'config.toml'),
    EMPTY_CONFIG.replace('"NAME"', JSON.stringify(name)),
  );
  return root;
}

/** A folder is a workspace when it holds `.toolsmith/config.toml`. */
export function isWorkspace(dir: string): boolean {
  return existsSync(join(dir, '.toolsmith', 'config.toml'));
}

const recentFile = () => join(userDataDir(), 'recent-workspaces.json');
const MAX_RECENT = 10;

/** What became of a recent list that was not one (set aside), until a front end has said it once. */
let recentProblem: string | undefined;

/**
 * Recently opened workspaces, newest first. A file that is not a JSON list of folders (junk, a hand edit
 * gone wrong) was read as an empty list and replaced by the next workspace opened: it is renamed aside
 * instead (`recent-workspaces.json.unreadable-<time>`), said on stderr and, once, by `takeRecentProblem`,
 * and a new list starts.
 */
export function recentWorkspaces(): string[] {
  return readRecent().list;
}

/** The recent list, and whether the file must be left as it is (junk that could not be set aside). */
function readRecent(): { list: string[]; keep?: true } {
  const file = recentFile();
  let text: string;
  try {
    text = readRegularFile(file, 'utf8'); // (a named pipe there is refused at once, never waited on)
  } catch {
    return { list: [] }; // (none yet)
  }
  let why: string;
  try {
    const v = JSON.parse(text) as unknown;
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return { list: v.slice(0, MAX_RECENT) };
    why = 'not a JSON list of folders';
  } catch (e) {
    why = `not JSON (${errorMessage(e)})`;
  }
  const aside = `${file}.unreadable-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  try {
    renameSync(file, aside);
  } catch (e) {
    const problem = `${file} is ${why} and could not be set aside (${errorMessage(e)}): it is left as it is, and no workspace is added to it until it is fixed or removed`;
    if (problem !== recentProblem) process.stderr.write(`toolsmith: ${problem}\n`);
    recentProblem = problem;
    return { list: [], keep: true };
  }
  recentProblem = `${file} was ${why}: it is kept as ${aside}, and a new list of recent workspaces was started`;
  process.stderr.write(`toolsmith: ${recentProblem}\n`);
  return { list: [] };
}

/** What became of an unreadable recent list, once (the next call answers undefined). */
export function takeRecentProblem(): string | undefined {
  const p = recentProblem;
  recentProblem = undefined;
  return p;
}

/** Puts `dir` first in the recent list. */
export function rememberWorkspace(dir: string): void {
  const recent = readRecent();
  if (recent.keep) return;
  const list = [resolve(dir), ...recent.list.filter((d) => d !== resolve(dir))].slice(0, MAX_RECENT);
  mkdirSync(userDataDir(), { recursive: true });
  atomicWrite(recentFile(), JSON.stringify(list, null, 2) + '\n');
}
