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
import { providerEndpoint } from '../app/settings.ts';
import { METHODS } from '../contract/api.ts';
import { reachLoopbackDirectly } from '../infra/net/proxy-env.ts';
import { isWorkspace, recentWorkspaces, rememberWorkspace } from '../infra/workspace/init.ts';
import { resolveWorkspaceDir } from '../infra/workspace/init.ts';
import { CSP } from '../web/csp.ts';
import { menuTemplate } from './menu.ts';
import { CommandApprovals } from './confirm.ts';
import {
  devToolsAllowed,
  externalUrlToOpen,
  isAllowedRequestUrl,
  isTrustedSender,
  WEB_PREFERENCES,
} from './policy.ts';
import { restoreWindowState } from './window-state.ts';

// Behind a proxy (HTTP_PROXY/HTTPS_PROXY), loopback servers (a local model, an MCP server, an OTLP
// collector) are reached directly, as the command does (bin/start.mjs): before the service starts.
reachLoopbackDirectly();

const rendererDir = join(import.meta.dirname, '../renderer');
const rendererIndex = join(rendererDir, 'index.html');
const devTools = devToolsAllowed(app.isPackaged, process.env['NODE_ENV']);
const rendererUrl = pathToFileURL(rendererIndex).toString();

/** Provider keys, encrypted with the OS keychain through safeStorage, in the app's user-data folder. */
const keysFile = () => join(app.getPath('userData'), 'provider-keys.json');

type StoredKeys = Record<string, string | { key: string; endpoint: string }>;

function readStoredKeys(): StoredKeys {
  return existsSync(keysFile()) ? (JSON.parse(readFileSync(keysFile(), 'utf8')) as StoredKeys) : {};
}

/**
 * Each key with the endpoint it was saved for (a key stored before keys were bound is bound to the
 * provider's endpoint in the config as it is now).
 */
function loadKeys(svc: ToolsmithService): void {
  if (!existsSync(keysFile()) || !safeStorage.isEncryptionAvailable()) return;
  for (const [id, v] of Object.entries(readStoredKeys())) {
    const b64 = typeof v === 'string' ? v : v.key;
    const configured = svc.workspace.config().providers.find((p) => p.id === id);
    const endpoint =
      typeof v === 'string' ? (configured ? providerEndpoint(configured) : undefined) : v.endpoint;
    if (!endpoint) continue;
    svc.providerKeys.set(id, safeStorage.decryptString(Buffer.from(b64, 'base64')), endpoint, 'keychain');
  }
}

function storeKey(provider: string, key: string, endpoint: string): 'keychain' | 'memory' {
  if (!safeStorage.isEncryptionAvailable()) return 'memory';
  const stored = readStoredKeys();
  stored[provider] = { key: safeStorage.encryptString(key).toString('base64'), endpoint };
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
  // No menu item opens devtools outside development; nothing else may either.
  if (!devTools) win.webContents.on('devtools-opened', () => win.webContents.closeDevTools());
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
  let win: BrowserWindow | undefined = undefined;
  // Host commands (stdio MCP servers) start only after a person confirms them in a native dialog.
  const approvals = new CommandApprovals((opts) =>
    win && !win.isDestroyed() ? dialog.showMessageBox(win, opts) : dialog.showMessageBox(opts),
  );
  let svc = ToolsmithService.open(startWorkspace(), {
    sandboxFactory: createSandboxManager,
    approveHostCommand: (c) => approvals.approve(c),
    // Tool calls that need approval are asked in the window's dialog (components/ApprovalDialog.tsx).
    askApproval: 'workbench',
    watch: true,
  });
  // Containers this installation's killed or crashed processes left: removed at every start.
  void pruneLeftoverContainers().catch(() => {});
  rememberWorkspace(svc.workspaceDir);
  loadKeys(svc);
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
      menuTemplate(
        process.platform,
        {
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
        },
        { devTools },
      ),
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
    cb({ cancel: !isAllowedRequestUrl(details.url, rendererDir, devTools) });
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
