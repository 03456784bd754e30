/**
 * Controlled egress for tool code: an HTTP forward / CONNECT proxy in the host process, one listener per
 * tool container on a unix socket that is bind-mounted into that container (which otherwise has no
 * network at all: `NetworkMode: none`). The worker relays 127.0.0.1:3128 inside the container to the
 * socket, and the container's HTTP(S)_PROXY point there. The allow-list (`host:port`) is enforced here,
 * outside the container; every request (host, port, method, bytes, allowed or denied, ms) is recorded.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { join } from 'node:path';
import type { EgressRecord } from '../../core/sandbox/execution.ts';
import { errorMessage } from '../../core/errors.ts';
import { socketFolder } from './socket-folder.ts';
import { readClientHello, serverNameMismatch } from './tls-hello.ts';

/** Where the socket folder is mounted in a tool container, and the relay port the worker listens on. */
export const EGRESS_MOUNT = '/run/toolsmith-egress';
export const EGRESS_SOCKET = `${EGRESS_MOUNT}/proxy.sock`;
export const EGRESS_PORT = 3128;

/** The environment a tool container gets: its HTTP clients go through the relay, nothing else exists. */
export function egressEnv(): string[] {
  const proxy = `http://127.0.0.1:${EGRESS_PORT}`;
  return [
    `TOOLSMITH_EGRESS_SOCKET=${EGRESS_SOCKET}`,
    `TOOLSMITH_EGRESS_PORT=${EGRESS_PORT}`,
    `HTTP_PROXY=${proxy}`,
    `HTTPS_PROXY=${proxy}`,
    `http_proxy=${proxy}`,
    `https_proxy=${proxy}`,
  ];
}

export interface AllowRule {
  /** Lower-case host name or IP literal; `*.example.com` matches every subdomain (not the apex). */
  host: string;
  port: number;
}

/** Parses `host:port` entries (`[::1]:443` for IPv6, `*.example.com:443` for subdomains). */
export function parseAllow(entries: string[]): AllowRule[] {
  return entries.map((entry) => {
    const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9*][A-Za-z0-9.*-]*):(\d{1,5})$/.exec(entry.trim());
    const port = Number(m?.[2]);
    const host = (m?.[1] ?? '').replace(/^\[|\]$/g, '').toLowerCase();
    if (!m || port < 1 || port > 65535 || (host.includes('*') && !/^\*\.[^*]+$/.test(host)))
      throw new Error(
        `egress allow entry ${JSON.stringify(entry)} is not "host:port" (e.g. "api.example.com:443", "*.example.com:443", "[::1]:8080")`,
      );
    return { host, port };
  });
}

export function isAllowed(rules: AllowRule[], host: string, port: number): boolean {
  const h = host
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  return rules.some(
    (r) => r.port === port && (r.host === h || (r.host.startsWith('*.') && h.endsWith(r.host.slice(1)))),
  );
}

const MAX_HEAD = 64 * 1024;
const MAX_CONNECTIONS = 32;
/** How long a CONNECT tunnel may wait for its client's TLS ClientHello. */
const HELLO_TIMEOUT_MS = 30_000;

interface Open {
  record: EgressRecord;
  started: number;
}

/**
 * One tool container's proxy: listens on `<dir>/proxy.sock` (the folder is what the container mounts).
 * `onRecord` gets each request when its connection closes; `inFlight()` the ones still open.
 */
export class EgressListener {
  readonly dir: string;
  /** The listener's own folder in the temporary directory (0700): `dir` is a random name inside it. */
  private readonly top: string;
  private readonly server: Server;
  private readonly rules: AllowRule[];
  private readonly open = new Set<Open>();
  private readonly sockets = new Set<Socket>();
  onRecord: (r: EgressRecord) => void = () => {};

  private constructor(top: string, dir: string, rules: AllowRule[]) {
    this.top = top;
    this.dir = dir;
    this.rules = rules;
    this.server = createServer((s) => this.accept(s));
  }

  static async start(rules: AllowRule[]): Promise<EgressListener> {
    // The socket must be open to the container's user (65534), so it is 0666; but any other process of
    // the host that reached it could connect, fill the proxy's connections and send requests recorded in
    // a running job's trace. Its path is no secret: tool code reads it in /proc/self/mountinfo (the bind
    // mount's source) and may hand it on. What keeps the host's other users out (every uid but
    // Toolsmith's own and root, 65534 included) is the folder above the mounted one: 0700, Toolsmith's.
    // The container never passes through it: the engine (root, or this user for a rootless one) resolves
    // the mount's source, and inside the container the path starts at the mounted folder itself, 0755.
    // (below it: a 32-character folder and `/proxy.sock`; in /tmp when a long $TMPDIR leaves no room)
    const top = socketFolder('toolsmith-egress-', 1 + 32 + '/proxy.sock'.length);
    chmodSync(top, 0o700);
    const dir = join(top, randomBytes(16).toString('hex'));
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    const l = new EgressListener(top, dir, rules);
    await new Promise<void>((resolve, reject) => {
      l.server.once('error', reject);
      l.server.listen(join(dir, 'proxy.sock'), () => resolve());
    });
    // The container's user (65534) connects; outside the container only Toolsmith's user and root can
    // pass `top` to reach it.
    chmodSync(join(dir, 'proxy.sock'), 0o666);
    return l;
  }

  private readonly idleWaiters: (() => void)[] = [];

  /**
   * Resolves once no request is open, or after `ms`. A tool's HTTP client closes its connection before the
   * tool returns, but that close reaches this proxy on another path than the tool's result (the relay in
   * the container, then this socket): a job's end waits for it briefly, so its trace has the finished
   * request rather than one marked `open`.
   */
  idle(ms: number): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.idleWaiters.push(done);
    });
  }

  /** Requests whose connection is still open (bytes so far), marked `open`. */
  inFlight(): EgressRecord[] {
    return [...this.open].map((o) => ({ ...o.record, ms: ms(o.started), open: true }));
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.top, { recursive: true, force: true });
  }

  private accept(client: Socket): void {
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => {});
    if (this.sockets.size > MAX_CONNECTIONS) {
      client.end(reply(503, `toolsmith egress: more than ${MAX_CONNECTIONS} connections at once\n`));
      return;
    }
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      // The limit holds however the head arrives: in many small chunks or in one large one.
      if ((end < 0 && head.length > MAX_HEAD) || end + 4 > MAX_HEAD) {
        client.off('data', onData);
        client.end(reply(431, `toolsmith egress: request head over ${MAX_HEAD} bytes\n`));
        return;
      }
      if (end < 0) return;
      client.off('data', onData);
      client.pause();
      this.handle(client, head.subarray(0, end).toString('latin1'), head.subarray(end + 4));
    };
    client.on('data', onData);
  }

  private handle(client: Socket, head: string, rest: Buffer): void {
    const lines = head.split('\r\n');
    const [method = '', target = '', version = 'HTTP/1.1'] = (lines[0] ?? '').split(' ');
    const malformed = checkHead(lines);
    let host = '';
    let port = 0;
    let path = '/';
    if (method === 'CONNECT') {
      const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(target);
      host = m?.[1] ?? '';
      port = Number(m?.[2] ?? 0);
    } else {
      try {
        const u = new URL(target);
        if (u.protocol === 'http:') {
          host = u.hostname;
          port = Number(u.port || 80);
          path = `${u.pathname}${u.search}`;
        }
      } catch {
        /* not an absolute http URL: refused below */
      }
    }
    const record: EgressRecord = {
      host: host.replace(/^\[|\]$/g, ''),
      port,
      method: method.slice(0, 16),
      allowed: false,
      bytesOut: 0,
      bytesIn: 0,
      ms: 0,
    };
    const o: Open = { record, started: performance.now() };
    const finish = () => {
      if (!this.open.delete(o)) return;
      record.ms = ms(o.started);
      this.onRecord(record);
      if (this.open.size === 0) for (const w of this.idleWaiters.splice(0)) w();
    };
    this.open.add(o);
    client.on('close', finish);
    // A destination is a host name (letters, digits, '-', '_', '.') or an IP literal, nothing else: a
    // CONNECT target is taken as written, and a NUL, '#', '/' or '@' in it would otherwise meet the
    // allow-list's suffix match and the resolver (a NUL made net.createConnection throw in this process).
    if (host && !HOST_NAME.test(host) && !/^\[[0-9A-Fa-f:.]+\]$/.test(host)) host = '';
    if (!host || !port) {
      record.error = `not a proxy request: ${JSON.stringify((lines[0] ?? '').slice(0, 200))}`;
      record.status = 400;
      client.end(reply(400, 'toolsmith egress: only absolute http:// requests and CONNECT are proxied\n'));
      finish(); // complete now: the tool's call may end before the host sees the socket close
      return;
    }
    // A head this proxy would read otherwise than a lenient destination (a bare LF ends a line there,
    // smuggling a Host or a whole second request past the one recorded here) is refused, and the record
    // says why.
    if (malformed) {
      record.error = malformed;
      record.status = 400;
      client.end(reply(400, `toolsmith egress: ${malformed}\n`));
      finish();
      return;
    }
    // Plain HTTP: the header lines must be well-formed (no folding, no space before the colon), so that
    // what this proxy reads as Host is what the destination reads; the body is framed by Content-Length.
    let bodyLength = 0;
    if (method !== 'CONNECT') {
      const bad = checkHeaders(lines.slice(1));
      if (bad) {
        record.error = bad;
        record.status = bad.startsWith('411') ? 411 : 400;
        client.end(reply(record.status, `toolsmith egress: ${bad.replace(/^\d+ /, '')}\n`));
        finish();
        return;
      }
      bodyLength = contentLength(lines.slice(1));
    }
    if (!isAllowed(this.rules, host, port)) {
      record.status = 403;
      client.end(
        reply(403, `toolsmith egress: ${host}:${port} is not in this sandbox's egress allow-list\n`),
      );
      finish();
      return;
    }
    record.allowed = true;
    let upstream: Socket;
    try {
      upstream = createConnection({ host: record.host, port });
    } catch (e) {
      record.error = errorMessage(e);
      record.status = 502;
      client.end(reply(502, `toolsmith egress: cannot reach ${host}:${port}\n`));
      finish();
      return;
    }
    let connected = false;
    upstream.on('error', (e) => {
      record.error = e.message;
      if (!connected) {
        record.status = 502;
        client.end(reply(502, `toolsmith egress: cannot reach ${host}:${port}: ${e.message}\n`));
        finish();
      } else client.destroy();
    });
    upstream.on('connect', () => {
      connected = true;
      upstream.on('data', (d: Buffer) => {
        if (record.bytesIn === 0 && method !== 'CONNECT') {
          const status = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(d.subarray(0, 32).toString('latin1'));
          if (status) record.status = Number(status[1]);
        }
        record.bytesIn += d.length;
      });
      if (method === 'CONNECT') {
        record.status = 200;
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      } else {
        // origin-form request line, proxy headers dropped, one request per connection; Host is the
        // allowed destination's, whatever the client sent (another virtual host behind an allowed
        // address is not reachable by naming it).
        const headers = lines
          .slice(1)
          .filter((l) => !/^(proxy-connection|proxy-authorization|connection|keep-alive|host):/i.test(l));
        const hostHeader = `Host: ${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}${port === 80 ? '' : `:${port}`}`;
        const out = Buffer.from(
          [`${method} ${path} ${version}`, hostHeader, ...headers, 'Connection: close', '', ''].join('\r\n'),
          'latin1',
        );
        record.bytesOut += out.length;
        upstream.write(out);
      }
      if (method === 'CONNECT') {
        // Nothing reaches the destination before the tunnel's first TLS record is read: it must be a
        // ClientHello naming the host the tunnel was opened to (see tls-hello.ts), so an allowed address
        // cannot carry plain HTTP with another Host, or TLS to another virtual host behind it.
        let hello = rest;
        const refuse = (why: string) => {
          client.off('data', onHello);
          clearTimeout(timer);
          record.allowed = false;
          record.status = 403;
          record.error = `tunnel refused: ${why}`;
          upstream.destroy();
          client.destroy();
        };
        const timer = setTimeout(
          () => refuse(`no TLS ClientHello within ${HELLO_TIMEOUT_MS / 1000} s`),
          HELLO_TIMEOUT_MS,
        );
        const onHello = (d?: Buffer) => {
          if (d) hello = Buffer.concat([hello, d]);
          const r = readClientHello(hello);
          if (r.state === 'more') return;
          if (r.state === 'refused') return refuse(r.reason);
          const why = serverNameMismatch(record.host, r.serverName);
          if (why) return refuse(why);
          client.off('data', onHello);
          clearTimeout(timer);
          record.bytesOut += hello.length;
          upstream.write(hello);
          client.on('data', (c: Buffer) => {
            record.bytesOut += c.length;
          });
          client.pipe(upstream);
        };
        client.on('data', onHello);
        client.on('close', () => clearTimeout(timer));
        onHello();
      } else {
        // Exactly the request's body, then nothing: a second request pipelined after it (with its own
        // Host) never reaches the destination.
        let left = bodyLength;
        const forward = (d: Buffer) => {
          if (left <= 0) return;
          const part = d.subarray(0, left);
          left -= part.length;
          record.bytesOut += part.length;
          upstream.write(part);
        };
        forward(rest);
        client.on('data', forward);
      }
      upstream.pipe(client);
      client.resume();
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => {
      // The destination is done: every byte it sent is counted, nothing more can reach it.
      finish();
      client.end();
    });
  }
}

const HOST_NAME = /^[A-Za-z0-9_.-]+$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+:/;

/**
 * Why a request head is refused before anything else (undefined when it is fine): a CR or LF anywhere
 * inside a line (the head is split on CRLF only; a destination that ends lines on a bare LF would read a
 * line this proxy never saw), or a request line other than `METHOD SP target SP HTTP/1.0|HTTP/1.1`.
 */
function checkHead(lines: string[]): string | undefined {
  const i = lines.findIndex((l) => /[\r\n]/.test(l));
  if (i >= 0)
    return `a bare CR or LF inside ${i === 0 ? 'the request line' : `header line ${i}`}: ${JSON.stringify((lines[i] ?? '').slice(0, 120))}`;
  const parts = (lines[0] ?? '').split(' ');
  if (parts.length !== 3 || !parts[0] || !parts[1])
    return `a request line must be METHOD SP target SP version: ${JSON.stringify((lines[0] ?? '').slice(0, 120))}`;
  if (parts[2] !== 'HTTP/1.1' && parts[2] !== 'HTTP/1.0')
    return `only HTTP/1.0 and HTTP/1.1 are proxied, not ${JSON.stringify(parts[2]!.slice(0, 40))}`;
  return undefined;
}

/** Why a plain HTTP request's header lines are refused (undefined when they are fine). */
function checkHeaders(lines: string[]): string | undefined {
  for (const l of lines) {
    if (/^[ \t]/.test(l)) return '400 folded header lines are not accepted';
    if (!TOKEN.test(l)) return `400 malformed header line ${JSON.stringify(l.slice(0, 80))}`;
  }
  if (lines.some((l) => /^transfer-encoding:/i.test(l)))
    return '411 a request body must have a Content-Length (Transfer-Encoding is not proxied)';
  const lengths = lines.filter((l) => /^content-length:/i.test(l)).map((l) => l.slice(15).trim());
  if (lengths.length > 1 || lengths.some((v) => !/^\d{1,15}$/.test(v)))
    return '400 one numeric Content-Length at most';
  return undefined;
}

function contentLength(lines: string[]): number {
  const l = lines.find((x) => /^content-length:/i.test(x));
  return l ? Number(l.slice(15).trim()) : 0;
}

const ms = (started: number) => Math.round((performance.now() - started) * 1000) / 1000;

function reply(status: number, body: string): string {
  const text =
    {
      400: 'Bad Request',
      403: 'Forbidden',
      411: 'Length Required',
      431: 'Request Header Fields Too Large',
      502: 'Bad Gateway',
      503: 'Service Unavailable',
    }[status] ?? 'Error';
  return `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}
