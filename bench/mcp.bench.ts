/**
 * `npm run bench:mcp`: prints JSON for MCP tools called from sandbox scripts, against server-everything
 * (from npm, over stdio) in the same run:
 * - `direct`: a plain SDK client calling `get-sum` (p50/p95 per call);
 * - `through_sandbox`: the same tool called from a Python script in the Docker sandbox, timed inside the
 *   script (container -> host -> MCP server and back), and `host_proxy` (the host side of it: the
 *   argument check, the request and the result mapping, from the traces);
 * - `container_round_trip_ms`: a call answered on the host without any MCP server (`search_tools` for a
 *   word no tool has), timed inside the script: the container <-> host path alone;
 * - `overhead_ms`: through_sandbox minus direct (target p50 <= 1 ms); `proxy_only_overhead_ms`: the
 *   host's MCP proxy called directly (`manager_only_ms`, no container) minus direct;
 * - `code_mode`: one script doing 20 chained calls vs 20 separate round trips (one job per tool call, as
 *   an agent calling one tool per turn would, LLM time excluded).
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createSandboxManager } from '../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../src-main/app/service.ts';
import { mcpResultToResponse } from '../src-main/core/tools/mcp.ts';
import { mcpWorkspace, nodeBin } from '../test/support/mcp-workspace.ts';
import { removeWorkspace, repoRoot } from '../test/support/workspace.ts';

const N = Number(process.env['BENCH_MCP_CALLS'] ?? 400);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0).toFixed(3));
};
const stats = (xs: number[]) => ({ p50: pct(xs, 50), p95: pct(xs, 95), n: xs.length });

const { ws, files } = mcpWorkspace();
const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
try {
  const down = await svc.prepareMcp('kg');
  if (down.length) throw new Error(down.map((d) => d.error).join('; '));
  const sandbox = await svc.execution.sandbox();
  const exec = (code: string) =>
    sandbox.executor.execute({
      sandbox: 'kg',
      language: 'python',
      code,
      bodyStartLine: 1,
      tools: { add: 'add' },
      timeoutMs: 120_000,
    });
  // Warm: the pool's container and the server connection.
  for (let i = 0; i < 3; i++) await exec('add(a=1, b=2)\nemit_result(1)\n');

  // Direct: a plain SDK client to another server-everything process.
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: nodeBin,
      args: [join(repoRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
      stderr: 'ignore',
    }),
  );
  for (let i = 0; i < 20; i++) await client.callTool({ name: 'get-sum', arguments: { a: i, b: 1 } });
  // Rounds alternate the two (the machine's load drifts): direct calls, then the same number from a script.
  const ROUNDS = 5;
  const per = Math.ceil(N / ROUNDS);
  const direct: number[] = [];
  const through: number[] = [];
  const hostProxy: number[] = [];
  const manager: number[] = [];
  const roundTrip: number[] = [];
  let isolation = '';
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < per; i++) {
      const t = performance.now();
      await client.callTool({ name: 'get-sum', arguments: { a: i, b: 1 } });
      direct.push(performance.now() - t);
    }
    // The host's proxy alone: the manager (argument check, request, result mapping), no container.
    for (let i = 0; i < per; i++) {
      const t = performance.now();
      mcpResultToResponse(await svc.mcp().callTool('everything', 'get-sum', { a: i, b: 1 }));
      manager.push(performance.now() - t);
    }
    // Through the sandbox, timed inside the script.
    const inside = await exec(
      `ts = []\nfor i in range(${per}):\n    t = time.perf_counter()\n    add(a=i, b=1)\n    ts.append((time.perf_counter() - t) * 1000)\nemit_result(ts)\n`,
    );
    if (!inside.success) throw new Error(JSON.stringify(inside.error));
    through.push(...(inside.data as number[]));
    hostProxy.push(...inside.toolCalls.map((c) => c.ms));
    isolation = inside.isolation;
    // The container path alone: a framework call the host answers itself.
    const bare = await exec(
      `ts = []\nfor i in range(${per}):\n    t = time.perf_counter()\n    search_tools("zzzz")\n    ts.append((time.perf_counter() - t) * 1000)\nemit_result(ts)\n`,
    );
    if (!bare.success) throw new Error(JSON.stringify(bare.error));
    roundTrip.push(...(bare.data as number[]));
  }

  // Code mode: 20 chained calls in one script vs 20 separate round trips.
  const chain =
    'n = 0\nfor i in range(20):\n    r = add(a=n, b=1)\n    n = int(r.data.split(" is ")[1].rstrip("."))\nemit_result(n)\n';
  const oneScript: number[] = [];
  const separate: number[] = [];
  for (let rep = 0; rep < 8; rep++) {
    let t = performance.now();
    const r = await exec(chain);
    if (r.data !== 20) throw new Error(`the chain gave ${JSON.stringify(r.data ?? r.error)}`);
    oneScript.push(performance.now() - t);
    t = performance.now();
    let n = 0;
    for (let i = 0; i < 20; i++) {
      const c = await sandbox.callTool('kg', 'add', { a: n, b: 1 });
      n = Number(/ is (\d+)\./.exec(String(c.response?.data))?.[1]);
    }
    if (n !== 20) throw new Error(`separate calls gave ${n}`);
    separate.push(performance.now() - t);
  }
  await client.close();

  const d = stats(direct);
  const s = stats(through);
  console.log(
    JSON.stringify(
      {
        server: 'server-everything get-sum (stdio)',
        isolation,
        calls: direct.length,
        direct_ms: d,
        through_sandbox_ms: s,
        host_proxy_ms: stats(hostProxy),
        container_round_trip_ms: stats(roundTrip),
        manager_only_ms: stats(manager),
        overhead_ms: {
          p50: Number((s.p50 - d.p50).toFixed(3)),
          p95: Number((s.p95 - d.p95).toFixed(3)),
          target_p50: 1,
        },
        proxy_only_overhead_ms: {
          p50: Number((pct(manager, 50) - d.p50).toFixed(3)),
          p95: Number((pct(manager, 95) - d.p95).toFixed(3)),
        },
        code_mode: {
          chained_calls: 20,
          one_script_ms: stats(oneScript),
          separate_round_trips_ms: stats(separate),
          speedup_p50: Number((pct(separate, 50) / pct(oneScript, 50)).toFixed(1)),
        },
      },
      null,
      2,
    ),
  );
} finally {
  await svc.close();
  removeWorkspace(ws);
  removeWorkspace(files);
}
