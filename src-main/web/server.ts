/**
 * The browser front end: the same contract as Electron's IPC, over HTTP on 127.0.0.1 with a random
 * token (printed in the URL) and an Origin check, plus the built renderer as static files.
 */
import { ToolsmithError } from '../app/errors.ts';
import { listenOn } from '../app/listen.ts';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { WebSocketServer } from 'ws';
import { dispatch } from '../app/handlers.ts';
import type { ToolsmithService } from '../app/service.ts';
import type { PushEvent } from '../contract/api.ts';
import { CSP } from './csp.ts';
import { errorMessage } from '../core/errors.ts';

export interface WebServer {
  url: string;
  token: string;
  port: number;
  server: Server;
  /** The service answering now (another one after the page opened a different workspace). */
  service(): ToolsmithService;
  close(): Promise<void>;
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ttf': 'font/ttf',
  '.woff2': 'font/woff2',
};

const MAX_BODY = 4 * 1024 * 1024;

function send(res: ServerResponse, status: number, body: string | Buffer, type = 'application/json'): void {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-security-policy': CSP,
    'referrer-policy': 'no-referrer',
  });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tokenMatches(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A path segment that `decodeURIComponent` cannot decode (a lone `%`) is a 404, never a 500. */
function decodePath(p: string): string | undefined {
  try {
    return decodeURIComponent(p);
  } catch {
    return undefined;
  }
}

export async function startWebServer(
  initial: ToolsmithService,
  opts: {
    port?: number;
    staticDir?: string;
    token?: string;
    /**
     * The browser has no native dialog to confirm a command that starts on the host (a stdio MCP
     * server): such commands are refused unless the person starting the server allowed them
     * (`toolsmith serve --allow-host-commands`).
     */
    allowHostCommands?: boolean;
  } = {},
): Promise<WebServer> {
  const token = opts.token ?? randomBytes(24).toString('base64url');
  initial.approveHostCommand = opts.allowHostCommands
    ? undefined
    : (c) =>
        Promise.reject(
          new ToolsmithError(
            'refused',
            `the browser front end does not start commands on this computer (MCP server ${c.server}: ${c.command}): a web page cannot ask you first. Restart the workbench with \`npm start -- --allow-host-commands\` (or \`toolsmith serve --allow-host-commands\`), or use the desktop app, which asks you first`,
          ),
        );
  let origin = '';
  // The page can switch workspaces: the server then answers from (and pushes events of) the new service.
  let svc = initial;
  const sockets = new Set<(e: PushEvent) => void>();
  const relay = (e: PushEvent) => {
    for (const s of sockets) s(e);
  };
  let unsubscribe = svc.onPush(relay);
  const openWorkspace = async (dir: string): Promise<ToolsmithService> => {
    const next = svc.openOther(dir);
    const prev = svc;
    unsubscribe();
    svc = next;
    unsubscribe = svc.onPush(relay);
    await prev.close();
    return next;
  };
  const server = createServer((req, res) => {
    void handle(req, res).catch((e: unknown) =>
      send(res, 500, JSON.stringify({ ok: false, error: { code: 'internal', message: String(e) } })),
    );
  });
  // DNS rebinding: a page on evil.example whose name now resolves to 127.0.0.1 still sends
  // `Host: evil.example:<port>`. Only the names this server is reached by pass, for files, API and events.
  let allowedHosts = new Set<string>();
  const hostAllowed = (req: IncomingMessage) => allowedHosts.has((req.headers.host ?? '').toLowerCase());
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostAllowed(req))
      return send(
        res,
        403,
        JSON.stringify({
          ok: false,
          error: { code: 'refused', message: `host ${JSON.stringify(req.headers.host ?? '')} not allowed` },
        }),
      );
    // Parsed against the origin as a string prefix: `new URL('//x', base)` would read `//x` as a host.
    let url: URL;
    try {
      url = new URL(origin + (req.url?.startsWith('/') ? req.url : '/'));
    } catch {
      return send(res, 404, 'not found', 'text/plain');
    }
    if (url.pathname.startsWith('/api/')) {
      if (req.method !== 'POST')
        return send(
          res,
          405,
          JSON.stringify({ ok: false, error: { code: 'invalid_argument', message: 'POST only' } }),
        );
      // Browsers always send Origin on POST: a page from anywhere else cannot call the API.
      if (req.headers.origin !== origin)
        return send(
          res,
          403,
          JSON.stringify({ ok: false, error: { code: 'refused', message: 'origin not allowed' } }),
        );
      const auth = req.headers.authorization?.replace(/^Bearer /, '');
      if (!tokenMatches(auth, token))
        return send(
          res,
          401,
          JSON.stringify({
            ok: false,
            error: {
              code: 'refused',
              message:
                'missing or wrong token: open the URL that `toolsmith serve` printed in its terminal (it carries ?token=...)',
            },
          }),
        );
      let payload: unknown;
      try {
        const text = await readBody(req);
        payload = text ? JSON.parse(text) : {};
      } catch (e) {
        return send(
          res,
          400,
          JSON.stringify({
            ok: false,
            error: { code: 'invalid_argument', message: `bad request body: ${errorMessage(e)}` },
          }),
        );
      }
      const method = decodePath(url.pathname.slice(5));
      if (method === undefined)
        return send(
          res,
          404,
          JSON.stringify({ ok: false, error: { code: 'not_found', message: 'no such method' } }),
        );
      // Cancelled when the client goes away before the answer (its connection closed): a read of the
      // run store waiting through a copy over it stops then instead of asking on for up to 30 s.
      const cancel = new AbortController();
      const closed = () => {
        if (!res.writableFinished) cancel.abort();
      };
      res.once('close', closed);
      if (req.socket.destroyed) closed();
      const result = await dispatch(svc, method, payload, { openWorkspace, signal: cancel.signal });
      res.off('close', closed);
      return send(res, 200, JSON.stringify(result));
    }
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, 'method not allowed', 'text/plain');
    if (!opts.staticDir) return send(res, 404, 'no renderer build', 'text/plain');
    const rel = url.pathname === '/' ? 'index.html' : decodePath(url.pathname.slice(1));
    if (rel === undefined || rel.includes('\0')) return send(res, 404, 'not found', 'text/plain');
    const file = normalize(join(opts.staticDir, rel));
    if (!file.startsWith(normalize(opts.staticDir) + sep) || !existsSync(file) || !statSync(file).isFile()) {
      if (rel === 'index.html')
        return send(
          res,
          404,
          `The workbench is not built in ${opts.staticDir}: run \`npm run build\` (or restart \`toolsmith serve\`, which builds it).`,
          'text/plain; charset=utf-8',
        );
      return send(res, 404, 'not found', 'text/plain');
    }
    send(res, 200, readFileSync(file), MIME[extname(file)] ?? 'application/octet-stream');
  }
  // Pushed events (run events, streamed tokens, image build progress) over a WebSocket.
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    let url: URL | undefined;
    try {
      url = new URL(origin + (req.url?.startsWith('/') ? req.url : '/'));
    } catch {
      url = undefined;
    }
    if (
      !url ||
      !hostAllowed(req) ||
      url.pathname !== '/api/events' ||
      req.headers.origin !== origin ||
      !tokenMatches(url.searchParams.get('token') ?? undefined, token)
    ) {
      socket.write('HTTP/1.1 403 Forbidden\r\nconnection: close\r\n\r\n');
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const push = (e: PushEvent) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(e));
      };
      sockets.add(push);
      const off = () => sockets.delete(push);
      ws.on('close', off);
      ws.on('error', off);
      // The channel is one-way: anything the page sends is ignored.
      ws.on('message', () => {});
    });
  });
  await listenOn(server, '127.0.0.1', opts.port);
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  return {
    url: `${origin}/?token=${token}`,
    token,
    port,
    server,
    service: () => svc,
    close: async () => {
      // Nothing new starts once the server stops (no replacement for a job its close cancels).
      svc.beginShutdown();
      unsubscribe();
      await new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      });
      // A service opened by the page belongs to the server; the initial one to the caller.
      if (svc !== initial) await svc.close();
    },
  };
}
