/**
 * A company machine's proxy settings: `HTTP_PROXY`/`HTTPS_PROXY` set, no `NO_PROXY`, and Node 24's
 * `NODE_USE_ENV_PROXY=1` so that Node's fetch uses them (to reach the hosted LLM APIs). A proxy is
 * another host: 127.0.0.1 there is the proxy itself, so a loopback server of the person's (a local
 * model, an MCP server, the workbench) reached through it is never the one meant. The command reaches
 * loopback addresses directly and still sends every other host to the proxy, in every entry that starts
 * here (the CLI, `serve`, `mcp` on stdio; the desktop app's: test/unit/net/proxy-env.test.ts). When
 * the proxy itself fails (refuses, asks for credentials with 407, never answers), the LLM call and the
 * MCP server over HTTP say so, naming the proxy and the variable it came from. Real processes: the CLI,
 * an MCP server over Streamable HTTP on 127.0.0.1, the scripted LLM server and proxies (recording,
 * 407, silent), all in this file.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe } from '../faults/support/processes.ts';
import type { ServeProcess } from '../faults/support/processes.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { mcpStdio } from '../../support/mcp-stdio.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let mcp: Server;
let proxy: Server;
/** A proxy that asks for credentials (407) on every tunnel, and one that accepts and never answers. */
let authProxy: Server;
let silentProxy: Server;
/** The tunnels the silent proxy holds open (ended after the tests: a server's close waits for them). */
const silentSockets: Duplex[] = [];
let llm: LlmServer;
/** Ports: the proxies above, and one where nothing listens (a proxy that is down). */
let authPort: number;
let silentPort: number;
let downPort: number;
/** What reached the proxy: a request line's target, or a CONNECT's host:port. */
const proxied: string[] = [];
let ws: string;
/** The person's proxy settings, the proxy being the recording one below. */
let proxyEnv: Record<string, string>;

const listen = (s: Server) =>
  new Promise<number>((resolve) =>
    s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)),
  );

async function body(req: IncomingMessage): Promise<unknown> {
  let s = '';
  for await (const c of req) s += String(c);
  return s ? JSON.parse(s) : undefined;
}

beforeAll(async () => {
  // A stateless MCP server with one tool, a new server and transport per request (the SDK's pattern).
  mcp = createServer((req, res) => {
    void (async () => {
      const server = new McpServer({ name: 'local', version: '1.0.0' });
      server.registerTool('ping', { description: 'Answers pong.' }, () => ({
        content: [{ type: 'text', text: 'pong' }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      await server.connect(transport);
      await transport.handleRequest(req, res, await body(req));
    })();
  });
  // A proxy that forwards nothing: it records what it was asked for and answers 502.
  proxy = createServer((req, res) => {
    proxied.push(req.url ?? '');
    res.writeHead(502).end('proxy: not forwarding');
  });
  proxy.on('connect', (req: IncomingMessage, socket) => {
    proxied.push(req.url ?? '');
    socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
  });
  authProxy = createServer((_req, res) => res.writeHead(407, { 'proxy-authenticate': 'Basic' }).end());
  authProxy.on('connect', (_req: IncomingMessage, socket) =>
    socket.end(
      'HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="corp"\r\ncontent-length: 0\r\n\r\n',
    ),
  );
  silentProxy = createServer(() => {});
  silentProxy.on('connect', (_req: IncomingMessage, socket) => silentSockets.push(socket));
  const down = createServer();
  downPort = await listen(down);
  await new Promise((r) => down.close(r));
  const [mcpPort, proxyPort] = await Promise.all([listen(mcp), listen(proxy)]);
  [authPort, silentPort] = await Promise.all([listen(authProxy), listen(silentProxy)]);
  llm = await startLlmServer();
  llm.fallback = { text: 'OK' };
  ws = tempWorkspace('toolsmith-proxy-ws-');
  appendFileSync(
    join(ws, '.toolsmith/config.toml'),
    `\n[mcp_servers.local]\nurl = "http://127.0.0.1:${mcpPort}/mcp"\n\n` +
      `[mcp_servers.remote]\nurl = "http://mcp.toolsmith-proxy-test.invalid/mcp"\nstartup_timeout_ms = 1500\n\n` +
      // The loopback server's tools in a sandbox: `mcp`'s list_tools connects to it.
      `[sandboxes.ecommerce.mcp.local]\ngrade = { w = 0, d = 0 }\n`,
  );
  const proxyUrl = `http://127.0.0.1:${proxyPort}`;
  proxyEnv = {
    NODE_USE_ENV_PROXY: '1',
    HTTP_PROXY: proxyUrl,
    HTTPS_PROXY: proxyUrl,
    http_proxy: proxyUrl,
    https_proxy: proxyUrl,
  };
});

afterAll(async () => {
  for (const socket of silentSockets) socket.destroy();
  await Promise.all([mcp, proxy, authProxy, silentProxy].map((s) => new Promise((r) => s?.close(r))));
  await llm?.close();
  if (ws) removeWorkspace(ws);
});

/** The environment without any NO_PROXY of the runner's: the person's proxy settings only. */
function withoutNoProxy(): Record<string, string> {
  for (const v of ['NO_PROXY', 'no_proxy']) delete process.env[v];
  return proxyEnv;
}

describe('a proxy in the environment (NODE_USE_ENV_PROXY=1, no NO_PROXY)', () => {
  it('a server on 127.0.0.1 is reached directly, not through the proxy', async () => {
    proxied.length = 0;
    const r = await runToolsmith(ws, ['mcp-servers', 'test', 'local', '--json'], withoutNoProxy());
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('ping');
    expect(proxied).toEqual([]);
  });

  it('another host still goes to the proxy (which refuses it, and the error says so)', async () => {
    proxied.length = 0;
    const r = await runToolsmith(ws, ['mcp-servers', 'test', 'remote'], withoutNoProxy());
    expect(r.code).toBe(1);
    expect(proxied.some((t) => t.includes('mcp.toolsmith-proxy-test.invalid'))).toBe(true);
  });
});

describe('every entry that starts here reaches loopback directly', () => {
  it('serve: an MCP server and an LLM server on 127.0.0.1 (Connections and Settings > Test connection)', async () => {
    proxied.length = 0;
    const dataDir = tempWorkspace('toolsmith-proxy-data-');
    let serve: ServeProcess | undefined;
    try {
      serve = await startServe(ws, dataDir, withoutNoProxy());
      const tested = await serve.call<{ tools: { name: string }[] }>('mcp.test', { name: 'local' });
      expect(tested.tools.map((t) => t.name).join(' ')).toContain('ping');
      const provider = await serve.call<{ ok: boolean; error?: string }>('providers.test', {
        kind: 'openai',
        baseUrl: llm.openaiUrl,
        model: 'scripted-coder',
      });
      expect(provider.error).toBeUndefined();
      expect(provider.ok).toBe(true);
      expect(proxied).toEqual([]);
    } finally {
      await serve?.stop();
      removeWorkspace(dataDir);
    }
  });

  it("mcp on stdio: list_tools connects to the sandbox's MCP server on 127.0.0.1", async () => {
    proxied.length = 0;
    const client = new Client({ name: 'proxy-test', version: '1.0.0' });
    await client.connect(mcpStdio(ws, { ...process.env, ...withoutNoProxy() }));
    try {
      const r = await client.callTool({ name: 'list_tools', arguments: { sandbox: 'ecommerce' } });
      expect(r.isError).not.toBe(true);
      expect(JSON.stringify(r.content)).toContain('ping');
      expect(proxied).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('a proxy that fails is named, with its cause', () => {
  // The lower-case variables win, as in undici (and curl): the messages name them.
  const through = (port: number, user = '') => {
    const url = `http://${user}127.0.0.1:${port}`;
    return { ...withoutNoProxy(), HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url };
  };
  const remoteLlm = 'https://llm.toolsmith-proxy-test.invalid/v1';
  // Settings > LLM providers > Test connection, for a provider only the proxy can reach.
  const testRemoteLlm = (serve: ServeProcess) =>
    serve.call<{ ok: boolean; error?: string }>('providers.test', {
      kind: 'openai',
      baseUrl: remoteLlm,
      model: 'm',
    });

  it('an LLM call (Settings > Test connection) through a proxy that refuses connections', async () => {
    const dataDir = tempWorkspace('toolsmith-proxy-data-');
    let serve: ServeProcess | undefined;
    try {
      serve = await startServe(ws, dataDir, through(downPort));
      const r = await testRemoteLlm(serve);
      expect(r.ok).toBe(false);
      // Not "host not found" for the LLM's host, which only the proxy resolves.
      expect(r.error).toContain(
        `cannot connect to the proxy http://127.0.0.1:${downPort} (from $https_proxy)`,
      );
      expect(r.error).toContain('connection refused');
      expect(r.error).toContain(remoteLlm);
    } finally {
      await serve?.stop();
      removeWorkspace(dataDir);
    }
  });

  it('an LLM call through a proxy that asks for credentials (407), with and without a user in the variable', async () => {
    const dataDir = tempWorkspace('toolsmith-proxy-data-');
    let serve: ServeProcess | undefined;
    try {
      serve = await startServe(ws, dataDir, through(authPort));
      const r = await testRemoteLlm(serve);
      expect(r.ok).toBe(false);
      expect(r.error).toContain(
        `the proxy http://127.0.0.1:${authPort} (from $https_proxy) answered 407 Proxy Authentication Required`,
      );
      expect(r.error).toContain('put them in $https_proxy');
      await serve.stop();
      serve = await startServe(ws, dataDir, through(authPort, 'me:s3cret@'));
      const withUser = await testRemoteLlm(serve);
      expect(withUser.error).toContain('it refuses the user and password in $https_proxy');
      // The password is never shown.
      expect(withUser.error).not.toContain('s3cret');
    } finally {
      await serve?.stop();
      removeWorkspace(dataDir);
    }
  });

  it('an MCP server over HTTP behind a proxy that refuses, asks for credentials, or never answers', async () => {
    const refused = await runToolsmith(ws, ['mcp-servers', 'test', 'remote'], through(downPort));
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      `cannot connect to the proxy http://127.0.0.1:${downPort} (from $http_proxy): connection refused`,
    );
    const auth = await runToolsmith(ws, ['mcp-servers', 'test', 'remote'], through(authPort));
    expect(auth.code).toBe(1);
    expect(auth.err).toContain(
      `the proxy http://127.0.0.1:${authPort} (from $http_proxy) answered 407 Proxy Authentication Required`,
    );
    // A proxy that never answers, in `serve` (the command's own case, and `tools`, `run` and `mcp`:
    // test/integration/cli/proxy-paths.test.ts). A stopped `serve` exits: the tunnel it gave up on is
    // ended with the connection (it waited for it, up to undici's 300 s, before).
    const dataDir = tempWorkspace('toolsmith-proxy-data-');
    let serve: ServeProcess | undefined;
    try {
      serve = await startServe(ws, dataDir, through(silentPort));
      const silent = await serve.call('mcp.test', { name: 'remote' }).then(
        () => '',
        (e: Error) => e.message,
      );
      expect(silent).toContain(
        `did not answer initialize within 1500 ms: the proxy http://127.0.0.1:${silentPort} (from $http_proxy), which its requests go through, did not answer the request for a tunnel to mcp.toolsmith-proxy-test.invalid:80 (CONNECT)`,
      );
      await serve.stop();
      expect((await serve.done).signal).toBeNull();
    } finally {
      if (serve?.child.exitCode === null) serve.child.kill('SIGKILL');
      await serve?.done;
      removeWorkspace(dataDir);
    }
  });
});
