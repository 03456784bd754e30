/**
 * The two paths a company proxy (`HTTP_PROXY`/`HTTPS_PROXY` under `NODE_USE_ENV_PROXY=1`) still broke:
 *
 * - An MCP server over HTTP behind a proxy that takes the connection and never answers: the command
 *   said the server did not answer initialize, then never exited (undici's tunnel to the proxy, left
 *   waiting for the CONNECT's answer up to its 300 s headers timeout, held the process open; aborting the
 *   request did not end it). `mcp-servers test`, `tools` and `mcp` (connecting upstream for list_tools)
 *   now end within the server's startup timeout by themselves, and the error says the proxy did not
 *   answer the request for a tunnel.
 * - An LLM call through such a proxy failed at its deadline, naming the proxy, and `run` then never
 *   exited either (the same tunnel, on fetch's shared dispatcher).
 * - OTLP export (`runs export --otlp`, and the live export after a run: the same request) went straight
 *   to the collector whatever the proxy settings, so a collector that only the proxy reaches failed with
 *   "host not found". It now goes through the proxy as LLM calls do (loopback and NO_PROXY hosts
 *   directly), and a proxy that refuses, asks for credentials (407) or never answers is named.
 *
 * Real processes: the CLI as users run it, proxies written here with node:http/net (one that forwards
 * to the local collectors whatever host is asked (plain requests to the http one, tunnels to the https
 * one), one that answers 407, one that never answers, a port
 * where nothing listens) and real OTLP/HTTP receivers on 127.0.0.1 (http, and https with a certificate
 * for the collector's name).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import { connect as netConnect, createServer as createNetServer } from 'node:net';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import { startOtlpReceiver } from '../../support/otlp-receiver.ts';
import { requireDocker } from '../../support/sandbox.ts';
import { scriptedConfig } from '../../support/suite-oracle.ts';
import type { OtlpReceiver } from '../../support/otlp-receiver.ts';
import { outputOf, runToolsmith, toolsmithArgv } from '../../support/toolsmith-process.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';
import { selfSignedCert } from '../../support/certs.ts';

const RUN_ID = '6f1c2a9e-0b7d-4c55-9a31-3f0e8d2b7c41'; // test/fixtures/runs/run-v1.json
/** Hosts only the proxy reaches (`.invalid`: never resolvable here). */
const MCP_HOST = 'mcp.toolsmith-proxy-test.invalid';
const LLM_HOST = 'llm.toolsmith-proxy-test.invalid';
const COLLECTOR = 'http://collector.toolsmith-proxy-test.invalid:4318/v1/traces';
const COLLECTOR_TLS = 'https://collector.toolsmith-proxy-test.invalid:4318/v1/traces';

let receiver: OtlpReceiver;
/** An https receiver whose certificate names the collector's host; the forwarding proxy's tunnels reach it. */
let tlsReceiver: OtlpReceiver;
const certs = mkdtempSync(join(tmpdir(), 'toolsmith-proxy-certs-'));
/** Forwards every request and tunnel to the receiver, recording the target it was asked for. */
let forward: Server;
let authProxy: Server;
/** Takes connections, reads them, never answers. */
let silent: NetServer;
const silentSockets: Socket[] = [];
/**
 * The forwarding proxy's tunnels, both ends (ended after the tests: a server's close waits for them, and
 * a half-closed tunnel may wait for the receiver's side).
 */
const tunnels: Socket[] = [];
let forwardPort: number;
let authPort: number;
let silentPort: number;
let downPort: number;
const forwarded: string[] = [];
/** What reached the 407 proxy, with the Proxy-Authorization it carried. */
const askedAuth: { target: string; auth: string | undefined }[] = [];
let ws: string;

const listen = (s: Server | NetServer) =>
  new Promise<number>((resolve) =>
    s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)),
  );

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  const tlsCert = selfSignedCert(certs, 'collector', {
    cn: 'collector.toolsmith-proxy-test.invalid',
    san: 'DNS:collector.toolsmith-proxy-test.invalid',
  });
  tlsReceiver = await startOtlpReceiver({
    tls: { key: readFileSync(tlsCert.key), cert: readFileSync(tlsCert.cert) },
  });
  const receiverPort = Number(new URL(receiver.base).port);
  forward = createServer((req, res) => {
    forwarded.push(req.url ?? '');
    const upstream = netConnect(receiverPort, '127.0.0.1');
    // Origin form to the receiver, every header as sent (an HTTP/1.1 proxy forwards them).
    const path = /^https?:\/\//.test(req.url ?? '') ? new URL(req.url!).pathname : (req.url ?? '/');
    const head = [`${req.method} ${path} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      if (!/^proxy-|^connection$/i.test(req.rawHeaders[i]!))
        head.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    upstream.write(`${head.join('\r\n')}\r\nconnection: close\r\n\r\n`);
    // A side that ends or fails ends the other (a proxy's pipes, not errors of the test).
    upstream.on('error', () => res.socket?.destroy());
    res.socket?.on('error', () => upstream.destroy());
    req.pipe(upstream);
    upstream.pipe(res.socket!);
  });
  forward.on('connect', (req: IncomingMessage, socket: Socket) => {
    forwarded.push(req.url ?? '');
    const upstream = netConnect(Number(new URL(tlsReceiver.base).port), '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
    tunnels.push(socket, upstream);
  });
  authProxy = createServer((req, res) => {
    askedAuth.push({ target: req.url ?? '', auth: req.headers['proxy-authorization'] });
    res.writeHead(407, { 'proxy-authenticate': 'Basic realm="corp"' }).end();
  });
  authProxy.on('connect', (req: IncomingMessage, socket: Socket) => {
    askedAuth.push({ target: req.url ?? '', auth: req.headers['proxy-authorization'] });
    socket.end(
      'HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="corp"\r\ncontent-length: 0\r\n\r\n',
    );
  });
  silent = createNetServer((socket) => {
    silentSockets.push(socket);
    socket.resume();
  });
  const down = createNetServer();
  downPort = await listen(down);
  await new Promise((r) => down.close(r));
  [forwardPort, authPort, silentPort] = await Promise.all([
    listen(forward),
    listen(authProxy),
    listen(silent),
  ]);

  ws = tempWorkspace('toolsmith-proxy-paths-');
  appendFileSync(
    join(ws, '.toolsmith/config.toml'),
    `\n[mcp_servers.remote]\nurl = "http://${MCP_HOST}/mcp"\nstartup_timeout_ms = 1500\n\n` +
      `[sandboxes.ecommerce.mcp.remote]\n\n` +
      // A hosted model only the proxy reaches, with a short deadline and no retry.
      `[[providers]]\nid = "far"\nkind = "openai"\nbase_url = "https://${LLM_HOST}/v1"\nmodel = "m"\n` +
      `timeout_ms = 1500\nmax_retries = 0\n`,
  );
  const imported = await runToolsmith(ws, [
    'runs',
    'import',
    join(repoRoot, 'test/fixtures/runs/run-v1.json'),
  ]);
  expect(imported.code, imported.err).toBe(0);
});

afterAll(async () => {
  for (const s of [...silentSockets, ...tunnels]) s.destroy();
  // Tunnels and keep-alive connections still open would hold the servers' close.
  forward?.closeAllConnections();
  authProxy?.closeAllConnections();
  await Promise.all(
    [forward, authProxy, silent].map((s) => new Promise((r) => (s ? s.close(r) : r(undefined)))),
  );
  await receiver?.close();
  await tlsReceiver?.close();
  rmSync(certs, { recursive: true, force: true });
  if (ws) removeWorkspace(ws);
});

/** The person's proxy settings (every spelling, no NO_PROXY of the runner's), the proxy on `port`. */
function through(port: number, user = ''): Record<string, string> {
  for (const v of ['NO_PROXY', 'no_proxy']) delete process.env[v];
  const url = `http://${user}127.0.0.1:${port}`;
  return { NODE_USE_ENV_PROXY: '1', HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url };
}

const silentWords = (host: string, port: number) =>
  `the proxy http://127.0.0.1:${silentPort} (from $http_proxy), which its requests go through, did not answer the request for a tunnel to ${host}:${port} (CONNECT)`;

describe('an MCP server over HTTP behind a proxy that never answers', () => {
  // Each command must exit by itself: before, each waited out undici's 300 s (this test's limit is 60 s).
  it('mcp-servers test: exits 1 within its startup timeout, saying the proxy did not answer', async () => {
    const r = await runToolsmith(ws, ['mcp-servers', 'test', 'remote'], through(silentPort));
    expect(r.code).toBe(1);
    expect(r.err).toContain('MCP server remote did not answer initialize within 1500 ms: ');
    expect(r.err).toContain(silentWords(MCP_HOST, 80));
  }, 60_000);

  it("tools: prints the sandbox's other tools, says why the server's are missing, and exits", async () => {
    const r = await runToolsmith(ws, ['tools', '--sandbox', 'ecommerce'], through(silentPort));
    expect(r.code).toBe(0);
    expect(r.out).toContain('get_user');
    expect(r.err).toContain(silentWords(MCP_HOST, 80));
  }, 60_000);

  it("run: the task fails on its LLM (refused here), says why the server's tools are missing, and exits", async () => {
    const r = await runToolsmith(
      ws,
      [
        'run',
        'Tier of user u4',
        '--sandbox',
        'ecommerce',
        '--no-templates',
        '--base-url',
        `http://127.0.0.1:${downPort}/v1`,
        '--model',
        'm',
      ],
      through(silentPort),
    );
    expect(r.code).toBe(1);
    expect(r.err).toContain(silentWords(MCP_HOST, 80));
    expect(r.out).toContain('connection refused');
  }, 60_000);

  it('mcp (stdio): list_tools answers, the failure is on stderr, and the server exits 0 once its input closes', async () => {
    const first = silentSockets.length;
    const [cmd, args] = toolsmithArgv(ws, ['mcp']);
    const child = spawn(cmd, args, {
      env: { ...process.env, ...through(silentPort) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const output = outputOf(child);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    const answer = async (id: number) => {
      for (;;) {
        const line = out.split('\n').find((l) => l.includes(`"id":${id},`) || l.includes(`"id":${id}}`));
        if (line) return line;
        if (child.exitCode !== null) throw new Error(`mcp exited: ${(await output).err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'proxy-test', version: '1' },
      },
    });
    await answer(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'list_tools', arguments: { sandbox: 'ecommerce' } },
    });
    // The sandbox's own tools (the server's are missing; the failure is on stderr).
    expect(await answer(2)).toContain('get_user');
    // The server keeps running, with no connection left to the proxy: the tunnel it gave up on is closed
    // (it stayed open for undici's 300 s, one more each time the server was tried again).
    const mine = silentSockets.slice(first);
    expect(mine.length).toBeGreaterThan(0);
    while (mine.some((s) => !s.closed)) await new Promise((r) => setTimeout(r, 50));
    expect(child.exitCode).toBeNull();
    child.stdin.end();
    const r = await output;
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`toolsmith mcp: MCP server remote did not answer initialize within 1500 ms: `);
    expect(r.err).toContain(silentWords(MCP_HOST, 80));
  }, 60_000);
});

describe('an LLM call behind a proxy that never answers', () => {
  it('run: an LLM call whose proxy never answers fails at its deadline, naming the proxy, and the command exits', async () => {
    // Only the LLM's proxy is silent here (the MCP server's tools are another sandbox's).
    const r = await runToolsmith(
      ws,
      ['run', 'Tier of user u4', '--sandbox', 'support', '--no-templates', '--provider', 'far'],
      through(silentPort),
    );
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      // The proxy is named as the silent side, in the words of an MCP server's wait (proxyWaitWords).
      `far: timed out: no response within 1.5 s (timeout_ms) from https://${LLM_HOST}/v1: the proxy http://127.0.0.1:${silentPort} (from $https_proxy), which its requests go through, did not answer the request for a tunnel to ${LLM_HOST}:443 (CONNECT)`,
    );
  }, 60_000);
});

describe('OTLP export goes through the proxy, as LLM calls do', () => {
  it('runs export --otlp to a collector only the proxy reaches: through it; a loopback collector directly', async () => {
    forwarded.length = 0;
    const before = receiver.spans.length;
    const r = await runToolsmith(ws, ['runs', 'export', RUN_ID, '--otlp', COLLECTOR], through(forwardPort));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`to ${COLLECTOR}\n`);
    expect(forwarded).toEqual([COLLECTOR]);
    expect(receiver.spans.length).toBeGreaterThan(before);
    expect(receiver.spans.at(-1)?.resource['service.name']).toBeDefined();

    // The collector's refusal through the proxy: its answer, and that it came through the proxy. (A
    // trace not taken exits 3, as documented: docs/telemetry.md.)
    receiver.failWith = 503;
    try {
      const refused = await runToolsmith(
        ws,
        ['runs', 'export', RUN_ID, '--otlp', COLLECTOR],
        through(forwardPort),
      );
      expect(refused.code).toBe(3);
      expect(refused.err).toContain(
        `did not take the trace: HTTP 503: refused by the test (the answer came through the proxy http://127.0.0.1:${forwardPort} (from $http_proxy), and may be its own)`,
      );
    } finally {
      receiver.failWith = undefined;
    }

    // The loopback rule: the receiver's own address is never sent to the proxy.
    forwarded.length = 0;
    const direct = await runToolsmith(
      ws,
      ['runs', 'export', RUN_ID, '--otlp', `${receiver.base}/v1/traces`],
      through(forwardPort),
    );
    expect(direct.code, direct.err).toBe(0);
    expect(forwarded).toEqual([]);

    // Nor a host NO_PROXY names: it is reached directly (here: not found, so no proxy was asked).
    const noProxy = await runToolsmith(ws, ['runs', 'export', RUN_ID, '--otlp', COLLECTOR], {
      ...through(forwardPort),
      NO_PROXY: '.toolsmith-proxy-test.invalid',
      no_proxy: '.toolsmith-proxy-test.invalid',
    });
    expect(noProxy.code).toBe(3);
    expect(noProxy.err).toContain('host not found');
    expect(forwarded).toEqual([]);
  }, 60_000);

  it('an https collector: through a tunnel (CONNECT) asked of the proxy, TLS to the collector inside it', async () => {
    forwarded.length = 0;
    tlsReceiver.spans.length = 0;
    const r = await runToolsmith(ws, ['runs', 'export', RUN_ID, '--otlp', COLLECTOR_TLS], {
      ...through(forwardPort),
      // The collector's certificate names its host (checked inside the tunnel), signed by itself.
      OTEL_EXPORTER_OTLP_CERTIFICATE: join(certs, 'collector-cert.pem'),
    });
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(forwarded).toEqual(['collector.toolsmith-proxy-test.invalid:4318']);
    expect(tlsReceiver.spans.length).toBeGreaterThan(0);
  }, 60_000);

  it('the live export after toolsmith run: through the proxy (the LLM on 127.0.0.1 directly)', async () => {
    await requireDocker();
    const llm = await startLlmServer();
    try {
      llm.fallback = { text: '```python\nemit_result(1)\n```' };
      const runWs = tempWorkspace('toolsmith-proxy-live-');
      try {
        scriptedConfig(runWs, llm.openaiUrl);
        forwarded.length = 0;
        const before = receiver.spans.length;
        const r = await runToolsmith(runWs, ['run', 'Say one', '--sandbox', 'support', '--no-templates'], {
          ...through(forwardPort),
          OTEL_TRACES_EXPORTER: 'otlp',
          OTEL_EXPORTER_OTLP_ENDPOINT: new URL(COLLECTOR).origin,
        });
        expect(r.code, r.err).toBe(0);
        expect(r.err).not.toContain('telemetry');
        expect(forwarded).toEqual([COLLECTOR]);
        expect(receiver.spans.slice(before).some((x) => x.name === 'invoke_agent toolsmith')).toBe(true);
        expect(llm.requests.length).toBeGreaterThan(0);
      } finally {
        removeWorkspace(runWs);
      }
    } finally {
      await llm.close();
    }
  }, 240_000);

  it('a proxy that refuses connections, asks for credentials (407) or never answers is named', async () => {
    const refused = await runToolsmith(
      ws,
      ['runs', 'export', RUN_ID, '--otlp', COLLECTOR],
      through(downPort),
    );
    expect(refused.code).toBe(3);
    expect(refused.err).toContain(
      `did not take the trace: cannot connect to the proxy http://127.0.0.1:${downPort} (from $http_proxy): connection refused`,
    );

    for (const url of [COLLECTOR, COLLECTOR_TLS]) {
      const variable = url.startsWith('https') ? 'https_proxy' : 'http_proxy';
      askedAuth.length = 0;
      const auth = await runToolsmith(ws, ['runs', 'export', RUN_ID, '--otlp', url], through(authPort));
      expect(auth.code).toBe(3);
      expect(auth.err).toContain(
        `the proxy http://127.0.0.1:${authPort} (from $${variable}) answered 407 Proxy Authentication Required (it asks for a user and password: put them in $${variable}`,
      );
      // With a user in the variable: sent as Proxy-Authorization, and the password never shown.
      askedAuth.length = 0;
      const withUser = await runToolsmith(
        ws,
        ['runs', 'export', RUN_ID, '--otlp', url],
        through(authPort, 'me:s3cret@'),
      );
      expect(withUser.err).toContain(`it refuses the user and password in $${variable}`);
      expect(withUser.err).not.toContain('s3cret');
      expect(askedAuth.map((a) => a.auth)).toEqual([`Basic ${Buffer.from('me:s3cret').toString('base64')}`]);
    }

    const timeout = { OTEL_EXPORTER_OTLP_TIMEOUT: '1500' };
    const silentTls = await runToolsmith(ws, ['runs', 'export', RUN_ID, '--otlp', COLLECTOR_TLS], {
      ...through(silentPort),
      ...timeout,
    });
    expect(silentTls.code).toBe(3);
    expect(silentTls.err).toContain(
      `the proxy http://127.0.0.1:${silentPort} (from $https_proxy), which its requests go through, did not answer the request for a tunnel to collector.toolsmith-proxy-test.invalid:4318 (CONNECT) within 1500 ms`,
    );
    const silentHttp = await runToolsmith(ws, ['runs', 'export', RUN_ID, '--otlp', COLLECTOR], {
      ...through(silentPort),
      ...timeout,
    });
    expect(silentHttp.code).toBe(3);
    expect(silentHttp.err).toContain(
      `the proxy http://127.0.0.1:${silentPort} (from $http_proxy), which its requests go through, did not answer within 1500 ms`,
    );
  }, 120_000);
});
