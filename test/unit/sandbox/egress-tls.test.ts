/**
 * CONNECT tunnels as an attacker inside a tool container uses them: a tunnel opened to an allowed
 * host:port must not carry plain HTTP (with another Host) or TLS naming another virtual host behind the
 * allowed address. Real sockets, Node's own TLS client, and a real HTTPS server as the destination.
 */
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as HttpsServer } from 'node:https';
import { createConnection, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EgressListener, parseAllow } from '../../../src-main/infra/sandbox/egress.ts';
import type { EgressRecord } from '../../../src-main/core/sandbox/execution.ts';
import { readClientHello, serverNameMismatch } from '../../../src-main/infra/sandbox/tls-hello.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/tls/', import.meta.url));
const cert = readFileSync(join(fixtures, 'cert.pem'));
const key = readFileSync(join(fixtures, 'key.pem'));

/** A ClientHello built field by field, with the given extensions (type, data). */
function hello(exts: [number, Buffer][], opts: { recordLength?: number; helloLength?: number } = {}): Buffer {
  const ext = Buffer.concat(exts.map(([t, d]) => Buffer.concat([u16(t), u16(d.length), d])));
  const body = Buffer.concat([
    Buffer.from([3, 3]),
    Buffer.alloc(32, 7),
    Buffer.from([0]),
    u16(2),
    Buffer.from([0x13, 0x01]),
    Buffer.from([1, 0]),
    u16(ext.length),
    ext,
  ]);
  const hs = Buffer.concat([Buffer.from([1]), u24(opts.helloLength ?? body.length), body]);
  return Buffer.concat([Buffer.from([0x16, 3, 1]), u16(opts.recordLength ?? hs.length), hs]);
}
const u16 = (n: number) => Buffer.from([n >> 8, n & 255]);
const u24 = (n: number) => Buffer.from([n >> 16, (n >> 8) & 255, n & 255]);
const sni = (...names: string[]): [number, Buffer] => {
  const list = Buffer.concat(
    names.map((n) => Buffer.concat([Buffer.from([0]), u16(n.length), Buffer.from(n)])),
  );
  return [0, Buffer.concat([u16(list.length), list])];
};

describe('reading the server name of a ClientHello', () => {
  it('reads the host name, lower case, without a trailing dot, and waits for a whole record', () => {
    const h = hello([[10, Buffer.from([0, 2, 0, 29])], sni('API.Example.com.')]);
    expect(readClientHello(h)).toEqual({ state: 'hello', serverName: 'api.example.com' });
    for (let i = 0; i < h.length; i++) expect(readClientHello(h.subarray(0, i))).toEqual({ state: 'more' });
    expect(readClientHello(hello([]))).toEqual({ state: 'hello', serverName: undefined });
  });

  it('refuses what is not a TLS ClientHello: plain HTTP, another handshake message, SSLv2', () => {
    expect(readClientHello(Buffer.from('GET / HTTP/1.1\r\nHost: internal-admin\r\n\r\n'))).toMatchObject({
      state: 'refused',
      reason: expect.stringMatching(/TLS handshake/) as unknown,
    });
    const serverHello = hello([sni('a.example')]);
    serverHello[5] = 2;
    expect(readClientHello(serverHello)).toMatchObject({ state: 'refused' });
    expect(readClientHello(Buffer.from([0x80, 0x2e, 0x01]))).toMatchObject({ state: 'refused' });
  });

  it('refuses names that hide or double the server: ECH, two server_name extensions, two host names, not a host name', () => {
    expect(readClientHello(hello([sni('a.example'), [0xfe0d, Buffer.alloc(8)]]))).toMatchObject({
      state: 'refused',
      reason: expect.stringMatching(/encrypted ClientHello/) as unknown,
    });
    expect(readClientHello(hello([sni('a.example'), sni('b.example')]))).toMatchObject({ state: 'refused' });
    expect(readClientHello(hello([sni('a.example', 'b.example')]))).toMatchObject({ state: 'refused' });
    for (const bad of ['a.example\0.evil', 'a b', 'a/b', 'a@b', '..', ''])
      expect(readClientHello(hello([sni(bad)]))).toMatchObject({ state: 'refused' });
  });

  it('refuses lengths that run past their container, and a record over 16 KiB, without throwing', () => {
    expect(readClientHello(hello([sni('a.example')], { helloLength: 5000 }))).toMatchObject({
      state: 'refused',
    });
    const over = Buffer.concat([Buffer.from([0x16, 3, 1]), u16(20000)]);
    expect(readClientHello(over)).toMatchObject({ state: 'refused' });
    // Every single-byte change of a valid hello gets an answer (never an exception).
    const h = hello([sni('a.example'), [10, Buffer.from([0, 2, 0, 29])]]);
    for (let i = 0; i < h.length; i++)
      for (const v of [0, 1, 0x7f, 0xff]) {
        const m = Buffer.from(h);
        m[i] = v;
        expect(['more', 'hello', 'refused']).toContain(readClientHello(m).state);
      }
  });

  it('holds the name to the tunnel: a named host must be the server name, an address must come with none', () => {
    expect(serverNameMismatch('api.example.com', 'api.example.com')).toBeUndefined();
    expect(serverNameMismatch('API.example.com', 'api.example.com')).toBeUndefined();
    expect(serverNameMismatch('api.example.com', 'admin.example.com')).toMatch(/admin\.example\.com/);
    expect(serverNameMismatch('api.example.com', undefined)).toMatch(/names no server/);
    expect(serverNameMismatch('127.0.0.1', undefined)).toBeUndefined();
    expect(serverNameMismatch('::1', undefined)).toBeUndefined();
    expect(serverNameMismatch('127.0.0.1', 'internal-admin.example')).toMatch(/internal-admin/);
  });
});

let dest: HttpsServer;
let raw: Server;
let port: number;
let rawPort: number;
let rawBytes: Buffer[] = [];
let proxy: EgressListener;
let records: EgressRecord[] = [];

beforeAll(async () => {
  dest = createHttpsServer({ cert, key }, (req, res) => res.end(`tls vhost ${req.headers.host}`));
  await new Promise<void>((r) => dest.listen(0, '127.0.0.1', r));
  port = (dest.address() as AddressInfo).port;
  raw = createServer((s) => s.on('data', (d: Buffer) => rawBytes.push(d)));
  await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
  rawPort = (raw.address() as AddressInfo).port;
  proxy = await EgressListener.start(
    parseAllow([`localhost:${port}`, `127.0.0.1:${port}`, `localhost:${rawPort}`, `127.0.0.1:${rawPort}`]),
  );
  proxy.onRecord = (r) => records.push(r);
});
afterAll(async () => {
  await proxy.close();
  await new Promise<void>((r) => dest.close(() => r()));
  await new Promise<void>((r) => raw.close(() => r()));
});
beforeEach(() => {
  records = [];
  rawBytes = [];
});

/** Opens a CONNECT tunnel through the proxy's socket; resolves once the proxy said 200. */
function tunnel(target: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = createConnection(join(proxy.dir, 'proxy.sock'));
    s.once('error', reject);
    s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
    let head = '';
    const onData = (d: Buffer) => {
      head += d.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      s.off('data', onData);
      if (head.startsWith('HTTP/1.1 200')) resolve(s);
      else reject(new Error(head));
    };
    s.on('data', onData);
  });
}

/** An HTTPS GET through a tunnel, with the given TLS server name; the body, or the error's message. */
async function getThrough(target: string, servername: string | undefined): Promise<string> {
  const socket = await tunnel(target);
  return new Promise((resolve) => {
    const t = tlsConnect({
      socket,
      ca: cert,
      rejectUnauthorized: false,
      ...(servername ? { servername } : {}),
    });
    let body = '';
    t.on('secureConnect', () =>
      t.write(`GET / HTTP/1.1\r\nHost: ${servername ?? 'x'}\r\nConnection: close\r\n\r\n`),
    );
    t.on('data', (d: Buffer) => (body += d.toString()));
    t.on('error', (e) => resolve(`error: ${e.message}`));
    t.on('close', () => resolve(body));
  });
}

const nextRecord = async (): Promise<EgressRecord> => {
  await expect.poll(() => records.length).toBeGreaterThan(0);
  return records.shift() as EgressRecord;
};

describe('egress proxy: CONNECT carries TLS to the named host only', () => {
  it('a ClientHello naming the tunnel host passes, and the HTTPS answer comes back', async () => {
    expect(await getThrough(`localhost:${port}`, 'localhost')).toContain('tls vhost localhost');
    expect(await nextRecord()).toMatchObject({
      host: 'localhost',
      method: 'CONNECT',
      allowed: true,
      status: 200,
    });
    // An address with no server name (what clients send for IP literals) passes too.
    expect(await getThrough(`127.0.0.1:${port}`, undefined)).toContain('tls vhost');
    expect((await nextRecord()).allowed).toBe(true);
  });

  it('TLS naming another virtual host behind the allowed address never reaches it', async () => {
    expect(await getThrough(`localhost:${rawPort}`, 'internal-admin.example')).toMatch(/^error|^$/);
    const r = await nextRecord();
    expect(r).toMatchObject({ method: 'CONNECT', allowed: false, status: 403 });
    expect(r.error).toMatch(/tunnel refused: the TLS server name internal-admin\.example is not localhost/);
    expect(await getThrough(`127.0.0.1:${rawPort}`, 'internal-admin.example')).toMatch(/^error|^$/);
    expect((await nextRecord()).error).toMatch(/not the address 127\.0\.0\.1/);
    expect(Buffer.concat(rawBytes).length).toBe(0);
  });

  it('plain HTTP through a tunnel (a Host the forward proxy would have replaced) never reaches the destination', async () => {
    const s = await tunnel(`127.0.0.1:${rawPort}`);
    s.write('GET /admin HTTP/1.1\r\nHost: internal-admin.example\r\n\r\n');
    await new Promise<void>((r) => s.on('close', () => r()));
    expect((await nextRecord()).error).toMatch(/does not start with a TLS handshake/);
    expect(Buffer.concat(rawBytes).length).toBe(0);
  });

  it('a ClientHello sent one byte at a time is read whole and forwarded byte for byte', async () => {
    const h = hello([sni('localhost')]);
    const s = await tunnel(`localhost:${rawPort}`);
    for (const b of h) {
      s.write(Buffer.from([b]));
      await new Promise((r) => setImmediate(r));
    }
    await expect.poll(() => Buffer.concat(rawBytes).length).toBe(h.length);
    expect(Buffer.concat(rawBytes).equals(h)).toBe(true);
    s.destroy();
    expect(await nextRecord()).toMatchObject({ allowed: true, bytesOut: h.length });
  });
});
