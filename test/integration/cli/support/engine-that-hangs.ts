/**
 * A Docker engine on a unix socket (node:http listening on a path) that answers some requests and then
 * hangs: it takes the next request and never answers it. For the stop signals during start
 * (stop-engine-hangs-later.test.ts, bench/stop.bench.ts):
 * - `start`: answers `/_ping`, `/version` and the leftover sweep's own listing (HTTP/1.0, app/prune-light.ts:
 *   no leftover), then hangs on Docker's client's next request (the worker factory's start lists this
 *   installation's containers: `GET /containers/json`).
 * - `sweep`: never answers `/version` (the service's probe waits); answers `/_ping` and the listings of
 *   this installation's containers with one container whose instance is dead, then hangs on its removal
 *   (`DELETE /containers/<id>`).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type HangAt = 'start' | 'sweep';

export interface EngineThatHangs {
  /** The requests the engine holds unanswered now (`GET /containers/json`), in arrival order. */
  readonly hung: string[];
  /** Called at each request the engine holds. */
  onHang: (what: string) => void;
  mode: HangAt;
  /** The leftover's id (`sweep`). */
  readonly leftoverId: string;
  close(): Promise<void>;
}

export async function engineThatHangs(socketPath: string, mode: HangAt): Promise<EngineThatHangs> {
  const sockets = new Set<Socket>();
  const held = new Set<ServerResponse>();
  const leftoverId = randomUUID().replace(/-/g, '') + randomUUID().replace(/-/g, '');
  const engine: EngineThatHangs = {
    hung: [],
    onHang: () => {},
    mode,
    leftoverId,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const json = (res: ServerResponse, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  };
  const hang = (req: IncomingMessage, res: ServerResponse) => {
    const what = `${req.method} ${(req.url ?? '').split('?')[0]}`;
    held.add(res);
    engine.hung.push(what);
    engine.onHang(what);
  };
  /** This installation's id, as the listing's label filter names it. */
  const installationOf = (url: URL): string | undefined => {
    try {
      const f = JSON.parse(url.searchParams.get('filters') ?? '{}') as { label?: string[] };
      return f.label
        ?.find((l) => l.startsWith('toolsmith.installation='))
        ?.slice('toolsmith.installation='.length);
    } catch {
      return undefined;
    }
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://docker');
    const path = url.pathname.replace(/^\/v[\d.]+/, '');
    if (path === '/_ping') {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 2 });
      return res.end('OK');
    }
    if (path === '/version')
      return engine.mode === 'sweep'
        ? hang(req, res)
        : json(res, { Version: '27.0.0', ApiVersion: '1.46', MinAPIVersion: '1.24' });
    if (path === '/containers/json' && req.method === 'GET') {
      const light = req.httpVersion === '1.0';
      if (engine.mode === 'start') return light ? json(res, []) : hang(req, res);
      const id = installationOf(url);
      return json(
        res,
        id
          ? [
              {
                Id: leftoverId,
                Names: ['/toolsmith-leftover'],
                Image: 'toolsmith/python:test',
                State: 'running',
                Status: 'Up 1 hour',
                Created: Math.floor(Date.now() / 1000) - 3600,
                Labels: {
                  'toolsmith.pool': '1',
                  'toolsmith.installation': id,
                  // (an instance with no entry: its process no longer runs)
                  'toolsmith.instance': randomUUID(),
                  'toolsmith.sandbox': 'ecommerce',
                },
              },
            ]
          : [],
      );
    }
    return hang(req, res);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(socketPath, r));
  return engine;
}
