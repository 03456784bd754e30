/**
 * Handlers for setup from the workbench: providers (save, remove, test), workspaces (recent, open,
 * init, the desktop's folder dialog) and sandbox creation. Part of the handler table in handlers.ts.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { WorkspaceError } from '../infra/workspace/files.ts';
import { initWorkspace, isWorkspace, recentWorkspaces, rememberWorkspace } from '../infra/workspace/init.ts';
import type { Method } from '../contract/api.ts';
import { ToolsmithError } from './errors.ts';
import type { Handlers } from './handlers.ts';
import type { ToolsmithService } from './service.ts';
import { createSandbox, removeProvider, saveProvider, testProvider } from './workspace-admin.ts';

type SetupMethod = Extract<
  Method,
  | 'providers.save'
  | 'providers.remove'
  | 'providers.test'
  | 'workspace.recent'
  | 'workspace.open'
  | 'workspace.init'
  | 'workspace.choose'
  | 'sandboxes.create'
>;

const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const info = (svc: ToolsmithService) => ({
  workspace: svc.workspaceDir,
  name: svc.config.workspace.name,
  version,
});

/** A path typed by the user: absolute (no guessing against the service's working folder). */
function absolute(path: string): string {
  const p = path.trim().replace(/^~(?=\/|$)/, process.env['HOME'] ?? '~');
  if (!isAbsolute(p))
    throw new ToolsmithError('invalid_argument', `use an absolute path, not ${JSON.stringify(path)}`);
  return resolve(p);
}

const optional = <K extends string, V>(key: K, v: V | undefined): { [P in K]?: V } =>
  v === undefined ? {} : ({ [key]: v } as { [P in K]: V });

export const setupHandlers: Pick<Handlers, SetupMethod> = {
  'providers.save': (svc, r, fe) =>
    saveProvider(
      svc,
      {
        id: r.id,
        kind: r.kind,
        model: r.model,
        ...optional('baseUrl', r.baseUrl),
        ...optional('apiKeyEnv', r.apiKeyEnv),
        ...optional('apiKey', r.apiKey),
        ...optional('previousId', r.previousId),
      },
      fe.storeKey,
    ),
  'providers.remove': (svc, { id }) => {
    removeProvider(svc, id);
    return { removed: true as const };
  },
  'providers.test': (svc, r) =>
    testProvider(svc, {
      ...optional('id', r.id),
      ...optional('kind', r.kind),
      ...optional('baseUrl', r.baseUrl),
      ...optional('model', r.model),
      ...optional('apiKey', r.apiKey),
    }),
  'workspace.recent': (svc, _r, fe) => ({
    current: svc.workspaceDir,
    recent: recentWorkspaces()
      .filter((p) => p !== svc.workspaceDir)
      .map((path) => ({ path, exists: isWorkspace(path) })),
    canChoose: !!fe.chooseFolder,
    canOpen: !!fe.openWorkspace,
  }),
  'workspace.open': async (svc, { path }, fe) => {
    if (!fe.openWorkspace)
      throw new ToolsmithError(
        'refused',
        'this front end cannot switch workspaces; start it with --workspace',
      );
    const dir = absolute(path);
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new ToolsmithError('not_found', `${dir} does not exist or is not a folder`);
    if (!isWorkspace(dir))
      throw new ToolsmithError(
        'invalid_argument',
        `${dir} is not a Toolsmith workspace (no .toolsmith/config.toml); create one with "New workspace" or \`toolsmith init\``,
      );
    // The one left behind is listed too, so the recent list leads back to it.
    rememberWorkspace(svc.workspaceDir);
    const next = await fe.openWorkspace(dir);
    rememberWorkspace(dir);
    return info(next);
  },
  'workspace.init': async (svc, { path, empty }, fe) => {
    if (!fe.openWorkspace)
      throw new ToolsmithError('refused', 'this front end cannot switch workspaces; use `toolsmith init`');
    const dir = absolute(path);
    try {
      initWorkspace(dir, { ...optional('empty', empty) });
    } catch (e) {
      if (e instanceof WorkspaceError) throw new ToolsmithError('invalid_argument', e.message);
      throw e;
    }
    // The one left behind is listed too, so the recent list leads back to it.
    rememberWorkspace(svc.workspaceDir);
    const next = await fe.openWorkspace(dir);
    rememberWorkspace(dir);
    return info(next);
  },
  'workspace.choose': async (_svc, _r, fe) => {
    if (!fe.chooseFolder)
      throw new ToolsmithError('refused', 'no folder dialog in the browser: type the folder path');
    const path = await fe.chooseFolder();
    return path ? { path } : {};
  },
  'sandboxes.create': (svc, r) => createSandbox(svc, r),
};
