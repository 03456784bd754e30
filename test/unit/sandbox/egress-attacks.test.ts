/**
 * The egress proxy as an attacker inside a tool container uses it: real unix and TCP sockets, a real
 * loopback HTTP server as the allowed destination. The Host a request names must not reach another
 * virtual host behind the allowed address; a request head over 64 KiB is refused however it is chunked;
 * a request pipelined behind the first never reaches the destination.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import { createConnection, createServer as createNetServer } from 'node:net';
import type { AddressInfo, Server as NetServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EgressListener, parseAllow } from '../../../src-main/infra/sandbox/egress.ts';
import type { EgressRecord } from '../../../src-main/core/sandbox/execution.ts';

let dest: Server;
let port: number;
let proxy: EgressListener;
let seen: { host: string | undefined; url: string | undefined; body: string }[] = [];

beforeAll(async () => {
  dest = createServer({ maxHeaderSize: 256 * 1024 }, (req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push({ host: req.headers.host, url: req.url, body });
      res.end(`vhost ${req.headers.host}`);
    });
  });
  await new Promise<void>((r) => dest.listen(0, '127.0.0.1', r));
  port = (dest.address() as AddressInfo).port;
  proxy = await EgressListener.start(parseAllow([`127.0.0.1:${port}`]));
});
afterAll(async () => {
  await proxy.close();
  await new Promise<void>((r) => dest.close(() => r()));
});
beforeEach(() => {
  seen = [];
});

/** Sends raw bytes to the proxy (as `writes`, each one write) and reads everything it answers. */
function raw(writes: (string | Buffer)[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = createConnection(join(proxy.dir, 'proxy.sock'));
    let out = '';
    s.on('data', (d: Buffer) => (out += d.toString('latin1')));
    s.on('error', (e) => (out ? resolve(out) : reject(e)));
    s.on('close', () => resolve(out));
    s.on('connect', () => {
      for (const w of writes) s.write(w);
    });
  });
}

describe('egress proxy: Host header', () => {
  it('a Host naming another virtual host is replaced by the allowed destination', async () => {
    const out = await raw([
      `GET http://127.0.0.1:${port}/x HTTP/1.1\r\nHost: internal-admin.example\r\nHost: other\r\n\r\n`,
    ]);
    expect(out).toMatch(/^HTTP\/1\.1 200/);
    expect(seen).toEqual([{ host: `127.0.0.1:${port}`, url: '/x', body: '' }]);
  });

  it('a Host smuggled with a space before the colon or in a folded line is refused', async () => {
    expect(
      await raw([`GET http://127.0.0.1:${port}/ HTTP/1.1\r\nHost : internal-admin.example\r\n\r\n`]),
    ).toMatch(/^HTTP\/1\.1 400/);
    expect(
      await raw([
        `GET http://127.0.0.1:${port}/ HTTP/1.1\r\nX-A: 1\r\n Host: internal-admin.example\r\n\r\n`,
      ]),
    ).toMatch(/^HTTP\/1\.1 400/);
    expect(seen).toEqual([]);
  });

  it('a second request pipelined after the first (with its own Host) never reaches the destination', async () => {
    const second = `GET /second HTTP/1.1\r\nHost: internal-admin.example\r\n\r\n`;
    const out = await raw([
      `POST http://127.0.0.1:${port}/first HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello${second}`,
    ]);
    expect(out).toMatch(/^HTTP\/1\.1 200/);
    expect(seen).toEqual([{ host: `127.0.0.1:${port}`, url: '/first', body: 'hello' }]);
  });

  it('Transfer-Encoding (a body without a length) is refused', async () => {
    const out = await raw([
      `POST http://127.0.0.1:${port}/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
    ]);
    expect(out).toMatch(/^HTTP\/1\.1 411/);
    expect(seen).toEqual([]);
  });
});

describe('egress proxy: request head limit', () => {
  const big = `GET http://127.0.0.1:${'PORT'}/ HTTP/1.1\r\nX-Big: ${'a'.repeat(70 * 1024)}\r\n\r\n`;
  it('a head over 64 KiB in one chunk is refused', async () => {
    const out = await raw([Buffer.from(big.replace('PORT', String(port)))]);
    expect(out).toMatch(/^HTTP\/1\.1 431/);
    expect(seen).toEqual([]);
  });
  it('a head over 64 KiB in many chunks is refused', async () => {
    const text = big.replace('PORT', String(port));
    const parts: string[] = [];
    for (let i = 0; i < text.length; i += 1000) parts.push(text.slice(i, i + 1000));
    const out = await raw(parts);
    expect(out).toMatch(/^HTTP\/1\.1 431/);
    expect(seen).toEqual([]);
  });
  it('a head just under the limit passes', async () => {
    const out = await raw([
      `GET http://127.0.0.1:${port}/ok HTTP/1.1\r\nX-Big: ${'a'.repeat(60 * 1024)}\r\n\r\n`,
    ]);
    expect(out).toMatch(/^HTTP\/1\.1 200/);
    expect(seen.map((s) => s.url)).toEqual(['/ok']);
  });
});

describe('egress proxy: destination names', () => {
  let wild: EgressListener;
  beforeAll(async () => {
    wild = await EgressListener.start(parseAllow(['*.example.test:443']));
  });
  afterAll(async () => {
    await wild.close();
  });
  const send = (text: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const s = createConnection(join(wild.dir, 'proxy.sock'));
      let out = '';
      s.on('data', (d: Buffer) => (out += d.toString('latin1')));
      s.on('error', (e) => (out ? resolve(out) : reject(e)));
      s.on('close', () => resolve(out));
      s.on('connect', () => s.write(Buffer.from(text, 'latin1')));
    });
  // A NUL in a CONNECT target under a wildcard rule made net.createConnection throw inside the socket's
  // data handler: an uncaught exception in the host process (the workbench, serve or the CLI).
  it.each([
    ['a NUL byte', 'a\0b.example.test:443'],
    ['a fragment mark', 'evil.invalid#.example.test:443'],
    ['a slash', 'evil.invalid/.example.test:443'],
    ['an at sign', 'evil.invalid@x.example.test:443'],
  ])('a CONNECT target holding %s is refused as no host name', async (_what, target) => {
    const records: string[] = [];
    wild.onRecord = (r) => records.push(`${r.status} ${r.allowed}`);
    const out = await send(`CONNECT ${target} HTTP/1.1\r\n\r\n`);
    expect(out).toMatch(/^HTTP\/1\.1 400/);
    expect(records).toEqual(['400 false']);
  });
  it('a well-formed name under the wildcard is still allowed (and only fails to resolve)', async () => {
    const records: string[] = [];
    wild.onRecord = (r) => records.push(`${r.status} ${r.allowed}`);
    const out = await send('CONNECT api.example.test:443 HTTP/1.1\r\n\r\n');
    expect(out).toMatch(/^HTTP\/1\.1 502/);
    expect(records).toEqual(['502 true']);
  });
});

/**
 * A real destination that ends lines on a bare LF as well as CRLF (many servers do): whatever it reads
 * as a line, a Host or a request must be what the proxy read and recorded. It answers each request it
 * parses and records every request line and Host it saw.
 */
describe('egress proxy: bare CR or LF inside the head (a lenient destination)', () => {
  let lenient: NetServer;
  let lenientPort: number;
  let lp: EgressListener;
  let parsed: string[] = [];
  let records: EgressRecord[] = [];
  beforeAll(async () => {
    lenient = createNetServer((s) => {
      let buf = '';
      s.on('data', (d: Buffer) => {
        buf += d.toString('latin1');
        // Every request head in the stream, lines ended by LF (a CR before it dropped).
        let end: RegExpExecArray | null;
        while ((end = /\r?\n\r?\n/.exec(buf))) {
          const head = buf.slice(0, end.index);
          buf = buf.slice(end.index + end[0].length);
          const lines = head.split(/\r?\n/);
          parsed.push(`${lines[0]} | ${lines.filter((l) => /^host:/i.test(l)).join(' ; ')}`);
        }
        s.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
      });
      s.on('error', () => {});
    });
    await new Promise<void>((r) => lenient.listen(0, '127.0.0.1', r));
    lenientPort = (lenient.address() as AddressInfo).port;
    lp = await EgressListener.start(parseAllow([`127.0.0.1:${lenientPort}`]));
    lp.onRecord = (r) => records.push(r);
  });
  afterAll(async () => {
    await lp.close();
    await new Promise<void>((r) => lenient.close(() => r()));
  });
  beforeEach(() => {
    parsed = [];
    records = [];
  });
  const send = (text: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const s = createConnection(join(lp.dir, 'proxy.sock'));
      let out = '';
      s.on('data', (d: Buffer) => (out += d.toString('latin1')));
      s.on('error', (e) => (out ? resolve(out) : reject(e)));
      s.on('close', () => resolve(out));
      s.on('connect', () => s.write(Buffer.from(text, 'latin1')));
    });
  const url = () => `http://127.0.0.1:${lenientPort}`;

  it('the lenient destination itself reads a bare LF as a line end (the attack would work without the check)', async () => {
    const s = createConnection({ host: '127.0.0.1', port: lenientPort });
    await new Promise<void>((r) => s.on('connect', () => r()));
    s.resume();
    s.write('GET /x HTTP/1.1\nHost: internal-admin.example\n\n');
    await new Promise<void>((r) => s.on('close', () => r()));
    expect(parsed).toEqual(['GET /x HTTP/1.1 | Host: internal-admin.example']);
  });

  it.each([
    [
      'a Host smuggled by a bare LF in the version token',
      () => `GET ${url()}/x HTTP/1.1\nHost: internal-admin.example\r\nX-A: 1\r\n\r\n`,
      /request line/,
    ],
    [
      'a Host smuggled by a bare LF inside a header line',
      () => `GET ${url()}/x HTTP/1.1\r\nX-A: 1\nHost: internal-admin.example\r\n\r\n`,
      /header line 1/,
    ],
    [
      'a whole second request behind bare LFs',
      () => `GET ${url()}/a HTTP/1.1\r\nX-A: 1\n\nGET /admin HTTP/1.1\nHost: internal-admin.example\r\n\r\n`,
      /header line 1/,
    ],
    [
      'a bare CR inside a header line',
      () => `GET ${url()}/x HTTP/1.1\r\nX-A: 1\rHost: internal-admin.example\r\n\r\n`,
      /bare CR or LF/,
    ],
    [
      'a bare LF in a CONNECT head',
      () => `CONNECT 127.0.0.1:${lenientPort} HTTP/1.1\nHost: internal-admin.example\r\n\r\n`,
      /request line/,
    ],
  ])(
    '%s is refused, nothing reaches the destination, and the record says why',
    async (_what, text, where) => {
      const out = await send(text());
      expect(out).toMatch(/^HTTP\/1\.1 400/);
      expect(parsed).toEqual([]);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ status: 400, allowed: false, host: '127.0.0.1', port: lenientPort });
      expect(records[0]?.error).toMatch(/bare CR or LF/);
      expect(records[0]?.error).toMatch(where);
    },
  );

  it.each([['HTTP/2.0'], ['HTTP/0.9'], ['http/1.1'], ['HTTP/1.1 extra'], ['HTTP/1.10']])(
    'a request line with version %j is refused',
    async (version) => {
      const out = await send(`GET ${url()}/x ${version}\r\nX-A: 1\r\n\r\n`);
      expect(out).toMatch(/^HTTP\/1\.1 400/);
      expect(parsed).toEqual([]);
      expect(records[0]?.status).toBe(400);
      expect(records[0]?.error).toMatch(/HTTP\/1\.0 and HTTP\/1\.1|METHOD SP target SP version/);
    },
  );

  it.each([['HTTP/1.0'], ['HTTP/1.1']])(
    'an ordinary %s request passes, with the allowed Host only',
    async (version) => {
      const out = await send(`GET ${url()}/ok ${version}\r\nHost: internal-admin.example\r\nX-A: 1\r\n\r\n`);
      expect(out).toMatch(/^HTTP\/1\.1 200/);
      expect(parsed).toEqual([`GET /ok ${version} | Host: 127.0.0.1:${lenientPort}`]);
      expect(records[0]).toMatchObject({ allowed: true, method: 'GET' });
    },
  );
});
