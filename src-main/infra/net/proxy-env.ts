/**
 * A proxy in the environment (HTTP_PROXY/HTTPS_PROXY, which Node's fetch uses under NODE_USE_ENV_PROXY=1
 * or --use-env-proxy: undici's EnvHttpProxyAgent as the global dispatcher), in one place for every entry
 * of the service: the command (bin/start.mjs: every verb, `serve`, `mcp` on stdio and over HTTP) and the
 * desktop app (src-main/electron/main.ts) call `reachLoopbackDirectly` as they start.
 * - A proxy is another host, where 127.0.0.1 is the proxy itself: a loopback server of the person's (a
 *   local model, an MCP server, an OTLP collector) is reached directly, as browsers do, so the loopback
 *   names join NO_PROXY (and no_proxy) whenever a proxy is set. Fetch reads NO_PROXY at each request;
 *   processes the service starts (stdio MCP servers) inherit it.
 * - `proxyFor` says which proxy a request to a URL goes through (the same choice as undici's), so a
 *   failure can name it: a refused, silent or credential-asking proxy is the proxy's problem, not the
 *   endpoint's. OTLP export (infra/telemetry/run-trace.ts, node:http) follows the same choice.
 * - A request given up before the proxy answered its tunnel (CONNECT) must end that tunnel: undici
 *   keeps waiting for the answer (300 s) on a socket that holds the process open. An MCP server over
 *   HTTP (`ownProxyDispatcher`, destroyed with its connection) and LLM calls (`tunnelSafeFetch`) use a
 *   dispatcher of their own that is destroyed; `proxyWaitWords` says when it was the proxy that was silent.
 *   Destroying it also ends a tunnel the proxy answered whose TLS handshake is not done (undici's own
 *   10 s connect timeout held the process that long after the command's error).
 * - A deadline's words are those of its own request's connect (`logConnects`, `connectsOf`), never of
 *   another request to the same host at the same time.
 * No ES imports but type-only ones, which are erased (bin/start.mjs loads this first, through
 * verb-cache.ts; a builtin is taken only when needed).
 */

import type { AsyncLocalStorage } from 'node:async_hooks';

/** The loopback names every proxy setting leaves out (as undici matches them: `[::1]` with brackets). */
export const LOOPBACK_NO_PROXY = ['localhost', '127.0.0.1', '[::1]'] as const;

type Env = Record<string, string | undefined>;

const PROXY_VARIABLES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy'] as const;

/**
 * When a proxy variable is set: NO_PROXY and no_proxy become what either held, plus the loopback names
 * (once each). Nothing changes without a proxy variable. Idempotent.
 * On this process's environment, with Node's proxy support on, the proxy settings are then loaded again
 * (`http.setGlobalProxyFromEnv`, Node >= 24.14): fetch reads NO_PROXY at each request, but
 * `http.globalAgent` (http.request: a Docker engine on tcp://127.0.0.1, a library's requests) read it
 * once as the process started, and kept sending loopback requests to the proxy.
 */
export function reachLoopbackDirectly(env: Env = process.env): void {
  if (!PROXY_VARIABLES.some((v) => env[v])) return;
  const kept = [env['NO_PROXY'], env['no_proxy']].flatMap((v) =>
    v ? v.split(/[\s,]+/).filter(Boolean) : [],
  );
  const noProxy = [...new Set([...kept, ...LOOPBACK_NO_PROXY])].join(',');
  const changed = env['NO_PROXY'] !== noProxy || env['no_proxy'] !== noProxy;
  env['NO_PROXY'] = env['no_proxy'] = noProxy;
  if (changed && env === process.env && fetchUsesEnvProxy()) {
    const http = process.getBuiltinModule('node:http');
    // Not in every Node an Electron may ship: there fetch alone follows the new NO_PROXY.
    if (typeof http.setGlobalProxyFromEnv === 'function') http.setGlobalProxyFromEnv(process.env);
  }
}

/** Whether this process's fetch goes through the environment's proxy (undici's global dispatcher). */
export function fetchUsesEnvProxy(): boolean {
  const dispatcher = (globalThis as Record<symbol, unknown>)[Symbol.for('undici.globalDispatcher.1')];
  return (
    (dispatcher as { constructor?: { name?: string } } | undefined)?.constructor?.name === 'EnvHttpProxyAgent'
  );
}

export interface ProxyRoute {
  /** The proxy as `scheme://host:port`, without the user and password it may hold. */
  url: string;
  host: string;
  port: number;
  /** The variable it came from, e.g. `HTTPS_PROXY`. */
  variable: string;
  /** It carries a user name (and so sends credentials). */
  withUser: boolean;
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * The proxy a request to `target` goes through, or undefined when it goes directly: fetch does not use
 * the environment's proxy (`inUse`, by default this process's), or NO_PROXY names the host. The same
 * choice as undici's EnvHttpProxyAgent: http_proxy/HTTP_PROXY for http:, https_proxy/HTTPS_PROXY (else
 * the http one) for https:; NO_PROXY (no_proxy first) read now, `*` for every host, an entry with a
 * port only for that port, one starting with `.` or `*` for the names ending in it.
 */
export function proxyFor(target: string, opts: { env?: Env; inUse?: boolean } = {}): ProxyRoute | undefined {
  const env = opts.env ?? process.env;
  if (!(opts.inUse ?? fetchUsesEnvProxy())) return undefined;
  let u: URL;
  try {
    u = new URL(target);
  } catch {
    return undefined;
  }
  const pick = (...names: string[]) => names.find((n) => env[n]);
  const httpVar = pick('http_proxy', 'HTTP_PROXY');
  const variable =
    u.protocol === 'https:'
      ? (pick('https_proxy', 'HTTPS_PROXY') ?? httpVar)
      : u.protocol === 'http:'
        ? httpVar
        : undefined;
  if (!variable) return undefined;
  const hostname = u.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number(u.port) || DEFAULT_PORTS[u.protocol] || 0;
  if (!shouldProxy(env['no_proxy'] ?? env['NO_PROXY'] ?? '', hostname, port)) return undefined;
  let p: URL;
  try {
    p = new URL(env[variable] ?? '');
  } catch {
    return undefined;
  }
  const proxyPort = Number(p.port) || DEFAULT_PORTS[p.protocol] || 80;
  return {
    url: `${p.protocol}//${p.hostname}:${proxyPort}`,
    host: p.hostname.replace(/^\[|\]$/g, ''),
    port: proxyPort,
    variable,
    withUser: p.username !== '',
  };
}

function shouldProxy(noProxy: string, hostname: string, port: number): boolean {
  const entries = noProxy
    .split(/[,\s]/)
    .filter(Boolean)
    .map((entry) => {
      const parsed = /^(.+):(\d+)$/.exec(entry);
      return { hostname: (parsed?.[1] ?? entry).toLowerCase(), port: parsed ? Number(parsed[2]) : 0 };
    });
  if (entries.length === 0) return true;
  if (noProxy === '*') return false;
  for (const e of entries) {
    if (e.port && e.port !== port) continue;
    if (!/^[.*]/.test(e.hostname)) {
      if (hostname === e.hostname) return false;
    } else if (hostname.endsWith(e.hostname.replace(/^\*/, ''))) return false;
  }
  return true;
}

/** `the proxy http://host:port (from $HTTPS_PROXY)`, for a message. */
export const proxyWords = (p: ProxyRoute): string => `the proxy ${p.url} (from $${p.variable})`;

/**
 * A proxy's 407 in words: it wants credentials the variable does not hold, or refuses the ones it holds.
 */
export const proxyAuthWords = (p: ProxyRoute): string =>
  `${proxyWords(p)} answered 407 Proxy Authentication Required (${
    p.withUser
      ? `it refuses the user and password in $${p.variable}: check them`
      : `it asks for a user and password: put them in $${p.variable} as http://USER:PASSWORD@${p.url.replace(/^[a-z]+:\/\//, '')}`
  })`;

/** Socket errors of a connect: through a proxy, fetch connects to nothing but the proxy. */
const CONNECT_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is the proxy running at that address?)',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
  ETIMEDOUT: 'no answer to the connect',
  UND_ERR_CONNECT_TIMEOUT: 'no answer to the connect',
};

const TUNNEL = /Proxy response \((\d+)\) !== 200 when HTTP Tunneling/;

/**
 * A request's failure that is the proxy's, in words naming it: the proxy refused the connection (or
 * was not found), or refused the tunnel to the server (407: credentials; 403: the host is not allowed;
 * 502/503/504: it could not reach the server). Undefined when the failure is something else.
 */
export function proxyFailure(
  e: unknown,
  proxy: ProxyRoute,
): { reason: string; retryable: boolean; status?: number } | undefined {
  for (let c: unknown = e, i = 0; c && typeof c === 'object' && i < 6; i++) {
    const message = String((c as { message?: unknown }).message ?? '');
    const tunnel = TUNNEL.exec(message);
    if (tunnel) return tunnelRefused(Number(tunnel[1]), proxy);
    const code = (c as { code?: unknown }).code;
    const failure = typeof code === 'string' ? proxyConnectFailure(code, proxy) : undefined;
    if (failure) return failure;
    c = (c as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The proxy answered `status` (not 200) to the request for a tunnel (CONNECT), in words. */
export function tunnelRefused(
  status: number,
  proxy: ProxyRoute,
): { reason: string; retryable: boolean; status: number } {
  if (status === 407) return { reason: proxyAuthWords(proxy), retryable: false, status };
  const why =
    status === 403
      ? 'it does not let this machine reach that host (ask for it to be allowed, or set NO_PROXY if the host is reachable directly)'
      : status >= 500
        ? 'it could not reach the server'
        : 'it refused the tunnel';
  return {
    reason: `${proxyWords(proxy)} answered ${status} to the request for a tunnel to the server (CONNECT): ${why}`,
    retryable: status >= 500,
    status,
  };
}

/** A socket error (`code`) of the connect to the proxy, in words; undefined for another error. */
export function proxyConnectFailure(
  code: string,
  proxy: ProxyRoute,
): { reason: string; retryable: boolean } | undefined {
  const failure = CONNECT_FAILURES[code];
  if (!failure) return undefined;
  return {
    reason: `cannot connect to ${proxyWords(proxy)}: ${failure} (${code})`,
    // A refusal or an unknown name does not fix itself within a backoff; a connect left unanswered may.
    retryable: /TIMEOUT|TIMEDOUT/.test(code),
  };
}

/**
 * The `Proxy-Authorization` header value the proxy URL in `proxy.variable` carries (`Basic ...` of its
 * user and password, as undici and curl send it), or undefined without a user.
 */
export function proxyAuthorization(proxy: ProxyRoute, env: Env = process.env): string | undefined {
  if (!proxy.withUser) return undefined;
  let p: URL;
  try {
    p = new URL(env[proxy.variable] ?? '');
  } catch {
    return undefined;
  }
  const credentials = `${decodeURIComponent(p.username)}:${decodeURIComponent(p.password)}`;
  return `Basic ${Buffer.from(credentials).toString('base64')}`;
}

/** A dispatcher of fetch's (undici's), as far as this module uses one. */
export interface OwnDispatcher {
  /** Ends every connection and tunnel of it, answered or not. */
  destroy(...args: unknown[]): Promise<void>;
}

/**
 * A dispatcher of its own for the requests of one connection (an MCP server over HTTP) when fetch goes
 * through the environment's proxy: a new EnvHttpProxyAgent (the class of fetch's global dispatcher, the
 * same proxy and NO_PROXY choice), given to fetch as `dispatcher`. Undefined without the environment's
 * proxy (fetch's own dispatcher then connects directly). Why: aborting a fetch does not end a tunnel the
 * proxy has not answered yet (undici waits for the CONNECT's answer up to its 300 s headers timeout),
 * and that socket held the process open: a command that gave up on a silent proxy never exited.
 * Destroying this dispatcher as the connection closes ends it, and ends the tunnels the proxy answered
 * whose TLS handshake with the server is still under way: undici hands such a tunnel to no client until
 * the handshake is done, so destroying the dispatcher did not reach it, and its own connect timeout
 * (10 s) kept the process alive that long after the command had printed its error.
 */
export function ownProxyDispatcher(): OwnDispatcher | undefined {
  if (!fetchUsesEnvProxy()) return undefined;
  const global = (globalThis as Record<symbol, unknown>)[Symbol.for('undici.globalDispatcher.1')] as {
    constructor: new () => OwnDispatcher;
  };
  watchTunnels();
  const dispatcher = new global.constructor();
  // The connects its requests begin (see `fetchThrough`): undici says nothing more of a connect whose
  // client was destroyed before it ended, so destroying this dispatcher forgets them here.
  const mine: ConnectLog = new Set();
  owned.set(dispatcher, mine);
  // undici's destroy() calls itself again with a callback: every form is passed on unchanged.
  const destroy = dispatcher.destroy.bind(dispatcher);
  dispatcher.destroy = (...args: unknown[]) => {
    for (const c of [...mine]) {
      // A tunnel the proxy answered, its TLS handshake not done: no client holds it yet.
      c.tunnel?.destroy();
      forgetConnect(c);
    }
    return destroy(...args);
  };
  return dispatcher;
}

/** The connects begun by an own dispatcher's requests. */
const owned = new WeakMap<OwnDispatcher, ConnectLog>();

/** The connects begun by an own dispatcher's requests and not ended (for `connectPhase`). */
export const connectsOf = (dispatcher: OwnDispatcher | undefined): ConnectLog | undefined =>
  dispatcher ? owned.get(dispatcher) : undefined;

/**
 * `fetch` through an own dispatcher: the connects the request begins are its dispatcher's (an async
 * context around the call: undici begins a connect within the request's dispatch), so that destroying
 * the dispatcher forgets those it never finished, and ends their tunnels.
 */
export function fetchThrough(
  dispatcher: OwnDispatcher,
  input: Parameters<typeof fetch>[0],
  init: RequestInit | undefined,
): Promise<Response> {
  const mine = owned.get(dispatcher);
  const call = () => fetch(input, { ...init, dispatcher } as RequestInit);
  return mine ? logConnects(mine, call) : call();
}

/**
 * `fetch` for requests that may be given up before the proxy answered (an LLM call's deadline): through
 * the environment's proxy each request has a dispatcher of its own (`ownProxyDispatcher`), destroyed
 * when the request fails or is aborted before its answer, which ends a tunnel the proxy never answered
 * (or answered, its TLS handshake not done).
 * With fetch's shared dispatcher that tunnel held the process open for undici's 300 s after the call
 * had failed (`toolsmith run` never exited). An answered request's dispatcher is left to its idle
 * socket's keep-alive timeout (an idle socket does not hold the process). Without a proxy: fetch.
 */
export const tunnelSafeFetch: typeof fetch = async (input, init) => {
  const dispatcher = ownProxyDispatcher();
  if (!dispatcher) return fetch(input, init);
  try {
    return await fetchThrough(dispatcher, input, init);
  } catch (e) {
    void dispatcher.destroy().catch(() => undefined);
    throw e;
  }
};

/**
 * A connect begun and not ended, to the server's `host:port` (through a proxy: the tunnel asked of it);
 * `answered`: the proxy answered 200 to its CONNECT (the TLS handshake with the server, through the
 * tunnel, is under way).
 */
export interface PendingConnect {
  key: string;
  answered: boolean;
  /** undici's connector that runs it: a dispatcher's own (a ProxyAgent's), or a pool's. */
  connector: unknown;
  /** The tunnel (the socket to the proxy) once the proxy answered, until the handshake in it is done. */
  tunnel?: { destroy(): void };
  /** The logs it is in (its dispatcher's, its request's): it leaves them as it ends. */
  logs: ConnectLog[];
}
/**
 * The connects of one request or one dispatcher, begun and not ended (`logConnects`): a deadline's words
 * are those of its own request's connect, never of another request to the same host that waits for
 * something else.
 */
export type ConnectLog = Set<PendingConnect>;
/** Connects begun and not ended, oldest first. */
const pendingConnects: PendingConnect[] = [];
/** The logs a request runs for (its dispatcher's, its own): see `logConnects`. */
let connectOwner: AsyncLocalStorage<ConnectLog[]> | undefined;
let watching = false;

function forgetConnect(c: PendingConnect): void {
  const i = pendingConnects.indexOf(c);
  if (i >= 0) pendingConnects.splice(i, 1);
  for (const log of c.logs) log.delete(c);
  delete c.tunnel;
}

/**
 * Runs `fn` (which makes requests with fetch) so that the connects its requests begin are put in `log`
 * (besides any log it already runs for) until they end: `connectPhase(target, proxy, log)` then tells
 * where this request stands, whatever other requests to the same host wait for.
 */
export function logConnects<T>(log: ConnectLog, fn: () => T): T {
  watchTunnels();
  if (!connectOwner) return fn();
  return connectOwner.run([...(connectOwner.getStore() ?? []), log], fn);
}

/** `host:port` of undici's connect parameters (an empty port is the scheme's). */
function endpointKey(p: {
  hostname?: string;
  host?: string;
  port?: string | number;
  protocol?: string;
}): string {
  const host = (p.hostname ?? p.host ?? '')
    .replace(/^\[|\]$/g, '')
    .replace(/:\d+$/, '')
    .toLowerCase();
  return `${host}:${Number(p.port) || DEFAULT_PORTS[p.protocol ?? ''] || 0}`;
}

/** Among `candidates`, the oldest of the request an event of undici's runs for (its async context). */
function ours(candidates: PendingConnect[]): PendingConnect | undefined {
  const store = connectOwner?.getStore();
  return store ? candidates.find((c) => c.logs.some((l) => store.includes(l))) : undefined;
}

/**
 * The pending connect an event of undici's is about, among `candidates` (same endpoint, same connector
 * when one matches): one of the request the event runs for first, else an answered one, else the oldest.
 */
function pick(candidates: PendingConnect[]): PendingConnect | undefined {
  return ours(candidates) ?? candidates.find((c) => c.answered) ?? candidates[0];
}

/**
 * Follows undici's connects (its diagnostics channels): through a proxy, the connect to a server is the
 * tunnel the proxy is asked for (then the TLS handshake through it), so one begun and neither done nor
 * failed is a tunnel the proxy has not answered, or one whose handshake is not done when the proxy's
 * answer was seen. Started once, by the first own dispatcher or LLM call.
 */
export function watchTunnels(): void {
  if (watching) return;
  watching = true;
  const dc = process.getBuiltinModule('node:diagnostics_channel');
  const params = (m: unknown) =>
    (m as { connectParams?: Parameters<typeof endpointKey>[0] }).connectParams ?? {};
  const connectorOf = (m: unknown) => (m as { connector?: unknown }).connector;
  connectOwner = new (process.getBuiltinModule('node:async_hooks').AsyncLocalStorage)();
  const begun = (m: unknown) => {
    const logs = connectOwner?.getStore() ?? [];
    const c: PendingConnect = {
      key: endpointKey(params(m)),
      answered: false,
      connector: connectorOf(m),
      logs,
    };
    pendingConnects.push(c);
    for (const log of logs) log.add(c);
  };
  // Connects to one endpoint end in any order: the one that ended is of the event's connector (each own
  // dispatcher has its own) and, among those, of the request it runs for (its async context).
  const ended = (m: unknown) => {
    const key = endpointKey(params(m));
    const connector = connectorOf(m);
    const same = pendingConnects.filter((p) => p.key === key);
    const byConnector = same.filter((p) => p.connector === connector);
    const c = pick(byConnector.length > 0 ? byConnector : same);
    if (c) forgetConnect(c);
  };
  dc.subscribe('undici:client:beforeConnect', begun);
  dc.subscribe('undici:client:connected', ended);
  dc.subscribe('undici:client:connectError', ended);
  // The proxy answered 200 to a CONNECT (undici >= 7.29 says so; its parameters' path is `host:port`),
  // in the async context of the request that asked for it. Without that channel (an older undici) such
  // a tunnel still reads as unanswered.
  dc.subscribe('undici:proxy:connected', (m) => {
    const { connectParams, socket } = m as {
      connectParams?: { path?: unknown };
      socket?: { destroy(): void };
    };
    const path = connectParams?.path;
    if (typeof path !== 'string') return;
    const at = path.lastIndexOf(':');
    const key = endpointKey({ hostname: path.slice(0, at), port: path.slice(at + 1) });
    const unanswered = pendingConnects.filter((p) => p.key === key && !p.answered);
    const mine = ours(unanswered);
    const c = mine ?? unanswered[0];
    if (!c) return;
    c.answered = true;
    // Ended with its dispatcher only when it is surely that request's (never another's tunnel).
    if (socket && mine) c.tunnel = socket;
  });
}

/**
 * Where a request's connect to `target` stands now, from undici's connects (known once `watchTunnels`
 * ran): `tunnel` the proxy has not answered the request for a tunnel (CONNECT), `handshake` it answered
 * and the TLS handshake with the server through the tunnel is not done, `connecting` a connect without a
 * proxy not done, undefined when no connect to it is under way (connected, or not begun). With `log`
 * (the request's own connects, `logConnects`, or its dispatcher's, `connectsOf`) only those count: two
 * requests to one host at once each get their own stage (before, the oldest connect to the host stood
 * for both, so one waiting for its headers was told of the other's unanswered tunnel).
 */
export function connectPhase(
  target: string,
  throughProxy: boolean,
  log?: ConnectLog,
): 'tunnel' | 'handshake' | 'connecting' | undefined {
  let key: string;
  try {
    const u = new URL(target);
    key = endpointKey({ hostname: u.hostname, port: u.port, protocol: u.protocol });
  } catch {
    return undefined;
  }
  const pending = (log ? [...log] : pendingConnects).filter((c) => c.key === key);
  if (pending.length === 0) return undefined;
  if (!throughProxy) return 'connecting';
  return pending.some((c) => c.answered) ? 'handshake' : 'tunnel';
}

/**
 * Whether a request to `target` is waiting on its tunnel now: the proxy has not answered the request for
 * a tunnel to the server (or not even taken the connection), or answered it and the TLS handshake through
 * the tunnel is not done (`connectPhase` tells which). Known from the first own dispatcher on (the watch
 * starts then; every undici connect counts; with `log`, the request's or dispatcher's own).
 */
export function tunnelPending(target: string, log?: ConnectLog): boolean {
  return connectPhase(target, true, log) !== undefined;
}

/**
 * What to add to "did not answer within N ms" for a request to `target` through `proxy`: `: the proxy
 * URL (from $VAR) did not answer the request for a tunnel to HOST:PORT (CONNECT) ...` when the tunnel was
 * still unanswered as the wait ran out (the proxy's silence, not the server's), else `; its requests go
 * through the proxy URL (from $VAR)`. `log`: the request's own connects (see `connectPhase`).
 */
export function proxyWaitWords(target: string, proxy: ProxyRoute, log?: ConnectLog): string {
  const phase = connectPhase(target, true, log);
  if (!phase) return `; its requests go through ${proxyWords(proxy)}`;
  const u = new URL(target);
  const hostPort = `${u.hostname}:${Number(u.port) || DEFAULT_PORTS[u.protocol] || 0}`;
  return `: ${phase === 'handshake' ? tunnelNoHandshake(proxy, hostPort) : tunnelUnanswered(proxy, hostPort)}`;
}

/**
 * `the proxy URL (from $VAR), which its requests go through, answered the request for a tunnel to
 * HOST:PORT (CONNECT), then the TLS handshake with the server through it did not finish`: the proxy
 * was not the silent side (the server behind it, or the proxy's forwarding, was).
 */
export function tunnelNoHandshake(proxy: ProxyRoute, hostPort: string): string {
  return `${proxyWords(proxy)}, which its requests go through, answered the request for a tunnel to ${hostPort} (CONNECT), then the TLS handshake with the server through that tunnel did not finish`;
}

/** `the proxy URL (from $VAR), which its requests go through, did not answer ... (CONNECT)` for `hostPort`. */
export function tunnelUnanswered(proxy: ProxyRoute, hostPort: string): string {
  return `${proxyWords(proxy)}, which its requests go through, did not answer the request for a tunnel to ${hostPort} (CONNECT)`;
}
