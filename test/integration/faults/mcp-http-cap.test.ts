/**
 * `toolsmith mcp --http` beyond its session cap, as a real process: many clients initialize at once.
 * Those past the cap are refused at initialize (503 with Retry-After and the reason), never let in and
 * then evicted before their first call: every client that got a session answers its first call.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { startMcpHttpProcess } from '../mcp/support/mcp-http-process.ts';
import type { McpHttpProcess } from '../mcp/support/mcp-http-process.ts';

const TOKEN = 'a-test-token-that-is-long-enough-0123456789';
const CAP = 4;
let ws: string;
let server: McpHttpProcess;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function post(body: unknown, sessionId?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
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
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const initialize = () =>
  post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'many', version: '1' } },
  });

beforeAll(async () => {
  ws = tempWorkspace('toolsmith-mcp-cap-');
  server = await startMcpHttpProcess(ws, ['--max-sessions', String(CAP), '--token-env', 'TS_MCP_TOKEN'], {
    TS_MCP_TOKEN: TOKEN,
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  removeWorkspace(ws);
});

describe('mcp --http beyond its session cap', () => {
  it('refuses the clients past the cap at initialize (503, Retry-After); every admitted client answers its first call', async () => {
    const answers = await Promise.all(Array.from({ length: CAP * 3 }, () => initialize()));
    const admitted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    expect(admitted).toHaveLength(CAP);
    expect(refused).toHaveLength(CAP * 2);
    for (const r of refused) {
      expect(r.status).toBe(503);
      expect(r.headers['retry-after']).toBe('5');
      expect(r.body).toContain(`${CAP} MCP sessions are open (the --max-sessions cap)`);
    }
    // Each admitted client's first calls: never "session not found".
    const sids = admitted.map((a) => a.headers['mcp-session-id'] as string);
    for (const sid of sids)
      expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sid)).status).toBe(202);
    const first = await Promise.all(
      sids.map((sid) => post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, sid)),
    );
    expect(first.map((a) => a.status)).toEqual(sids.map(() => 200));

    // Once every session has made a call, a new client displaces the longest-idle one (not refused).
    const late = await initialize();
    expect(late.status).toBe(200);
    const gone = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, sids[0]);
    expect(gone.status).toBe(404);
  }, 60_000);
});
