/**
 * The workspace folder moved away under the workbench (Chromium, browser front end): the Kits,
 * Templates and Skills views show why nothing can be listed (the workspace folder is gone, and where it
 * went), not "No kits yet", and not the list read before the move as if it were current. Moved back,
 * the views list again. And a recent-workspaces.json with junk in it is said in the Workspace view (kept
 * aside), not read as an empty list.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userDataDir } from '../../src-main/infra/workspace/init.ts';
import { startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';

let w: E2eWorld;
let moved: string;

beforeAll(async () => {
  w = await startWorld();
  moved = `${w.workspace}-moved`;
});
afterAll(async () => {
  if (w && existsSync(moved) && !existsSync(w.workspace)) renameSync(moved, w.workspace);
  await w?.close();
});

const nav = (label: string) =>
  w.page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: label }).click();
const gone = () => `the workspace folder ${w.workspace} is gone: it was moved to ${moved}`;

describe('the workspace folder moved under the workbench', () => {
  it('Kits, Templates and Skills say the workspace is gone instead of an empty or stale list; moved back, they list again', async () => {
    const { page } = w;
    await nav('Kits');
    await page.locator('[data-kit="orders"]').waitFor();
    await nav('Templates');
    await page.getByTestId('templates-empty').waitFor();

    renameSync(w.workspace, moved);
    // Before: "No kits yet" / "No templates yet" (an empty list from the old path), or the kits read
    // before the move shown under the message as if they were current.
    await nav('Kits');
    const kitsAlert = page.getByRole('alert').filter({ hasText: 'Could not load the kits' });
    await expect.poll(() => kitsAlert.innerText()).toContain(gone());
    expect(await kitsAlert.innerText()).toContain('the kits cannot be listed from the old path');
    expect(await page.locator('[data-kit]').count()).toBe(0);
    expect(await page.getByTestId('kits-empty').count()).toBe(0);

    await nav('Templates');
    const templatesAlert = page.getByRole('alert').filter({ hasText: 'Could not load the templates' });
    await expect.poll(() => templatesAlert.innerText()).toContain(gone());
    expect(await page.getByTestId('templates-empty').count()).toBe(0);

    await nav('Skills');
    const skillsAlert = page.getByRole('alert').filter({ hasText: 'Could not load the skills' });
    await expect.poll(() => skillsAlert.innerText()).toContain(gone());

    renameSync(moved, w.workspace);
    await nav('Kits');
    await page.locator('[data-kit="orders"]').waitFor();
    expect(await kitsAlert.count()).toBe(0);
  });

  it('a recent-workspaces.json with junk in it is said in the Workspace view, and kept aside', async () => {
    const { page } = w;
    mkdirSync(userDataDir(), { recursive: true });
    const file = join(userDataDir(), 'recent-workspaces.json');
    writeFileSync(file, 'not json');
    await nav('Workspace');
    const problem = page.getByTestId('recent-problem');
    await expect
      .poll(() => problem.innerText())
      .toMatch(/recent-workspaces\.json was not JSON \(.*\): it is kept as /);
    const aside = readdirSync(userDataDir()).filter((f) =>
      f.startsWith('recent-workspaces.json.unreadable-'),
    );
    expect(aside).toHaveLength(1);
    expect(await problem.innerText()).toContain(join(userDataDir(), aside[0]!));
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });
});
