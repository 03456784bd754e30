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
 *   endpoint's.
 * No ES imports (bin/start.mjs loads this first, through verb-cache.ts; a builtin is taken only when
 * needed).
 */

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
    if (tunnel) {
      const status = Number(tunnel[1]);
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
    const code = (c as { code?: unknown }).code;
    const failure = typeof code === 'string' ? CONNECT_FAILURES[code] : undefined;
    if (failure)
      return {
        reason: `cannot connect to ${proxyWords(proxy)}: ${failure} (${code})`,
        // A refusal or an unknown name does not fix itself within a backoff; a connect left unanswered may.
        retryable: /TIMEOUT|TIMEDOUT/.test(code as string),
      };
    c = (c as { cause?: unknown }).cause;
  }
  return undefined;
}
