/**
 * Templates, kits and settings in the workbench (Chromium, browser front end, scripted LLM server, real
 * container): the ratchet — a run's verified script promoted to a template serves the next matching
 * task with zero LLM calls —, kits with their grades (create one, see a refused one), and the settings
 * (providers, a key stored in memory, Docker and the isolation level).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fence, startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';
import { recordDialogs } from './support/dialogs.ts';
import { POLL_MS } from '../support/budgets.ts';

let w: E2eWorld;

beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => {
  await w?.close();
});

const nav = (label: string) =>
  w.page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: label }).click();
const status = () => w.page.locator('.run-detail').getAttribute('data-run-status');
/** Closes the notices so that screenshots show the view. */
const dismissNotices = async () => {
  const buttons = w.page.locator('.notices button[aria-label="dismiss"]');
  for (let i = 0; i < 10 && (await buttons.count()) > 0; i++)
    await buttons
      .first()
      .click({ timeout: 2000 })
      .catch(() => {});
};
const noPageErrors = () => expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
/** Whether a reload or a closed tab would ask first (the page cancels `beforeunload`: unsaved edits). */
const asks = () =>
  w.page.evaluate(`(() => {
    const e = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(e);
    return e.defaultPrevented;
  })()`);

async function startRun(task: string, skipTemplates: boolean) {
  const { page } = w;
  await nav('New run');
  await page.getByLabel('task').fill(task);
  await page.getByLabel('sandbox', { exact: true }).selectOption('ecommerce');
  if (skipTemplates) await page.getByText('skip templates and rules').click();
  await page.getByRole('button', { name: 'Start run' }).click();
}

describe('templates, kits and settings', () => {
  it('the ratchet: promote a run to a template, test it, and serve the next task with zero LLM calls', async () => {
    const { page, llm } = w;
    llm.push(fence('r = get_user(user_id="u1")\nemit_result(r.data["name"])'));
    await startRun('What is the name of user u1?', true);
    await expect.poll(status, { timeout: 60_000 }).toBe('succeeded');
    await expect.poll(() => page.locator('[data-testid="run-result"]').innerText()).toContain('Ada Lovelace');
    expect(llm.requests.length).toBe(1);

    // Promote: the editor opens prefilled from the service's proposal.
    await page.getByRole('button', { name: 'Promote to template' }).click();
    const editor = page.getByTestId('promote-editor');
    await editor.waitFor({ timeout: POLL_MS });
    const pattern = editor.getByLabel('pattern', { exact: true });
    await expect.poll(() => pattern.inputValue()).toBe('What is the name of user {user_id}?');
    await editor.locator('[data-testid="editor-template-body"][data-ready="true"]').waitFor();
    // (Monaco draws its lines in a frame after its model is set: on a loaded machine the first read of a
    // ready editor can be empty)
    await expect
      .poll(() => editor.locator('[data-testid="editor-template-body"]').innerText())
      .toContain('{{user_id}}');

    // The slot is named after the tool parameter it fills (user_id). Rename it in the pattern: the editor
    // warns, then renames the type and the body's use too.
    await pattern.fill('What is the name of user {uid}?');
    const warnings = editor.getByRole('list', { name: 'pattern warnings' });
    await expect.poll(() => warnings.innerText()).toContain('has no type');
    expect(await warnings.innerText()).toContain('is not in the pattern');
    await w.screenshot('template-promote-warnings');
    await editor.getByRole('button', { name: 'Rename user_id to uid (type and body)' }).click();
    await expect.poll(() => warnings.innerText()).toContain('Every slot of the pattern has a type');
    await editor.getByLabel('type of uid').selectOption('str');
    expect(await editor.locator('tr[data-slot="uid"]').innerText()).toContain('✓');
    await expect
      .poll(() => editor.locator('[data-testid="editor-template-body"]').innerText())
      .toContain('{{uid}}');
    await editor.getByLabel('Name', { exact: true }).fill('user-name');
    await editor.getByLabel('example 1 expected').fill('"Ada Lovelace"');
    expect(await editor.locator('[data-example="0"]').innerText()).toContain('matches: uid = "u1"');
    await w.screenshot('template-promote');

    await editor.getByRole('button', { name: 'Save template' }).click();
    const row = page.locator('tr[data-template="user-name"]');
    await row.waitFor();
    expect(await row.innerText()).toContain('What is the name of user {uid}?');
    expect(await row.getByTestId('template-successes').innerText()).toBe('0');
    expect(await page.getByTestId('promote-editor').count()).toBe(0);
    expect(page.url()).toContain('#/templates');

    // Test: the example runs in the sandbox and matches the expected JSON.
    await row.getByRole('button', { name: 'Test' }).click();
    const results = page.getByTestId('template-test-results');
    await results.waitFor({ timeout: 60_000 });
    expect(await results.getAttribute('data-passed')).toBe('true');
    expect(await results.innerText()).toContain('Ada Lovelace');
    expect(await results.innerText()).toContain('matched');
    // A test is not a use (issue 10): the counters stay at 0.
    expect(await row.getByTestId('template-successes').innerText()).toBe('0');
    await dismissNotices();
    await w.screenshot('templates');

    // The ratchet: the same kind of task, templates on — served by the template, no LLM request.
    const before = llm.requests.length;
    await startRun('What is the name of user u2?', false);
    await expect.poll(status, { timeout: 60_000 }).toBe('succeeded');
    await expect.poll(() => page.locator('[data-testid="run-result"]').innerText()).toContain('Alan Turing');
    expect(await page.locator('.run-detail .meta-line').first().innerText()).toContain('tier template');
    expect(await page.locator('[data-testid="attempt-view"]').innerText()).toContain('tier: template');
    expect(llm.requests.length).toBe(before);
    // The run names its template, and the name opens it.
    expect(await page.getByTestId('served-by-template').innerText()).toBe('served by template user-name');
    await w.screenshot('run-served-by-template');
    await page.getByTestId('served-by-template').getByRole('button').click();
    await page.waitForFunction(
      () =>
        (globalThis as unknown as { location: { hash: string } }).location.hash === '#/templates/user-name',
    );

    // The run counted a success (reloading the view reads the counters again).
    await nav('Templates');
    await expect
      .poll(() => page.locator('tr[data-template="user-name"]').getByTestId('template-successes').innerText())
      .toBe('1');
    expect(
      await page.locator('tr[data-template="user-name"]').getByTestId('template-failures').innerText(),
    ).toBe('0');

    // Edit (re-created with force), then delete with confirmation.
    await page.locator('tr[data-template="user-name"]').getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByTestId('template-editor');
    await edit.waitFor();
    expect(await edit.getByLabel('pattern', { exact: true }).inputValue()).toBe(
      'What is the name of user {uid}?',
    );
    await edit.getByLabel('Description', { exact: true }).fill('Name of a user by id');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect
      .poll(() => page.locator('tr[data-template="user-name"]').innerText())
      .toContain('Name of a user by id');
    noPageErrors();
  });

  it('the promote editor shows the service refusing a template', async () => {
    const { page, llm } = w;
    llm.push(fence('r = get_product(product_id="p2")\nemit_result(r.data["price"])'));
    await startRun('What is the price of product p2?', true);
    await expect.poll(status, { timeout: 60_000 }).toBe('succeeded');
    await page.getByRole('button', { name: 'Promote to template' }).click();
    const editor = page.getByTestId('promote-editor');
    await editor.waitFor({ timeout: POLL_MS });
    await editor.getByLabel('Name', { exact: true }).fill('product-price');
    // An example that does not match: the editor says so, and the service refuses it with its reason.
    await editor.getByLabel('example 1 intent').fill('How much is p2?');
    expect(await editor.locator('[data-example="0"]').innerText()).toContain('does not match the pattern');
    await editor.getByRole('button', { name: 'Save template' }).click();
    const err = editor.getByTestId('template-save-error');
    await err.waitFor();
    expect(await err.innerText()).toContain('does not match the pattern');
    // Cancel clears the promotion; the list is untouched.
    await editor.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByTestId('promote-editor').count()).toBe(0);
    expect(await page.locator('tr[data-template="product-price"]').count()).toBe(0);

    // Delete with confirmation.
    const row = page.locator('tr[data-template="user-name"]');
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByRole('button', { name: 'Keep' }).click();
    expect(await row.count()).toBe(1);
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByRole('button', { name: 'Yes, delete' }).click();
    await expect.poll(() => row.count()).toBe(0);
    await page.getByTestId('templates-empty').waitFor();

    // A .tmpl file that does not parse is listed as a problem, not served.
    mkdirSync(join(w.workspace, 'templates'), { recursive: true });
    writeFileSync(join(w.workspace, 'templates', 'bad.tmpl'), 'no front matter here\n');
    await page.getByRole('button', { name: 'Reload' }).click();
    const problems = page.getByTestId('template-problems');
    await problems.waitFor();
    expect(await problems.innerText()).toContain('bad.tmpl');
    noPageErrors();
  });

  it('the promote editor keeps its edits when the view is left and opened again, until cancelled', async () => {
    const { page, llm } = w;
    llm.push(fence('r = get_user(user_id="u3")\nemit_result(r.data["city"])'));
    await startRun('What is the city of user u3?', true);
    await expect.poll(status, { timeout: 60_000 }).toBe('succeeded');
    const runHash = new URL(page.url()).hash;
    await page.getByRole('button', { name: 'Promote to template' }).click();
    const editor = page.getByTestId('promote-editor');
    const pattern = editor.getByLabel('pattern', { exact: true });
    await expect
      .poll(() => pattern.inputValue(), { timeout: POLL_MS })
      .toBe('What is the city of user {user_id}?');
    await pattern.fill('What is the city of user {uid}?');
    await editor.getByLabel('Name', { exact: true }).fill('user-city');

    // Away to the runs and back: the promotion opens again with what was typed, not a fresh proposal.
    await nav('Runs');
    await page.getByRole('region', { name: 'runs' }).waitFor();
    expect(await page.getByTestId('promote-editor').count()).toBe(0);
    await nav('Templates');
    await expect
      .poll(() => pattern.inputValue(), { timeout: POLL_MS })
      .toBe('What is the city of user {uid}?');
    expect(await editor.getByLabel('Name', { exact: true }).inputValue()).toBe('user-city');

    // Cancel discards the edits: promoting the run again starts from the service's proposal.
    await editor.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByTestId('promote-editor').count()).toBe(0);
    await page.evaluate((hash) => {
      (globalThis as unknown as { location: { hash: string } }).location.hash = hash;
    }, runHash);
    await page.getByRole('button', { name: 'Promote to template' }).click();
    await expect
      .poll(() => pattern.inputValue(), { timeout: POLL_MS })
      .toBe('What is the city of user {user_id}?');
    await editor.getByRole('button', { name: 'Cancel' }).click();
    noPageErrors();
  });

  it('kits: the sample kits with their grades, a refused kit, and a new kit', async () => {
    const { page } = w;
    writeFileSync(
      join(w.workspace, 'kits', 'broken.kit'),
      'name = "broken"\nsandbox = "ecommerce"\n\n[tools]\nship = "ship_order"\n',
    );
    await nav('Kits');
    const orders = page.locator('[data-kit="orders"]');
    await orders.waitFor();
    expect(await orders.locator('.kit-head [data-grade]').getAttribute('data-grade')).toBe('1,0');
    expect(await orders.innerText()).toContain('get_orders');
    expect(
      await page.locator('[data-kit="helpdesk"] .kit-head [data-grade]').getAttribute('data-grade'),
    ).toBe('1,1');
    expect(await page.locator('[data-kit="inventory"]').count()).toBe(1);
    expect(await page.getByTestId('max-grade').locator('[data-grade]').getAttribute('data-grade')).toBe(
      '2,1',
    );
    expect(await page.locator('[data-kit="broken"]').getByTestId('kit-error').innerText()).toContain(
      'ship_order',
    );

    await page.getByRole('button', { name: 'New kit' }).click();
    const editor = page.getByTestId('kit-editor');
    await editor.getByLabel('Name', { exact: true }).fill('lookup');
    await editor.getByLabel('Sandbox', { exact: true }).selectOption('ecommerce');
    await editor.getByRole('button', { name: 'Add tool' }).click();
    await editor.getByLabel('tool 1', { exact: true }).selectOption('get_user');
    await editor.getByLabel('alias 1', { exact: true }).fill('user');
    await editor.getByRole('button', { name: 'Add tool' }).click();
    await editor.getByLabel('tool 2', { exact: true }).selectOption('get_product');
    await editor.getByLabel('alias 2', { exact: true }).fill('product');
    expect(await editor.locator('.meta-line [data-grade]').first().getAttribute('data-grade')).toBe('1,0');
    await w.screenshot('kit-editor');
    await editor.getByRole('button', { name: 'Save kit' }).click();
    const lookup = page.locator('[data-kit="lookup"]');
    await lookup.waitFor();
    expect(await lookup.locator('.kit-head [data-grade]').getAttribute('data-grade')).toBe('1,0');
    expect(await lookup.innerText()).toContain('user');
    expect(await lookup.innerText()).toContain('get_product');
    expect(await page.getByTestId('kit-editor').count()).toBe(0);
    await dismissNotices();
    await w.screenshot('kits');
    noPageErrors();
  });

  it('kits: an unsaved kit edit outlives opening another view, and editing another kit asks first', async () => {
    const { page } = w;
    const dialogs = recordDialogs(page);
    try {
      await nav('Kits');
      await page.locator('[data-kit="orders"]').getByRole('button', { name: 'Edit' }).click();
      const editor = page.getByTestId('kit-editor');
      const description = editor.getByLabel('Description', { exact: true });
      await description.fill('orders, edited');
      await expect.poll(asks).toBe(true);

      // Another view and back: the edit is still there (it was dropped without asking), still unsaved.
      await nav('Runs');
      await editor.waitFor({ state: 'detached' });
      expect(await asks()).toBe(true);
      await nav('Kits');
      expect(await editor.getAttribute('aria-label')).toBe('edit kit orders');
      expect(await description.inputValue()).toBe('orders, edited');

      // Another kit: asked first; "cancel" keeps the edit.
      const editHelpdesk = page.locator('[data-kit="helpdesk"]').getByRole('button', { name: 'Edit' });
      await editHelpdesk.click();
      await expect.poll(() => dialogs.messages).toEqual(['Drop the unsaved edits to kit orders?']);
      expect(await editor.getAttribute('aria-label')).toBe('edit kit orders');
      expect(await description.inputValue()).toBe('orders, edited');
      // "OK" opens the other kit; nothing is unsaved any more.
      dialogs.answer(true);
      await editHelpdesk.click();
      await expect.poll(() => editor.getAttribute('aria-label')).toBe('edit kit helpdesk');
      expect(dialogs.messages).toHaveLength(2);
      expect(await asks()).toBe(false);
      await editor.getByRole('button', { name: 'Cancel' }).click();
      await editor.waitFor({ state: 'detached' });
      expect(dialogs.messages).toHaveLength(2);
    } finally {
      dialogs.stop();
    }
    noPageErrors();
  });

  it('settings: the provider, Docker and the isolation level; a key set from the browser stays in memory', async () => {
    const { page } = w;
    await nav('Settings');
    const provider = page.locator('tr[data-provider="local"]');
    await provider.waitFor();
    expect(await provider.innerText()).toContain('scripted-coder');
    const docker = page.getByTestId('docker-state');
    await expect.poll(() => docker.getAttribute('data-docker')).toBe('available');
    expect(await docker.locator('[data-isolation]').getAttribute('data-isolation')).toBe('docker');
    expect(await page.getByRole('region', { name: 'configuration' }).innerText()).toContain(
      '.toolsmith/config.toml',
    );
    expect(await page.locator('tr[data-image="python"]').innerText()).toContain('present');

    // The key form's fields are named by their visible labels.
    const keyForm = page.getByRole('form', { name: 'set provider key' });
    expect(await keyForm.getByLabel('Provider', { exact: true }).inputValue()).toBe('local');
    await keyForm.getByLabel('API key', { exact: true }).fill('sk-test-not-a-real-key');
    await page.getByRole('button', { name: 'Set key' }).click();
    await expect.poll(() => page.getByTestId('key-stored-where').innerText()).toBe('memory');
    expect(await page.getByTestId('key-stored').innerText()).toContain('this process only');
    await expect.poll(() => provider.locator('[data-key-source]').innerText()).toBe('set in this process');
    expect(await keyForm.getByLabel('API key', { exact: true }).inputValue()).toBe('');
    await dismissNotices();
    await w.screenshot('settings');
    noPageErrors();
  });
});
