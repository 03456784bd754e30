/**
 * The application menu as data (no Electron import), so a test can check it without the binary: the
 * standard edit roles (undo, cut, copy, paste, select all: Monaco and every text field rely on them,
 * macOS has no copy/paste without them), File > Open workspace, View and Window roles.
 */
import type { MenuItemConstructorOptions } from 'electron';

export interface MenuActions {
  openWorkspace(): void;
  showWorkspaces(): void;
}

/** `devTools`: the View menu offers Toggle Developer Tools (development only: see policy.ts). */
export function menuTemplate(
  platform: string,
  actions: MenuActions,
  opts: { devTools?: boolean } = {},
): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  return [
    ...(mac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        { label: 'Open Workspace…', accelerator: 'CmdOrCtrl+O', click: () => actions.openWorkspace() },
        { label: 'Workspaces and Sandboxes', click: () => actions.showWorkspaces() },
        { type: 'separator' },
        mac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    {
      label: 'Edit',
      submenu: [
        { role: 'undo' },
        { role: 'redo' },
        { type: 'separator' },
        { role: 'cut' },
        { role: 'copy' },
        { role: 'paste' },
        ...(mac ? [{ role: 'pasteAndMatchStyle' as const }] : []),
        { role: 'delete' },
        { role: 'selectAll' },
      ],
    },
    {
      label: 'View',
      submenu: [
        { role: 'reload' },
        ...(opts.devTools ? [{ role: 'toggleDevTools' as const }] : []),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
  ];
}
