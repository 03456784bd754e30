/**
 * `toolsmith mcp --http`: the MCP server over Streamable HTTP (the SDK's server transport) on a loopback
 * address. Every request passes three gates before the transport sees it: the Host header must name the
 * server's own loopback address (DNS rebinding), an Origin header, when sent, must be the server's own
 * origin (403), and the bearer token must match (401). One MCP session per client (`Mcp-Session-Id`),
 * each with its own McpServer built from the shared tool table. Sessions a client never ends (a crashed
 * agent sends no DELETE) are reaped: one idle (no request in flight, none for `sessionIdleMs`) is closed,
 * and at `maxSessions` a new initialize first closes the longest-idle session that has made a call, or
 * is refused (503 with Retry-After) when every session is busy or has made no call yet: a client that
 * just initialized is never evicted before its first call (it would meet "session not found").
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ToolsmithError } from '../app/errors.ts';
import { listenOn } from '../app/listen.ts';
import type { ToolsmithService } from '../app/service.ts';
import { createMcpServer, mcpToolTable, prepareAllMcp } from './mcp.ts';
import { LOOPBACK_HOSTS, MIN_TOKEN_LENGTH } from './mcp-http-limits.ts';
import { errorMessage } from '../core/errors.ts';

export const MCP_HTTP_PATH = '/mcp';

export interface McpHttpOptions {
  token: string;
  /** 0 or absent: a free port. */
  port?: number;
  host?: string;
  /** A session with no request in flight for this long is closed (default 30 minutes). */
  sessionIdleMs?: number;
  /** At most this many open sessions (default 64). */
  maxSessions?: number;
}

export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
export const DEFAULT_MAX_SESSIONS = 64;

export interface McpHttpServer {
  /** `http://127.0.0.1:PORT/mcp` */
  url: string;
  port: number;
  /** Open MCP sessions. */
  sessions(): number;
  /** Open sessions with a request open (a call running, the client's event stream held). */
  busySessions(): number;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  /** Requests of this session still open (a long `code` call, the GET event stream). */
  inFlight: number;
  /** When its last request ended (or began, while none has ended). */
  lastSeen: number;
  /** JSON-RPC requests it sent after initialize (notifications and the event stream are no calls). */
  calls: number;
}

/** How many JSON-RPC requests (a method and an id) a POST body holds. */
function requestsIn(body: unknown): number {
  const isRequest = (m: unknown) =>
    !!m && typeof m === 'object' && 'method' in m && 'id' in m && (m as { id: unknown }).id !== undefined;
  return Array.isArray(body) ? body.filter(isRequest).length : isRequest(body) ? 1 : 0;
}

/**
 * The JSON-RPC methods that only read (the run resources' list and read go to the run store, and wait
 * through a copy over it: infra/store/read-through.ts). One whose HTTP client goes away before its answer
 * is cancelled (as by the client's `notifications/cancelled`): the transport keeps no event store, so the
 * answer could reach no one, and its read stops asking the store. A tool call is not: the MCP spec does
 * not take a dropped connection for a cancel, and a run it started goes on and is recorded.
 */
const READ_METHODS = new Set([
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'tools/list',
  'prompts/list',
  'prompts/get',
]);

/** The ids of the read requests (READ_METHODS) a POST body holds. */
function readIdsIn(body: unknown): (string | number)[] {
  return (Array.isArray(body) ? body : [body]).flatMap((m: unknown) => {
    if (!m || typeof m !== 'object') return [];
    const { method, id } = m as { method?: unknown; id?: unknown };
    return typeof method === 'string' &&
      READ_METHODS.has(method) &&
      (typeof id === 'string' || typeof id === 'number')
      ? [id]
      : [];
  });
}

/**
 * Cancels the read requests of `body` (readIdsIn) when `res` closes before it was answered (the client's
 * connection gone): the session's server gets the `notifications/cancelled` the client did not send,
 * which aborts each request's signal (the SDK's own path for a cancel).
 */
function cancelReadsWhenGone(
  transport: StreamableHTTPServerTransport,
  res: ServerResponse,
  body: unknown,
): void {
  const ids = readIdsIn(body);
  if (ids.length === 0) return;
  res.once('close', () => {
    if (res.writableFinished) return;
    for (const requestId of ids)
      transport.onmessage?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId, reason: 'the HTTP client went away before the answer' },
      });
  });
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!m?.[1]) return false;
  const a = Buffer.from(m[1]);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** An HTTP-level refusal, with a JSON-RPC error body the way the SDK's transport answers its own. */
function refuse(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32000, message, data: { code: status === 404 ? 'not_found' : 'refused' } },
      id: null,
    }),
  );
}

/** The largest request body read (the SDK's transport allows the same). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Reads a JSON request body, or says why it cannot be used (413, 400). */
async function readJson(
  req: IncomingMessage,
): Promise<{ value: unknown } | { status: number; error: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES)
      return { status: 413, error: `request body larger than ${MAX_BODY_BYTES} bytes` };
    chunks.push(chunk);
  }
  try {
    return { value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch (e) {
    return { status: 400, error: `request body is not JSON: ${errorMessage(e)}` };
  }
}

export async function startMcpHttp(svc: ToolsmithService, opts: McpHttpOptions): Promise<McpHttpServer> {
  const host = opts.host ?? '127.0.0.1';
  if (!(LOOPBACK_HOSTS as readonly string[]).includes(host))
    throw new ToolsmithError(
      'invalid_argument',
      `--host must be a loopback address (${LOOPBACK_HOSTS.join(', ')}): the MCP server has no TLS and serves this machine only`,
    );
  if (opts.token.length < MIN_TOKEN_LENGTH)
    throw new ToolsmithError(
      'invalid_argument',
      `the bearer token must be at least ${MIN_TOKEN_LENGTH} characters long`,
    );
  await prepareAllMcp(svc);
  const table = mcpToolTable(svc);
  const sessions = new Map<string, Session>();
  /** Initialize requests being answered (their session is not in `sessions` yet). */
  let pending = 0;
  const idleMs = opts.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const maxSessions = opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const closeSession = (sid: string, s: Session): void => {
    sessions.delete(sid);
    // Closing the server closes its transport; a client that comes back gets 404 and initializes anew.
    s.server.close().catch(() => {});
  };
  /**
   * Closes every idle session; at capacity, the longest-idle one that has made a call too (one that has
   * not is never evicted for room). False when none could be freed.
   */
  const reap = (needRoom: boolean): boolean => {
    const now = Date.now();
    let oldest: [string, Session] | undefined;
    for (const entry of sessions) {
      const s = entry[1];
      if (s.inFlight > 0) continue;
      if (now - s.lastSeen >= idleMs) closeSession(entry[0], s);
      else if (s.calls > 0 && (!oldest || s.lastSeen < oldest[1].lastSeen)) oldest = entry;
    }
    // Initializes under way count: N at once at the cap do not all get in.
    if (!needRoom || sessions.size + pending < maxSessions) return true;
    if (!oldest) return false;
    closeSession(oldest[0], oldest[1]);
    return true;
  };
  const sweep = setInterval(() => reap(false), Math.max(Math.min(idleMs / 4, 60_000), 10));
  sweep.unref();
  /** Counts a request against its session until the response is closed. */
  const track = (s: Session, res: ServerResponse): void => {
    s.inFlight++;
    s.lastSeen = Date.now();
    res.once('close', () => {
      s.inFlight--;
      s.lastSeen = Date.now();
    });
  };
  let allowedHosts = new Set<string>();
  let allowedOrigins = new Set<string>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // DNS rebinding: a page on evil.example resolved to 127.0.0.1 still sends `Host: evil.example`.
    if (!allowedHosts.has((req.headers.host ?? '').toLowerCase()))
      return refuse(res, 403, `host ${JSON.stringify(req.headers.host ?? '')} not allowed`);
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin.toLowerCase()))
      return refuse(res, 403, `origin ${JSON.stringify(origin)} not allowed`);
    if (!tokenMatches(req.headers.authorization, opts.token))
      return refuse(res, 401, 'missing or wrong bearer token', {
        'www-authenticate': 'Bearer realm="toolsmith"',
      });
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== MCP_HTTP_PATH) return refuse(res, 404, `no such path ${path}; the MCP endpoint is /mcp`);

    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = sessions.get(id);
      if (!session) return refuse(res, 404, 'session not found; initialize a new one');
      track(session, res);
      if (req.method !== 'POST') return session.transport.handleRequest(req, res);
      const read = await readJson(req);
      if ('error' in read) return refuse(res, read.status, read.error);
      session.calls += requestsIn(read.value);
      cancelReadsWhenGone(session.transport, res, read.value);
      return session.transport.handleRequest(req, res, read.value);
    }
    // No session yet: only an initialize may open one (the transport refuses anything else), and only
    // an initialize may make room for itself at the cap.
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJson(req);
      if ('error' in read) return refuse(res, read.status, read.error);
      body = read.value;
    }
    const initialize = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
    if (initialize && !reap(true))
      return refuse(
        res,
        503,
        `${maxSessions} MCP sessions are open (the --max-sessions cap), each busy or not yet past its first call; end one (DELETE /mcp) or retry after 5 s`,
        { 'retry-after': '5' },
      );
    if (initialize) pending++;
    try {
      await openSession(req, res, body);
    } finally {
      if (initialize) pending--;
    }
  };

  /** A new transport and server for a request without a session. */
  const openSession = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    const server = createMcpServer(svc, table);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) =>
        void sessions.set(sid, { transport, server, inFlight: 0, lastSeen: Date.now(), calls: 0 }),
      onsessionclosed: (sid) => void sessions.delete(sid),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    if (!transport.sessionId) await server.close();
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) refuse(res, 500, `internal error: ${errorMessage(e)}`);
      else res.end();
    });
  });
  await listenOn(http, host, opts.port);
  const port = (http.address() as AddressInfo).port;
  const names = ['127.0.0.1', 'localhost', '[::1]'];
  allowedHosts = new Set(names.map((n) => `${n}:${port}`));
  allowedOrigins = new Set(names.map((n) => `http://${n}:${port}`));
  const urlHost = host === '::1' ? '[::1]' : host;
  return {
    url: `http://${urlHost}:${port}${MCP_HTTP_PATH}`,
    port,
    sessions: () => sessions.size,
    busySessions: () => [...sessions.values()].filter((x) => x.inFlight > 0).length,
    async close() {
      // Closing the sessions cancels their calls: their pools must not start replacements or
      // standbys from here on (as on stdio, mcp.ts).
      svc.beginShutdown();
      clearInterval(sweep);
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((s) => s.server.close().catch(() => {})));
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
