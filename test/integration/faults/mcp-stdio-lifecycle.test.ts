/**
 * `toolsmith mcp` on stdio as a real process, started and stopped the way MCP clients do it (the SDK,
 * desktop clients, the Inspector): stop = close its input (then, after 2 s, SIGTERM). The server ends on
 * its own when its input closes, every container it started removed (also one starting as the input
 * closes), a server still connecting upstream ended rather than waited for; initialize and tools/list are
 * answered whatever its upstream MCP servers are doing (one here never answers anything). Containers are
 * removed by the server or, past its stop budget, by the detached prune it hands over to: the tests wait
 * for none to be left. Each test has its own installation (TOOLSMITH_DATA_DIR): only its containers are
 * listed.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { createMcpServer } from '../../../src-main/mcp/mcp.ts';
import { MCP_PROTOCOL_VERSIONS } from '../../../src-main/mcp/stdio-early.ts';
import { SPIN_FOREVER } from '../../support/suite-oracle.ts';
import { faultyServer, nodeBin } from '../../support/mcp-workspace.ts';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import {
  cliProcess,
  engineNow,
  handedOverPrunes,
  installationContainers,
  installationCreatesSince,
} from './support/processes.ts';
import type { CliProcess } from './support/processes.ts';
import { mcpStdio } from '../../support/mcp-stdio.ts';

const fx = useScriptedWorkspace({ docker: true, dataPerTest: true });
// A server past its stop budget hands its removals to a detached prune, which uses the installation's
// folder a few seconds more: the next test's fresh folder waits for it (its removal failed ENOTEMPTY).
afterEach(
  () => vi.waitFor(() => expect(handedOverPrunes(fx.data)).toEqual([]), { timeout: 130_000, interval: 100 }),
  140_000,
);

/** A JSON-RPC line client over the process's stdio. */
function rpc(p: CliProcess) {
  let buf = '';
  const answers = new Map<number, Record<string, unknown>>();
  p.child.stdout?.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const m = JSON.parse(buf.slice(0, nl)) as { id?: number } & Record<string, unknown>;
      buf = buf.slice(nl + 1);
      if (typeof m.id === 'number') answers.set(m.id, m);
    }
  });
  const send = (m: object) => p.child.stdin?.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
  return {
    send,
    answer: (id: number, timeout = 120_000) =>
      vi.waitFor(
        () => {
          const a = answers.get(id);
          if (!a) throw new Error(`no answer to ${id} yet`);
          return a;
        },
        { timeout, interval: 20 },
      ),
    initialize: () => {
      send({
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      send({ method: 'notifications/initialized' });
    },
  };
}

/**
 * The MCP clients' stop, first step: the input is closed. The server must end on its own (no signal),
 * with exit code 0. (How long it takes is measured by `npm run bench:cli`, not asserted here.)
 */
async function inputClosed(p: CliProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  p.child.stdin?.end();
  const done = await p.done;
  return { code: done.code, signal: done.signal };
}

const SPIN = 'while True:\n    pass\nemit_result(1)\n';
const spinning = () =>
  vi.waitFor(
    async () => expect((await installationContainers(fx.data)).some((c) => c.State === 'running')).toBe(true),
    { timeout: 120_000, interval: 100 },
  );

/** None of the installation's containers left (waited for: the hand-over may still be removing them). */
const noneLeft = () =>
  vi.waitFor(async () => expect(await installationContainers(fx.data)).toEqual([]), {
    timeout: 120_000,
    interval: 200,
  });

describe('mcp on stdio: start', () => {
  it('answers initialize and tools/list while an upstream MCP server answers nothing', async () => {
    appendFileSync(
      join(fx.ws, '.toolsmith/config.toml'),
      `\n[mcp_servers.silent]\ncommand = ${JSON.stringify(nodeBin)}\nargs = [${JSON.stringify(faultyServer)}, "--silent"]\ntimeout_ms = 600000\n\n[sandboxes.mute]\ndescription = "A server that never answers."\n\n[sandboxes.mute.mcp.silent]\n`,
    );
    const p = cliProcess(fx.ws, fx.data, ['mcp']);
    const c = rpc(p);
    c.initialize();
    const init = (await c.answer(1)).result as Record<string, unknown>;
    expect(init['serverInfo']).toEqual({ name: 'toolsmith', version: '0.1.0' });
    expect(init['protocolVersion']).toBe('2025-06-18');
    c.send({ id: 2, method: 'tools/list' });
    const tools = ((await c.answer(2)).result as { tools: { name: string; description: string }[] }).tools;
    expect(tools.map((t) => t.name)).toContain('code');
    // The upstream server is still "connecting" (it never answers): the manual says so.
    expect(tools.find((t) => t.name === 'code')?.description).toMatch(/silent.*still connecting/);
    expect(await inputClosed(p)).toEqual({ code: 0, signal: null });
    expect((await p.done).err).not.toContain('differs');
  }, 180_000);

  it('a usage error ends the process with exit code 2 while the client keeps its input open', async () => {
    // (cliProcess passes the fixture's --workspace first; a second one, a folder that does not exist, wins)
    const p = cliProcess(fx.ws, fx.data, ['--workspace', join(fx.ws, 'no-such-folder'), 'mcp']);
    const c = rpc(p);
    c.initialize();
    // The early server answered initialize before main found the error; the input stays open throughout.
    expect(((await c.answer(1)).result as Record<string, unknown>)['serverInfo']).toBeDefined();
    const done = await p.done;
    expect(p.child.stdin?.writableEnded).toBe(false);
    expect(done.code).toBe(2);
    expect(done.err).toMatch(/no-such-folder does not exist/);
  }, 60_000);

  it("the early initialize answer is the SDK server's own (capabilities, server info, versions)", async () => {
    expect(MCP_PROTOCOL_VERSIONS).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
    const svc = ToolsmithService.open(fx.ws);
    try {
      const server = createMcpServer(svc);
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(a);
      const client = new Client({ name: 't', version: '1' });
      await client.connect(b);
      const p = cliProcess(fx.ws, fx.data, ['mcp']);
      const c = rpc(p);
      c.initialize();
      const early = (await c.answer(1)).result as Record<string, unknown>;
      expect(early['capabilities']).toEqual(client.getServerCapabilities());
      expect(early['serverInfo']).toEqual(client.getServerVersion());
      await client.close();
      expect(await inputClosed(p)).toEqual({ code: 0, signal: null });
    } finally {
      await svc.close();
    }
  }, 180_000);
});

describe('mcp on stdio: stop', () => {
  it('input closed with a script running: ends on its own, its container removed', async () => {
    const p = cliProcess(fx.ws, fx.data, ['mcp']);
    const c = rpc(p);
    c.initialize();
    await c.answer(1);
    c.send({ id: 2, method: 'tools/call', params: { name: 'code', arguments: { code: SPIN } } });
    await spinning();
    expect(await inputClosed(p)).toEqual({ code: 0, signal: null });
    await noneLeft();
  }, 240_000);

  it('input closed with a script running and a standby ready: no container is created once shutdown began', async () => {
    const config = join(fx.ws, '.toolsmith/config.toml');
    const before = readFileSync(config, 'utf8');
    // One job per container: the job that shutdown cancels ends its worker, which the pool would replace.
    writeFileSync(
      config,
      before
        .replace('standby = 0', 'standby = 1')
        .replace('max_jobs_per_container = 500', 'max_jobs_per_container = 1'),
    );
    const p = cliProcess(fx.ws, fx.data, ['mcp']);
    onTestFinished(() => writeFileSync(config, before));
    const c = rpc(p);
    c.initialize();
    await c.answer(1);
    // A run (delegate): shutdown cancels it and waits for its record before the pools are removed.
    fx.llm.fallback = { text: SPIN_FOREVER };
    onTestFinished(() => fx.llm.reset());
    c.send({
      id: 2,
      method: 'tools/call',
      params: { name: 'delegate', arguments: { task: 'spin forever', sandbox: 'ecommerce' } },
    });
    // The pool is steady: the worker spinning and its standby started (pool.standby = 1).
    await vi.waitFor(
      async () =>
        expect((await installationContainers(fx.data)).filter((x) => x.State === 'running')).toHaveLength(2),
      { timeout: 120_000, interval: 100 },
    );
    const began = await engineNow();
    // The cancelled run's job ends its worker: the pool must not promote the standby and start another.
    expect(await inputClosed(p)).toEqual({ code: 0, signal: null });
    await noneLeft();
    expect(await installationCreatesSince(fx.data, began)).toEqual([]);
  }, 240_000);

  it('input closed while a container is starting: ends on its own, no container left', async () => {
    const p = cliProcess(fx.ws, fx.data, ['mcp']);
    const c = rpc(p);
    c.initialize();
    c.send({ id: 2, method: 'tools/list' });
    await c.answer(2);
    c.send({ id: 3, method: 'tools/call', params: { name: 'code', arguments: { code: SPIN } } });
    // The input closes as the call starts its container.
    await vi.waitFor(async () => expect((await installationContainers(fx.data)).length).toBeGreaterThan(0), {
      timeout: 120_000,
      interval: 10,
    });
    expect(await inputClosed(p)).toEqual({ code: 0, signal: null });
    await noneLeft();
  }, 240_000);

  it('SIGTERM with a script running: gone, its container removed', async () => {
    const p = cliProcess(fx.ws, fx.data, ['mcp']);
    const c = rpc(p);
    c.initialize();
    await c.answer(1);
    c.send({ id: 2, method: 'tools/call', params: { name: 'code', arguments: { code: SPIN } } });
    await spinning();
    p.child.kill('SIGTERM');
    const done = await p.done;
    expect(done.signal).toBeNull();
    // 128 + 15: stopped by the signal (0 is kept for "ended on its own, its input closed").
    expect(done.code).toBe(143);
    await noneLeft();
  }, 240_000);
});

/**
 * `toolsmith mcp` started and stopped by the MCP SDK's own client transport, as desktop clients and the
 * Inspector do: `StdioClientTransport.close()` ends the input, waits 2 s, sends SIGTERM, waits 2 s, sends
 * SIGKILL. The server must be gone before the SIGTERM: its exit code is 0 (a SIGTERM would make it 143,
 * a SIGKILL a signal). Every container it started is removed: by the server itself, or, when removing
 * takes longer than its stop budget (a loaded machine: `docker rm -f` of a busy container took 5 s at
 * load 26), by the detached `toolsmith pool prune --after-pid` it hands over to; so the tests wait for
 * the outcome (none left) rather than read it at the exit.
 */
function sdkClient(env: Record<string, string> = {}) {
  const transport = mcpStdio(fx.ws, { ...process.env, TOOLSMITH_DATA_DIR: fx.data, ...env });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'grace', version: '1' });
  return {
    client,
    transport,
    err: () => err,
    /** The process (the transport keeps it private); its exit, taken before close() lets go of it. */
    exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
      const child = (transport as unknown as { _process?: ChildProcess })._process;
      if (!child) throw new Error('the transport holds no process: the SDK changed');
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null)
          resolve({ code: child.exitCode, signal: child.signalCode });
        else child.once('exit', (code, signal) => resolve({ code, signal }));
      });
    },
  };
}

describe("mcp on stdio: stopped by the SDK's client transport (input closed, 2 s, SIGTERM, 2 s, SIGKILL)", () => {
  it('a job in flight: the server exits before the SIGTERM, its container removed, none created', async () => {
    const s = sdkClient();
    await s.client.connect(s.transport);
    const exited = s.exited();
    // In flight: never answered (the close rejects it).
    const call = s.client.callTool({ name: 'code', arguments: { code: SPIN } }).catch((e: Error) => e);
    await spinning();
    const began = await engineNow();
    await s.client.close();
    expect(await exited, s.err()).toEqual({ code: 0, signal: null });
    expect(await call).toBeInstanceOf(Error);
    await noneLeft();
    expect(await installationCreatesSince(fx.data, began)).toEqual([]);
  }, 240_000);

  it('a container starting as the client closes: the server exits before the SIGTERM, none left', async () => {
    const s = sdkClient();
    await s.client.connect(s.transport);
    const exited = s.exited();
    const call = s.client.callTool({ name: 'code', arguments: { code: SPIN } }).catch((e: Error) => e);
    // The client closes as soon as the call's first container exists (created, maybe not yet running).
    await vi.waitFor(async () => expect((await installationContainers(fx.data)).length).toBeGreaterThan(0), {
      timeout: 120_000,
      interval: 10,
    });
    await s.client.close();
    expect(await exited, s.err()).toEqual({ code: 0, signal: null });
    await call;
    await noneLeft();
  }, 240_000);

  it('removal handed over (stop budget 0): the server exits at once, the detached prune removes the container', async () => {
    const s = sdkClient({ TOOLSMITH_MCP_STOP_BUDGET_MS: '0' });
    await s.client.connect(s.transport);
    const exited = s.exited();
    const call = s.client.callTool({ name: 'code', arguments: { code: SPIN } }).catch((e: Error) => e);
    await spinning();
    await s.client.close();
    expect(await exited, s.err()).toEqual({ code: 0, signal: null });
    // The prune it handed over to (which the afterEach above waits for) is found.
    expect(handedOverPrunes(fx.data)).toHaveLength(1);
    await call;
    await noneLeft();
  }, 240_000);
});
