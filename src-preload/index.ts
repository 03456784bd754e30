/**
 * The preload: exposes one named method per contract entry on `window.toolsmith`, nothing else (no
 * generic invoke). Errors come back as data and are rethrown here as ApiError-shaped Errors.
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { ApiResult, Method, ToolsmithApi } from '../src-main/contract/api.ts';

// Listed literally (not imported) so that the preload bundle carries no code from src-main.
const methods: Method[] = [
  'workspace.info',
  'sandboxes.list',
  'tools.list',
  'tools.extract',
  'kits.list',
  'scripts.validate',
  'prompts.build',
];

function call(method: Method) {
  return async (req: unknown) => {
    const r = (await ipcRenderer.invoke(`toolsmith:${method}`, req)) as ApiResult<Method>;
    if (r.ok) return r.value;
    throw Object.assign(new Error(r.error.message), { code: r.error.code, details: r.error.details });
  };
}

const api = Object.fromEntries(methods.map((m) => [m, call(m)])) as unknown as ToolsmithApi;
contextBridge.exposeInMainWorld('toolsmith', api);
