/**
 * The egress proxy on its own (no container): allow-list parsing and matching, plain HTTP forwarding,
 * CONNECT tunnels, refusals, malformed requests, and the records (bytes, status, ms) of each request.
 * Loopback HTTP servers started here are the destinations; clients connect to the proxy's unix socket
 * exactly as the in-container relay does.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { POLL_MS } from '../../support/budgets.ts';
import { configSchema } from '../../../src-main/app/config.ts';
import type { EgressRecord } from '../../../src-main/core/sandbox/execution.ts';
import { EgressListener, isAllowed, parseAllow } from '../../../src-main/infra/sandbox/egress.ts';

describe('allow-list', () => {
  it('parses host:port, IPv6 and subdomain wildcards', () => {
    expect(parseAllow(['API.example.com:443', '[::1]:8080', '*.example.org:80'])).toEqual([
      { host: 'api.example.com', port: 443 },
      { host: '::1', port: 8080 },
      { host: '*.example.org', port: 80 },
    ]);
  });

  it.each(['example.com', 'example.com:0', 'example.com:70000', 'a*b.com:443', '*:443', 'http://x:80'])(
    'refuses %s',
    (entry) => {
      expect(() => parseAllow([entry])).toThrow(/is not "host:port"/);
    },
  );

  it('matches host and port exactly, wildcards only below the domain', () => {
    const rules = parseAllow(['api.example.com:443', '*.example.org:80', '[::1]:8080']);
    expect(isAllowed(rules, 'api.example.com', 443)).toBe(true);
    expect(isAllowed(rules, 'API.EXAMPLE.COM.', 443)).toBe(true);
    expect(isAllowed(rules, 'api.example.com', 80)).toBe(false);
    expect(isAllowed(rules, 'evil-api.example.com', 443)).toBe(false);
    expect(isAllowed(rules, 'a.b.example.org', 80)).toBe(true);
    expect(isAllowed(rules, 'example.org', 80)).toBe(false);
    expect(isAllowed(rules, 'notexample.org', 80)).toBe(false);
    expect(isAllowed(rules, '[::1]', 8080)).toBe(true);
  });

  it('the config refuses a bad entry and keeps egress off unless configured', () => {
    const bad = configSchema.safeParse({ sandboxes: { s: { egress: { allow: ['example.com'] } } } });
    expect(bad.success).toBe(false);
    const off = configSchema.parse({ sandboxes: { s: {} } });
    expect(off.sandboxes['s']?.egress).toBeUndefined();
    const on = configSchema.parse({ sandboxes: { s: { egress: { allow: ['example.com:443'] } } } });
    expect(on.sandboxes['s']?.egress).toEqual({ allow: ['example.com:443'] });
  });
});

describe('the proxy', () => {
  let server: Server;
  let other: Server;
  let port: number;
  let otherPort: number;
  let otherHits = 0;
  let proxy: EgressListener;
  const records: EgressRecord[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        res.setHeader('x-proxy-connection', String(req.headers['proxy-connection'] ?? 'absent'));
        res.end(`${req.method} ${req.url} ${body}`);
      });
    });
    other = createServer((_req, res) => {
      otherHits++;
      res.end('no');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
    otherPort = (other.address() as AddressInfo).port;
    proxy = await EgressListener.start(parseAllow([`127.0.0.1:${port}`]));
    proxy.onRecord = (r) => records.push(r);
  });
  afterAll(async () => {
    await proxy.close();
    server.close();
    other.close();
  });

  /** Sends raw bytes to the proxy's socket and reads until the proxy closes. */
  const exchange = (raw: string, afterConnect?: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const s = connect(join(proxy.dir, 'proxy.sock'));
      let out = '';
      let tunnelled = false;
      s.on('data', (d: Buffer) => {
        out += d.toString();
        if (afterConnect && !tunnelled && out.includes('\r\n\r\n') && out.startsWith('HTTP/1.1 200')) {
          tunnelled = true;
          s.write(afterConnect);
        }
      });
      s.on('error', reject);
      s.on('close', () => resolve(out));
      s.write(raw);
    });
  // A record is written as the proxy closes the exchange, which may be just after the client saw it end.
  const nextRecord = async () => {
    await vi.waitFor(() => expect(records.length).toBeGreaterThan(0), { timeout: POLL_MS, interval: 5 });
    return records.shift();
  };

  it('forwards an absolute-form request to an allowed host, in origin form, and records it', async () => {
    const body = 'abc';
    const req = `POST http://127.0.0.1:${port}/p?q=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nProxy-Connection: keep-alive\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const out = await exchange(req);
    expect(out).toMatch(/^HTTP\/1\.1 200/);
    expect(out).toContain('POST /p?q=1 abc');
    expect(out).toContain('x-proxy-connection: absent');
    const r = await nextRecord();
    expect(r).toMatchObject({ host: '127.0.0.1', port, method: 'POST', allowed: true, status: 200 });
    expect(r?.bytesOut).toBeGreaterThan(body.length);
    expect(r?.bytesIn).toBe(Buffer.byteLength(out));
    expect(r?.ms).toBeGreaterThan(0);
  });

  it('opens a CONNECT tunnel to an allowed host, but closes it when it carries plain HTTP (TLS only: egress-tls.test.ts)', async () => {
    const inner = `GET /t HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
    const out = await exchange(
      `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
      inner,
    );
    expect(out).toMatch(/^HTTP\/1\.1 200 Connection Established/);
    expect(out).not.toContain('GET /t ');
    const r = await nextRecord();
    expect(r).toMatchObject({ method: 'CONNECT', allowed: false, port, status: 403, bytesOut: 0 });
    expect(r?.error).toMatch(/does not start with a TLS handshake/);
  });

  it('refuses a host:port outside the list (plain and CONNECT) without touching it', async () => {
    const plain = await exchange(`GET http://127.0.0.1:${otherPort}/ HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(plain).toMatch(/^HTTP\/1\.1 403/);
    expect(plain).toContain(`127.0.0.1:${otherPort} is not in this sandbox's egress allow-list`);
    expect(await nextRecord()).toMatchObject({ method: 'GET', allowed: false, status: 403, bytesIn: 0 });
    const tunnel = await exchange(`CONNECT localhost:${port} HTTP/1.1\r\n\r\n`);
    expect(tunnel).toMatch(/^HTTP\/1\.1 403/);
    expect(await nextRecord()).toMatchObject({ host: 'localhost', method: 'CONNECT', allowed: false });
    expect(otherHits).toBe(0);
  });

  it('answers 400 to what is not a proxy request, and 502 when an allowed host does not answer', async () => {
    expect(await exchange('GET / HTTP/1.1\r\nHost: x\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    expect(await nextRecord()).toMatchObject({ allowed: false, status: 400 });
    const closed = await EgressListener.start(parseAllow(['127.0.0.1:1']));
    const recs: EgressRecord[] = [];
    closed.onRecord = (r) => recs.push(r);
    const out = await new Promise<string>((resolve) => {
      const s = connect(join(closed.dir, 'proxy.sock'));
      let text = '';
      s.on('data', (d: Buffer) => (text += d.toString()));
      s.on('close', () => resolve(text));
      s.write('GET http://127.0.0.1:1/ HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    expect(out).toMatch(/^HTTP\/1\.1 502/);
    await vi.waitFor(() => expect(recs[0]).toMatchObject({ allowed: true, status: 502 }), {
      timeout: POLL_MS,
      interval: 5,
    });
    expect(recs[0]?.error).toMatch(/ECONNREFUSED/);
    await closed.close();
  });
});
