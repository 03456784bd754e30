/**
 * An MCP-only sandbox counts its tools the same in the CLI's `sandboxes` as in the workbench's
 * `sandboxes.list` (every tool a script can call, tools.py's and the MCP servers'), with the servers named.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { Response } from '../../../src-main/contract/api.ts';
import { mcpWorkspace } from '../../support/mcp-workspace.ts';
import type { McpWorkspace } from '../../support/mcp-workspace.ts';
import { removeWorkspace } from '../../support/workspace.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';

let w: McpWorkspace;
let svc: ToolsmithService;

const cli = (args: string[]) => runToolsmith(w.ws, args, { TOOLSMITH_CACHE_DIR: join(w.ws, '.cache') });

beforeAll(() => {
  w = mcpWorkspace({ timeoutMs: 20_000 });
  svc = ToolsmithService.open(w.ws);
});
afterAll(async () => {
  await svc?.close();
  removeWorkspace(w.ws);
});

describe('tool counts of an MCP-only sandbox', () => {
  it('the CLI connects the servers and counts what the workbench counts', async () => {
    expect(await svc.prepareMcp('kg')).toEqual([]);
    const listed = await dispatch(svc, 'sandboxes.list', {});
    if (!listed.ok) throw new Error(listed.error.message);
    const kg = (listed.value as Response<'sandboxes.list'>).find((s) => s.name === 'kg');
    expect(kg?.tools).toBeGreaterThan(5);
    expect(kg?.fromMcp).toBe(kg?.tools); // no tools.py: every tool is an MCP server's
    expect(kg?.mcpServers).toEqual(['memory', 'files', 'everything']);

    const r = await cli(['sandboxes', '--json']);
    expect(r.code).toBe(0);
    const cliKg = (JSON.parse(r.out) as { sandboxes: Response<'sandboxes.list'> }).sandboxes.find(
      (s) => s.name === 'kg',
    );
    expect(cliKg?.tools).toBe(kg?.tools);
    expect(cliKg?.fromMcp).toBe(kg?.fromMcp);
    const text = await cli(['sandboxes']);
    expect(text.out).toMatch(
      new RegExp(`kg\\s+${kg?.tools} tools \\(${kg?.tools} from MCP: memory, files, everything\\)`),
    );
  }, 180_000);
});
