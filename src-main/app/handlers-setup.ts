/**
 * Handlers for setup from the workbench: providers (save, remove, test), workspaces (recent, open,
 * init, the desktop's folder dialog) and sandbox creation. Part of the handler table in handlers.ts.
 */
import type { Method } from '../contract/api.ts';
import { ToolsmithError } from './errors.ts';
import type { Handlers } from './handler-types.ts';

type SetupMethod = Extract<
  Method,
  | 'providers.save'
  | 'providers.remove'
  | 'providers.move'
  | 'providers.test'
  | 'workspace.recent'
  | 'workspace.open'
  | 'workspace.init'
  | 'workspace.choose'
  | 'sandboxes.create'
>;

const optional = <K extends string, V>(key: K, v: V | undefined): { [P in K]?: V } =>
  v === undefined ? {} : ({ [key]: v } as { [P in K]: V });

export const setupHandlers: Pick<Handlers, SetupMethod> = {
  'providers.save': (svc, r, fe) =>
    svc.admin.saveProvider(
      {
        id: r.id,
        kind: r.kind,
        model: r.model,
        ...optional('baseUrl', r.baseUrl),
        ...optional('apiKeyEnv', r.apiKeyEnv),
        ...optional('apiKey', r.apiKey),
        ...optional('previousId', r.previousId),
        ...optional('add', r.add),
      },
      fe.storeKey,
    ),
  'providers.remove': (svc, { id }) => {
    svc.admin.removeProvider(id);
    return { removed: true as const };
  },
  'providers.move': (svc, { id, to }) => ({ order: svc.admin.moveProvider(id, to) }),
  'providers.test': (svc, r) =>
    svc.admin.testProvider({
      ...optional('id', r.id),
      ...optional('kind', r.kind),
      ...optional('baseUrl', r.baseUrl),
      ...optional('model', r.model),
      ...optional('apiKey', r.apiKey),
    }),
  'workspace.recent': (svc, _r, fe) =>
    svc.workspace.recent({ choose: !!fe.chooseFolder, open: !!fe.openWorkspace }),
  'workspace.open': (svc, { path }, fe) => svc.workspace.open(path, fe.openWorkspace),
  'workspace.init': (svc, { path, empty }, fe) =>
    svc.workspace.init(path, { ...optional('empty', empty) }, fe.openWorkspace),
  'workspace.choose': async (_svc, _r, fe) => {
    if (!fe.chooseFolder)
      throw new ToolsmithError('refused', 'no folder dialog in the browser: type the folder path');
    const path = await fe.chooseFolder();
    return path ? { path } : {};
  },
  'sandboxes.create': (svc, r) => svc.admin.createSandbox(r),
};
