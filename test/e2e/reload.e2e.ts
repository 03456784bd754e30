/**
 * A reload keeps what was typed (Chromium, browser front end, scripted LLM server, real container): New
 * run's task and choices, and an open "Promote to template" with its edits, come back as they were,
 * in the same view; a promotion cancelled, or a run started, stays gone. (Both lived in the page's
 * memory only: a reload, F5 or the page restarted, showed an empty form, and the promotion was gone.)
 * A new skill being written (Skills), an MCP server being added (Connections) and the run list's
 * search and filters (Runs) come back too (all were lost). And the step chosen in an INTERACTIVE run's history (one stopped as a loop) is the one shown after a
 * reload (it was the last step again).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fence, startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';
import { POLL_MS } from '../support/budgets.ts';

let w: E2eWorld;

beforeAll(async () => {
  w = await startWorld();
  // A reload with unsaved edits asks first (beforeunload): the person says go.
  w.page.on('dialog', (d) => void d.accept());
});
afterAll(async () => {
  await w?.close();
});

const nav = (label: string) =>
  w.page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: label }).click();
const status = () => w.page.locator('.run-detail').getAttribute('data-run-status');
const reload = async () => {
  await w.page.reload();
  await w.page.locator('nav[aria-label="main"]').waitFor();
};

describe('a reload keeps what was typed', () => {
  it('New run: the task and the choices come back; a run started empties the form for good', async () => {
    const { page, llm } = w;
    await nav('New run');
    await page.getByLabel('task').fill('What is the name of user u1?');
    await page.getByLabel('mode', { exact: true }).selectOption('interactive');
    await page.getByLabel('Max steps', { exact: true }).fill('5');
    await reload();
    expect(page.url()).toContain('#/new');
    await expect.poll(() => page.getByLabel('task').inputValue()).toBe('What is the name of user u1?');
    expect(await page.getByLabel('mode', { exact: true }).inputValue()).toBe('interactive');
    expect(await page.getByLabel('Max steps', { exact: true }).inputValue()).toBe('5');

    await page.getByLabel('mode', { exact: true }).selectOption('plan');
    llm.push(fence('r = get_user(user_id="u1")\nemit_result(r.data["name"])'));
    await page.getByRole('button', { name: 'Start run' }).click();
    await expect.poll(status, { timeout: 60_000 }).toBe('succeeded');
    await nav('New run');
    await reload();
    await expect.poll(() => page.getByTestId('start-problem').count()).toBe(1);
    expect(await page.getByLabel('task').inputValue()).toBe('');
  });

  it('Promote to template: the open promotion and its edits come back; cancelled, it stays closed', async () => {
    const { page } = w;
    await nav('Runs');
    await page.locator('.run-row[data-run-id]').first().click();
    await expect.poll(status).toBe('succeeded');
    await page.getByRole('button', { name: 'Promote to template' }).click();
    const editor = page.getByTestId('promote-editor');
    const pattern = editor.getByLabel('pattern', { exact: true });
    await expect.poll(() => pattern.inputValue()).toBe('What is the name of user {user_id}?');
    await editor.getByLabel('Name', { exact: true }).fill('user-name-kept');
    await pattern.fill('name of user {user_id}');
    await reload();
    expect(page.url()).toContain('#/templates');
    await expect.poll(() => pattern.inputValue(), { timeout: POLL_MS }).toBe('name of user {user_id}');
    expect(await editor.getByLabel('Name', { exact: true }).inputValue()).toBe('user-name-kept');
    await w.screenshot('reload-promote');

    await editor.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => editor.count()).toBe(0);
    await reload();
    await page.locator('section[aria-label="templates"]').waitFor();
    // (the list has loaded: its empty note shows)
    await expect.poll(() => page.getByText('No templates yet.').count()).toBe(1);
    expect(await editor.count()).toBe(0);
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });

  it('Skills: a new skill being written comes back after a reload; saved or closed, it stays gone', async () => {
    const { page } = w;
    await nav('Skills');
    await page.locator('.view-head').getByLabel('sandbox', { exact: true }).selectOption('ecommerce');
    await page.getByRole('button', { name: 'New skill' }).click();
    const editor = page.getByTestId('skill-editor');
    await editor.getByLabel('name', { exact: true }).fill('kept_city');
    const cases = '[{"args": {"user_id": "u2"}, "assert": []}]';
    await editor.getByLabel('test cases').fill(cases);
    await reload();
    expect(page.url()).toContain('#/skills');
    await expect.poll(() => editor.getByLabel('name', { exact: true }).inputValue()).toBe('kept_city');
    expect(await editor.getByLabel('test cases').inputValue()).toBe(cases);
    await w.screenshot('reload-new-skill');

    // Closed (the page asks: the dialog handler says yes), a reload does not bring it back.
    await editor.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => editor.count()).toBe(0);
    await reload();
    await page.locator('section[aria-label="skills"]').waitFor();
    expect(await editor.count()).toBe(0);
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });

  it('Connections: a server being added comes back after a reload; cancelled, it stays gone', async () => {
    const { page } = w;
    await nav('Connections');
    await page.getByRole('button', { name: 'Add server' }).click();
    const form = page.getByRole('form', { name: 'MCP server' });
    await form.getByLabel('Name', { exact: true }).fill('kept-server');
    await form.getByLabel('Command', { exact: true }).fill('npx');
    await form.getByLabel('Arguments (one per line)').fill('-y\n@modelcontextprotocol/server-memory');
    await reload();
    expect(page.url()).toContain('#/connections');
    await expect.poll(() => form.getByLabel('Name', { exact: true }).inputValue()).toBe('kept-server');
    expect(await form.getByLabel('Command', { exact: true }).inputValue()).toBe('npx');
    expect(await form.getByLabel('Arguments (one per line)').inputValue()).toBe(
      '-y\n@modelcontextprotocol/server-memory',
    );
    await w.screenshot('reload-mcp-server-form');

    await form.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => form.count()).toBe(0);
    await reload();
    await page.locator('section[aria-label="connections"]').waitFor();
    expect(await form.count()).toBe(0);
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });

  it('an INTERACTIVE run stopped as a loop: the step chosen in its history is the one shown after a reload', async () => {
    const { page, llm } = w;
    const step = fence('r = get_user(user_id="nobody")\nemit_result(r.data["name"])');
    llm.push(step, step, step);
    await nav('New run');
    await page.getByLabel('task').fill('What is the name of user nobody?');
    await page.getByLabel('mode', { exact: true }).selectOption('interactive');
    await page.getByRole('button', { name: 'Start run' }).click();
    await expect.poll(status, { timeout: 60_000 }).toBe('failed');
    const steps = page.getByRole('list', { name: 'steps' });
    const current = () => steps.locator('[aria-current="step"]').getAttribute('data-attempt');
    // Stopped as a loop at step 2 (the same failure twice), which is shown first.
    await expect.poll(() => page.locator('.run-detail').innerText()).toContain('stopped as a loop');
    await expect.poll(current).toBe('2');
    await steps.locator('[data-attempt="1"]').click();
    await expect.poll(current).toBe('1');
    expect(page.url()).toMatch(/#\/run\/[^?]+\?attempt=1$/);
    await reload();
    await expect.poll(status).toBe('failed');
    await expect.poll(current).toBe('1');
    // j/k still move the choice, and the address follows.
    await page.keyboard.press('j');
    await expect.poll(current).toBe('2');
    expect(page.url()).toMatch(/\?attempt=2$/);
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });
  it('Runs: the search comes back after a reload (kept with the other filters); cleared, it stays cleared', async () => {
    const { page } = w;
    await nav('Runs');
    const total = page.getByTestId('runs-total');
    await expect.poll(() => total.innerText()).toMatch(/^\d+ runs?$/);
    const all = await total.innerText();
    await page.getByLabel('search runs').fill('nobody');
    await expect.poll(() => total.innerText()).toBe('1 run matching');
    await reload();
    expect(page.url()).toContain('#/runs');
    await expect.poll(() => page.getByLabel('search runs').inputValue()).toBe('nobody');
    await expect.poll(() => total.innerText()).toBe('1 run matching');
    await expect.poll(() => page.locator('.run-row[data-run-id]').count()).toBe(1);

    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => total.innerText()).toBe(all);
    await reload();
    await expect.poll(() => total.innerText()).toBe(all);
    expect(await page.getByLabel('search runs').inputValue()).toBe('');
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });
});
