/**
 * The `code` tool's manual follows the upstream MCP servers: the server answers before a slow upstream
 * has connected (its wait set to 0), the manual then says that server is still connecting and names the
 * one that failed with its reason; once the slow one connects, the client gets
 * notifications/tools/list_changed and the listed manual holds its tools. A tool added to a sandbox's
 * tools.py while the server runs does the same (the server follows hand edits: app/watch.ts).
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { POLL_MS } from '../../support/budgets.ts';
import { nodeBin } from '../../support/mcp-workspace.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';
import { mcpStdio } from '../../support/mcp-stdio.ts';

const upstream = join(repoRoot, 'test/integration/mcp/support/upstream-server.mjs');
const q = (s: string) => JSON.stringify(s);
let ws: string;
let client: Client;
let changes = 0;

beforeAll(async () => {
  ws = tempWorkspace('toolsmith-code-manual-');
  appendFileSync(
    join(ws, '.toolsmith/config.toml'),
    `
[mcp_servers.slow]
command = ${q(nodeBin)}
args = [${q(upstream)}, "--delay", "4000", "--tools", "2"]
timeout_ms = 30000

[mcp_servers.broken]
command = ${q(nodeBin)}
args = ["-e", "console.error('cannot open the database'); process.exit(3)"]
timeout_ms = 30000

[sandboxes.later]
description = "Tools from a server that starts slowly."
[sandboxes.later.mcp.slow]

[sandboxes.down]
description = "Tools from a server that fails."
[sandboxes.down.mcp.broken]
`,
  );
  client = new Client({ name: 'manual-test', version: '1.0.0' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
  await client.connect(mcpStdio(ws, { ...process.env, TOOLSMITH_MCP_UPSTREAM_WAIT_MS: '0' }));
}, 120_000);

afterAll(async () => {
  await client?.close();
  removeWorkspace(ws);
});

const codeManual = async () =>
  (await client.listTools()).tools.find((t) => t.name === 'code')?.description ?? '';

describe('the code manual as upstream servers connect', () => {
  it('says which server is still connecting and which failed, then lists the late tools after list_changed', async () => {
    const first = await codeManual();
    expect(first).toMatch(/slow \(sandbox later\): still connecting/);
    expect(first).not.toMatch(/tool_0/);
    // The failing server is reported with its reason once it has failed.
    const manual = await vi.waitFor(
      async () => {
        const m = await codeManual();
        expect(m).toMatch(/tool_0/);
        expect(m).toMatch(/broken \(sandbox down\): failed/);
        return m;
      },
      { timeout: POLL_MS, interval: 200 },
    );
    expect(manual).toMatch(/broken \(sandbox down\): failed: .*cannot open the database/);
    expect(manual).toMatch(/tool_0\(/);
    expect(manual).not.toMatch(/still connecting/);
    expect(changes).toBeGreaterThan(0);
  }, 90_000);

  it('a tool added to tools.py while the server runs: list_changed, and the manual shows it', async () => {
    const before = changes;
    expect(await codeManual()).not.toMatch(/count_orders/);
    appendFileSync(
      join(ws, 'sandboxes/ecommerce/tools.py'),
      `

@tool(grade=(1, 0))
def count_orders() -> ToolResponse:
    """Count the orders in the store."""
    return ToolResponse(success=True, data=len(ORDERS))
`,
    );
    await vi.waitFor(() => expect(changes).toBeGreaterThan(before), { timeout: POLL_MS, interval: 100 });
    expect(await codeManual()).toMatch(/count_orders\(\)/);
  }, 90_000);
});
