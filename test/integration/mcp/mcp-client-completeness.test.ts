/**
 * The MCP client side (infra/mcp/manager.ts) against a small upstream server of our own
 * (support/upstream-server.mjs): every page of tools/list, progress that keeps a long call alive past
 * its time limit and reaches the caller (every report), a server's notifications/tools/list_changed followed, and tools named with Python/JS
 * keywords callable from a script in the sandbox under their `_` alias.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { McpManager } from '../../../src-main/infra/mcp/manager.ts';
import { nodeBin } from '../../support/mcp-workspace.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';

const upstream = join(repoRoot, 'test/integration/mcp/support/upstream-server.mjs');
const def = (args: string[], timeout_ms = 20_000) => ({
  command: nodeBin,
  args: [upstream, ...args],
  env: {},
  headers: {},
  timeout_ms,
});

let mgr: McpManager;
beforeAll(() => {
  mgr = new McpManager({
    paged: def(['--tools', '25', '--page-size', '10']),
    slow: def([]),
    growing: def(['--grow']),
  });
});
afterAll(async () => {
  await mgr?.close();
});

describe('McpManager against an upstream server', () => {
  it('reads every page of tools/list', async () => {
    const tools = await mgr.listTools('paged');
    // 25 echo tools and slow_progress, over three pages of 10.
    expect(tools.map((t) => t.name)).toHaveLength(26);
    expect(tools.map((t) => t.name)).toContain('tool_24');
  });

  it('a call that reports progress outlives its time limit; one that is silent does not', async () => {
    // A 600 ms limit: 1.5 s of progress every 100 ms keeps resetting it.
    const r = await mgr.callTool('slow', 'slow_progress', { ms: 1500 }, { timeoutMs: 600 });
    expect(r.isError).toBeFalsy();
    expect(JSON.stringify(r.content)).toContain('"steps\\":15');
    // A limit shorter than the gap between two reports still ends the call.
    await expect(mgr.callTool('slow', 'slow_progress', { ms: 1500 }, { timeoutMs: 50 })).rejects.toThrow(
      /did not answer slow_progress within 50 ms/,
    );
  }, 30_000);

  it("hands every progress report to the caller, the last one too (sent right before the server's answer)", async () => {
    // One step: the report and the answer leave back to back and are often read in one chunk, where the
    // SDK would settle the call before handling the report.
    for (let i = 0; i < 8; i++) {
      const heard: { progress: number; total?: number; message?: string }[] = [];
      const r = await mgr.callTool(
        'slow',
        'slow_progress',
        { ms: 100 },
        { onProgress: (p) => heard.push(p) },
      );
      expect(r.isError).toBeFalsy();
      expect(heard).toEqual([{ progress: 1, total: 1, message: 'step 1' }]);
    }
    const heard: number[] = [];
    await mgr.callTool('slow', 'slow_progress', { ms: 400 }, { onProgress: (p) => heard.push(p.progress) });
    expect(heard).toEqual([1, 2, 3, 4]);
  }, 60_000);

  it('follows notifications/tools/list_changed: the new tool is listed and subscribers hear of it', async () => {
    await mgr.listTools('growing');
    let heard = 0;
    const stop = mgr.subscribe(() => void heard++);
    const before = mgr.version;
    await mgr.callTool('growing', 'grow', {});
    await vi.waitFor(() => expect(mgr.cachedTools('growing')?.map((t) => t.name)).toContain('grown_1'), {
      timeout: 60_000,
      interval: 50,
    });
    stop();
    expect(mgr.version).toBeGreaterThan(before);
    expect(heard).toBeGreaterThan(0);
  }, 90_000);
});

describe('tools named with keywords', () => {
  let ws: string;
  let svc: ToolsmithService;
  beforeAll(async () => {
    ws = tempWorkspace('toolsmith-mcp-keywords-');
    appendFileSync(
      join(ws, '.toolsmith/config.toml'),
      `
[mcp_servers.kw]
command = ${JSON.stringify(nodeBin)}
args = [${JSON.stringify(upstream)}, "--keywords", "--tools", "1"]
timeout_ms = 20000

[sandboxes.kw]
description = "Tools named with keywords."
[sandboxes.kw.mcp.kw]
`,
    );
    svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
    const docker = (await (await svc.execution.sandbox()).status()).docker;
    if (!docker.available) throw new Error('this test needs the Docker engine (run scripts/ensure-env.sh)');
    expect(await svc.prepareMcp('kw')).toEqual([]);
  }, 300_000);
  afterAll(async () => {
    await svc?.close();
    removeWorkspace(ws);
  });

  it('get a `_` alias that the manual shows with the server name, and scripts call them', async () => {
    const names = svc.catalog.registry('kw').tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['class_', 'from_', 'lambda_', 'tool_0']));
    expect(names).not.toContain('class');
    const manual = svc.catalog.registry('kw').prompt(svc.catalog.registry('kw').tools);
    expect(manual).toMatch(/class_\(/);
    expect(manual).toMatch(/the server's tool `class`/);
    const r = await svc.execution.executeScript({
      sandbox: 'kw',
      language: 'python',
      body: 'a = class_(text="c")\nb = from_(text="f")\nemit_result([a.data, b.data])\n',
    });
    expect(r.error, JSON.stringify(r)).toBeUndefined();
    expect(r.success).toBe(true);
    expect(r.data).toEqual([
      { tool: 'class', args: { text: 'c' } },
      { tool: 'from', args: { text: 'f' } },
    ]);
    const js = await svc.execution.executeScript({
      sandbox: 'kw',
      language: 'js',
      runtime: 'node',
      body: 'const r = await class_({ text: "j" });\nemitResult(r.data);\n',
    });
    expect(js.error).toBeUndefined();
    expect(js.data).toEqual({ tool: 'class', args: { text: 'j' } });
  }, 180_000);
});
