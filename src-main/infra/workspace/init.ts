/**
 * Creating workspaces (`toolsmith init`, the workbench's "new workspace"), the per-user copy of the
 * sample workspace (the bundled one in resources/ is never edited in place) and the recent list.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { atomicWrite, WorkspaceError } from './atomic.ts';
import { sampleWorkspaceDir } from './paths.ts';

/** Per-user data: $TOOLSMITH_HOME, else $XDG_DATA_HOME/toolsmith, else ~/.local/share/toolsmith. */
export function userDataDir(): string {
  const env = process.env['TOOLSMITH_HOME'];
  if (env) return resolve(env);
  const xdg = process.env['XDG_DATA_HOME'];
  return join(xdg ? resolve(xdg) : join(homedir(), '.local', 'share'), 'toolsmith');
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
  if (!existsSync(join(dir, '.toolsmith', 'config.toml'))) {
    mkdirSync(dir, { recursive: true });
    copySample(dir);
  }
  return dir;
}

/**
 * `--workspace DIR` if given, else the current directory when it holds `.toolsmith/`, else the user's
 * copy of the sample workspace (made on first use; the bundled one is never edited in place).
 */
export function resolveWorkspaceDir(option: string | undefined, cwd = process.cwd()): string {
  if (option) return resolve(cwd, option);
  if (existsSync(join(cwd, '.toolsmith'))) return resolve(cwd);
  return defaultWorkspaceDir();
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
 * (config, sandboxes/, kits/, templates/).
 */
export function initWorkspace(dir: string, opts: { empty?: boolean; name?: string } = {}): string {
  const root = resolve(dir);
  if (existsSync(join(root, '.toolsmith')))
    throw new WorkspaceError(`${root} is already a workspace (it holds .toolsmith/)`);
  if (existsSync(root)) {
    if (!statSync(root).isDirectory()) throw new WorkspaceError(`${root} is not a folder`);
    if (readdirSync(root).length > 0)
      throw new WorkspaceError(`${root} is not empty; choose a new or empty folder`);
  }
  mkdirSync(root, { recursive: true });
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

/** Recently opened workspaces, newest first. */
export function recentWorkspaces(): string[] {
  try {
    const v = JSON.parse(readFileSync(recentFile(), 'utf8')) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(0, MAX_RECENT) : [];
  } catch {
    return [];
  }
}

/** Puts `dir` first in the recent list. */
export function rememberWorkspace(dir: string): void {
  const list = [resolve(dir), ...recentWorkspaces().filter((d) => d !== resolve(dir))].slice(0, MAX_RECENT);
  mkdirSync(userDataDir(), { recursive: true });
  atomicWrite(recentFile(), JSON.stringify(list, null, 2) + '\n');
}
