/**
 * `toolsmith mcp` while one upstream MCP server is down: its look-ups (`list_tools`, `search_tools`,
 * `describe_tool`) used to try the unreachable server again each time and wait out its whole timeout,
 * so every look-up of an agent was slow (and started the server's command again) while one upstream
 * was down. The server's failed connect is now remembered (a backoff): a look-up answers at once with
 * the server named as unavailable, since when and why, and the server is tried again in the background,
 * its tools coming back (notifications/tools/list_changed) when it answers.
 *
 * Real processes: the CLI's MCP server over stdio with the SDK client, and the faulty test server
 * behind `test/fixtures/mcp/down-then-up.mjs` (down while a file exists: silent, or exiting at once; each
 * start a line in a log).
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../../support/mcp-stdio.ts';
import { counterServerToml, nodeBin } from '../../support/mcp-workspace.ts';
import { repoRoot } from '../../support/workspace.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const q = (s: string) => JSON.stringify(s);
const downThenUp = join(repoRoot, 'test/fixtures/mcp/down-then-up.mjs');
const dir = mkdtempSync(join(tmpdir(), 'toolsmith-upstream-backoff-'));
const cleanups: (() => Promise<void> | void)[] = [];

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
});

type Text = { type: string; text: string };
type Down = { server: string; error: string; since?: string; retry_at?: string };
const texts = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Text[]).map((c) => c.text);

/**
 * A workspace whose sandbox `flaky` has the faulty server `flaky` (down while `downFile` exists) beside
 * the always-up `counter`; the MCP server started with `TOOLSMITH_MCP_RETRY_MS=retryMs`.
 */
async function start(tag: string, retryMs: number, mode: 'silent' | 'exit') {
  const downFile = join(dir, `${tag}.down`);
  const spawnLog = join(dir, `${tag}.spawns`);
  writeFileSync(downFile, '');
  writeFileSync(spawnLog, '');
  const ws = tempWorkspace(`toolsmith-upstream-backoff-${tag}-`);
  appendFileSync(
    join(ws, '.toolsmith/config.toml'),
    `${counterServerToml()}
[mcp_servers.flaky]
command = ${q(nodeBin)}
args = [${q(downThenUp)}, ${q(spawnLog)}, ${q(downFile)}, "${mode}"]
timeout_ms = 20000
startup_timeout_ms = ${mode === 'silent' ? 5000 : 60000}

[sandboxes.flaky]
description = "One server that answers, one that is down for a while."
[sandboxes.flaky.mcp.counter]
[sandboxes.flaky.mcp.flaky]
`,
  );
  const spawns = () =>
    readFileSync(spawnLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ')[0]);
  // The second server's `count` is renamed in the sandbox (the first has one too): flaky_count.
  const client = await connectMcp(ws, `upstream-backoff-${tag}`, {
    ...process.env,
    TOOLSMITH_MCP_RETRY_MS: String(retryMs),
  });
  // Whether a list_changed came after the server's start that answered (`up` in the log).
  let listChangedSinceUp = false;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    if (spawns().includes('up')) listChangedSinceUp = true;
  });
  cleanups.push(async () => {
    await client.close();
    removeWorkspace(ws);
  });
  return { client, downFile, spawns, listChangedSinceUp: () => listChangedSinceUp };
}

const listTools = async (client: Client) => {
  const r = await client.callTool({ name: 'list_tools', arguments: { sandbox: 'flaky' } });
  expect(r.isError).toBeFalsy();
  const s = r.structuredContent as {
    tools: { function?: { name: string }; name?: string }[];
    unavailable?: Down[];
  };
  const names = (JSON.parse(texts(r)[0] ?? '[]') as { function?: { name: string }; name?: string }[]).map(
    (t) => t.function?.name ?? t.name ?? '',
  );
  return { names, unavailable: s.unavailable ?? [], note: texts(r)[1] ?? '' };
};

describe('look-ups while an upstream MCP server is down', () => {
  it('answers from the remembered failure: the server is started once within the backoff, named with since when and why', async () => {
    // A backoff far longer than the test: nothing may try the server again meanwhile.
    const s = await start('once', 600_000, 'silent');
    const first = await listTools(s.client);
    expect(first.names).toContain('count');
    expect(first.unavailable.map((u) => u.server)).toEqual(['flaky']);
    expect(first.unavailable[0]?.error).toContain(
      'MCP server flaky did not answer initialize within 5000 ms',
    );
    expect(s.spawns()).toEqual(['down']);

    // Every later look-up answers from what was remembered, and the server's command is not started
    // again (before: once more per look-up, each waiting its 5 s).
    const again = await listTools(s.client);
    const search = await s.client.callTool({
      name: 'search_tools',
      arguments: { sandbox: 'flaky', query: 'how many calls' },
    });
    const describeTool = await s.client.callTool({
      name: 'describe_tool',
      arguments: { sandbox: 'flaky', name: 'flaky_count' },
    });
    expect(s.spawns()).toEqual(['down']);

    // Each names it with the same cause, since when, and when it is tried again.
    const down = first.unavailable[0]!;
    expect(Date.parse(down.since ?? '')).not.toBeNaN();
    expect(Date.parse(down.retry_at ?? '') - Date.parse(down.since ?? '')).toBeGreaterThanOrEqual(600_000);
    expect(again.unavailable).toEqual([down]);
    expect(again.note).toContain(
      `- flaky: ${down.error} (unavailable since ${down.since}; tried again at ${down.retry_at})`,
    );
    expect((search.structuredContent as { unavailable?: Down[] }).unavailable).toEqual([down]);
    expect(describeTool.isError).toBe(true);
    expect(texts(describeTool)[0]).toContain(`unavailable since ${down.since}`);
  }, 120_000);

  it('tries the server again in the background after the backoff, and its tools come back with list_changed', async () => {
    const s = await start('back', 1_000, 'exit');
    const first = await listTools(s.client);
    expect(first.unavailable.map((u) => u.server)).toEqual(['flaky']);
    const since = first.unavailable[0]!.since;
    expect(since).toBeDefined();

    // The server comes back. No look-up is made: the background try must start it by itself.
    rmSync(s.downFile);
    while (!s.spawns().includes('up')) await new Promise((r) => setTimeout(r, 100));
    // Its tools come back, and the client is told (the manual follows the connection): a list_changed
    // heard after the server's start that answered.
    let now = await listTools(s.client);
    while (now.unavailable.length > 0 || !s.listChangedSinceUp()) {
      await new Promise((r) => setTimeout(r, 100));
      now = await listTools(s.client);
    }
    expect(now.names).toEqual(expect.arrayContaining(['count', 'flaky_count']));
    expect(now.note).toBe('');
    // No look-up started it: the one start that answered was the background try's.
    expect(s.spawns().filter((x) => x === 'up')).toEqual(['up']);
    expect(existsSync(s.downFile)).toBe(false);
  }, 120_000);

  it('a server that failed without being tried (an env: variable not set) is not said to be tried in the background', async () => {
    // Not remembered (nothing was tried; the next use sees a fix at once): no since, no retry_at, and
    // nothing tries it in the background, so the note may not say it does.
    const ws = tempWorkspace('toolsmith-upstream-backoff-nokey-');
    appendFileSync(
      join(ws, '.toolsmith/config.toml'),
      `${counterServerToml()}
[mcp_servers.needskey]
url = "http://127.0.0.1:9/mcp"
headers = { Authorization = "env:TOOLSMITH_TEST_NEVER_SET_KEY" }

[sandboxes.flaky]
description = "One server that answers, one whose key is not set."
[sandboxes.flaky.mcp.counter]
[sandboxes.flaky.mcp.needskey]
`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env, TOOLSMITH_MCP_RETRY_MS: '1000' };
    delete env['TOOLSMITH_TEST_NEVER_SET_KEY'];
    const client = await connectMcp(ws, 'upstream-backoff-nokey', env);
    cleanups.push(async () => {
      await client.close();
      removeWorkspace(ws);
    });
    const r = await listTools(client);
    expect(r.unavailable).toHaveLength(1);
    const [u] = r.unavailable;
    expect(u?.server).toBe('needskey');
    expect(u?.error).toContain('TOOLSMITH_TEST_NEVER_SET_KEY');
    expect(u?.since).toBeUndefined();
    expect(r.note).not.toContain('in the background');
    expect(r.note).toContain(`- needskey: ${u?.error} (tried again by the next look-up or call)`);
  }, 120_000);
});
