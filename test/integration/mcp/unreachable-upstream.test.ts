/**
 * `toolsmith mcp`'s look-ups (`list_tools`, `search_tools`, `describe_tool`) over a sandbox one of whose
 * upstream MCP servers cannot be reached (one never answers, one cannot start): the answer names each
 * missing server with the cause `toolsmith mcp-servers test` prints, instead of listing the sandbox's
 * other tools as if that were all of them. The first text item of `list_tools` stays the bare list.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../../support/mcp-stdio.ts';
import {
  counterServerToml,
  faultyServer,
  MISSING_MCP_COMMAND,
  nodeBin,
} from '../../support/mcp-workspace.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const q = (s: string) => JSON.stringify(s);
let ws: string;
let client: Client;

beforeAll(async () => {
  ws = tempWorkspace('toolsmith-unreachable-upstream-');
  appendFileSync(
    join(ws, '.toolsmith/config.toml'),
    `${counterServerToml()}
[mcp_servers.silent]
command = ${q(nodeBin)}
args = [${q(faultyServer)}, "--silent"]
timeout_ms = 1500

[mcp_servers.gone]
command = ${q(MISSING_MCP_COMMAND)}
timeout_ms = 5000

[sandboxes.mixed]
description = "One server that answers, one that never does, one that cannot start."
[sandboxes.mixed.mcp.counter]
[sandboxes.mixed.mcp.silent]
[sandboxes.mixed.mcp.gone]
`,
  );
  client = await connectMcp(ws, 'unreachable-upstream-test');
}, 120_000);

afterAll(async () => {
  await client?.close();
  removeWorkspace(ws);
});

type Text = { type: string; text: string };
const texts = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Text[]).map((c) => c.text);

/** What `toolsmith mcp-servers test NAME` prints as the cause (its stderr, without the prefix). */
async function cliCause(name: string): Promise<string> {
  const r = await runToolsmith(ws, ['mcp-servers', 'test', name]);
  expect(r.code).toBe(1);
  return r.err.replace(/^toolsmith: /, '').trim();
}

describe('look-ups over a sandbox with unreachable upstream MCP servers', () => {
  it('list_tools lists the tools it has and names each missing server with its cause', async () => {
    const r = await client.callTool({ name: 'list_tools', arguments: { sandbox: 'mixed' } });
    expect(r.isError).toBeFalsy();
    const [list, note] = texts(r);
    // The first text is still the bare list clients parse.
    const tools = JSON.parse(list ?? '') as { name: string }[];
    expect(tools.map((t) => t.name)).toContain('count');
    expect(note).toMatch(/MCP servers of sandbox mixed that could not be reached/);
    const unavailable = (r.structuredContent as { unavailable?: { server: string; error: string }[] })
      .unavailable;
    expect(unavailable?.map((u) => u.server).sort()).toEqual(['gone', 'silent']);
    // The same cause the CLI gives for each server, in the text and in the structured answer.
    for (const server of ['silent', 'gone']) {
      const cause = await cliCause(server);
      expect(cause).not.toBe('');
      expect(unavailable?.find((u) => u.server === server)?.error).toBe(cause);
      expect(note).toContain(`- ${server}: ${cause}`);
    }
    expect(note).toMatch(/- gone: .*toolsmith-no-such-mcp-server/);
    expect(note).toMatch(/- silent: .*1500/);
  }, 120_000);

  it('search_tools says which servers its ranking could not search', async () => {
    const r = await client.callTool({
      name: 'search_tools',
      arguments: { sandbox: 'mixed', query: 'how many calls' },
    });
    expect(r.isError).toBeFalsy();
    const answer = JSON.parse(texts(r)[0] ?? '') as {
      tools: { name: string }[];
      unavailable?: { server: string }[];
    };
    expect(answer.tools.map((t) => t.name)).toContain('count');
    expect(answer.unavailable?.map((u) => u.server).sort()).toEqual(['gone', 'silent']);
    expect(r.structuredContent).toEqual(answer);
  }, 120_000);

  it('describe_tool of a tool it cannot find names the servers that could not be reached', async () => {
    const r = await client.callTool({
      name: 'describe_tool',
      arguments: { sandbox: 'mixed', name: 'whisper' },
    });
    expect(r.isError).toBe(true);
    const answer = JSON.parse(texts(r)[0] ?? '') as { error: string; code: string };
    expect(answer.code).toBe('not_found');
    expect(answer.error).toMatch(/no tool whisper in sandbox mixed/);
    expect(answer.error).toMatch(/- silent: /);
    expect(answer.error).toMatch(/- gone: .*toolsmith-no-such-mcp-server/);
  }, 120_000);
});
