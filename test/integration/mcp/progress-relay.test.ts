/**
 * Progress an upstream MCP server reports during a tool call reaches the outer client of Toolsmith's
 * server: a real SDK server (support/upstream-server.mjs, its `slow_progress` tool reporting `step I`
 * of the total every 100 ms) behind a sandbox, `toolsmith mcp` over stdio, and the SDK client asking
 * for progress (`onprogress`). Through a recorded `code` script (Python and JS, in real containers), the
 * flat `execute_code` and `delegate` (its script from a loopback LLM server; in INTERACTIVE mode its
 * lines count steps); a client that sends no progress token is sent none.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { answersAfterProgress } from '../../../src-main/infra/mcp/manager.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { nodeBin } from '../../support/mcp-workspace.ts';
import { removeWorkspace, replaceProviders, repoRoot, tempWorkspace } from '../../support/workspace.ts';
import { mcpStdio } from '../../support/mcp-stdio.ts';

const upstream = join(repoRoot, 'test/integration/mcp/support/upstream-server.mjs');
const q = (s: string) => JSON.stringify(s);
let ws: string;
let client: Client;
let llm: LlmServer;

beforeAll(async () => {
  llm = await startLlmServer();
  ws = tempWorkspace('toolsmith-progress-relay-');
  // `delegate` asks a real loopback LLM server that answers scripted scripts.
  const config = join(ws, '.toolsmith/config.toml');
  writeFileSync(
    config,
    replaceProviders(
      readFileSync(config, 'utf8'),
      `[[providers]]\nid = "scripted"\nkind = "openai"\nbase_url = "${llm.openaiUrl}"\nmodel = "scripted-model"\n`,
    ),
  );
  appendFileSync(
    join(ws, '.toolsmith/config.toml'),
    `
[mcp_servers.slow]
command = ${q(nodeBin)}
args = [${q(upstream)}, "--tools", "1"]
timeout_ms = 30000

[sandboxes.slowbox]
description = "Tools from a server that reports progress."
[sandboxes.slowbox.mcp.slow]
`,
  );
  client = new Client({ name: 'progress-relay-test', version: '1.0.0' });
  const transport = mcpStdio(ws);
  await client.connect(transport);
  // The SDK client forgets a call's progress handler as soon as it reads the answer, but hands progress
  // to it a few microtasks after reading it: when the server's last reports and its answer reach a loaded
  // client in one read, they were lost here, not in the server (which sends them before the answer). The
  // client reads answers after what came before them, as Toolsmith's own MCP client does.
  answersAfterProgress(transport);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await llm?.close();
  removeWorkspace(ws);
});

const textOf = (r: Awaited<ReturnType<Client['callTool']>>) =>
  (r.content as { type: string; text?: string }[]).find((c) => c.type === 'text')?.text ?? '';

/** The upstream's own reports, relayed: `slow_progress: step I (I/N)`, in order. */
const relayed = (heard: Progress[]) =>
  heard.map((p) => p.message ?? '').filter((m) => m.startsWith('slow_progress: step'));

describe('progress from an upstream MCP server, relayed to the client', () => {
  it('a Python code script: every report of the upstream call reaches the client, then the call itself', async () => {
    const heard: Progress[] = [];
    const r = await client.callTool(
      {
        name: 'code',
        arguments: {
          sandbox: 'slowbox',
          code: 'r = slow_progress(ms=500)\nemit_result(r.data)',
        },
      },
      undefined,
      { timeout: 240_000, onprogress: (p) => heard.push(p) },
    );
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(JSON.parse(textOf(r))).toMatchObject({ status: 'succeeded', result: { steps: 5 } });
    expect(relayed(heard)).toEqual([1, 2, 3, 4, 5].map((i) => `slow_progress: step ${i} (${i}/5)`));
    // The relayed reports come before the call's own line, and the outer count only grows.
    expect(heard.at(-1)?.message).toMatch(/^slow_progress: ok \(/);
    const counts = heard.map((p) => p.progress);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(new Set(counts).size).toBe(counts.length);
  }, 240_000);

  it('a JS code script relays them the same way', async () => {
    const heard: Progress[] = [];
    const r = await client.callTool(
      {
        name: 'code',
        arguments: {
          sandbox: 'slowbox',
          language: 'js',
          code: 'const r = await slow_progress({ ms: 300 });\nemitResult(r.data);',
        },
      },
      undefined,
      { timeout: 240_000, onprogress: (p) => heard.push(p) },
    );
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(relayed(heard)).toEqual([1, 2, 3].map((i) => `slow_progress: step ${i} (${i}/3)`));
  }, 240_000);

  it('execute_code relays them too', async () => {
    const heard: Progress[] = [];
    const r = await client.callTool(
      {
        name: 'execute_code',
        arguments: { sandbox: 'slowbox', runtime: 'python', code: 'emit_result(slow_progress(ms=300).data)' },
      },
      undefined,
      { timeout: 240_000, onprogress: (p) => heard.push(p) },
    );
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(relayed(heard)).toEqual([1, 2, 3].map((i) => `slow_progress: step ${i} (${i}/3)`));
    expect(heard.at(-1)?.message).toBe('slow_progress: ok');
  }, 240_000);

  it('delegate relays them, prefixed with the attempt', async () => {
    llm.push('```python\nr = slow_progress(ms=300)\nemit_result(r.data["steps"])\n```');
    const heard: Progress[] = [];
    const r = await client.callTool(
      { name: 'delegate', arguments: { sandbox: 'slowbox', task: 'run the slow tool for a moment' } },
      undefined,
      { timeout: 240_000, onprogress: (p) => heard.push(p) },
    );
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(JSON.parse(textOf(r))).toMatchObject({ status: 'succeeded', result: 3 });
    expect(heard.map((p) => p.message).filter((m) => m?.includes('slow_progress'))).toEqual(
      [1, 2, 3].map((i) => `attempt 1: slow_progress: step ${i} (${i}/3)`),
    );
  }, 240_000);

  it('delegate in INTERACTIVE mode tells each step as a step, not an attempt', async () => {
    llm.push(
      '```python\nr = slow_progress(ms=300)\nemit_intermediate(r.data["steps"])\n```',
      '```python\nemit_result(collected[0])\n```',
    );
    const heard: Progress[] = [];
    const r = await client.callTool(
      {
        name: 'delegate',
        arguments: { sandbox: 'slowbox', task: 'run the slow tool step by step', mode: 'interactive' },
      },
      undefined,
      { timeout: 240_000, onprogress: (p) => heard.push(p) },
    );
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(JSON.parse(textOf(r))).toMatchObject({ status: 'succeeded', result: 3 });
    const messages = heard.map((p) => p.message ?? '');
    expect(messages.filter((m) => /^step \d+: llm\b/.test(m))).toEqual([
      'step 1: llm (scripted)',
      'step 2: llm (scripted)',
    ]);
    expect(messages.filter((m) => m.includes('slow_progress'))).toEqual(
      [1, 2, 3].map((i) => `step 1: slow_progress: step ${i} (${i}/3)`),
    );
    expect(messages.filter((m) => m.startsWith('attempt'))).toEqual([]);
  }, 240_000);

  it('a client that asks for no progress is sent none, and the call still answers', async () => {
    // Without onprogress the SDK sends no token; progress sent anyway would be an unknown token, which the
    // client reports as an error.
    const errors: string[] = [];
    client.onerror = (e) => void errors.push(e.message);
    const r = await client.callTool(
      { name: 'code', arguments: { sandbox: 'slowbox', code: 'emit_result(slow_progress(ms=300).data)' } },
      undefined,
      { timeout: 240_000 },
    );
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(JSON.parse(textOf(r))).toMatchObject({ status: 'succeeded', result: { steps: 3 } });
    expect(errors.filter((m) => /progress/.test(m))).toEqual([]);
  }, 240_000);
});
