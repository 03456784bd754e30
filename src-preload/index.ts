/**
 * The preload: exposes one named method per contract entry on `window.toolsmith`, nothing else (no
 * generic invoke). Errors come back as data and are rethrown here as ApiError-shaped Errors.
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { ApiResult, Method, PushEvent, ToolsmithApi } from '../src-main/contract/api.ts';

// Listed literally (not imported) so that the preload bundle carries no code from src-main.
const methods: Method[] = [
  'workspace.info',
  'sandboxes.list',
  'tools.list',
  'tools.extract',
  'tools.call',
  'tools.save',
  'kits.list',
  'kits.save',
  'scripts.validate',
  'prompts.build',
  'runs.list',
  'runs.get',
  'runs.prompt',
  'runs.events',
  'runs.start',
  'runs.cancel',
  'runs.delete',
  'runs.replay',
  'runs.export',
  'runs.sendTrace',
  'runs.import',
  'runs.runScript',
  'runs.continue',
  'templates.list',
  'templates.propose',
  'templates.create',
  'templates.test',
  'templates.delete',
  'skills.list',
  'skills.get',
  'skills.check',
  'skills.save',
  'skills.test',
  'skills.try',
  'skills.delete',
  'skills.propose',
  'settings.get',
  'settings.setProviderKey',
  'settings.setTelemetry',
  'system.status',
  'system.buildImage',
  'suites.list',
  'suites.read',
  'suites.check',
  'suites.save',
  'suites.create',
  'suites.delete',
  'suites.addCase',
  'suites.start',
  'suites.cancel',
  'suites.runs',
  'suites.get',
  'suites.compare',
  'mcp.servers',
  'mcp.test',
  'mcp.save',
  'mcp.remove',
  'providers.save',
  'providers.remove',
  'providers.move',
  'providers.test',
  'workspace.recent',
  'workspace.open',
  'workspace.init',
  'workspace.choose',
  'sandboxes.create',
  'approvals.pending',
  'approvals.answer',
];

function call(method: Method) {
  return async (req: unknown) => {
    const r = (await ipcRenderer.invoke(`toolsmith:${method}`, req)) as ApiResult<Method>;
    if (r.ok) return r.value;
    throw Object.assign(new Error(r.error.message), { code: r.error.code, details: r.error.details });
  };
}

function onEvent(fn: (e: PushEvent) => void): () => void {
  const listener = (_e: unknown, payload: PushEvent) => fn(payload);
  ipcRenderer.on('toolsmith:event', listener);
  return () => ipcRenderer.removeListener('toolsmith:event', listener);
}

const api = { ...Object.fromEntries(methods.map((m) => [m, call(m)])), onEvent } as unknown as ToolsmithApi;
contextBridge.exposeInMainWorld('toolsmith', api);
