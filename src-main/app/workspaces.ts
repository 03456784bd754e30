/**
 * Workspaces for the front ends that can switch between them (app, `serve`): what the open one is, the
 * recent ones, and opening or creating another. The switch itself is the front end's (`open`).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Response } from '../contract/api.ts';
import { WorkspaceError } from '../infra/workspace/files.ts';
import {
  initWorkspace,
  isWorkspace,
  recentWorkspaces,
  rememberWorkspace,
  takeRecentProblem,
} from '../infra/workspace/init.ts';
import { ToolsmithError } from './errors.ts';
import type { ConfigDeps, WorkspaceDeps } from './deps.ts';
import type { Config } from './config.ts';

/** Toolsmith's version (package.json). */
export const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export type WorkspaceInfo = Response<'workspace.info'>;

export const workspaceInfo = (svc: WorkspaceDeps & ConfigDeps): WorkspaceInfo => ({
  workspace: svc.files.root,
  name: svc.config.workspace.name,
  version,
});

/** The front end's way to switch to the service of another workspace. */
export type OpenWorkspace = (dir: string) => Promise<WorkspaceDeps & ConfigDeps>;

/** The recently opened workspaces (not the open one), and what this front end can do about them. */
export function recentView(
  svc: WorkspaceDeps,
  can: { choose: boolean; open: boolean },
): Response<'workspace.recent'> {
  const recent = recentWorkspaces()
    .filter((p) => p !== svc.files.root)
    .map((path) => ({ path, exists: isWorkspace(path) }));
  const problem = takeRecentProblem();
  return {
    current: svc.files.root,
    recent,
    canChoose: can.choose,
    canOpen: can.open,
    ...(problem ? { problem } : {}),
  };
}

/** A path typed by the user: absolute (no guessing against the service's working folder). */
function absolute(path: string): string {
  const p = path.trim().replace(/^~(?=\/|$)/, process.env['HOME'] ?? '~');
  if (!isAbsolute(p))
    throw new ToolsmithError('invalid_argument', `use an absolute path, not ${JSON.stringify(path)}`);
  return resolve(p);
}

/** Switches to `dir`; the one left behind is listed too, so the recent list leads back to it. */
async function switchTo(svc: WorkspaceDeps, dir: string, open: OpenWorkspace): Promise<WorkspaceInfo> {
  rememberWorkspace(svc.files.root);
  const next = await open(dir);
  rememberWorkspace(dir);
  return workspaceInfo(next);
}

/** Opens an existing workspace (an absolute path to a folder holding .toolsmith/config.toml). */
export async function openWorkspace(
  svc: WorkspaceDeps,
  path: string,
  open: OpenWorkspace | undefined,
): Promise<WorkspaceInfo> {
  if (!open)
    throw new ToolsmithError('refused', 'this front end cannot switch workspaces; start it with --workspace');
  const dir = absolute(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new ToolsmithError('not_found', `${dir} does not exist or is not a folder`);
  if (!isWorkspace(dir))
    throw new ToolsmithError(
      'invalid_argument',
      `${dir} is not a Toolsmith workspace (no .toolsmith/config.toml); create one with "New workspace" or \`toolsmith init\``,
    );
  return switchTo(svc, dir, open);
}

/** Creates a workspace in a new or empty folder (a copy of the sample, or an empty skeleton) and opens it. */
export async function createAndOpenWorkspace(
  svc: WorkspaceDeps,
  path: string,
  options: { empty?: boolean },
  open: OpenWorkspace | undefined,
): Promise<WorkspaceInfo> {
  if (!open)
    throw new ToolsmithError('refused', 'this front end cannot switch workspaces; use `toolsmith init`');
  const dir = absolute(path);
  try {
    initWorkspace(dir, options);
  } catch (e) {
    if (e instanceof WorkspaceError) throw new ToolsmithError('invalid_argument', e.message);
    throw e;
  }
  return switchTo(svc, dir, open);
}

/** The workspace's default sandbox: `default_sandbox` in its config, else its first sandbox. */
export function defaultSandbox(svc: WorkspaceDeps & ConfigDeps): string | undefined {
  return svc.config.workspace.default_sandbox ?? svc.files.sandboxNames()[0];
}

/** What the workspace feature needs besides the files and config: applying the config and pending edits. */
export interface WorkspaceFeatureDeps extends WorkspaceDeps, ConfigDeps {
  /** Re-reads config.toml and applies it (throws when invalid, keeping the running config). */
  reload(): Config;
  /** Applies the workspace's pending file changes now (no-op without watching). */
  flush(): Promise<void>;
}

/** The open workspace for every front end (built once by the composition root). */
export function workspaceFeature(deps: WorkspaceFeatureDeps) {
  return {
    info: () => workspaceInfo(deps),
    recent: (can: { choose: boolean; open: boolean }) => recentView(deps, can),
    open: (path: string, open: OpenWorkspace | undefined) => openWorkspace(deps, path, open),
    init: (path: string, options: { empty?: boolean }, open: OpenWorkspace | undefined) =>
      createAndOpenWorkspace(deps, path, options, open),
    /** The one default-sandbox rule (see `defaultSandbox`). */
    defaultSandbox: () => defaultSandbox(deps),
    /** The running config (replaced on reload: read it at each use). */
    config: () => deps.config,
    /** The workspace's sandboxes (directories under sandboxes/). */
    sandboxNames: () => deps.files.sandboxNames(),
    /** The workspace directory. */
    root: () => deps.files.root,
    /** A sandbox's tools.py. */
    toolsFile: (sandbox: string) => deps.files.toolsFile(sandbox),
    /** Where the run store and other data live. */
    dataDir: () => deps.files.dataDir,
    /**
     * Re-reads `.toolsmith/config.toml` without a restart and applies it (see ToolsmithService): throws
     * when invalid, keeping the running config.
     */
    reload: () => deps.reload(),
    /** Applies the workspace's pending file changes now (see app/watch.ts); no-op without watching. */
    flush: () => deps.flush(),
  };
}
export type WorkspaceFeature = ReturnType<typeof workspaceFeature>;
