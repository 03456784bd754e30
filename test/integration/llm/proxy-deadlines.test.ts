/**
 * Every deadline of a request through the environment's proxy says what was being waited for, and
 * through which proxy. Before, only the headers deadline (`timeout_ms`) of an LLM call whose proxy never
 * answered the tunnel named the proxy's silence; the rest said a generic timeout or blamed the wrong side:
 * - the whole call's deadline (`total_timeout_ms`) said "no complete answer within N s" whatever it was
 *   waiting for (the proxy's answer to the CONNECT, the TLS handshake, the headers, the rest of the answer);
 * - a proxy that answers the tunnel (200 to the CONNECT) and then passes nothing was called a proxy that
 *   "did not answer the request for a tunnel", for LLM calls and MCP servers over HTTP alike, and OTLP
 *   export said "no answer within N ms" for it and for a collector that never answered inside the tunnel;
 * - an LLM request that went through the tunnel and got no headers said only "no response".
 * - a command whose request stalled in the TLS handshake through an answered tunnel printed its error at
 *   the deadline and exited only ~10 s later (undici's own connect timeout held the tunnel, which
 *   destroying the request's dispatcher did not reach): every command here must have exited 8 s after
 *   its error at the latest;
 * - concurrent requests to one host were worded by the oldest connect to that host, so one waiting for
 *   its headers was told of another's unanswered tunnel.
 *
 * Real processes: the CLI as users run it (`run`, `mcp-servers test`, `runs export --otlp`), proxies
 * written here with node:net/http/tls (one that never answers, one that answers the tunnel and then
 * passes nothing, one that opens the tunnel and speaks TLS in it for the host asked, with a certificate
 * the CLI trusts through NODE_EXTRA_CA_CERTS, in front of the scripted LLM server and an OTLP receiver).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import { connect as netConnect, createServer as createNetServer } from 'node:net';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCert } from '../../support/certs.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { startOtlpReceiver } from '../../support/otlp-receiver.ts';
import type { OtlpReceiver } from '../../support/otlp-receiver.ts';
import {
  nodeBin,
  outputOf,
  runCommand,
  runToolsmith,
  toolsmithArgv,
} from '../../support/toolsmith-process.ts';
import type { ToolsmithOutput } from '../../support/toolsmith-process.ts';
import { spawn } from 'node:child_process';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';

const RUN_ID = '6f1c2a9e-0b7d-4c55-9a31-3f0e8d2b7c41'; // test/fixtures/runs/run-v1.json
/** Hosts only the proxies reach (`.invalid`: never resolvable here). */
const LLM_HOST = 'llm.toolsmith-deadline-test.invalid';
const MCP_HOST = 'mcp.toolsmith-deadline-test.invalid';
const COLLECTOR_HOST = 'collector.toolsmith-deadline-test.invalid';
const COLLECTOR_TLS = `https://${COLLECTOR_HOST}:4318/v1/traces`;

const certs = mkdtempSync(join(tmpdir(), 'toolsmith-proxy-deadline-certs-'));
let llm: LlmServer;
let receiver: OtlpReceiver;
/** Takes connections, reads them, never answers. */
let silent: NetServer;
/** Answers 200 to every CONNECT, then reads what comes through the tunnel and passes nothing. */
let stalling: NetServer;
/**
 * Answers 200 to every CONNECT and speaks TLS inside the tunnel itself (a certificate for every test
 * host), handing what it decrypts to the scripted LLM server (or, for the collector's host, to the OTLP
 * receiver): an intercepting proxy, so the server behind it can be made to stall after the tunnel.
 */
let tlsProxy: Server;
/** Leaves the first CONNECT it is asked unanswered, then is `tlsProxy` for the next ones. */
let firstSilent: Server;
let firstSilentAsked = 0;
/**
 * Three CONNECTs, three stages: the first intercepted (as `tlsProxy`), the second answered 200 then
 * nothing passed (as `stalling`), the third never answered (as `silent`).
 */
let mixed: Server;
let mixedAsked = 0;
let mixedPort: number;
const sockets: Socket[] = [];
let silentPort: number;
let stallingPort: number;
let tlsPort: number;
let firstSilentPort: number;
let ws: string;
let ca: string;

const listen = (s: Server | NetServer) =>
  new Promise<number>((resolve) =>
    s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)),
  );

beforeAll(async () => {
  llm = await startLlmServer();
  receiver = await startOtlpReceiver();
  const cert = selfSignedCert(certs, 'hosts', {
    cn: LLM_HOST,
    san: `DNS:${LLM_HOST},DNS:${MCP_HOST},DNS:${COLLECTOR_HOST}`,
  });
  ca = cert.cert;
  const key = readFileSync(cert.key);
  const pem = readFileSync(cert.cert);
  silent = createNetServer((socket) => {
    sockets.push(socket);
    socket.resume();
  });
  stalling = createNetServer((socket) => {
    sockets.push(socket);
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      socket.resume();
    });
  });
  const intercept = (req: IncomingMessage, socket: Socket) => {
    sockets.push(socket);
    const to = (req.url ?? '').startsWith(COLLECTOR_HOST) ? receiver.base : llm.baseUrl;
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    const secure = new TLSSocket(socket, { isServer: true, key, cert: pem });
    const upstream = netConnect(Number(new URL(to).port), '127.0.0.1');
    sockets.push(secure, upstream);
    secure.on('error', () => upstream.destroy());
    upstream.on('error', () => secure.destroy());
    secure.pipe(upstream);
    upstream.pipe(secure);
  };
  tlsProxy = createServer();
  tlsProxy.on('connect', intercept);
  firstSilent = createServer();
  firstSilent.on('connect', (req: IncomingMessage, socket: Socket) => {
    if (firstSilentAsked++ > 0) return intercept(req, socket);
    sockets.push(socket);
    socket.resume();
  });
  mixed = createServer();
  mixed.on('connect', (req: IncomingMessage, socket: Socket) => {
    const n = ++mixedAsked;
    if (n === 1) return intercept(req, socket);
    sockets.push(socket);
    if (n === 2) socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    socket.resume();
  });
  [silentPort, stallingPort, tlsPort, firstSilentPort, mixedPort] = await Promise.all([
    listen(silent),
    listen(stalling),
    listen(tlsProxy),
    listen(firstSilent),
    listen(mixed),
  ]);

  ws = tempWorkspace('toolsmith-proxy-deadlines-');
  appendFileSync(
    join(ws, '.toolsmith/config.toml'),
    `\n[mcp_servers.remote]\nurl = "https://${MCP_HOST}/mcp"\nstartup_timeout_ms = 1500\n\n` +
      // A hosted model only the proxy reaches: `hdr` with a short headers deadline, `tot` with a short
      // whole-call deadline (the others long); no retry.
      `[[providers]]\nid = "hdr"\nkind = "openai"\nbase_url = "https://${LLM_HOST}/v1"\nmodel = "m"\n` +
      `timeout_ms = 1500\nmax_retries = 0\n\n` +
      `[[providers]]\nid = "tot"\nkind = "openai"\nbase_url = "https://${LLM_HOST}/v1"\nmodel = "m"\n` +
      `timeout_ms = 60000\nidle_timeout_ms = 60000\ntotal_timeout_ms = 1500\nmax_retries = 0\n\n` +
      // `hdr` with one retry.
      `[[providers]]\nid = "hdr2"\nkind = "openai"\nbase_url = "https://${LLM_HOST}/v1"\nmodel = "m"\n` +
      `timeout_ms = 1500\nmax_retries = 1\n`,
  );
  const imported = await runToolsmith(ws, [
    'runs',
    'import',
    join(repoRoot, 'test/fixtures/runs/run-v1.json'),
  ]);
  expect(imported.code, imported.err).toBe(0);
}, 120_000);

afterAll(async () => {
  for (const s of sockets) s.destroy();
  tlsProxy?.closeAllConnections();
  firstSilent?.closeAllConnections();
  mixed?.closeAllConnections();
  await Promise.all(
    [silent, stalling, tlsProxy, firstSilent, mixed].map(
      (s) => new Promise((r) => (s ? s.close(r) : r(undefined))),
    ),
  );
  await llm?.close();
  await receiver?.close();
  rmSync(certs, { recursive: true, force: true });
  if (ws) removeWorkspace(ws);
});

/** The person's proxy settings (every spelling, no NO_PROXY of the runner's), the proxy on `port`. */
function through(port: number): Record<string, string> {
  for (const v of ['NO_PROXY', 'no_proxy']) delete process.env[v];
  const url = `http://127.0.0.1:${port}`;
  return {
    NODE_USE_ENV_PROXY: '1',
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    // The intercepting proxy's certificate (the test hosts') is trusted.
    NODE_EXTRA_CA_CERTS: ca,
  };
}

const proxyNamed = (port: number, variable = 'https_proxy') =>
  `the proxy http://127.0.0.1:${port} (from $${variable}), which its requests go through`;

/** How long a command may take to exit after its error: well under undici's 10 s connect timeout. */
const EXIT_AFTER_ERROR_MS = 8_000;

/**
 * `toolsmith --workspace WS ARGS` with `env` added, to its end, and that it exited by itself right
 * after its error: it must have exited (its exit event) within EXIT_AFTER_ERROR_MS of its output first
 * holding `error`. Before, a TLS handshake stalled through an answered tunnel kept it alive ~10 s more.
 */
async function runToExit(
  args: string[],
  env: Record<string, string>,
  error: string,
): Promise<ToolsmithOutput> {
  const [cmd, argv] = toolsmithArgv(ws, args);
  const child = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = outputOf(child);
  const exited = new Promise<'exited'>((resolve) => child.once('exit', () => resolve('exited')));
  let seen = '';
  const printed = new Promise<void>((resolve) => {
    const look = (d: Buffer) => {
      seen += d.toString();
      if (seen.includes(error)) resolve();
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
  });
  const first = await Promise.race([printed.then(() => 'printed' as const), exited]);
  if (first === 'printed') {
    const later = await Promise.race([
      exited,
      new Promise<'still running'>((r) => setTimeout(() => r('still running'), EXIT_AFTER_ERROR_MS)),
    ]);
    if (later === 'still running') child.kill('SIGKILL');
    expect(later, `toolsmith ${args.join(' ')} after printing ${JSON.stringify(error)}`).toBe('exited');
  }
  const r = await output;
  expect(r.out + r.err).toContain(error);
  return r;
}

/** `toolsmith run` of a task with the provider `id`, through the proxy on `port`: its output. */
async function llmRun(id: string, port: number): Promise<string> {
  const r = await runToExit(
    ['run', 'Tier of user u4', '--sandbox', 'support', '--no-templates', '--provider', id],
    through(port),
    'error: no provider produced a script',
  );
  expect(r.code).toBe(1);
  return r.out + r.err;
}

describe('an LLM call through a proxy: each deadline says what it waited for, and through which proxy', () => {
  it('the whole call ran out while the proxy never answered the tunnel', async () => {
    expect(await llmRun('tot', silentPort)).toContain(
      `tot: timed out: no complete answer within 1.5 s (total_timeout_ms); it was waiting for the proxy's answer: ${proxyNamed(silentPort)}, did not answer the request for a tunnel to ${LLM_HOST}:443 (CONNECT)`,
    );
  }, 60_000);

  it('the headers deadline, after the proxy answered the tunnel and then passed nothing: not called a silent proxy', async () => {
    const out = await llmRun('hdr', stallingPort);
    expect(out).toContain(
      `hdr: timed out: no response within 1.5 s (timeout_ms) from https://${LLM_HOST}/v1: ${proxyNamed(stallingPort)}, answered the request for a tunnel to ${LLM_HOST}:443 (CONNECT), then the TLS handshake with the server through that tunnel did not finish`,
    );
    expect(out).not.toContain('did not answer the request for a tunnel');
  }, 60_000);

  it('the whole call ran out in the TLS handshake through a tunnel the proxy answered', async () => {
    expect(await llmRun('tot', stallingPort)).toContain(
      `tot: timed out: no complete answer within 1.5 s (total_timeout_ms); it was waiting for the TLS handshake: ${proxyNamed(stallingPort)}, answered the request for a tunnel to ${LLM_HOST}:443 (CONNECT), then the TLS handshake with the server through that tunnel did not finish`,
    );
  }, 60_000);

  it('the headers deadline, after the request went through the tunnel to a server that sends no headers', async () => {
    llm.reset();
    llm.fallback = { raw: () => new Promise(() => {}) };
    const out = await llmRun('hdr', tlsPort);
    // The request did reach the server, through the proxy's tunnel.
    expect(llm.requests.length).toBe(1);
    expect(out).toContain(
      `hdr: timed out: no response within 1.5 s (timeout_ms) from https://${LLM_HOST}/v1: the request went to ${LLM_HOST}:443 through the proxy http://127.0.0.1:${tlsPort} (from $https_proxy) (the connection through it was made), and no response headers came back`,
    );
  }, 60_000);

  it('a try after one whose tunnel was given up unanswered is worded by its own stage, not the old tunnel', async () => {
    // The first try's tunnel is never answered (its dispatcher is destroyed with the connect pending);
    // the retry's tunnel is answered and reaches a server that sends no headers.
    llm.reset();
    llm.fallback = { raw: () => new Promise(() => {}) };
    firstSilentAsked = 0;
    const out = await llmRun('hdr2', firstSilentPort);
    expect(firstSilentAsked).toBe(2);
    expect(llm.requests.length).toBe(1);
    expect(out).toContain(
      `llm retry 1 (hdr2): timed out: no response within 1.5 s (timeout_ms) from https://${LLM_HOST}/v1: ${proxyNamed(firstSilentPort)}, did not answer the request for a tunnel to ${LLM_HOST}:443 (CONNECT)`,
    );
    expect(out).toContain(
      `hdr2: timed out: no response within 1.5 s (timeout_ms) from https://${LLM_HOST}/v1: the request went to ${LLM_HOST}:443 through the proxy http://127.0.0.1:${firstSilentPort} (from $https_proxy) (the connection through it was made), and no response headers came back (after 1 retry)`,
    );
  }, 60_000);

  it('the whole call ran out after the provider sent headers and part of the answer, then nothing', async () => {
    llm.reset();
    llm.fallback = { text: 'emit_result(1)', stallAfterChunks: 1 };
    const out = await llmRun('tot', tlsPort);
    expect(out).toMatch(
      new RegExp(
        `tot: timed out: no complete answer within 1\\.5 s \\(total_timeout_ms\\); it was waiting for the rest of the answer: ${LLM_HOST.replace(/\./g, '\\.')}:443 sent its response headers and \\d+ bytes of the answer through the proxy http://127\\.0\\.0\\.1:${tlsPort} \\(from \\$https_proxy\\), the last of it \\d+(\\.\\d)? (s|ms) before`,
      ),
    );
  }, 60_000);
});

describe('concurrent LLM calls to one host through a proxy: each deadline says what its own request waited for', () => {
  it("three calls at once, one stage each (headers, TLS handshake, tunnel): never another call's words", async () => {
    // Before, the oldest connect to the host stood for every request to it: the call waiting for its
    // headers and the one whose tunnel was never answered were both told of the other's TLS handshake.
    llm.reset();
    llm.fallback = { raw: () => new Promise(() => {}) };
    mixedAsked = 0;
    const provider = join(repoRoot, 'src-main/infra/llm/openai.ts');
    const script = `
      import { OpenAiProvider } from ${JSON.stringify(provider)};
      const p = new OpenAiProvider({
        id: 'p', model: 'm', baseUrl: 'https://${LLM_HOST}/v1', apiKey: 'k', timeoutMs: 1500,
        retry: { maxRetries: 0, baseDelayMs: 10, maxDelayMs: 10 },
      });
      const all = await Promise.allSettled([0, 1, 2].map(() => p.generate({ system: 's', user: 'u' })));
      console.log(JSON.stringify(all.map((r) => (r.status === 'rejected' ? String(r.reason?.message) : 'answered'))));
      process.exit(0);
    `;
    const r = await runCommand(nodeBin, ['--input-type=module', '-e', script], {
      env: { ...process.env, ...through(mixedPort) },
    });
    expect(r.code, r.err).toBe(0);
    expect(mixedAsked).toBe(3);
    expect(llm.requests.length).toBe(1);
    const messages = JSON.parse(r.out.trim().split('\n').at(-1)!) as string[];
    const from = `p: timed out: no response within 1.5 s (timeout_ms) from https://${LLM_HOST}/v1: `;
    const expected = [
      `${from}the request went to ${LLM_HOST}:443 through the proxy http://127.0.0.1:${mixedPort} (from $https_proxy) (the connection through it was made), and no response headers came back`,
      `${from}${proxyNamed(mixedPort)}, answered the request for a tunnel to ${LLM_HOST}:443 (CONNECT), then the TLS handshake with the server through that tunnel did not finish`,
      `${from}${proxyNamed(mixedPort)}, did not answer the request for a tunnel to ${LLM_HOST}:443 (CONNECT)`,
    ];
    // Each stage is told once, to one call (which call got which connect is the proxy's order).
    expect(
      expected.map((e) => messages.filter((m) => m.startsWith(e)).length),
      messages.join('\n'),
    ).toEqual([1, 1, 1]);
  }, 60_000);
});

describe('concurrent connections to MCP servers on one host through a proxy: each says what its own waited for', () => {
  it("three servers at once, one stage each: the words of its own connection's connect", async () => {
    // The intercepted connection reaches a server that never answers (its request went through the
    // tunnel); before, it was told of another connection's tunnel, as the others were of each other's.
    llm.reset();
    llm.fallback = { raw: () => new Promise(() => {}) };
    mixedAsked = 0;
    const script = `
      import { McpManager } from ${JSON.stringify(join(repoRoot, 'src-main/infra/mcp/manager.ts'))};
      import { mcpServerSchema } from ${JSON.stringify(join(repoRoot, 'src-main/app/config.ts'))};
      const def = (path) => mcpServerSchema.parse({ url: 'https://${MCP_HOST}/v1/chat/completions?server=' + path, startup_timeout_ms: 1500 });
      const m = new McpManager({ a: def('a'), b: def('b'), c: def('c') });
      const all = await Promise.allSettled(['a', 'b', 'c'].map((n) => m.listTools(n)));
      console.log(JSON.stringify(all.map((r) => (r.status === 'rejected' ? String(r.reason?.message) : 'listed'))));
      process.exit(0);
    `;
    const r = await runCommand(nodeBin, ['--input-type=module', '-e', script], {
      env: { ...process.env, ...through(mixedPort) },
    });
    expect(r.code, r.err).toBe(0);
    expect(mixedAsked).toBe(3);
    const messages = JSON.parse(r.out.trim().split('\n').at(-1)!) as string[];
    const within = /^MCP server [abc] did not answer initialize within 1500 ms/;
    expect(
      messages.every((m) => within.test(m)),
      messages.join('\n'),
    ).toBe(true);
    const expected = [
      `; its requests go through the proxy http://127.0.0.1:${mixedPort} (from $https_proxy)`,
      `: ${proxyNamed(mixedPort)}, answered the request for a tunnel to ${MCP_HOST}:443 (CONNECT), then the TLS handshake with the server through that tunnel did not finish`,
      `: ${proxyNamed(mixedPort)}, did not answer the request for a tunnel to ${MCP_HOST}:443 (CONNECT)`,
    ];
    expect(
      expected.map((e) => messages.filter((m) => m.replace(within, '').startsWith(e)).length),
      messages.join('\n'),
    ).toEqual([1, 1, 1]);
  }, 60_000);
});

describe('an MCP server over HTTP and OTLP export through a proxy that answers the tunnel, then passes nothing', () => {
  it('mcp-servers test: the proxy answered; the TLS handshake through the tunnel did not finish', async () => {
    const r = await runToExit(
      ['mcp-servers', 'test', 'remote'],
      through(stallingPort),
      'did not answer initialize',
    );
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      `MCP server remote did not answer initialize within 1500 ms: ${proxyNamed(stallingPort)}, answered the request for a tunnel to ${MCP_HOST}:443 (CONNECT), then the TLS handshake with the server through that tunnel did not finish`,
    );
  }, 60_000);

  it('runs export --otlp: the proxy answered; the TLS handshake through the tunnel did not finish', async () => {
    const timeout = { OTEL_EXPORTER_OTLP_TIMEOUT: '1500' };
    const stalled = await runToExit(
      ['runs', 'export', RUN_ID, '--otlp', COLLECTOR_TLS],
      { ...through(stallingPort), ...timeout },
      'did not finish within 1500 ms',
    );
    expect(stalled.code).toBe(3);
    expect(stalled.err).toContain(
      `${proxyNamed(stallingPort)}, answered the request for a tunnel to ${COLLECTOR_HOST}:4318 (CONNECT), then the TLS handshake with the server through that tunnel did not finish within 1500 ms`,
    );
  }, 60_000);

  it('runs export --otlp: a collector that never answers inside a tunnel whose handshake was done', async () => {
    const timeout = { OTEL_EXPORTER_OTLP_TIMEOUT: '1500' };
    // Through the intercepting proxy the handshake is done, and the collector (held) never answers.
    receiver.hold = true;
    try {
      const held = await runToolsmith(ws, ['runs', 'export', RUN_ID, '--otlp', COLLECTOR_TLS], {
        ...through(tlsPort),
        ...timeout,
        OTEL_EXPORTER_OTLP_CERTIFICATE: ca,
      });
      expect(held.code).toBe(3);
      expect(held.err).toContain(
        `no answer within 1500 ms to the request sent to ${COLLECTOR_HOST}:4318 through the tunnel the proxy http://127.0.0.1:${tlsPort} (from $https_proxy) opened (the TLS handshake with it was done)`,
      );
    } finally {
      receiver.hold = false;
    }
  }, 60_000);
});
