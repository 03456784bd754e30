/**
 * The bun and deno runtimes end to end: their images built offline (the first build on a machine
 * downloads the pinned binaries from the npm registry into ~/.cache/toolsmith/npm), enabled in a temp
 * workspace, scripts run through the service, the CLI and the MCP server; off, they answer the exact
 * disabled-runtime error.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxManager, imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { resolveRuntime } from '../../../src-main/core/sandbox/runtimes.ts';
import { buildImage, imageExists, NPM_RUNTIMES } from '../../../src-main/infra/sandbox/images.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectMcp, mcpStdio } from '../../support/mcp-stdio.ts';
import { POLL_MS } from '../../support/budgets.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { bunDenoWorkspace, removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const RUNTIMES = ['bun', 'deno'] as const;
const docker = new Docker();
const built: Record<string, { tag: string; ms: number }> = {};
let ws: string;
let off: string;
let svc: ToolsmithService;
let offSvc: ToolsmithService;

/** A workspace with bun and deno enabled (the sample config has them off). */
/** stdin is always a pipe, given `input` and closed. */
const cli = (dir: string, args: string[], input = '') => runToolsmith(dir, args, {}, input);
const mcpClient = (dir: string) => connectMcp(dir, 'toolsmith-test');
const textOf = (r: unknown): string => (r as { content: { text: string }[] }).content[0]?.text ?? '';

beforeAll(async () => {
  for (const rt of RUNTIMES) {
    const t0 = Date.now();
    const tag = await buildImage(docker, rt, imagePaths(), (line) => {
      if (/npm pack|building/.test(line)) process.stderr.write(`[${rt} image] ${line}\n`);
    });
    built[rt] = { tag, ms: Date.now() - t0 };
    process.stderr.write(`[${rt} image] ${tag} ready in ${built[rt].ms} ms\n`);
  }
  // The credential reaches the workers' environment when their pool starts.
  process.env['TOOLSMITH_SHOP_TOKEN'] = 'tok-bun-deno';
  ws = bunDenoWorkspace();
  off = tempWorkspace('toolsmith-bun-deno-off-');
  svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
  offSvc = ToolsmithService.open(off, { sandboxFactory: createSandboxManager });
});
afterAll(async () => {
  await svc?.close();
  await offSvc?.close();
  if (ws) removeWorkspace(ws);
  if (off) removeWorkspace(off);
});

const run = (
  runtime: 'bun' | 'deno',
  body: string,
  o: { language?: 'js' | 'ts'; validate?: boolean; timeoutMs?: number } = {},
) =>
  svc.execution.executeScript({
    sandbox: 'ecommerce',
    runtime,
    language: o.language ?? 'js',
    body,
    validate: o.validate ?? true,
    timeoutMs: o.timeoutMs ?? 30_000,
  });

describe('bun and deno images', () => {
  it('are tagged by content and present', async () => {
    for (const rt of RUNTIMES) {
      expect(built[rt]?.tag).toMatch(new RegExp(`^toolsmith/${rt}:[0-9a-f]{12}$`));
      expect(await imageExists(docker, built[rt]?.tag ?? '')).toBe(true);
      const info = await docker.getImage(built[rt]?.tag ?? '').inspect();
      expect(info.Config.User).toBe('65534:65534');
      const entrypoint = [info.Config.Entrypoint ?? []].flat();
      expect(entrypoint[0]).toBe(`/usr/local/bin/${rt}`);
      expect(entrypoint.join(' ')).toContain('disallow-code-generation-from-strings');
    }
    const deno = await docker.getImage(built['deno']?.tag ?? '').inspect();
    // deno grants only env (credentials, the sandbox's flag, the tests' switches), run (itself and the
    // JS jobs' launcher), read of the launcher and sys uid (for the job walls): no net, write, ffi, no
    // other read or sys, no -A.
    const flags = [deno.Config.Entrypoint ?? []].flat();
    expect(flags.filter((f) => f.startsWith('--allow-')).sort()).toEqual([
      '--allow-env=TOOLSMITH_CRED_*,NODE_V8_COVERAGE,TOOLSMITH_PRIVATE_TMP,TOOLSMITH_TEST_WALLS',
      '--allow-read=/opt/toolsmith/jobns-launch',
      '--allow-run=/usr/local/bin/deno,/opt/toolsmith/jobns-launch',
      '--allow-sys=uid',
    ]);
    expect(flags).not.toContain('-A');
  });
});

// The two runtimes' cases (each runtime its own pool) and the CLI and MCP cases (processes of their own)
// run at the same time; a runtime's cases one after the other.
describe.each(RUNTIMES)('%s runtime', { concurrent: true }, (rt) => {
  describe('one case after another', { concurrent: false }, () => {
    it('runs a JS script: awaited sandbox tools, logs, intermediates, result, traces', async () => {
      const r = await run(
        rt,
        'const u = await get_user({ user_id: "u3" });\nconsole.log("looked up", u.success);\nemitIntermediate({ step: 1 });\nconst orders = await get_orders();\nemitLog("orders: " + orders.data.length);\nemitIntermediate(orders.success);\nemitResult(u.data.email);\n',
      );
      expect(r).toMatchObject({
        success: true,
        exitReason: 'ok',
        data: 'grace@example.com',
        intermediates: [{ step: 1 }, true],
        runtime: rt,
        isolation: 'docker',
      });
      expect(r.logs[0]).toBe('looked up true');
      expect(r.logs[1]).toMatch(/^orders: \d+$/);
      expect(r.toolCalls.map((t) => [t.name, t.location, t.result?.success])).toEqual([
        ['get_user', 'sandbox', true],
        ['get_orders', 'sandbox', true],
      ]);
    });

    it("re-checks a job's skills in the worker: a clean one runs, one that escapes is refused", async () => {
      const { executor } = await svc.execution.sandbox();
      const job = (ret: string) =>
        executor.execute({
          sandbox: 'ecommerce',
          runtime: rt,
          language: 'js',
          code: `/** Twice x. */\nasync function twice(x) {\n  ${ret}\n}\nemitResult(await twice(21));\n`,
          bodyStartLine: 1,
          tools: {},
          skills: ['twice'],
          timeoutMs: 30_000,
        });
      expect(await job('return x * 2;')).toMatchObject({ success: true, data: 42, runtime: rt });
      const refused = await job('return globalThis.process ?? x;');
      expect(refused).toMatchObject({ success: false, exitReason: 'rejected' });
      expect(refused.error?.message).toMatch(/^skill twice:2: globalThis is not available to a skill/);
    });

    it("a skill's endless recursion names the skill and its depth, as on node", async () => {
      const { executor } = await svc.execution.sandbox();
      const r = await executor.execute({
        sandbox: 'ecommerce',
        runtime: rt,
        language: 'js',
        code:
          '/** Goes one deeper each call. */\nasync function deep_js(n) {\n  return await deep_js(n + 1);\n}\n' +
          'emitResult(await deep_js(1));\n',
        bodyStartLine: 5,
        tools: {},
        skills: ['deep_js'],
        timeoutMs: 60_000,
      });
      expect(r.exitReason, JSON.stringify(r.error)).toBe('error');
      expect(r.error?.type, JSON.stringify(r.error)).toBe('RangeError');
      const m = /^skill '(\w+)' called itself (\d+) deep: recursion limit reached$/.exec(
        r.error?.message ?? '',
      );
      expect(m, r.error?.message).not.toBeNull();
      expect(m?.[1]).toBe('deep_js');
      expect(Number(m?.[2])).toBeGreaterThan(100);
      // the innermost frames, as many as a stack overflow's stack had before
      expect(r.error?.frames.length).toBeLessThanOrEqual(10);
    }, 120_000);

    it('skill calls running at once each keep their own tool calls (the async context), as on node', async () => {
      // Both calls start before either calls a tool (each first awaits a turn of the microtask queue); the
      // worker once credited both calls' tool calls to the latest call of the skill still running.
      const { executor } = await svc.execution.sandbox();
      const r = await executor.execute({
        sandbox: 'ecommerce',
        runtime: rt,
        language: 'js',
        code:
          '/** A tier. */\nasync function tier_js(user_id) {\n  await null;\n  return (await get_user({ user_id })).data.tier;\n}\n' +
          'emitResult(await Promise.all([tier_js("u1"), tier_js("u2")]));\n',
        bodyStartLine: 6,
        tools: { get_user: 'get_user' },
        skills: ['tier_js'],
        timeoutMs: 60_000,
      });
      expect(r.data, JSON.stringify(r.error)).toEqual(['gold', 'silver']);
      expect((r.skillCalls ?? []).map((c) => [c.id, c.args])).toEqual([
        [1, { user_id: 'u1' }],
        [2, { user_id: 'u2' }],
      ]);
      expect(r.toolCalls.map((c) => [c.args['user_id'], c.skill, c.skillCall]).sort()).toEqual([
        ['u1', 'tier_js', 1],
        ['u2', 'tier_js', 2],
      ]);
    }, 120_000);

    it('strips TypeScript types and maps error frames to body lines', async () => {
      const ok = await run(rt, 'interface P { n: number }\nconst p: P = { n: 2 };\nemitResult(p.n * 21);\n', {
        language: 'ts',
      });
      expect(ok).toMatchObject({ success: true, data: 42, runtime: rt });
      const bad = await run(rt, 'const r = await get_orders();\n\nemitResult(r.data.nope.x);\n');
      expect(bad.exitReason).toBe('error');
      expect(bad.error).toMatchObject({ type: 'TypeError', frames: [expect.objectContaining({ line: 3 })] });
    });

    it('reads a declared credential; the script sees no process, require, fetch, Bun or Deno', async () => {
      // Results are redacted (the value would read ***): compare inside the sandbox.
      const c = await run(rt, 'emitResult(credential("shop_api_token") === "tok-bun-deno");\n');
      expect(c.data).toBe(true);
      const g = await run(
        rt,
        'emitResult([typeof process, typeof require, typeof globalThis.fetch, typeof Bun, typeof Deno].join(","));\n',
        { validate: false },
      );
      expect(g.data).toBe('undefined,undefined,undefined,undefined,undefined');
    });

    it('blocks code generation from strings in the script realm and in the worker realm', async () => {
      for (const body of [
        'emitResult([].map.constructor("return 1")());\n',
        // A helper is a function of the worker's own realm: its Function constructor is blocked too.
        'emitResult(emitResult.constructor("return typeof process")());\n',
        'emitResult(eval("1 + 1"));\n',
      ]) {
        const r = await run(rt, body, { validate: false });
        expect(r.success, body).toBe(false);
        expect(r.error?.message, body).toMatch(/Code generation from strings disallowed/);
      }
    });

    it('an endless loop ends with timeout, and the next job runs', async () => {
      const r = await run(rt, 'while (true) {}\nemitResult(1);\n', { timeoutMs: 1500 });
      expect(r).toMatchObject({ success: false, exitReason: 'timeout', runtime: rt });
      expect((await run(rt, 'emitResult(1);\n')).data).toBe(1);
    });
  });
});

describe('bun and deno from the CLI and MCP', { concurrent: true }, () => {
  it('toolsmith image build --runtime bun|deno answers the built tag', async () => {
    for (const rt of RUNTIMES) {
      const r = await cli(ws, ['image', 'build', '--runtime', rt]);
      expect(r.code, r.err).toBe(0);
      expect(r.out.trim()).toBe(built[rt]?.tag);
    }
  });

  it('toolsmith exec --runtime bun|deno runs a TypeScript file', async () => {
    const file = join(ws, 'script.ts');
    writeFileSync(
      file,
      'const u: { data: { email: string } } = await get_user({ user_id: "u3" });\nemitResult(u.data.email);\n',
    );
    // Both commands at once (each a one-shot container of its own).
    const runs = await Promise.all(
      RUNTIMES.map((rt) => cli(ws, ['exec', file, '--sandbox', 'ecommerce', '--runtime', rt, '--json'])),
    );
    for (const [i, rt] of RUNTIMES.entries()) {
      const r = runs[i]!;
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out)).toMatchObject({ success: true, data: 'grace@example.com', runtime: rt });
    }
  });

  it('MCP execute_code runs runtime bun and deno when enabled', async () => {
    const client = await mcpClient(ws);
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'execute_code')?.description).toMatch(
        /enabled runtimes: python, node, bun, deno/,
      );
      for (const rt of RUNTIMES) {
        const r = await client.callTool({
          name: 'execute_code',
          arguments: {
            runtime: rt,
            code: 'const p = await get_product({ product_id: "p1" });\nemitResult(p.success);\n',
          },
        });
        expect(JSON.parse(textOf(r)), textOf(r)).toMatchObject({ success: true, data: true, runtime: rt });
      }
    } finally {
      await client.close();
    }
  });

  // The entry points that take a runtime (runs, suites, templates and MCP `code`/`delegate` take a language,
  // whose JS and TS run on node: docs/sandboxes.md, deno): each validates a deno script as the service
  // does, and runs it in the deno worker, whose jobs run in the launcher's namespaces (its next job's
  // process, made ahead, under the launcher: looked at in the MCP server's container).
  it('a deno script at every entry point that takes a runtime: refused by the validator, or run by deno behind its walls', async () => {
    const refused = 'const x = eval("1");\nemitResult(x);\n';
    const runs = 'const u = await get_user({ user_id: "u3" });\nemitResult(u.data.email);\n';
    const transport = mcpStdio(ws);
    const client = new Client({ name: 'toolsmith-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const entries: [string, (code: string) => Promise<unknown>][] = [
        [
          'the service (the workbench)',
          (code) =>
            svc.execution.executeScript({
              sandbox: 'ecommerce',
              runtime: 'deno',
              language: 'js',
              body: code,
            }),
        ],
        [
          'toolsmith exec --runtime deno',
          async (code) => {
            const r = await cli(
              ws,
              ['exec', '-', '--sandbox', 'ecommerce', '--runtime', 'deno', '--json'],
              code,
            );
            return { ...(JSON.parse(r.out) as object), exitCode: r.code };
          },
        ],
        [
          'MCP execute_code, runtime deno',
          async (code) =>
            JSON.parse(
              textOf(await client.callTool({ name: 'execute_code', arguments: { runtime: 'deno', code } })),
            ) as unknown,
        ],
      ];
      for (const [name, entry] of entries) {
        expect(await entry(refused), name).toMatchObject({
          success: false,
          exitReason: 'rejected',
          runtime: 'deno',
          error: { type: 'ValidationError', message: expect.stringMatching(/eval is not available/) },
          ...(name.startsWith('toolsmith') ? { exitCode: 1 } : {}),
        });
        expect(await entry(runs), name).toMatchObject({
          success: true,
          data: 'grace@example.com',
          runtime: 'deno',
          isolation: 'docker',
          ...(name.startsWith('toolsmith') ? { exitCode: 0 } : {}),
        });
      }
      // The MCP server's deno worker: the next job's process waits under the launcher (jobns-launch), made
      // only where every wall the launcher's probe found is made (worker.mjs, AHEAD).
      const [mine] = await docker.listContainers({
        filters: { label: [`toolsmith.owner=${transport.pid}`], ancestor: [built['deno']?.tag ?? ''] },
      });
      if (!mine) throw new Error(`no deno container of the MCP server (pid ${transport.pid})`);
      let tree = '';
      let walled = false;
      for (const end = Date.now() + POLL_MS; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
        const top = (await docker.getContainer(mine.Id).top({ ps_args: '-o pid,ppid,comm' })) as {
          Processes: string[][] | null;
        };
        const ps = (top.Processes ?? []).map(([pid, ppid, comm]) => ({ pid, ppid, comm }));
        tree = ps.map((p) => `${p.pid}<-${p.ppid} ${p.comm}`).join('; ');
        const launchers = ps.filter((p) => p.comm === 'jobns-launch').map((p) => p.pid);
        walled = ps.some((p) => p.comm === 'deno' && launchers.includes(p.ppid));
        if (walled) break;
      }
      expect(walled, `the container's processes: ${tree}`).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('a disabled runtime answers the exact error (registry, service, CLI, MCP)', async () => {
    const error =
      'runtime \'deno\' is not enabled; available: python, node (turn it on with "enabled = true" under [runtimes.deno] in .toolsmith/config.toml)';
    expect(offSvc.system.enabledRuntimes()).toEqual(['python', 'node']);
    expect(resolveRuntime('deno', offSvc.system.runtimes())).toEqual({ error });
    const r = await offSvc.execution.executeScript({
      sandbox: 'ecommerce',
      runtime: 'deno',
      language: 'js',
      body: 'emitResult(1);\n',
    });
    expect(r).toMatchObject({ success: false, exitReason: 'infra', error: { message: error } });
    const bun = await offSvc.execution.executeScript({
      sandbox: 'ecommerce',
      runtime: 'bun',
      language: 'js',
      body: 'emitResult(1);\n',
    });
    expect(bun.error?.message).toBe(
      'runtime \'bun\' is not enabled; available: python, node (turn it on with "enabled = true" under [runtimes.bun] in .toolsmith/config.toml)',
    );
    const c = await cli(
      off,
      ['exec', '-', '--sandbox', 'ecommerce', '--runtime', 'deno', '--json'],
      'emitResult(1);\n',
    );
    expect(c.code).toBe(1);
    expect((JSON.parse(c.out) as { error: { message: string } }).error.message).toBe(error);
    const client = await mcpClient(off);
    try {
      const m = await client.callTool({
        name: 'execute_code',
        arguments: { runtime: 'deno', code: 'emitResult(1);' },
      });
      expect(m.isError).toBe(true);
      expect(JSON.parse(textOf(m))).toEqual({ error, code: 'invalid_argument' });
    } finally {
      await client.close();
    }
  });

  it('pins exact versions of the npm packages', () => {
    expect(NPM_RUNTIMES.bun).toMatchObject({ package: '@oven/bun-linux-x64', version: '1.4.5' });
    expect(NPM_RUNTIMES.deno).toMatchObject({ package: '@deno/linux-x64-glibc', version: '2.9.6' });
  });
});
