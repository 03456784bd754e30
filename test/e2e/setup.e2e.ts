/**
 * Setup in the workbench (Chromium, browser front end, scripted LLM server): a provider added and
 * tested (against the scripted server and a dead URL), a sandbox created, a workspace created, opened
 * and switched back from the recent list (asked first when unsaved edits would go), and the page a
 * browser shows without the token.
 */
import { fileURLToPath } from 'node:url';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { forgetDownEndpoints } from '../../src-main/infra/llm/reachability.ts';
import { startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';
import { recordDialogs } from './support/dialogs.ts';
import { removeWorkspace } from '../support/workspace.ts';
import { POLL_MS } from '../support/budgets.ts';

let w: E2eWorld;
let deadUrl: string;
const scratch = mkdtempSync(join(tmpdir(), 'toolsmith-e2e-setup-'));

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

beforeAll(async () => {
  process.env['TOOLSMITH_HOME'] = join(scratch, 'home');
  deadUrl = `http://127.0.0.1:${await freePort()}/v1`;
  w = await startWorld();
});
afterAll(async () => {
  await w?.close();
  removeWorkspace(scratch);
});
beforeEach(() => {
  w.llm.reset();
  forgetDownEndpoints();
});

/** Polls long enough for a page under load (a busy CI machine), not vitest's default second. */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: POLL_MS });

const go = (label: string) =>
  w.page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: label }).click();

describe('providers in Settings', () => {
  it('adds a provider after testing it against the scripted LLM server; saved to config.toml', async () => {
    const { page, llm } = w;
    await go('Settings');
    await page.getByTestId('add-provider').click();
    const form = page.getByRole('form', { name: 'add provider' });
    await form.getByLabel('Provider id', { exact: true }).fill('scripted');
    await form.getByLabel('Base URL', { exact: true }).fill(llm.openaiUrl);
    await form.getByLabel('Model', { exact: true }).fill('scripted-coder');
    llm.push('OK');
    await form.getByRole('button', { name: 'Test connection' }).click();
    const result = form.getByTestId('provider-test-result');
    await poll(() => result.getAttribute('data-ok')).toBe('true');
    expect(await result.innerText()).toContain(`Connected to ${llm.openaiUrl}`);
    expect(llm.requests.at(-1)?.body['model']).toBe('scripted-coder');
    await w.screenshot('setup-provider-test-ok');
    await form.getByRole('button', { name: 'Add provider' }).click();
    await poll(() => page.getByTestId('provider-notice').innerText()).toContain('Provider scripted saved');
    await poll(() => page.locator('tr[data-provider="scripted"]').count()).toBe(1);
    const config = readFileSync(join(w.workspace, '.toolsmith', 'config.toml'), 'utf8');
    expect(config).toContain('id = "scripted"');
    expect(config).toContain(`base_url = "${llm.openaiUrl}"`);
    // The service uses it without a restart, first: a new provider is the default unless unticked.
    expect(w.web.service().config.providers.map((p) => p.id)).toEqual(['scripted', 'local']);
    await poll(() => page.locator('tr[data-default="true"]').getAttribute('data-provider')).toBe('scripted');
    await w.screenshot('setup-provider-default');
    // Reorder: down, then "Make default" brings it back; config.toml follows each time.
    await page.getByRole('button', { name: 'move scripted down' }).click();
    await poll(() => w.web.service().config.providers.map((p) => p.id)).toEqual(['local', 'scripted']);
    await poll(() => page.locator('tr[data-default="true"]').getAttribute('data-provider')).toBe('local');
    expect(
      readFileSync(join(w.workspace, '.toolsmith', 'config.toml'), 'utf8').indexOf('id = "local"'),
    ).toBeLessThan(
      readFileSync(join(w.workspace, '.toolsmith', 'config.toml'), 'utf8').indexOf('id = "scripted"'),
    );
    await page.getByRole('button', { name: 'make scripted the default' }).click();
    await poll(() => w.web.service().config.providers.map((p) => p.id)).toEqual(['scripted', 'local']);
    await poll(() => page.getByTestId('provider-notice').innerText()).toContain(
      'scripted is now the default',
    );
    // The local server's chip says it needs no key (no orange warning).
    expect(
      await page.locator('tr[data-provider="local"] [data-key-tone]').getAttribute('data-key-tone'),
    ).toBe('plain');
  });

  it('"test connection" on a dead URL fails at the connect step and names the URL and the failure', async () => {
    const { page } = w;
    await page.getByTestId('add-provider').click();
    const form = page.getByRole('form', { name: 'add provider' });
    await form.getByLabel('Provider id', { exact: true }).fill('dead');
    await form.getByLabel('Base URL', { exact: true }).fill(deadUrl);
    await form.getByLabel('Model', { exact: true }).fill('nothing');
    await form.getByRole('button', { name: 'Test connection' }).click();
    const result = form.getByTestId('provider-test-result');
    await poll(() => result.getAttribute('data-ok')).toBe('false');
    const text = await result.innerText();
    // It fails at the connect step (no completion is tried, so no retry waits), and says how long it took
    // (the figure is the service's own: how long depends on the machine, so it is not asserted).
    expect(text).toMatch(/^Failed after \d+ ms: /);
    expect(text).toContain(`cannot connect to ${deadUrl}`);
    expect(text).toContain('connection refused');
    await w.screenshot('setup-provider-test-dead');
    await form.getByRole('button', { name: 'Cancel' }).click();
    // The saved provider's own Test button, and Remove.
    w.llm.push('OK');
    await page.getByRole('button', { name: 'test scripted' }).click();
    await poll(() =>
      page
        .locator('tr[data-provider="scripted"] [data-testid="provider-test-result"]')
        .getAttribute('data-ok'),
    ).toBe('true');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'remove scripted' }).click();
    await poll(() => page.locator('tr[data-provider="scripted"]').count()).toBe(0);
    expect(readFileSync(join(w.workspace, '.toolsmith', 'config.toml'), 'utf8')).not.toContain(
      'id = "scripted"',
    );
  });
});

describe('Monaco editors', () => {
  it('leave no empty alert in the page; what Monaco announces is still an assertive live region', async () => {
    const { page } = w;
    await page.goto(`${w.web.url.split('#')[0]}#/tools/ecommerce`);
    await page.locator('[data-testid="editor-tools.py"][data-ready="true"]').waitFor();
    // Every alert in the page says something (Monaco's two empty ones were role=alert).
    const alerts = await page.getByRole('alert').allInnerTexts();
    expect(alerts.filter((t) => !t.trim())).toEqual([]);
    // Monaco's regions are still there, read out at once (assertive, atomic) when it writes to them.
    const regions = page.locator('.monaco-aria-container > .monaco-alert');
    expect(await regions.count()).toBe(2);
    for (const r of await regions.all()) {
      expect(await r.getAttribute('aria-live')).toBe('assertive');
      expect(await r.getAttribute('aria-atomic')).toBe('true');
    }
    // Monaco's find with no match announces it there.
    await page.locator('[data-testid="editor-tools.py"] .monaco-editor').click();
    await page.keyboard.press('Control+F');
    await page.keyboard.type('zq-no-such-text');
    await page.keyboard.press('Enter');
    await poll(async () => (await regions.allInnerTexts()).join(' ')).toMatch(/No results/i);
    await page.keyboard.press('Escape');
  });
});

describe('workspaces and sandboxes', () => {
  it('creates a sandbox from the UI: it opens in the Tools view with its skeleton tool', async () => {
    const { page } = w;
    await go('Workspace');
    const form = page.getByRole('form', { name: 'create sandbox' });
    await form.getByLabel('Name', { exact: true }).fill('billing');
    await form.getByLabel('Description', { exact: true }).fill('Invoices and refunds');
    await form.getByRole('button', { name: 'Create sandbox' }).click();
    await poll(() => page.url()).toContain('#/tools/billing');
    await poll(() => page.getByText('Invoices and refunds').count()).toBeGreaterThan(0);
    await poll(() => page.getByText('echo', { exact: true }).count()).toBeGreaterThan(0);
    await w.screenshot('setup-sandbox-created');
    expect(readFileSync(join(w.workspace, '.toolsmith', 'config.toml'), 'utf8')).toContain(
      '[sandboxes.billing]',
    );
    // A bad name is refused with the reason.
    await go('Workspace');
    await form.getByLabel('Name', { exact: true }).fill('billing');
    await form.getByRole('button', { name: 'Create sandbox' }).click();
    await poll(() => form.getByRole('alert').innerText()).toContain('already exists');
    // Another name typed: the refusal of the first one goes (it stayed, beside a name it was not about).
    await form.getByLabel('Name', { exact: true }).fill('billing2');
    await poll(() => form.getByRole('alert').count()).toBe(0);
    await form.getByLabel('Name', { exact: true }).fill('');
  });

  it('creates a new workspace, opens it, and switches back from the recent list', async () => {
    const { page } = w;
    const fresh = join(scratch, 'fresh-ws');
    await go('Workspace');
    await page.getByLabel('New folder', { exact: true }).fill(fresh);
    await page.getByLabel('empty (no sample sandboxes)').check();
    await w.screenshot('setup-workspace-new');
    await page.getByRole('button', { name: 'Create and open' }).click();
    await poll(() => page.getByTestId('workspace-name').innerText()).toContain(fresh);
    expect(w.web.service().workspaceDir).toBe(fresh);
    await go('Workspace');
    await poll(() => page.getByTestId('current-workspace').innerText()).toBe(fresh);
    // The empty workspace has no sandboxes.
    expect(await page.locator('[aria-label="sandbox list"] li').count()).toBe(0);
    // Opening a folder that is not a workspace says so.
    await page.getByLabel('Workspace folder', { exact: true }).fill(scratch);
    await page.getByRole('form', { name: 'open workspace' }).getByRole('button', { name: 'Open' }).click();
    const panel = page.getByRole('region', { name: 'workspaces' });
    await poll(() => panel.getByRole('alert').first().innerText()).toContain('is not a Toolsmith workspace');
    await w.screenshot('setup-workspace-open');
    // Another folder typed: the refusal of the first one goes (it stayed, beside a folder it was not about).
    await page.getByLabel('Workspace folder', { exact: true }).fill(join(scratch, 'elsewhere'));
    await poll(() => panel.getByRole('alert').count()).toBe(0);
    // So does a create's, once the new folder is edited.
    await page.getByLabel('New folder', { exact: true }).fill(fresh);
    await page.getByRole('button', { name: 'Create and open' }).click();
    await poll(() => panel.getByRole('alert').first().innerText()).toContain(fresh);
    await page.getByLabel('New folder', { exact: true }).fill(join(scratch, 'fresh-ws-2'));
    await poll(() => panel.getByRole('alert').count()).toBe(0);
    await page.getByLabel('New folder', { exact: true }).fill('');
    // Back to the first workspace through the recent list.
    await page.getByRole('button', { name: `open ${w.workspace}` }).click();
    await poll(() => page.getByTestId('workspace-name').innerText()).toContain(w.workspace);
    expect(w.web.service().workspaceDir).toBe(w.workspace);
  });

  it('opening another workspace with unsaved edits asks first: "cancel" stays, "go" reloads without asking again', async () => {
    const { page } = w;
    const fresh = join(scratch, 'fresh-ws');
    const recorder = recordDialogs(page);
    const { dialogs } = recorder;
    try {
      // An unsaved tools.py edit.
      await page.goto(`${w.web.url.split('#')[0]}#/tools/ecommerce`);
      await page.locator('[data-testid="editor-tools.py"][data-ready="true"]').waitFor();
      await page.locator('[data-testid="editor-tools.py"] .monaco-editor').click();
      await page.keyboard.press('Control+End');
      await page.keyboard.type('# not saved');
      await go('Workspace');
      // "Cancel": the service stays on this workspace, and so does the page.
      await page.getByRole('button', { name: `open ${fresh}` }).click();
      await poll(() => dialogs.length).toBe(1);
      expect(dialogs[0]).toEqual({
        type: 'confirm',
        message: 'Unsaved edits (tools.py: 1) will be lost. Go on?',
      });
      expect(w.web.service().workspaceDir).toBe(w.workspace);
      expect(await page.getByRole('button', { name: `open ${fresh}` }).isEnabled()).toBe(true);
      // "Go": switched, and the reload that follows does not ask a second time.
      recorder.answer(true);
      await page.getByRole('button', { name: `open ${fresh}` }).click();
      await poll(() => page.getByTestId('workspace-name').innerText()).toContain(fresh);
      expect(w.web.service().workspaceDir).toBe(fresh);
      expect(dialogs.map((d) => d.type)).toEqual(['confirm', 'confirm']);
      // Back, with nothing unsaved: no question at all.
      await go('Workspace');
      await page.getByRole('button', { name: `open ${w.workspace}` }).click();
      await poll(() => page.getByTestId('workspace-name').innerText()).toContain(w.workspace);
      expect(dialogs).toHaveLength(2);
    } finally {
      recorder.stop();
    }
  });

  it('a page opened without the token says to open the URL printed in the terminal', async () => {
    const page = await w.browser.newPage();
    try {
      await page.goto(`http://127.0.0.1:${w.web.port}/`);
      await poll(() => page.getByTestId('no-token').innerText()).toContain(
        'Open the URL printed in the terminal',
      );
      await page.screenshot({
        path: join(
          fileURLToPath(new URL('../../', import.meta.url)),
          'test-results/screenshots/setup-no-token.png',
        ),
      });
    } finally {
      await page.close();
    }
  });
});
