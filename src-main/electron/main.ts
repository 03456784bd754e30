/**
 * Electron main process: one hardened window (context isolation, sandbox, no node integration, strict
 * CSP, no remote content, navigation and new windows blocked) and one IPC handler per contract method,
 * each validating its payload and checking the sender frame.
 */
import { join } from 'node:path';
import { app, BrowserWindow, ipcMain, session, shell } from 'electron';
import type { IpcMainInvokeEvent } from 'electron';
import { dispatch } from '../app/handlers.ts';
import { ToolsmithService } from '../app/service.ts';
import { METHODS } from '../contract/api.ts';
import { resolveWorkspaceDir } from '../infra/workspace/paths.ts';
import { CSP } from '../web/csp.ts';

const rendererIndex = join(import.meta.dirname, '../renderer/index.html');
const rendererUrl = `file://${rendererIndex}`;

/** Only our own top-level renderer page may call the API. */
function trustedSender(e: IpcMainInvokeEvent): boolean {
  const frame = e.senderFrame;
  return !!frame && frame === e.sender.mainFrame && frame.url.split('#')[0]?.split('?')[0] === rendererUrl;
}

async function createWindow(svc: ToolsmithService): Promise<void> {
  const win = new BrowserWindow({
    width: 1400,
    height: 900,
    title: 'Toolsmith',
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (e) => e.preventDefault());
  win.webContents.on('will-attach-webview', (e) => e.preventDefault());
  await win.loadFile(rendererIndex);
  void svc;
}

void app.whenReady().then(async () => {
  const svc = ToolsmithService.open(resolveWorkspaceDir(process.env['TOOLSMITH_WORKSPACE']));
  session.defaultSession.webRequest.onHeadersReceived((details, cb) => {
    cb({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP] } });
  });
  session.defaultSession.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
  session.defaultSession.webRequest.onBeforeRequest((details, cb) => {
    cb({ cancel: !/^(file|devtools|blob|data):/.test(details.url) });
  });
  for (const method of METHODS) {
    ipcMain.handle(`toolsmith:${method}`, (e, payload: unknown) => {
      if (!trustedSender(e)) return { ok: false, error: { code: 'refused', message: 'untrusted sender' } };
      return dispatch(svc, method, payload);
    });
  }
  await createWindow(svc);
});

app.on('window-all-closed', () => app.quit());
