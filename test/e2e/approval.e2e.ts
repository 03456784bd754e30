/**
 * A person in the loop, in the workbench (Chromium, browser front end, scripted LLM server, real
 * container): with `[approval]` naming a tool, a run's call of it waits for the dialog, which shows the
 * tool, the script line and the arguments; Allow lets the call run, Refuse (the focused default) makes it
 * an error the script sees; each answer is in the run's record and shown in the run view.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fence, startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';

let w: E2eWorld;

beforeAll(async () => {
  w = await startWorld(
    (ws) => {
      const file = join(ws, '.toolsmith', 'config.toml');
      expect(readFileSync(file, 'utf8')).not.toMatch(/^\[approval\]/m);
      appendFileSync(file, '\n[approval]\ntools = ["ecommerce.get_user"]\n');
    },
    { askApproval: 'workbench' },
  );
  await w.page.setViewportSize({ width: 1280, height: 800 });
});
afterAll(async () => {
  await w?.close();
});
beforeEach(() => w.llm.reset());

async function startRun(task: string) {
  const { page } = w;
  await page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: 'New run' }).click();
  await page.getByLabel('task').fill(task);
  await page.getByLabel('max retries').fill('0');
  await page.getByText('skip templates and rules').click();
  await page.getByRole('button', { name: 'Start run' }).click();
}

const status = () => w.page.locator('.run-detail').getAttribute('data-run-status');
const SCRIPT = 'r = get_user(user_id="u1")\nemit_result(r.data["email"])';

describe('approval per tool call in the workbench', () => {
  it('asks in a dialog with the tool, line and arguments; Allow runs the call', async () => {
    const { page, llm } = w;
    llm.push(fence(SCRIPT));
    await startRun('Email of user u1, allowed');
    const dialog = page.getByRole('dialog', { name: 'approve a call of get_user' });
    await expect.poll(() => dialog.isVisible(), { timeout: 60_000 }).toBe(true);
    await expect.poll(() => page.getByTestId('approval-tool').innerText()).toBe('get_user');
    expect(await page.getByTestId('approval-line').innerText()).toMatch(/Line 1: .*get_user\(user_id="u1"\)/);
    expect(JSON.parse(await page.getByTestId('approval-args').innerText())).toEqual({ user_id: 'u1' });
    // Refuse has the focus: Enter alone never allows.
    expect(await page.locator(':focus').innerText()).toBe('Refuse');
    await w.screenshot('approval-dialog');
    await dialog.getByRole('button', { name: 'Allow' }).click();
    await expect.poll(status, { timeout: 60_000 }).toBe('succeeded');
    expect(await dialog.isVisible()).toBe(false);
    await page.getByRole('tab', { name: /^Tool calls/ }).click();
    const row = page.getByTestId('approval-row');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.innerText()).toMatch(/get_user\s+1\s+allowed/);
  });

  it('Refuse (by keyboard: Enter on the focused default) makes the call an error the script sees', async () => {
    const { page, llm } = w;
    llm.push(fence(SCRIPT));
    await startRun('Email of user u1, refused');
    const dialog = page.getByRole('dialog', { name: 'approve a call of get_user' });
    await expect.poll(() => dialog.isVisible(), { timeout: 60_000 }).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(status, { timeout: 60_000 }).toBe('failed');
    await expect
      .poll(() => page.locator('.run-detail').innerText())
      .toMatch(/ToolRefused: get_user was not approved/);
    await page.getByRole('tab', { name: /^Tool calls/ }).click();
    const row = page.getByTestId('approval-row');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.innerText()).toMatch(/get_user\s+1\s+refused/);
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });
});
