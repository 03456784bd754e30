/**
 * `exec` on a sandbox whose MCP selection names a tool its server lacks (a typo in `tools = [...]`) says so
 * on stderr, as `run`, `tool call` and `tool list` do. Since 64337a26 (a server that is down said once,
 * in exec's result) exec skipped the MCP preparation whole, and the typo's line with it, though the server
 * was up.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { nodeBin, runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';

describe(
  'exec and an MCP selection that names a tool its server lacks',
  { timeout: STARTS_PROCESSES_MS },
  () => {
    const ws = tempWorkspace();
    afterAll(() => removeWorkspace(ws));
    const raw = join(repoRoot, 'test/fixtures/mcp/raw-server.mjs');
    appendFileSync(
      join(ws, '.toolsmith/config.toml'),
      `\n[mcp_servers.raw]\ncommand = ${JSON.stringify(nodeBin)}\nargs = [${JSON.stringify(raw)}]\n\n[sandboxes.ecommerce.mcp.raw]\ntools = ["stormm", "lists"]\n`,
    );
    // (rejected before it runs: no sandbox starts)
    const script = join(ws, 'typo.py');
    writeFileSync(script, 'emit_result(no_such_tool())\n');
    const typo = 'toolsmith: sandboxes.ecommerce.mcp: server raw has no tool stormm; it has: storm, lists\n';

    it('exec says the typo once, as tool call does', async () => {
      const x = await runToolsmith(ws, ['exec', script, '--sandbox', 'ecommerce']);
      expect(x.code).toBe(1);
      expect(x.err.split(typo)).toHaveLength(2);
      const call = await runToolsmith(ws, [
        'tool',
        'call',
        'get_user',
        '--sandbox',
        'ecommerce',
        '--args',
        '{}',
      ]);
      expect(call.err.split(typo)).toHaveLength(2);
    });
  },
);
