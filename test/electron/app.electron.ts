/**
 * The desktop app itself, driven by Playwright's Electron support. Runs where the Electron binary is
 * installed (`npm run test:electron`); these machines cannot download it, so CI runs the same renderer
 * in Chromium (test/e2e) and this spec fails with a clear message instead of skipping when the binary
 * is missing.
 */
import { join } from 'node:path';
import { _electron as electron } from 'playwright-core';
import type { ElectronApplication, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { electronBinary } from '../../scripts/electron-path.mjs';
import { removeWorkspace, repoRoot, tempWorkspace } from '../support/workspace.ts';

let app: ElectronApplication;
let page: Page;
let ws: string;

function electronPath(): string {
  const bin = electronBinary();
  if (!bin)
    throw new Error(
      'the Electron binary is not installed (npm could not download it here); install it with `npx install-electron` on a machine with access to its download host',
    );
  return bin;
}

beforeAll(async () => {
  const executablePath = electronPath();
  ws = tempWorkspace('toolsmith-electron-');
  app = await electron.launch({
    executablePath,
    // A fresh user-data folder: the single-instance lock and the saved window state are per folder.
    args: [join(repoRoot, 'out/main/index.js'), `--user-data-dir=${join(ws, '.electron-user-data')}`],
    env: { ...process.env, TOOLSMITH_WORKSPACE: ws, TOOLSMITH_HOME: join(ws, '.toolsmith-home') },
  });
  page = await app.firstWindow();
});
afterAll(async () => {
  await app?.close();
  if (ws) removeWorkspace(ws);
});

describe('Electron app', () => {
  it('opens the workbench on the workspace', async () => {
    await page.getByRole('navigation', { name: 'main' }).waitFor();
    await expect.poll(() => page.locator('header').innerText()).toContain('Toolsmith sample workspace');
  });

  it('is hardened: no Node in the page, only the named API methods on window.toolsmith', async () => {
    const probe = await page.evaluate(() => {
      const g = globalThis as unknown as Record<string, unknown> & { toolsmith: Record<string, unknown> };
      return {
        require: typeof g['require'],
        process: typeof g['process'],
        api: Object.keys(g.toolsmith).sort(),
        invoke: typeof g.toolsmith['invoke'],
      };
    });
    expect(probe.require).toBe('undefined');
    expect(probe.process).toBe('undefined');
    expect(probe.invoke).toBe('undefined');
    expect(probe.api).toContain('runs.start');
    expect(probe.api).toContain('onEvent');
  });

  it('blocks navigation away from the app and remote content', async () => {
    const before = page.url();
    // The main process records each navigation the page attempts and whether the app refused it (its
    // own will-navigate handler runs first): the test waits on that outcome, not on a time.
    await app.evaluate(({ BrowserWindow }) => {
      const g = globalThis as unknown as { navigations: { url: string; refused: boolean }[] };
      g.navigations = [];
      BrowserWindow.getAllWindows()[0]?.webContents.on('will-navigate', (e) => {
        g.navigations.push({ url: e.url, refused: e.defaultPrevented });
      });
    });
    await page.evaluate(() => {
      (globalThis as unknown as { location: { href: string } }).location.href = 'https://example.com/';
    });
    await expect
      .poll(() =>
        app.evaluate(
          () => (globalThis as unknown as { navigations: { url: string; refused: boolean }[] }).navigations,
        ),
      )
      .toEqual([{ url: 'https://example.com/', refused: true }]);
    expect(page.url()).toBe(before);
    const fetched = await page.evaluate(async () => {
      try {
        await fetch('https://example.com/');
        return 'loaded';
      } catch {
        return 'blocked';
      }
    });
    expect(fetched).toBe('blocked');
  });

  it('lists sandboxes through IPC', async () => {
    const names = await page.evaluate(async () => {
      const api = (
        globalThis as unknown as { toolsmith: { 'sandboxes.list'(r: object): Promise<{ name: string }[]> } }
      ).toolsmith;
      return (await api['sandboxes.list']({})).map((s) => s.name);
    });
    expect(names).toEqual(expect.arrayContaining(['ecommerce', 'support']));
  });

  it('has the standard Edit menu (copy and paste in Monaco) and File > Open Workspace', async () => {
    const menu = await app.evaluate(({ Menu }) =>
      (Menu.getApplicationMenu()?.items ?? []).map((m) => ({
        label: m.label,
        items: (m.submenu?.items ?? []).map((i) => String(i.role ?? i.label).toLowerCase()),
      })),
    );
    const edit = menu.find((m) => m.label === 'Edit')?.items ?? [];
    for (const role of ['undo', 'redo', 'cut', 'copy', 'paste', 'selectall']) expect(edit).toContain(role);
    expect(menu.find((m) => m.label === 'File')?.items).toContain('open workspace…');
  });

  it('keeps one instance: the lock is held by this app', async () => {
    expect(await app.evaluate(({ app: a }) => a.hasSingleInstanceLock())).toBe(true);
  });
});
