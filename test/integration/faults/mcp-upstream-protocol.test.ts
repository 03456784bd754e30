/**
 * An upstream MCP server that speaks the protocol oddly, from a hand-written server on stdio (what the
 * SDK's own server never does): a protocol version no client speaks is named with the versions
 * Toolsmith's client speaks and what to do, and a storm of `notifications/tools/list_changed` costs a
 * few listings, not one `tools/list` request (and one rebuild of every registry) per notification,
 * while the tool list still ends up current. A server whose process exits (before it answers, or during a
 * call) is said to have exited, with its code, not "MCP error -32000: Connection closed".
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpManager } from '../../../src-main/infra/mcp/manager.ts';
import { mcpServerSchema } from '../../../src-main/app/config.ts';
import { nodeBin } from '../../support/mcp-workspace.ts';
import { repoRoot } from '../../support/workspace.ts';
import { knownSecrets } from '../../../src-main/core/records/redact.ts';

const rawServer = join(repoRoot, 'test/fixtures/mcp/raw-server.mjs');
const managers: McpManager[] = [];
const manager = (args: string[] = []) => {
  const m = new McpManager({
    raw: mcpServerSchema.parse({ command: nodeBin, args: [rawServer, ...args], timeout_ms: 30_000 }),
  });
  managers.push(m);
  return m;
};
afterEach(() => Promise.all(managers.splice(0).map((m) => m.close())));
const served = async (m: McpManager) => {
  const [first] = (await m.callTool('raw', 'lists', {})).content as { text: string }[];
  return (JSON.parse(first!.text) as { lists: number }).lists;
};

describe('an upstream MCP server that speaks the protocol oddly', () => {
  it('a protocol version no client speaks: the error names it, the versions spoken and what to do', async () => {
    const m = manager(['--version', '2099-01-01']);
    const e = (await m.listTools('raw').catch((x: unknown) => x)) as Error;
    // Before: "... failed to start: Server's protocol version is not supported: 2099-01-01".
    expect(e.message).toMatch(
      /^MCP server raw \(.*raw-server\.mjs --version 2099-01-01\) failed to start: it answered initialize with MCP protocol version "2099-01-01", which Toolsmith's MCP client does not speak \(it speaks 2025-\d\d-\d\d, .*2024-11-05.*\); run a version of the server that speaks one of these, or a Toolsmith that speaks "2099-01-01"$/,
    );
    expect(m.status('raw')).toMatchObject({ state: 'error', error: e.message });
  }, 60_000);

  it('a process that exits before it answers initialize: its exit code and its stderr, not "Connection closed"', async () => {
    const m = manager(['--exit-at-start']);
    const e = (await m.listTools('raw').catch((x: unknown) => x)) as Error;
    // Before: "... failed to start: MCP error -32000: Connection closed (stderr: ...)".
    expect(e.message).toMatch(
      /^MCP server raw \(.*raw-server\.mjs --exit-at-start\) failed to start: the server's process exited with code 1 before it answered initialize \(stderr: fatal: environment variable RAW_API_KEY is not set\)$/,
    );
  }, 60_000);

  it('a process that answers initialize, then exits at tools/list: said as such, not "before it answered initialize"', async () => {
    const m = manager(['--exit-at-list']);
    const e = (await m.listTools('raw').catch((x: unknown) => x)) as Error;
    expect(e.message).toMatch(
      /^MCP server raw \(.*raw-server\.mjs --exit-at-list\) failed to start: the server's process exited with code 2 after it answered initialize, before it answered tools\/list \(stderr: fatal: no tools configured\)$/,
    );
  }, 60_000);

  it('a secret the process printed where its stderr is cut at 500 characters is not shown in part', async () => {
    const secret = 'ghp_0123456789abcdefghijklmnopqrstuv';
    knownSecrets.add(secret);
    const m = new McpManager({
      raw: mcpServerSchema.parse({
        command: nodeBin,
        // (its token printed from its environment, at the 500th character of what is kept)
        args: ['-e', 'process.stderr.write("word ".repeat(98) + "token " + process.env.T); process.exit(1)'],
        env: { T: secret },
        timeout_ms: 30_000,
      }),
    });
    managers.push(m);
    const e = (await m.listTools('raw').catch((x: unknown) => x)) as Error;
    expect(e.message).toContain(`(stderr: ${'word '.repeat(98)}token…)`);
    expect(knownSecrets.text(e.message)).not.toContain(secret.slice(0, 4));
  }, 60_000);

  it('a process that exits during a call: the call and the status say it exited, with its code', async () => {
    const m = manager(['--exit-tool']);
    expect((await m.listTools('raw')).map((t) => t.name)).toContain('exit');
    const e = (await m.callTool('raw', 'exit', {}).catch((x: unknown) => x)) as Error;
    // Before: "... went away during exit: the server closed the connection (stderr: ...)".
    expect(e.message).toBe(
      "MCP server raw went away during exit: the server's process exited with code 3 (stderr: panic: nil pointer dereference in exit) (it is restarted on the next call)",
    );
    // Closed by Toolsmith, a process's end is not said to be its own: the next call starts it again.
    expect(await served(m)).toBe(1);
    expect(m.status('raw')).toMatchObject({ state: 'connected' });
    expect(m.status('raw').error).toBeUndefined();
    // Every status the close goes through, and the one after it: none says the server failed. (Before,
    // this was `error ?? ''` not matching /exited/, which nothing the close could say ever matched:
    // closed by Toolsmith, the end's words are "the server closed the connection".)
    const seen: (string | undefined)[] = [];
    m.subscribe(() => seen.push(m.status('raw').error));
    await m.close();
    expect([...seen, m.status('raw').error].filter((e) => e !== undefined)).toEqual([]);
  }, 60_000);

  it('2000 list_changed notifications at once: a few listings, not 2000; the list ends up current', async () => {
    const m = manager();
    expect((await m.listTools('raw')).map((t) => t.name)).toEqual(['storm', 'lists']);
    let changes = 0;
    m.subscribe(() => changes++);
    await m.callTool('raw', 'storm', {});
    await vi.waitFor(() => expect(m.cachedTools('raw')?.map((t) => t.name)).toContain('added'), {
      timeout: 30_000,
    });
    // Every notification precedes the storm's answer, so the listings they caused are all asked by
    // now: the first listing, one for those that came while it ran (before: one per notification).
    const lists = await served(m);
    expect(lists).toBeGreaterThanOrEqual(2);
    expect(lists).toBeLessThanOrEqual(3);
    expect(changes).toBeLessThanOrEqual(3);
    expect(m.status('raw')).toMatchObject({ state: 'connected', tools: 3 });
  }, 60_000);
});
