/**
 * Electron main process: one hardened window (context isolation, sandbox, no node integration, strict
 * CSP, no remote content, navigation and new windows blocked) and one IPC handler per contract method,
 * each validating its payload and checking the sender frame.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, ipcMain, safeStorage, session, shell } from 'electron';
import type { IpcMainInvokeEvent } from 'electron';
import { dispatch } from '../app/handlers.ts';
import { createSandboxManager } from '../app/sandbox-factory.ts';
import { ToolsmithService } from '../app/service.ts';
import { METHODS } from '../contract/api.ts';
import { resolveWorkspaceDir } from '../infra/workspace/paths.ts';
import { CSP } from '../web/csp.ts';
import { externalUrlToOpen, isAllowedRequestUrl, isTrustedSender, WEB_PREFERENCES } from './policy.ts';

const rendererIndex = join(import.meta.dirname, '../renderer/index.html');
const rendererUrl = pathToFileURL(rendererIndex).toString();

/** Provider keys, encrypted with the OS keychain through safeStorage, in the app's user-data folder. */
const keysFile = () => join(app.getPath('userData'), 'provider-keys.json');

function loadKeys(svc: ToolsmithService): void {
  if (!existsSync(keysFile()) || !safeStorage.isEncryptionAvailable()) return;
  const stored = JSON.parse(readFileSync(keysFile(), 'utf8')) as Record<string, string>;
  for (const [id, b64] of Object.entries(stored)) {
    svc.providerKeys.set(id, safeStorage.decryptString(Buffer.from(b64, 'base64')));
    svc.providerKeyWhere.set(id, 'keychain');
  }
}

function storeKey(provider: string, key: string): 'keychain' | 'memory' {
  if (!safeStorage.isEncryptionAvailable()) return 'memory';
  const stored = existsSync(keysFile())
    ? (JSON.parse(readFileSync(keysFile(), 'utf8')) as Record<string, string>)
    : {};
  stored[provider] = safeStorage.encryptString(key).toString('base64');
  writeFileSync(keysFile(), JSON.stringify(stored), { mode: 0o600 });
  return 'keychain';
}

/** Only our own top-level renderer page may call the API. */
function trustedSender(e: IpcMainInvokeEvent): boolean {
  const frame = e.senderFrame;
  return isTrustedSender(frame?.url, !!frame && frame === e.sender.mainFrame, rendererUrl);
}

async function createWindow(svc: ToolsmithService): Promise<BrowserWindow> {
  const win = new BrowserWindow({
    width: 1400,
    height: 900,
    title: 'Toolsmith',
    webPreferences: { ...WEB_PREFERENCES, preload: join(import.meta.dirname, '../preload/index.cjs') },
  });
  win.webContents.setWindowOpenHandler(({ url }) => {
    const external = externalUrlToOpen(url);
    if (external) void shell.openExternal(external);
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (e) => e.preventDefault());
  win.webContents.on('will-attach-webview', (e) => e.preventDefault());
  await win.loadFile(rendererIndex);
  void svc;
  return win;
}

void app.whenReady().then(async () => {
  const svc = ToolsmithService.open(resolveWorkspaceDir(process.env['TOOLSMITH_WORKSPACE']), {
    sandboxFactory: createSandboxManager,
  });
  loadKeys(svc);
  session.defaultSession.webRequest.onHeadersReceived((details, cb) => {
    cb({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP] } });
  });
  session.defaultSession.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
  session.defaultSession.webRequest.onBeforeRequest((details, cb) => {
    cb({ cancel: !isAllowedRequestUrl(details.url) });
  });
  for (const method of METHODS) {
    ipcMain.handle(`toolsmith:${method}`, (e, payload: unknown) => {
      if (!trustedSender(e)) return { ok: false, error: { code: 'refused', message: 'untrusted sender' } };
      return dispatch(svc, method, payload, { storeKey });
    });
  }
  const win = await createWindow(svc);
  svc.onPush((e) => {
    if (!win.isDestroyed()) win.webContents.send('toolsmith:event', e);
  });
});

app.on('window-all-closed', () => app.quit());
