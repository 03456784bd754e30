/**
 * Electron main process: one hardened window (context isolation, sandbox, no node integration, strict
 * CSP, no remote content, navigation and new windows blocked) and one IPC handler per contract method,
 * each validating its payload and checking the sender frame.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, Menu, safeStorage, screen, session, shell } from 'electron';
import type { IpcMainInvokeEvent } from 'electron';
import { dispatch } from '../app/handlers.ts';
import { createSandboxManager, pruneLeftoverContainers } from '../app/sandbox-factory.ts';
import { ToolsmithService } from '../app/service.ts';
import { METHODS } from '../contract/api.ts';
import { isWorkspace, recentWorkspaces, rememberWorkspace } from '../infra/workspace/init.ts';
import { resolveWorkspaceDir } from '../infra/workspace/paths.ts';
import { CSP } from '../web/csp.ts';
import { menuTemplate } from './menu.ts';
import { externalUrlToOpen, isAllowedRequestUrl, isTrustedSender, WEB_PREFERENCES } from './policy.ts';
import { restoreWindowState } from './window-state.ts';

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

const windowStateFile = () => join(app.getPath('userData'), 'window-state.json');

function readWindowState() {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(windowStateFile(), 'utf8'));
  } catch {
    raw = undefined;
  }
  return restoreWindowState(
    raw,
    screen.getAllDisplays().map((d) => d.workArea),
  );
}

/** Saves the window's normal bounds (not the maximized ones) on move, resize and close. */
function keepWindowState(win: BrowserWindow): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const save = () => {
    if (win.isDestroyed()) return;
    const b = win.getNormalBounds();
    writeFileSync(windowStateFile(), JSON.stringify({ ...b, maximized: win.isMaximized() }));
  };
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(save, 500);
  };
  win.on('resize', later);
  win.on('move', later);
  win.on('close', () => {
    clearTimeout(timer);
    save();
  });
}

async function createWindow(svc: ToolsmithService): Promise<BrowserWindow> {
  const state = readWindowState();
  const win = new BrowserWindow({
    width: state.width,
    height: state.height,
    ...(state.x !== undefined && state.y !== undefined ? { x: state.x, y: state.y } : {}),
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
  if (state.maximized) win.maximize();
  keepWindowState(win);
  await win.loadFile(rendererIndex);
  void svc;
  return win;
}

/** $TOOLSMITH_WORKSPACE, else the last workspace opened, else the user's copy of the sample. */
function startWorkspace(): string {
  const env = process.env['TOOLSMITH_WORKSPACE'];
  if (env) return resolveWorkspaceDir(env);
  const last = recentWorkspaces().find(isWorkspace);
  return last ?? resolveWorkspaceDir(undefined, app.getPath('home'));
}

// One app instance: a second start focuses the first window instead of opening another service on
// the same run store.
if (!app.requestSingleInstanceLock()) app.quit();

void app.whenReady().then(async () => {
  let svc = ToolsmithService.open(startWorkspace(), {
    sandboxFactory: createSandboxManager,
    watch: true,
  });
  // Containers this installation's killed or crashed processes left: removed at every start.
  void pruneLeftoverContainers().catch(() => {});
  rememberWorkspace(svc.workspaceDir);
  loadKeys(svc);
  let win: BrowserWindow | undefined = undefined;
  let offPush = () => {};
  const wirePush = () => {
    offPush();
    offPush = svc.onPush((e) => {
      if (win && !win.isDestroyed()) win.webContents.send('toolsmith:event', e);
    });
  };
  const openWorkspace = async (dir: string): Promise<ToolsmithService> => {
    const next = svc.openOther(dir);
    const prev = svc;
    svc = next;
    loadKeys(svc);
    wirePush();
    await prev.close();
    return next;
  };
  const chooseFolder = async (): Promise<string | undefined> => {
    const r = win
      ? await dialog.showOpenDialog(win, {
          title: 'Open a Toolsmith workspace',
          properties: ['openDirectory'],
        })
      : await dialog.showOpenDialog({ title: 'Open a Toolsmith workspace', properties: ['openDirectory'] });
    return r.canceled ? undefined : r.filePaths[0];
  };
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      menuTemplate(process.platform, {
        openWorkspace: () => {
          void chooseFolder().then(async (dir) => {
            if (!dir) return;
            if (!isWorkspace(dir)) {
              await dialog.showMessageBox({
                type: 'warning',
                message: `${dir} is not a Toolsmith workspace (no .toolsmith/config.toml).`,
                detail: 'Create one from Workspace > New workspace, or with `toolsmith init DIR`.',
              });
              return;
            }
            await openWorkspace(dir);
            rememberWorkspace(dir);
            win?.webContents.reload();
          });
        },
        showWorkspaces: () => {
          void win?.webContents.executeJavaScript("location.hash = '#/workspace'");
        },
      }),
    ),
  );
  app.on('second-instance', () => {
    if (!win || win.isDestroyed()) return;
    if (win.isMinimized()) win.restore();
    win.focus();
  });
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
      return dispatch(svc, method, payload, { storeKey, openWorkspace, chooseFolder });
    });
  }
  win = await createWindow(svc);
  wirePush();
});

app.on('window-all-closed', () => app.quit());
