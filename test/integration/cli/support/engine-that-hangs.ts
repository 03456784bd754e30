/**
 * A Docker engine on a unix socket (node:http listening on a path) that answers some requests and then
 * hangs: it takes the next request and never answers it. For the stop signals during start
 * (stop-engine-hangs-later.test.ts, stop-spawn.test.ts, bench/stop.bench.ts):
 * - `start`: answers `/_ping`, `/version` and the leftover sweep's own listing (HTTP/1.0, app/prune-light.ts:
 *   no leftover), then hangs on Docker's client's next request (the worker factory's start lists this
 *   installation's containers: `GET /containers/json`).
 * - `sweep`: never answers `/version` (the service's probe waits); answers `/_ping` and the listings of
 *   this installation's containers with one container whose instance is dead, then hangs on its removal
 *   (`DELETE /containers/<id>`).
 * - `create`, `attach`, `start`, `hello`: a job's container being made. The engine answers the worker
 *   factory's start (its listing, its events), the image check and the containers' listings (the ones
 *   it made, by their labels), then holds the container's create (`POST /containers/create`), its attach
 *   (`POST /containers/<id>/attach`, after answering the create) or its start (`POST
 *   /containers/<id>/start`, after the attach: a stream that stays open and says nothing); `hello`
 *   answers the start too, and no worker ever connects to its protocol socket. A removal is answered
 *   (the container is gone from the listings) unless `removal` is `hang`; every removal is counted.
 *   `listing: 'hang'` holds Docker's client's listings from then on (the dispose's).
 * - `light-sweep`: as `create` and after, but holds the light leftover sweep's listing (HTTP/1.0,
 *   app/prune-light.ts) and makes nothing.
 * - `image`: as `create` and after, but holds the check of the job's image (`GET /images/<tag>/json`).
 * - `build`: as `create` and after, but the job's image is missing (its check answers 404; the Python
 *   base it builds on is there) and its build (`POST /build`) is answered with a progress stream that
 *   says its first step and then nothing more, as a build the engine no longer moves on. Every build the
 *   engine got is counted (`builds`); none ever ends, so no image is ever tagged.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';

/** What `hello` holds: nothing of the engine's, the worker's connection that never comes. */
export const HELLO = "the worker's hello";

export type HangAt =
  'start' | 'sweep' | 'light-sweep' | 'create' | 'attach' | 'hello' | 'container-start' | 'image' | 'build';

/** A container the engine made (`create` and after), listed by its labels. */
export interface MadeContainer {
  Id: string;
  Labels: Record<string, string>;
}

export interface EngineThatHangs {
  /** The requests the engine holds unanswered now (`GET /containers/json`), in arrival order. */
  readonly hung: string[];
  /** Called at each request the engine holds. */
  onHang: (what: string) => void;
  mode: HangAt;
  /** Whether a container's removal is answered (the default) or held. */
  removal: 'answer' | 'hang';
  /** Whether Docker's client's listings of containers are answered (the default) or held (`create` and after). */
  listing: 'answer' | 'hang';
  /** The leftover's id (`sweep`). */
  readonly leftoverId: string;
  /** The containers made and not removed (answered removals take them out). */
  readonly containers: Map<string, MadeContainer>;
  /** Every `DELETE /containers/<id>` the engine got (answered or held), by id, in arrival order. */
  readonly removals: string[];
  /** The tag of every `POST /build` the engine got (`build`), in arrival order. */
  readonly builds: string[];
  /** The tags of every image check (`GET /images/<tag>/json`), in arrival order. */
  readonly imageChecks: string[];
  close(): Promise<void>;
}

export async function engineThatHangs(socketPath: string, mode: HangAt): Promise<EngineThatHangs> {
  const sockets = new Set<Socket | Duplex>();
  const held = new Set<ServerResponse>();
  const leftoverId = randomUUID().replace(/-/g, '') + randomUUID().replace(/-/g, '');
  const engine: EngineThatHangs = {
    hung: [],
    onHang: () => {},
    mode,
    removal: 'answer',
    listing: 'answer',
    leftoverId,
    containers: new Map(),
    removals: [],
    builds: [],
    imageChecks: [],
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const making = () =>
    ['light-sweep', 'create', 'attach', 'hello', 'container-start', 'image', 'build'].includes(engine.mode);
  const json = (res: ServerResponse, body: unknown, status = 200) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  };
  const heldAs = (what: string) => {
    engine.hung.push(what);
    engine.onHang(what);
  };
  const hang = (req: IncomingMessage, res: ServerResponse) => {
    held.add(res);
    heldAs(`${req.method} ${(req.url ?? '').split('?')[0]?.replace(/^\/v[\d.]+/, '')}`);
  };
  /** The listing's label filter (`toolsmith.installation=ID`, ...). */
  const labelsOf = (url: URL): string[] => {
    try {
      return (JSON.parse(url.searchParams.get('filters') ?? '{}') as { label?: string[] }).label ?? [];
    } catch {
      return [];
    }
  };
  const installationOf = (url: URL): string | undefined =>
    labelsOf(url)
      .find((l) => l.startsWith('toolsmith.installation='))
      ?.slice('toolsmith.installation='.length);
  const listed = (c: MadeContainer) => ({
    Id: c.Id,
    Names: [`/toolsmith-${c.Id.slice(0, 12)}`],
    Image: 'toolsmith/python:test',
    State: 'created',
    Status: 'Created',
    Created: Math.floor(Date.now() / 1000),
    Labels: c.Labels,
  });
  const body = (req: IncomingMessage): Promise<string> =>
    new Promise((r) => {
      let text = '';
      req.on('data', (d: Buffer) => (text += d.toString()));
      req.on('end', () => r(text));
    });
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
      if (making()) {
        if (engine.listing === 'hang' && !light) return hang(req, res);
        if (engine.mode === 'light-sweep' && light) return hang(req, res);
        const want = labelsOf(url);
        return json(
          res,
          [...engine.containers.values()]
            .filter((c) =>
              want.every((l) => {
                const [k = '', v] = l.split('=');
                return v === undefined ? k in c.Labels : c.Labels[k] === v;
              }),
            )
            .map(listed),
        );
      }
      const id = installationOf(url);
      return json(
        res,
        id
          ? [
              listed({
                Id: leftoverId,
                Labels: {
                  'toolsmith.pool': '1',
                  'toolsmith.installation': id,
                  // (an instance with no entry: its process no longer runs)
                  'toolsmith.instance': randomUUID(),
                  'toolsmith.sandbox': 'ecommerce',
                },
              }),
            ]
          : [],
      );
    }
    if (making()) {
      if (path === '/events') {
        // (a stream that stays open: no event ever comes)
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.flushHeaders();
        held.add(res);
        return;
      }
      const image = /^\/images\/(.+)\/json$/.exec(path);
      if (image) {
        const tag = decodeURIComponent(image[1] ?? '');
        engine.imageChecks.push(tag);
        if (engine.mode === 'image') return hang(req, res);
        // (`build`: the job's image is missing, the base it builds on is there)
        if (engine.mode === 'build' && !tag.includes('-base:'))
          return json(res, { message: `No such image: ${tag}` }, 404);
        return json(res, { Id: 'sha256:0', RepoTags: [tag] });
      }
      if (path === '/build' && req.method === 'POST') {
        engine.builds.push(url.searchParams.get('t') ?? '');
        // (the build context is read whole, as the engine does, then the first step is said)
        return void body(req).then(() => {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.write(`${JSON.stringify({ stream: 'Step 1/5 : FROM toolsmith/python-base:0\n' })}\r\n`);
          held.add(res);
          heldAs('POST /build');
        });
      }
      if (path === '/containers/create' && req.method === 'POST') {
        if (engine.mode === 'create') return hang(req, res);
        return void body(req).then((text) => {
          const Id = randomUUID().replace(/-/g, '') + randomUUID().replace(/-/g, '');
          const labels = (JSON.parse(text || '{}') as { Labels?: Record<string, string> }).Labels ?? {};
          engine.containers.set(Id, { Id, Labels: labels });
          json(res, { Id, Warnings: [] }, 201);
        });
      }
      const wait = /^\/containers\/([^/]+)\/wait$/.exec(path);
      // (the container's exit, awaited for its whole life: never counted as held)
      if (wait && req.method === 'POST') return void held.add(res);
      const start = /^\/containers\/([^/]+)\/start$/.exec(path);
      if (start && req.method === 'POST') {
        if (engine.mode === 'container-start') return hang(req, res);
        res.writeHead(204);
        res.end();
        // (what waits now is the worker's hello on its protocol socket, which never comes)
        if (engine.mode === 'hello') heldAs(HELLO);
        return;
      }
      const one = /^\/containers\/([^/]+)$/.exec(path);
      if (one && req.method === 'DELETE') {
        engine.removals.push(one[1] ?? '');
        if (engine.removal === 'hang') return hang(req, res);
        engine.containers.delete(one[1] ?? '');
        res.writeHead(204);
        return res.end();
      }
      const inspect = /^\/containers\/([^/]+)\/json$/.exec(path);
      if (inspect)
        return engine.containers.has(inspect[1] ?? '')
          ? json(res, { Id: inspect[1], State: { Status: 'created', Running: false } })
          : json(res, { message: 'No such container' }, 404);
    }
    if (req.method === 'DELETE' && /^\/containers\/[^/]+$/.test(path))
      engine.removals.push(path.split('/')[2] ?? '');
    return hang(req, res);
  });
  // Docker's client attaches with `Upgrade: tcp` (a hijacked stream).
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    const what = `${req.method} ${(req.url ?? '').split('?')[0]?.replace(/^\/v[\d.]+/, '')}`;
    if (engine.mode === 'attach') return heldAs(what);
    // (the attached stream stays open and says nothing: the container's worker never speaks)
    socket.write(
      'HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n',
    );
    socket.on('data', () => {});
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(socketPath, r));
  return engine;
}
