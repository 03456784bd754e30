/**
 * The Suites view on a sandbox whose tools come from an upstream MCP server (the faulty test server's
 * `count`, over stdio), in Chromium against the browser front end, the scripted LLM server and real
 * containers: the suite's `tool_called` assertion on the MCP tool is no problem (it read "no tool count",
 * Start disabled: the check ran before the sandbox's servers were connected), the suite runs and passes
 * with the MCP tool; a suite whose server cannot start shows the server and why on its sandbox line.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMcpSandboxes, MISSING_MCP_COMMAND } from '../support/mcp-workspace.ts';
import { fence, taskOf } from '../support/suite-oracle.ts';
import { startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';

let w: E2eWorld;
const missing = MISSING_MCP_COMMAND;
const suite = (sandbox: string) => `description = "MCP-backed"
sandbox = "${sandbox}"
models = ["local:good"]

[[cases]]
id = "count-once"
task = "Count once."

[[cases.assert]]
type = "tool_called"
tool = "count"
`;

beforeAll(async () => {
  w = await startWorld((ws) => {
    addMcpSandboxes(ws);
    mkdirSync(join(ws, 'suites'), { recursive: true });
    writeFileSync(join(ws, 'suites/counter.toml'), suite('counter'));
    writeFileSync(join(ws, 'suites/down.toml'), suite('down'));
  });
});
afterAll(async () => {
  await w?.close();
});

describe('the Suites view on an MCP-backed sandbox', () => {
  it('checks and runs the suite with the MCP tool; an unreachable server is named with why', async () => {
    const { page, llm } = w;
    llm.responder = (req) =>
      taskOf(req) === 'Count once.' ? fence('emit_result(count(step=1).data)') : undefined;
    await page.getByRole('button', { name: 'Suites' }).first().click();
    await expect.poll(() => page.locator('.suite-list').innerText()).toContain('counter');
    await page.getByRole('button', { name: /^counter/ }).click();
    await expect.poll(() => page.locator('.suite-detail h2').innerText()).toBe('counter');
    const problems = page.locator('[data-testid="suite-problems"]');
    await expect.poll(() => problems.innerText()).toBe('');
    await expect.poll(() => page.getByRole('button', { name: 'Start suite' }).isDisabled()).toBe(false);
    await page.getByRole('button', { name: 'Start suite' }).click();
    const progress = page.locator('[data-testid="suite-progress"]');
    await expect.poll(() => progress.getAttribute('data-status'), { timeout: 120_000 }).toBe('passed');
    await expect
      .poll(() => page.locator('[data-testid="cell-count-once-local:good"]').innerText())
      .toContain('✓ 1/1');
    // One LLM call: the prompt had the MCP tool, the script validated and ran.
    expect(llm.requests).toHaveLength(1);
    await w.screenshot('suites-mcp-passed');

    await page.getByRole('button', { name: /^down/ }).click();
    await expect.poll(() => page.locator('.suite-detail h2').innerText()).toBe('down');
    await expect.poll(() => problems.innerText()).toMatch(/line 2:1.*MCP server gone: /s);
    expect(await problems.innerText()).toContain(missing);
    expect(await problems.innerText()).not.toMatch(/no tool count/);
    expect(await page.getByRole('button', { name: 'Start suite' }).isDisabled()).toBe(true);
    expect(llm.requests).toHaveLength(1);
    expect(w.pageErrors).toEqual([]);
  });
});
