/**
 * Fast failure for unreachable LLM endpoints: before a request, a plain TCP connect to the endpoint's
 * host and port with a short timeout; a refused or timed-out connect marks the endpoint "down" for a
 * while, so a dead default (e.g. no Ollama running) costs one short check per run, not seconds of
 * silent retries. Every message names the URL. A request that goes through the environment's proxy
 * (HTTP_PROXY/HTTPS_PROXY under NODE_USE_ENV_PROXY=1) checks the proxy instead, and names it: the
 * endpoint itself may be neither resolvable nor reachable from this machine, only from the proxy.
 */
import { connect } from 'node:net';
import { proxyFor, proxyWords } from '../net/proxy-env.ts';

export interface Reachability {
  ok: boolean;
  /** Why the endpoint cannot be reached (names the URL). */
  reason?: string;
}

/** How long a failed endpoint is skipped before it is tried again. */
export const DOWN_FOR_MS = 30_000;
/** A TCP connect to a local or remote LLM server that takes longer than this counts as down. */
export const CONNECT_TIMEOUT_MS = 1_500;

const down = new Map<string, { until: number; reason: string }>();

/** The host:port a URL connects to (default ports by scheme). */
export function endpointOf(url: string): { host: string; port: number } {
  const u = new URL(url);
  const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port };
}

/** A short reason for a socket error code (`of`: what was connected to, a server or the proxy). */
export function connectErrorReason(
  code: string | undefined,
  message: string,
  of: 'server' | 'proxy' = 'server',
): string {
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused (is the ${of} running${of === 'proxy' ? ' at that address' : ''}?)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'ETIMEDOUT':
      return `no answer within ${CONNECT_TIMEOUT_MS} ms`;
    default:
      return message || code || 'connection failed';
  }
}

function tcpCheck(
  host: string,
  port: number,
  timeoutMs: number,
): Promise<{ code?: string; message: string }> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (r: { code?: string; message: string }) => {
      socket.destroy();
      resolve(r);
    };
    socket.setTimeout(timeoutMs, () => done({ code: 'ETIMEDOUT', message: 'timed out' }));
    socket.once('connect', () => done({ message: '' }));
    socket.once('error', (e: NodeJS.ErrnoException) =>
      done({ ...(e.code ? { code: e.code } : {}), message: e.message }),
    );
  });
}

/**
 * Checks that `url`'s endpoint accepts connections. A remembered "down" answer is returned at once
 * (without a connect) until it expires; `fresh` ignores it (a "test connection" button).
 */
export async function checkReachable(
  url: string,
  opts: { fresh?: boolean; timeoutMs?: number; now?: () => number } = {},
): Promise<Reachability> {
  const now = opts.now ?? Date.now;
  let host: string;
  let port: number;
  try {
    ({ host, port } = endpointOf(url));
  } catch {
    return { ok: false, reason: `${url} is not a URL` };
  }
  const proxy = proxyFor(url);
  if (proxy) ({ host, port } = proxy);
  const key = `${host}:${port}`;
  const known = down.get(key);
  if (known && !opts.fresh && known.until > now()) {
    const left = Math.ceil((known.until - now()) / 1000);
    return { ok: false, reason: `${known.reason}; skipped (marked down, tried again in ${left} s)` };
  }
  const r = await tcpCheck(host, port, opts.timeoutMs ?? CONNECT_TIMEOUT_MS);
  if (!r.code && !r.message) {
    down.delete(key);
    return { ok: true };
  }
  const reason = proxy
    ? `cannot connect to ${proxyWords(proxy)}, which requests to ${url} go through: ${connectErrorReason(r.code, r.message, 'proxy')}`
    : `cannot connect to ${url}: ${connectErrorReason(r.code, r.message)}`;
  down.set(key, { until: now() + DOWN_FOR_MS, reason });
  return { ok: false, reason };
}

/** Forgets every remembered "down" endpoint (after the config changed, and in tests). */
export function forgetDownEndpoints(): void {
  down.clear();
}
