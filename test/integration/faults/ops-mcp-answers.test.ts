/**
 * What an upstream MCP server sends is untrusted: garbage on its output is reported as garbage (not as
 * a timeout), and an answer of the wrong shape is said in one line (not a raw schema-issue dump).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { McpManager } from '../../../src-main/infra/mcp/manager.ts';
import { mcpServerSchema } from '../../../src-main/app/config.ts';
import { faultyServer, nodeBin } from '../../support/mcp-workspace.ts';

const mgr = new McpManager({
  faulty: mcpServerSchema.parse({ command: nodeBin, args: [faultyServer], timeout_ms: 3000 }),
});
afterAll(() => mgr.close());

describe('an MCP server that answers badly', () => {
  it('garbage on its output is named as such, with what it sent', async () => {
    await expect(mgr.callTool('faulty', 'garbage', {})).rejects.toThrow(
      /MCP server faulty sent output that is not MCP \(JSON-RPC\) instead of answering garbage: .*/,
    );
  }, 30_000);

  it('an answer of the wrong shape is said in words', async () => {
    const e = (await mgr.callTool('faulty', 'wrongshape', {}).catch((x: unknown) => x)) as Error;
    expect(e.message).toMatch(
      /^MCP server faulty answered wrongshape with an answer of the wrong shape: content/,
    );
    expect(e.message).not.toMatch(/"code":|\[\s*\{/);
  }, 30_000);
});
