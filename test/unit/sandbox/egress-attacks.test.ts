/**
 * The egress proxy as an attacker inside a tool container uses it: real unix and TCP sockets, a real
 * loopback HTTP server as the allowed destination. The Host a request names must not reach another
 * virtual host behind the allowed address; a request head over 64 KiB is refused however it is chunked;
 * a request pipelined behind the first never reaches the destination.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import { createConnection } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EgressListener, parseAllow } from '../../../src-main/infra/sandbox/egress.ts';

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
