/**
 * The Connections view in Chromium against the real service, a real MCP server from npm
 * (server-memory, over stdio) and real sandbox containers: add the server from the form (used by a new
 * MCP-only sandbox), see its tools with their schemas, try one with the form generated from its inputSchema (the call goes
 * from the container through the host to the server), run a script over it, and find its tools in the
 * Tools view beside native ones.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeBin } from '../support/mcp-workspace.ts';
import { repoRoot } from '../support/workspace.ts';
import { startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';
import { POLL_MS } from '../support/budgets.ts';

let w: E2eWorld;
const memoryFile = join(mkdtempSync(join(tmpdir(), 'toolsmith-e2e-mcp-')), 'memory.jsonl');

beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => {
  await w?.close();
});

describe('Connections view', () => {
  it('adds an MCP server, lists its tools, tries one and runs a script over it', async () => {
    const { page } = w;
    await page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: 'Connections' }).click();
    await page.locator('[data-testid="mcp-empty"]').waitFor();

    // Add server-memory over stdio, used by a new sandbox "notes".
    await page.getByRole('button', { name: 'Add server' }).click();
    const form = page.locator('form[aria-label="MCP server"]');
    await form.locator('input[name="name"]').fill('memory');
    await form.locator('input[name="command"]').fill(nodeBin);
    await form
      .locator('textarea[name="args"]')
      .fill(join(repoRoot, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js'));
    await form.locator('textarea[name="env"]').fill(`MEMORY_FILE_PATH=${memoryFile}`);
    await form.locator('input[name="sandbox"]').fill('notes');
    await w.screenshot('connections-add');
    await form.getByRole('button', { name: 'Save server' }).click();

    // Saved to the config (no restart), connected, its tools listed with schemas.
    const detail = page.locator('[data-testid="mcp-detail"][data-server="memory"]');
    await detail.locator('[data-testid="mcp-connected"]').waitFor({ timeout: POLL_MS });
    expect(await detail.locator('[data-testid="mcp-connected"]').innerText()).toMatch(
      /memory-server .*: 9 tools/,
    );
    const config = readFileSync(join(w.workspace, '.toolsmith/config.toml'), 'utf8');
    expect(config).toContain('[mcp_servers.memory]');
    expect(config).toContain('[sandboxes.notes.mcp.memory]');
    expect(config).toContain('# Toolsmith workspace configuration'); // comments kept
    const row = page.locator('tr[data-server="memory"]');
    // The list reloads once the test connect has answered (the detail shows it first).
    await expect
      .poll(() => row.locator('[data-testid="mcp-state"]').getAttribute('data-state'))
      .toBe('connected');
    expect(await row.innerText()).toContain('notes');
    const create = detail.locator('[data-mcp-tool="create_entities"]');
    await create.locator('summary').click();
    expect(await create.innerText()).toContain('"entityType"');
    expect(await create.innerText()).toContain(
      'def create_entities(*, entities: list[CreateEntitiesEntitiesItem])',
    );
    await w.screenshot('connections');

    // Try create_entities with the generated form: it runs through the sandbox to the server.
    await create.getByRole('button', { name: 'Try' }).click();
    const tryForm = create.locator('form[aria-label="try create_entities"]');
    // The form follows the tool's inputSchema: a list of entity objects, each holding a list of strings.
    await tryForm.getByRole('button', { name: 'add to entities', exact: true }).click();
    await tryForm.locator('[aria-label="entities[0].name"]').fill('Ada');
    await tryForm.locator('[aria-label="entities[0].entityType"]').fill('person');
    await tryForm.getByRole('button', { name: 'add to entities[0].observations', exact: true }).click();
    await tryForm.locator('[aria-label="entities[0].observations[0]"]').fill('writes compilers');
    await tryForm.getByRole('button', { name: 'Call create_entities' }).click();
    const result = create.locator('[data-testid="try-result"]');
    await expect
      .poll(() => result.locator('[data-testid="response-data"]').innerText(), { timeout: 60_000 })
      .toContain('entities');
    expect(await result.getAttribute('data-success')).toBe('true');
    expect(await create.locator('[data-testid="call-trace"]').innerText()).toContain('mcp:memory');
    expect(existsSync(memoryFile) && readFileSync(memoryFile, 'utf8')).toContain('writes compilers');
    await w.screenshot('connections-try');

    // Run a script over the server: a recorded run with the result.
    const runner = detail.locator('form[aria-label="run a script"]');
    await runner
      .locator('textarea[name="script"]')
      .fill(
        'add_observations(observations=[{"entityName": "Ada", "contents": ["likes tea"]}])\ng = read_graph()\nemit_result(g.data["entities"][0]["observations"])\n',
      );
    await runner.getByRole('button', { name: 'Run script' }).click();
    await expect
      .poll(() => page.locator('.run-detail').getAttribute('data-run-status'), { timeout: 60_000 })
      .toBe('succeeded');
    expect(await page.locator('[data-testid="run-result"]').innerText()).toContain('likes tea');
    await w.screenshot('connections-run');

    // The Tools view shows the sandbox's MCP tools.
    await page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: 'Tools' }).click();
    await page.locator('button[data-sandbox="notes"]').click();
    const live = page.locator('[data-testid="live-tools"]');
    await live.locator('[data-tool="read_graph"]').waitFor();
    expect(await live.locator('[data-tool="read_graph"] [data-testid="mcp-source"]').innerText()).toBe(
      'mcp:memory',
    );
    // An MCP-only sandbox: no empty tools.py marked "saved", but a word on where its tools come from.
    await page.getByTestId('no-tools-file').waitFor();
    expect(await page.locator('[data-testid="saved"]').count()).toBe(0);
    expect(await page.getByTestId('mcp-tools').innerText()).toMatch(
      /no tools\.py: its \d+ tools come from MCP servers/,
    );
    // The sandbox list counts the tools the view shows (not "0 tools" until a refresh).
    await expect.poll(() => page.locator('button[data-sandbox="notes"]').innerText()).toMatch(/\b9 tools\b/);
    await w.screenshot('tools-mcp-only');
    expect(w.pageErrors).toEqual([]);
  });

  it('a server that cannot start shows its error in the view, not a hang', async () => {
    const { page } = w;
    await page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: 'Connections' }).click();
    await page.getByRole('button', { name: 'Add server' }).click();
    const form = page.locator('form[aria-label="MCP server"]');
    await form.locator('input[name="name"]').fill('broken');
    await form.locator('input[name="command"]').fill('/nonexistent/mcp-server');
    await form.locator('input[name="timeout"]').fill('2000');
    await form.locator('input[name="startup-timeout"]').fill('3000');
    await form.getByRole('button', { name: 'Save server' }).click();
    const err = page.locator('[data-testid="mcp-detail"][data-server="broken"] [data-testid="mcp-error"]');
    await err.waitFor({ timeout: POLL_MS });
    expect(await err.innerText()).toMatch(/MCP server broken .*failed to start/);
    await w.screenshot('connections-error');
    // Its start limit was saved with it: the edit form reads it back from the workspace.
    await page
      .getByRole('row', { name: /broken/ })
      .getByRole('button', { name: 'Edit' })
      .click();
    await expect.poll(() => form.locator('input[name="startup-timeout"]').inputValue()).toBe('3000');
    expect(await form.locator('input[name="timeout"]').inputValue()).toBe('2000');
  });
});
