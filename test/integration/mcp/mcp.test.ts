/** The MCP server over stdio, driven by the official MCP SDK client. */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { tempWorkspace } from '../../support/workspace.ts';
import { writeFileSync, readFileSync } from 'node:fs';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';

let client: Client;
let ws: string;
let llm: LlmServer;

const textOf = (r: unknown): string => (r as { content: { text: string }[] }).content[0]?.text ?? '';

beforeAll(async () => {
  llm = await startLlmServer();
  ws = tempWorkspace();
  // Point the workspace's provider at the scripted server.
  const cfg = join(ws, '.toolsmith/config.toml');
  writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('http://127.0.0.1:11434/v1', llm.openaiUrl));
  client = await connectMcp(ws, 'toolsmith-test');
}, 120_000);
afterAll(async () => {
  await client?.close();
  await llm?.close();
});

describe('toolsmith mcp', () => {
  it('lists the tools; execute_code has the flat schema whose description states the runtimes', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'code',
      'delegate',
      'describe_tool',
      'execute_code',
      'kit_info',
      'list_templates',
      'list_tools',
      'run_suite',
      'save_skill',
      'search_tools',
      'validate',
    ]);
    const exec = tools.find((t) => t.name === 'execute_code');
    expect(exec?.description).toMatch(/default runtime is python; enabled runtimes: python, node/);
    expect(Object.keys(exec?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['code', 'runtime', 'timeout']),
    );
  });

  it('validate and list_tools answer from the workspace', async () => {
    const v = JSON.parse(
      textOf(await client.callTool({ name: 'validate', arguments: { code: 'import os' } })),
    ) as { valid: boolean; violations: { rule: string }[] };
    expect(v.valid).toBe(false);
    expect(v.violations.map((x) => x.rule)).toContain('no-import');
    const tools = JSON.parse(
      textOf(await client.callTool({ name: 'list_tools', arguments: { sandbox: 'ecommerce' } })),
    ) as { name: string }[];
    expect(tools.map((t) => t.name)).toContain('check_inventory');
    const kit = JSON.parse(
      textOf(await client.callTool({ name: 'kit_info', arguments: { name: 'orders' } })),
    ) as { grade: unknown };
    expect(kit.grade).toEqual({ w: 1, d: 0 });
  });

  it('execute_code runs in the sandbox; a disabled runtime answers the exact error', async () => {
    const r = await client.callTool({
      name: 'execute_code',
      arguments: {
        code: 'r = check_inventory(product_id="p1", warehouse="Berlin")\nemit_result(r.data["in_stock"])',
      },
    });
    expect(JSON.parse(textOf(r))).toMatchObject({ success: true, data: 3 });
    const d = await client.callTool({
      name: 'execute_code',
      arguments: { code: 'emitResult(1)', runtime: 'deno' },
    });
    expect(d.isError).toBe(true);
    expect(JSON.parse(textOf(d))).toEqual({
      error:
        'runtime \'deno\' is not enabled; available: python, node (turn it on with "enabled = true" under [runtimes.deno] in .toolsmith/config.toml)',
      code: 'invalid_argument',
    });
  });

  it('code runs a script as a recorded run over stdio too (the transports share one tool table)', async () => {
    const r = await client.callTool({
      name: 'code',
      arguments: { code: 'emit_result(len(get_orders().data))' },
    });
    const answer = JSON.parse(textOf(r)) as { runId: string; status: string; result: unknown };
    expect(answer).toMatchObject({ status: 'succeeded', result: 6 });
    const store = new RunStore(join(ws, '.toolsmith', 'runs.db'));
    try {
      expect(store.get(answer.runId)).toMatchObject({ status: 'succeeded', result: 6, tier: 'edit' });
    } finally {
      store.close();
    }
  });

  it("a failed script's answer (code, execute_code) carries the hints a PLAN retry gives its LLM", async () => {
    const script = 'u = get_user(user_id="u1")\nemit_result(u.name)';
    const hint = `A ToolResponse has only .success, .message and .data. The field 'name' is inside .data: write r.data["name"] (after checking r.success).`;
    for (const name of ['code', 'execute_code']) {
      const r = (await client.callTool({ name, arguments: { code: script } })) as {
        isError?: boolean;
        structuredContent?: Record<string, unknown>;
      };
      expect(r.isError, name).toBe(true);
      expect(r.structuredContent?.['hints'], name).toEqual([hint]);
      expect(JSON.parse(textOf(r)), name).toMatchObject({ hints: [hint] });
    }
    // An error no hint knows: no hints field.
    const plain = (await client.callTool({
      name: 'execute_code',
      arguments: { code: 'emit_result(1/0)' },
    })) as {
      structuredContent?: Record<string, unknown>;
    };
    expect(plain.structuredContent).toMatchObject({ success: false });
    expect(plain.structuredContent).not.toHaveProperty('hints');
  });

  it('delegate goes through the tiers to the scripted LLM and the sandbox', async () => {
    llm.push('```python\nr = get_orders()\nemit_result(len(r.data))\n```');
    const r = await client.callTool({ name: 'delegate', arguments: { task: 'How many orders are there?' } });
    expect(JSON.parse(textOf(r))).toMatchObject({ status: 'succeeded', result: 6 });
    const t = JSON.parse(
      textOf(await client.callTool({ name: 'list_templates', arguments: {} })),
    ) as unknown[];
    expect(Array.isArray(t)).toBe(true);
  });
});
