/**
 * What an upstream MCP server sends is untrusted: garbage on its output is reported as garbage (not as
 * a timeout), an answer of the wrong shape is said in one line (not a raw schema-issue dump), and a
 * 10 MB answer is refused as too large as it arrives (not waited out until the call's time limit), from
 * a server on stdio and from one over Streamable HTTP (its answer an event stream or a JSON body); an
 * HTTP server that is down is said to be unreachable, with the reason (ECONNREFUSED and the address).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { McpManager } from '../../../src-main/infra/mcp/manager.ts';
import { mcpServerSchema } from '../../../src-main/app/config.ts';
import { faultyServer, nodeBin } from '../../support/mcp-workspace.ts';

// The time limit is also initialize's: 3 s was too short for a Node server to start on a loaded machine.
const mgr = new McpManager({
  faulty: mcpServerSchema.parse({ command: nodeBin, args: [faultyServer], timeout_ms: 15_000 }),
});
const big = new McpManager({
  faulty: mcpServerSchema.parse({ command: nodeBin, args: [faultyServer], timeout_ms: 600_000 }),
});
afterAll(() => Promise.all([mgr.close(), big.close()]));

describe('an MCP server that answers badly', () => {
  it('garbage on its output is named as such, with what it sent', async () => {
    await expect(mgr.callTool('faulty', 'garbage', {})).rejects.toThrow(
      /MCP server faulty sent output that is not MCP \(JSON-RPC\) instead of answering garbage: .*/,
    );
  }, 120_000);

  it('an answer of the wrong shape is said in words', async () => {
    const e = (await mgr.callTool('faulty', 'wrongshape', {}).catch((x: unknown) => x)) as Error;
    expect(e.message).toMatch(
      /^MCP server faulty answered wrongshape with an answer of the wrong shape: content/,
    );
    expect(e.message).not.toMatch(/"code":|\[\s*\{/);
  }, 120_000);

  it('a 10 MB answer is said to be too large, with the limit, within the time; the next call works', async () => {
    // The time limit is long: the answer must be refused as it arrives, not when the limit ends the call.
    const e = (await big.callTool('faulty', 'huge', {}).catch((x: unknown) => x)) as Error;
    expect(e.message).toMatch(
      /^MCP server faulty answered huge with more than \d+\.\d MB: the answer is too large \(the limit is 4\.0 MB per message\)/,
    );
    expect(e.message).not.toMatch(/did not answer/);
    const next = await big.callTool('faulty', 'count', {});
    expect(JSON.stringify(next.content)).toMatch(/\\"n\\":1/);
  }, 120_000);
});

describe('an MCP server over HTTP that is down', () => {
  it('says why it cannot be reached (the address refused), not "fetch failed"', async () => {
    // A port that was free a moment ago and that nothing listens on now.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((r) => probe.close(() => r()));
    const m = new McpManager({ down: mcpServerSchema.parse({ url: `http://127.0.0.1:${port}/mcp` }) });
    onTestFinished(() => m.close());
    const e = (await m.listTools('down').catch((x: unknown) => x)) as Error;
    expect(e.message).toBe(
      `MCP server down (http://127.0.0.1:${port}/mcp) failed to start: could not reach it (connect ECONNREFUSED 127.0.0.1:${port})`,
    );
    expect(m.status('down')).toMatchObject({ state: 'error', error: e.message });
  });
});

describe("an MCP server's start has its own time limit", () => {
  it('initialize is bounded by startup_timeout_ms, a call by timeout_ms', async () => {
    const m = new McpManager({
      // Never answers initialize: the start's limit ends it, not the call's 10 minutes.
      silent: mcpServerSchema.parse({
        command: nodeBin,
        args: [faultyServer, '--silent'],
        timeout_ms: 600_000,
        startup_timeout_ms: 1500,
      }),
      // Starts within a limit a loaded machine meets; a call that never answers ends at the call's.
      faulty: mcpServerSchema.parse({
        command: nodeBin,
        args: [faultyServer],
        timeout_ms: 1500,
        startup_timeout_ms: 60_000,
      }),
    });
    onTestFinished(() => m.close());
    await expect(m.callTool('silent', 'count', {})).rejects.toThrow(
      /^MCP server silent did not answer initialize within 1500 ms/,
    );
    await expect(m.callTool('faulty', 'stall', {})).rejects.toThrow(
      /MCP server faulty did not answer stall within 1500 ms/,
    );
    expect(m.status('faulty').connects).toBe(1);
  }, 120_000);
});

/** The faulty server over Streamable HTTP (its `--http` mode) as a real process; its URL. */
async function httpServer(args: string[]): Promise<string> {
  const child = spawn(nodeBin, [faultyServer, '--http', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  onTestFinished(() => void child.kill('SIGTERM'));
  for await (const line of createInterface({ input: child.stdout })) {
    const port = /^listening (\d+)$/.exec(line)?.[1];
    if (port) return `http://127.0.0.1:${port}/mcp`;
  }
  throw new Error('the faulty MCP server over HTTP ended before it listened');
}

describe('an MCP server over HTTP that answers too much', () => {
  it.each([
    ['an event stream', []],
    ['a JSON body', ['--json']],
  ])(
    'a 10 MB answer as %s is said to be too large, with the limit, within the time; the next call works',
    async (_, args) => {
      const url = await httpServer(args);
      // The time limit is long: the answer must be refused as it arrives, not when the limit ends the call.
      const m = new McpManager({ faulty: mcpServerSchema.parse({ url, timeout_ms: 600_000 }) });
      onTestFinished(() => m.close());
      const e = (await m.callTool('faulty', 'huge', {}).catch((x: unknown) => x)) as Error;
      expect(e.message).toMatch(
        /^MCP server faulty answered huge with more than \d+\.\d MB: the answer is too large \(the limit is 4\.0 MB per message\)/,
      );
      expect(e.message).not.toMatch(/did not answer/);
      const next = await m.callTool('faulty', 'count', {});
      expect(JSON.stringify(next.content)).toMatch(/\\"n\\":1/);
    },
    120_000,
  );
});
