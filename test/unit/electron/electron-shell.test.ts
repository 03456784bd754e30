/** The desktop shell's pieces that need no Electron binary: the menu and the saved window state. */
import { describe, expect, it } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { menuTemplate } from '../../../src-main/electron/menu.ts';
import { CommandApprovals, commandKey } from '../../../src-main/electron/confirm.ts';
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

describe('devtools', () => {
  const actions = { openWorkspace: () => {}, showWorkspaces: () => {} };
  it('a production menu has no Toggle Developer Tools (nor its accelerator)', () => {
    for (const platform of ['linux', 'darwin', 'win32']) {
      expect(roles(menuTemplate(platform, actions))).not.toContain('toggleDevTools');
      expect(roles(menuTemplate(platform, actions, { devTools: false }))).not.toContain('toggleDevTools');
    }
  });
  it('a development menu has it', () => {
    expect(roles(menuTemplate('linux', actions, { devTools: true }))).toContain('toggleDevTools');
  });
});

describe('host commands need a person in a native dialog', () => {
  const cmd = {
    server: 'memory',
    command: '/usr/bin/node',
    args: ['server.js', '--x'],
    cwd: '/w',
    env: ['TOKEN'],
  };
  it('the dialog shows the exact command, arguments, folder and environment names; Cancel refuses', async () => {
    const shown: { message: string; detail: string; cancelId: number; defaultId: number }[] = [];
    const a = new CommandApprovals(async (o) => {
      shown.push(o);
      return { response: o.cancelId };
    });
    await expect(a.approve(cmd)).rejects.toThrow(/not confirmed/);
    expect(shown[0]?.message).toContain('memory');
    expect(shown[0]?.detail).toContain('"/usr/bin/node"');
    expect(shown[0]?.detail).toContain('"server.js" "--x"');
    expect(shown[0]?.detail).toContain('Working folder: /w');
    expect(shown[0]?.detail).toContain('TOKEN');
    expect(shown[0]?.defaultId).toBe(shown[0]?.cancelId); // Enter does not run it
  });
  it('a confirmation is remembered per exact command for the session; another argument asks again', async () => {
    let asked = 0;
    const a = new CommandApprovals(async () => {
      asked++;
      return { response: 0 };
    });
    await a.approve(cmd);
    await a.approve({ ...cmd });
    expect(asked).toBe(1);
    await a.approve({ ...cmd, args: ['server.js', '--y'] });
    await a.approve({ ...cmd, cwd: '/other' });
    expect(asked).toBe(3);
    expect(commandKey(cmd)).not.toBe(commandKey({ ...cmd, env: ['TOKEN', 'MORE'] }));
  });
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
