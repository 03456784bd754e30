/**
 * What the workbench says about the world outside it (Chromium, browser front end): a workspace file
 * edited on disk while the page is open (the `workspace_changed` push shows a notice, applied or
 * refused with its reason), and which sandbox isolation runs (the header badge and Settings › Sandbox:
 * Docker with a gVisor sandbox, and the process fallback with the reason it runs). Screenshots in
 * test-results/screenshots/.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';
import { POLL_MS } from '../support/budgets.ts';

/** Polls long enough for a page under load (a busy CI machine), not vitest's default second. */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: POLL_MS });

const go = (w: E2eWorld, label: string) =>
  w.page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: label }).click();

describe('a workspace file edited on disk while the workbench is open', () => {
  let w: E2eWorld;
  beforeAll(async () => {
    w = await startWorld(undefined, { watch: true });
  });
  afterAll(async () => {
    await w?.close();
  });

  it('config.toml: the push shows "applied", and a broken edit is refused with its reason', async () => {
    const { page } = w;
    await go(w, 'Settings');
    await page.getByTestId('docker-state').waitFor();
    const configFile = join(w.workspace, '.toolsmith', 'config.toml');
    const good = readFileSync(configFile, 'utf8');
    writeFileSync(configFile, good.replace('timeout_s = 300', 'timeout_s = 240'));
    const applied = page.locator('.notices [role="status"]', {
      hasText: 'config.toml changed on disk: applied',
    });
    await applied.waitFor({ timeout: POLL_MS });
    await poll(() => w.pushed.some((e) => e.type === 'workspace_changed')).toBe(true);
    expect(w.web.service().config.limits.timeout_s).toBe(240);
    await w.screenshot('live-reload-config-applied');

    writeFileSync(configFile, good.replace('timeout_s = 300', 'timeout_s = "soon"'));
    const refused = page.locator('.notices [role="alert"]', {
      hasText: 'config.toml changed on disk but was not applied',
    });
    await refused.waitFor({ timeout: POLL_MS });
    // The reason names the file, the line and the field.
    expect(await refused.innerText()).toMatch(
      /config\.toml:\d+:\s*limits\.timeout_s: .*\(the last good config stays in use\)/s,
    );
    expect(w.web.service().config.limits.timeout_s).toBe(240);
    await w.screenshot('live-reload-config-refused');

    // In the dark theme the notice is dark too (not a white box).
    await page.getByRole('button', { name: 'toggle theme' }).click();
    const background = await refused.evaluate(
      (el) =>
        (
          globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
        ).getComputedStyle(el).backgroundColor,
    );
    expect(background).toBe('rgb(43, 43, 43)');
    await w.screenshot('live-reload-config-refused-dark');
    await page.getByRole('button', { name: 'toggle theme' }).click();

    // A reload (or another tab) still says the file on disk is not the config in use.
    await page.reload();
    await refused.waitFor({ timeout: POLL_MS });
    expect(await refused.innerText()).toMatch(/limits\.timeout_s: .*\(the last good config stays in use\)/s);

    // Fixed on disk: the refusal goes, "applied" takes its place.
    writeFileSync(configFile, good.replace('timeout_s = 300', 'timeout_s = 200'));
    await applied.waitFor({ timeout: POLL_MS });
    await refused.waitFor({ state: 'detached', timeout: POLL_MS });
    expect(w.web.service().config.limits.timeout_s).toBe(200);
  });

  it('config.toml: an [approval] name that matches no sandbox is said, after a reload too, and goes once fixed', async () => {
    const { page } = w;
    const configFile = join(w.workspace, '.toolsmith', 'config.toml');
    const good = readFileSync(configFile, 'utf8');
    // Before, only a CLI or server start said it: a typo saved while the workbench ran held no call for
    // approval, and nothing on screen said so.
    writeFileSync(configFile, `${good}\n[approval]\nsandboxes = ["suport"]\n`);
    // A warning (nothing failed: a setting does nothing), not an error, named once by its file and line.
    const warning = page.locator('.notices .notice-warning[role="status"]', {
      hasText: 'approval.sandboxes names no sandbox "suport"',
    });
    await warning.waitFor({ timeout: POLL_MS });
    expect(await warning.innerText()).toMatch(
      /^[^\n]*\/\.toolsmith\/config\.toml:\d+: approval\.sandboxes names no sandbox "suport" \(sandboxes: .*support.*\): no call is held for approval by it; fix the name/s,
    );
    expect((await warning.innerText()).match(/config\.toml/g)).toHaveLength(1);
    await w.screenshot('live-reload-config-approval-name');
    await page.reload();
    await warning.waitFor({ timeout: POLL_MS });
    writeFileSync(configFile, `${good}\n[approval]\nsandboxes = ["support"]\n`);
    await warning.waitFor({ state: 'detached', timeout: POLL_MS });
    writeFileSync(configFile, good);
  });

  it('tools.py: the notice names the sandbox, and the open Tools view shows the new tool', async () => {
    const { page } = w;
    // The notices of the config edits are dismissed (this screenshot shows the tools one).
    const dismiss = page.locator('.notices').getByRole('button', { name: 'dismiss' });
    while ((await dismiss.count()) > 0) await dismiss.first().click();
    await go(w, 'Tools');
    await page.locator('[data-sandbox="support"]').first().click();
    await page.getByTestId('saved').waitFor({ timeout: POLL_MS });
    const toolsFile = join(w.workspace, 'sandboxes', 'support', 'tools.py');
    appendFileSync(
      toolsFile,
      '\n\n@tool\ndef ping_from_disk() -> str:\n    """Answers pong (added on disk while the workbench was open)."""\n    return "pong"\n',
    );
    const notice = page.locator('.notices [role="status"]', {
      hasText: 'the tools of sandbox support changed on disk: applied',
    });
    await notice.waitFor({ timeout: POLL_MS });
    // Try tool offers it, and the editor follows the file (its parameters pane describes the new text).
    await page.locator('.tool-picker [data-tool="ping_from_disk"]').waitFor({ timeout: POLL_MS });
    await page
      .locator('[data-testid="live-tools"] [data-tool="ping_from_disk"]')
      .waitFor({ timeout: POLL_MS });
    await page.getByTestId('saved').waitFor();
    await w.screenshot('live-reload-tools');
  });
});

describe('the isolation level the workbench shows', () => {
  it('Docker, with one sandbox on gVisor: the header badge and Settings name both', async () => {
    const w = await startWorld((ws) => {
      const file = join(ws, '.toolsmith', 'config.toml');
      writeFileSync(
        file,
        readFileSync(file, 'utf8').replace(
          '[sandboxes.ecommerce]\n',
          '[sandboxes.ecommerce]\nisolation = "gvisor"\n',
        ),
      );
    });
    try {
      const badge = w.page.getByTestId('isolation-state');
      await poll(() => badge.innerText()).toMatch(/^docker \S+ · isolation docker; gvisor: ecommerce$/);
      await go(w, 'Settings');
      const docker = w.page.getByTestId('docker-state');
      await poll(() => docker.getAttribute('data-docker')).toBe('available');
      // One badge per level: the default, and the sandbox with a level of its own.
      expect(await docker.locator('> [data-isolation]').getAttribute('data-isolation')).toBe('docker');
      expect(
        await docker.locator('[data-sandbox="ecommerce"] [data-isolation]').getAttribute('data-isolation'),
      ).toBe('gvisor');
      expect(await w.page.getByTestId('sandbox-levels').innerText()).toContain(
        'ecommerce runs with isolation gvisor',
      );
      // A sandbox on gVisor does not make the default level "weaker than a Docker container".
      expect(await w.page.getByTestId('isolation-weaker').count()).toBe(0);
      expect(await w.page.getByRole('region', { name: 'sandbox' }).innerText()).not.toContain(
        'weaker than a Docker container',
      );
      expect(await w.page.getByTestId('docker-missing').count()).toBe(0);
      await w.screenshot('isolation-docker-gvisor');
    } finally {
      await w.close();
    }
  });

  it('the process fallback: the level and the reason it runs, in the header and in Settings', async () => {
    const before = process.env['TOOLSMITH_BACKEND'];
    process.env['TOOLSMITH_BACKEND'] = 'process';
    const w = await startWorld();
    try {
      const status = await w.web.service().system.status();
      expect(status.isolation).not.toBe('docker');
      expect(status.isolationReason).toMatch(/^TOOLSMITH_BACKEND=process: the process fallback \(\w+\) runs/);
      const badge = w.page.getByTestId('isolation-state');
      await poll(() => badge.innerText()).toBe(`no docker · isolation ${status.isolation}`);
      expect(await badge.getAttribute('title')).toContain(status.isolationReason);
      await go(w, 'Settings');
      const missing = w.page.getByTestId('docker-missing');
      await missing.waitFor({ timeout: POLL_MS });
      expect(await w.page.getByTestId('isolation-reason').innerText()).toBe(status.isolationReason);
      expect(await missing.innerText()).toContain(
        `Until then scripts run in the ${status.isolation} fallback`,
      );
      // The engine was never asked: the status does not claim that none answers.
      expect(status.docker).toMatchObject({
        available: false,
        error: expect.stringMatching(/^not asked/) as unknown,
      });
      expect(await missing.innerText()).not.toContain('no Docker engine answers');
      expect(
        await w.page.getByTestId('docker-state').locator('[data-isolation]').getAttribute('data-isolation'),
      ).toBe(status.isolation);
      await w.screenshot('isolation-fallback');
    } finally {
      await w.close();
      if (before === undefined) delete process.env['TOOLSMITH_BACKEND'];
      else process.env['TOOLSMITH_BACKEND'] = before;
    }
  });
});
