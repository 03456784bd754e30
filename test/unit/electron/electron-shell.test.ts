/** The desktop shell's pieces that need no Electron binary: the menu and the saved window state. */
import { describe, expect, it } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { menuTemplate } from '../../../src-main/electron/menu.ts';
import { DEFAULT_WINDOW, restoreWindowState } from '../../../src-main/electron/window-state.ts';

const roles = (items: MenuItemConstructorOptions[]): string[] =>
  items.flatMap((i) => [
    ...(i.role ? [String(i.role)] : []),
    ...(Array.isArray(i.submenu) ? roles(i.submenu) : []),
  ]);

describe('application menu', () => {
  for (const platform of ['linux', 'darwin', 'win32']) {
    it(`has the standard edit roles Monaco's copy/paste needs (${platform})`, () => {
      const calls: string[] = [];
      const t = menuTemplate(platform, {
        openWorkspace: () => calls.push('open'),
        showWorkspaces: () => calls.push('show'),
      });
      const edit = t.find((m) => m.label === 'Edit');
      expect(roles(edit ? [edit] : [])).toEqual(
        expect.arrayContaining(['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll']),
      );
      expect(roles(t).includes('appMenu')).toBe(platform === 'darwin');
      const file = t.find((m) => m.label === 'File');
      const open = (file?.submenu as MenuItemConstructorOptions[]).find((i) => i.label === 'Open Workspace…');
      expect(open?.accelerator).toBe('CmdOrCtrl+O');
      (open?.click as () => void)();
      expect(calls).toEqual(['open']);
    });
  }
});

describe('window state', () => {
  const screen = [{ x: 0, y: 0, width: 1920, height: 1080 }];
  it('restores a saved size and position that are on a display', () => {
    expect(restoreWindowState({ x: 100, y: 50, width: 1200, height: 800, maximized: true }, screen)).toEqual({
      x: 100,
      y: 50,
      width: 1200,
      height: 800,
      maximized: true,
    });
  });
  it('drops a position on a display that is gone, and shrinks a window larger than the screen', () => {
    expect(restoreWindowState({ x: 3000, y: 50, width: 2500, height: 800 }, screen)).toEqual({
      width: 1920,
      height: 800,
      maximized: false,
    });
  });
  it('ignores a corrupt or foreign file', () => {
    expect(restoreWindowState('nonsense', screen)).toEqual(DEFAULT_WINDOW);
    expect(restoreWindowState({ width: 10, height: 10 }, screen)).toEqual(DEFAULT_WINDOW);
  });
});
