/**
 * A company machine's proxy settings: `HTTP_PROXY`/`HTTPS_PROXY` set, no `NO_PROXY`, and Node 24's
 * `NODE_USE_ENV_PROXY=1` so that Node's fetch uses them (to reach the hosted LLM APIs). A proxy is
 * another host: 127.0.0.1 there is the proxy itself, so a loopback server of the person's (a local
 * model, an MCP server, the workbench) reached through it is never the one meant. The command reaches
 * loopback addresses directly and still sends every other host to the proxy. Real processes: the CLI,
 * an MCP server over Streamable HTTP on 127.0.0.1 and a recording proxy, both in this file.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let mcp: Server;
let proxy: Server;
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
  const [mcpPort, proxyPort] = await Promise.all([listen(mcp), listen(proxy)]);
  ws = tempWorkspace('toolsmith-proxy-ws-');
  appendFileSync(
    join(ws, '.toolsmith/config.toml'),
    `\n[mcp_servers.local]\nurl = "http://127.0.0.1:${mcpPort}/mcp"\n\n` +
      `[mcp_servers.remote]\nurl = "http://mcp.toolsmith-proxy-test.invalid/mcp"\n`,
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
  await Promise.all([mcp, proxy].map((s) => new Promise((r) => s?.close(r))));
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
