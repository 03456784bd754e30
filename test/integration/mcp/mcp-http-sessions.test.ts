/**
 * `toolsmith mcp --http` session lifetime: sessions a client abandons (no DELETE, no open stream) are
 * closed after the idle time, a live client keeps its session, and at the session cap a new client
 * first displaces the longest-idle session or is refused with 503 when all are busy.
 */
import { request } from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { startMcpHttp } from '../../../src-main/mcp/mcp-http.ts';
import type { McpHttpServer } from '../../../src-main/mcp/mcp-http.ts';
import { POLL_MS } from '../../support/budgets.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { connectMcpHttp } from './support/mcp-http-process.ts';

const TOKEN = 'a-test-token-that-is-long-enough-0123456789';
let ws: string;
let svc: ToolsmithService;
let server: McpHttpServer | undefined;
const clients: Client[] = [];

const IDLE_MS = 2000;

/** Waits until `cond` holds (polled; fails after POLL_MS). */
const until = (cond: () => boolean) =>
  vi.waitFor(() => expect(cond()).toBe(true), { timeout: POLL_MS, interval: 20 });

/** A raw JSON-RPC POST (a string is sent as it is); returns status, session id header and body. */
function post(
  body: unknown,
  sessionId?: string,
): Promise<{ status: number; sessionId: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server?.port,
        path: '/mcp',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${TOKEN}`,
          'mcp-protocol-version': '2025-06-18',
          ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            sessionId: res.headers['mcp-session-id'] as string | undefined,
            body: text,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
}

/** A client that initializes and then vanishes without a DELETE (a crashed agent). */
async function abandonedSession(): Promise<string> {
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'gone', version: '1' } },
  });
  expect(init.status).toBe(200);
  const sid = init.sessionId;
  if (!sid) throw new Error('no session id');
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sid)).status).toBe(202);
  return sid;
}

const listTools = (sid: string) => post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, sid);

async function sdkClient(): Promise<Client> {
  const c = await connectMcpHttp(server?.url ?? '', TOKEN, 'live');
  clients.push(c);
  return c;
}

beforeAll(() => {
  ws = tempWorkspace('toolsmith-mcp-sessions-');
  svc = ToolsmithService.open(ws);
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await server?.close();
  server = undefined;
});

afterAll(async () => {
  await svc.close();
  removeWorkspace(ws);
});

describe('mcp --http sessions', () => {
  // The idle time is long enough that a loaded machine's gap between two requests of one client (its
  // initialize and its next) never reaches it; the tests wait on the reaping, not on a clock.
  it('closes an abandoned session after the idle time; its id is then unknown (404)', async () => {
    server = await startMcpHttp(svc, { token: TOKEN, sessionIdleMs: IDLE_MS });
    const sid = await abandonedSession();
    expect((await listTools(sid)).status).toBe(200);
    expect(server.sessions()).toBe(1);
    await until(() => server?.sessions() === 0);
    const after = await listTools(sid);
    expect(after.status).toBe(404);
    expect(after.body).toContain('session not found');
  });

  it('keeps a session while a request of it is open (a connected client holding its stream)', async () => {
    server = await startMcpHttp(svc, { token: TOKEN, sessionIdleMs: IDLE_MS });
    const live = await sdkClient();
    // Its GET event stream is open: a request of the session is in flight.
    await until(() => server?.busySessions() === 1);
    // A session opened after it and then left alone is closed as idle: the idle time has passed for
    // the live one too (waited on the outcome, not on a clock).
    await abandonedSession();
    expect(server.sessions()).toBe(2);
    await until(() => server?.sessions() === 1);
    // The SDK client keeps its GET event stream open: the session is in use, not idle.
    expect(server.sessions()).toBe(1);
    expect((await live.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('at the cap, a new session displaces the longest-idle one that has made a call', async () => {
    server = await startMcpHttp(svc, { token: TOKEN, maxSessions: 2 });
    const first = await abandonedSession();
    expect((await listTools(first)).status).toBe(200);
    // The second session is seen later than the first (on the server's millisecond clock).
    const seen = Date.now();
    await until(() => Date.now() > seen);
    const second = await abandonedSession();
    expect((await listTools(second)).status).toBe(200);
    const third = await abandonedSession();
    expect(server.sessions()).toBe(2);
    expect((await listTools(first)).status).toBe(404);
    expect((await listTools(second)).status).toBe(200);
    expect((await listTools(third)).status).toBe(200);
  });

  it('at the cap, only an initialize displaces a session: other requests without a session do not', async () => {
    server = await startMcpHttp(svc, { token: TOKEN, maxSessions: 1 });
    const idle = await abandonedSession();
    // A tools/list without a session id: refused by the transport (not initialized), nothing closed.
    const stray = await post({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
    expect(stray.status).toBe(400);
    const notJson = await post('{ not json');
    expect(notJson.status).toBe(400);
    expect(server.sessions()).toBe(1);
    expect((await listTools(idle)).status).toBe(200);
  });

  it('many initializes at once leave at most the cap of sessions open', async () => {
    server = await startMcpHttp(svc, { token: TOKEN, maxSessions: 2 });
    const init = () =>
      post({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'n', version: '1' } },
      });
    const answers = await Promise.all([init(), init(), init(), init(), init(), init()]);
    expect(answers.every((a) => a.status === 200 || a.status === 503)).toBe(true);
    expect(server.sessions()).toBeLessThanOrEqual(2);
  });

  it('at the cap with every session busy, initialize is refused with 503 and a reason', async () => {
    server = await startMcpHttp(svc, { token: TOKEN, maxSessions: 1 });
    const live = await sdkClient();
    // The SDK client opens its event stream just after connecting: then its session is in use.
    await until(() => server?.busySessions() === 1);
    const refused = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    expect(refused.status).toBe(503);
    expect(refused.body).toContain('1 MCP sessions are open (the --max-sessions cap)');
    expect((await live.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('the CLI flags: --session-idle and --max-sessions need --http and a positive integer', async () => {
    const stray = await runToolsmith(ws, ['mcp', '--max-sessions', '4']);
    expect(stray.code).toBe(2);
    expect(stray.err).toContain('--max-sessions needs --http');
    const bad = await runToolsmith(ws, ['mcp', '--http', '--session-idle', '0']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--session-idle must be an integer from 1');
  });
});
