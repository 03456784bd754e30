/**
 * How a failed try of an LLM call reads, for both APIs: retryable or not, and the cause in words (a
 * deadline, a cut stream, a token limit, JSON garbage, a refused connection, 429 with its Retry-After,
 * an exhausted quota, 5xx, a wrong endpoint or model, or the server's refusal), with what the server
 * said (an HTML error page by its title, never its markup).
 */
import { clipWords } from '../../core/text/clip.ts';
import { proxyFailure } from '../net/proxy-env.ts';
import type { ProxyRoute } from '../net/proxy-env.ts';
import { CutStreamError, DeadlineError, TruncatedError } from './deadline.ts';
import { ErrorAnswer, findCause, HttpAnswerError } from './guarded-fetch.ts';
import { connectErrorReason } from './reachability.ts';
import { retryAfterMs } from './retry.ts';
import type { Classified } from './retry.ts';

/** `proxy`: the proxy the request went through (HTTP_PROXY/HTTPS_PROXY), whose own failures are named. */
export function classifyHttpError(e: unknown, proxy?: ProxyRoute): Classified {
  const err = e as {
    status?: number;
    headers?: Headers | Record<string, string>;
    message?: string;
    name?: string;
  };
  const status = typeof err.status === 'number' ? err.status : undefined;
  const code = (e as { code?: unknown }).code;
  const header =
    err.headers instanceof Headers ? err.headers.get('retry-after') : err.headers?.['retry-after'];
  const after = retryAfterMs(header);
  const name = `${err.name ?? ''} ${(e as { constructor?: { name?: string } })?.constructor?.name ?? ''}`;
  const message = err.message ?? '';
  if (e instanceof DeadlineError) return { retryable: e.retryable, reason: `timed out: ${e.message}` };
  if (e instanceof CutStreamError) return { retryable: true, reason: `connection failed: ${e.message}` };
  if (e instanceof TruncatedError) return { retryable: false, reason: `truncated answer: ${e.message}` };
  // The proxy refused the connection or the tunnel (407: credentials): its failure, not the server's.
  const byProxy = proxy ? proxyFailure(e, proxy) : undefined;
  if (byProxy) return { ...byProxy, reason: `connection failed: ${byProxy.reason}` };
  const http = findCause(e, HttpAnswerError);
  if (http) return { retryable: http.retryable, reason: http.message };
  // A 200 whose whole body is an error: the server's words, retried as the same error in a stream is.
  const whole = findCause(e, ErrorAnswer);
  if (whole)
    return (
      reportedError(whole.error, '', 'whole') ?? {
        retryable: false,
        reason: `unexpected answer: ${whole.message}`,
      }
    );
  // Anthropic's `overloaded_error` event mid-stream (an error with no status): an overload, retried.
  if ((e as { type?: unknown }).type === 'overloaded_error' || /overloaded_error/.test(message))
    return { retryable: true, reason: 'server overloaded (overloaded_error in the answer stream)' };
  // Any other error the server sent inside a stream that began well (an `error` event or data line after a
  // 200: OpenRouter's upstream failures, Anthropic's api_error): the server's words, not "malformed answer".
  const inStream = streamError(e, status, message);
  if (inStream) return inStream;
  // A TLS failure (a self-signed certificate, https to a plain port) cannot succeed on a retry.
  const tls = tlsFailure(e);
  if (tls) return { retryable: false, reason: tls };
  // A stream whose data is not JSON: the server sent garbage (the SDK's parse error, in words).
  if (e instanceof SyntaxError)
    return {
      retryable: false,
      reason: `malformed answer: the stream held data that is not JSON (${message.slice(0, 200)})`,
    };
  // A refused connection or an unknown host will not fix itself within a backoff: fail at once.
  const socket = causeCode(e);
  if (socket && FATAL_CONNECT.has(socket))
    return { retryable: false, reason: `connection failed: ${connectErrorReason(socket, message)}` };
  // OpenAI answers an account out of credit with 429 too: waiting does not refill it.
  if (status === 429 && code === 'insufficient_quota')
    return {
      retryable: false,
      reason: `quota exceeded (429): ${serverWords(message, status)}; the account's plan or billing must change, so the request was not retried`,
      status,
    };
  if (status === 429)
    return {
      retryable: true,
      reason: 'rate limited (429)',
      status,
      ...(after !== undefined ? { retryAfterMs: after } : {}),
    };
  if (status !== undefined && status >= 500)
    return {
      retryable: true,
      reason: `server error (${status}): ${serverWords(message, status)}`,
      status,
      ...(after !== undefined ? { retryAfterMs: after } : {}),
    };
  if (/Timeout/i.test(name) || /timed out/i.test(message)) return { retryable: true, reason: 'timed out' };
  // A stream that closes before its first chunk is a dropped connection, not a bad answer.
  if (
    /Connection/i.test(name) ||
    /ended without sending any chunks|ECONNRESET|socket hang up/i.test(message)
  ) {
    return { retryable: true, reason: `connection failed: ${message}`.trim() };
  }
  // A proxy on the way (one that is not the environment's: those answer a CONNECT, above) wants credentials.
  if (status === 407)
    return {
      retryable: false,
      reason: `proxy authentication required (407): a proxy between this machine and the server asks for credentials: ${serverWords(message, status)}`,
      status,
    };
  // A 404 is the endpoint or the model: say which settings to check.
  if (status === 404)
    return {
      retryable: false,
      reason: `not found (404): ${serverWords(message, status)}; check the provider's base_url (the API's root: ending in /v1 for an OpenAI-compatible server, without it for Anthropic) and its model`,
      status,
    };
  if (status !== undefined)
    return {
      retryable: false,
      reason: `request refused (${status}): ${serverWords(message, status)}`,
      status,
    };
  return { retryable: false, reason: `malformed answer: ${(err.message ?? String(e)).slice(0, 300)}` };
}

/**
 * What the server said with an error status, on one line: the SDKs start their message with the status
 * ("404 404 page not found" said it twice), an empty body reads "status code (no body)", and a proxy's
 * HTML page is named by its title (or its text), not shown as markup.
 */
function serverWords(message: string, status: number): string {
  const said = message.replace(new RegExp(`^${status}\\s+`), '').trim();
  if (!said || /^status code \(no body\)$/i.test(said)) return 'the answer had no body';
  const json = jsonMessage(said);
  if (json) return clipWords(json, 300);
  if (!/<(!doctype|html|head|body|title|h1|p)\b/i.test(said)) return clipWords(said, 300);
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(said)?.[1]?.trim();
  const text = (title || said.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
  return `an HTML page (${JSON.stringify(text.slice(0, 120))}), not an API's answer`;
}

/** The message of a JSON error body (`{error: {message}}`, `{message}`, `{detail}`), which an SDK passed whole. */
function jsonMessage(s: string): string | undefined {
  if (!s.startsWith('{')) return undefined;
  try {
    const j = JSON.parse(s) as {
      error?: { message?: unknown } | string;
      message?: unknown;
      detail?: unknown;
    };
    const m = typeof j.error === 'object' ? j.error.message : (j.error ?? j.message ?? j.detail);
    return typeof m === 'string' && m ? m : undefined;
  } catch {
    return undefined;
  }
}

const FATAL_CONNECT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The socket error code anywhere in an error's cause chain (fetch wraps it twice). */
function causeCode(e: unknown): string | undefined {
  for (let c: unknown = e, i = 0; c && typeof c === 'object' && i < 5; i++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    c = (c as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The TLS failure anywhere in an error's cause chain, in words; undefined when there is none. */
export function tlsFailure(e: unknown): string | undefined {
  for (let c: unknown = e, i = 0; c && typeof c === 'object' && i < 6; i++) {
    const code = (c as { code?: unknown }).code;
    const message = String((c as { message?: unknown }).message ?? '');
    if (typeof code === 'string') {
      const said = TLS_CODES[code];
      if (said) return `TLS failed: ${said} (${code}); the request was not retried`;
      if (/^ERR_SSL_|^ERR_TLS_|CERT|^UNABLE_TO_/.test(code)) {
        const wrongVersion = /wrong version number|packet length too long/i.test(message);
        return wrongVersion
          ? `TLS failed: the server does not speak TLS on this port (https to a plain http port?) (${code}); the request was not retried`
          : `TLS failed: ${message.split(':').slice(-2).join(':').trim() || code} (${code}); the request was not retried`;
      }
    }
    c = (c as { cause?: unknown }).cause;
  }
  return undefined;
}

const TLS_CODES: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT:
    "the server's certificate is self-signed; add its CA to NODE_EXTRA_CA_CERTS or use a certificate a known CA signed",
  SELF_SIGNED_CERT_IN_CHAIN:
    "the server's certificate chain holds a self-signed certificate that is not trusted; add its CA to NODE_EXTRA_CA_CERTS",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    "the server's certificate could not be verified (its issuer is unknown); add its CA to NODE_EXTRA_CA_CERTS",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    "the issuer of the server's certificate is unknown here; add its CA to NODE_EXTRA_CA_CERTS",
  CERT_HAS_EXPIRED: "the server's certificate has expired",
  CERT_NOT_YET_VALID: "the server's certificate is not valid yet (is this machine's clock right?)",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's certificate is for another host name",
  ERR_SSL_WRONG_VERSION_NUMBER: 'the server does not speak TLS on this port (https to a plain http port?)',
};

/**
 * An error the server reported inside its answer stream, after answering 200 (the SDKs throw it with no
 * status): `data: {"error": {...}}` (OpenAI-compatible servers and routers) or an `error` event
 * (Anthropic's `{type: "error", error: {type, message}}`), or either said as plain text.
 */
function streamError(e: unknown, status: number | undefined, message: string): Classified | undefined {
  if (status !== undefined) return undefined;
  return reportedError((e as { error?: unknown }).error, message, 'stream');
}

/**
 * An error the server reported with a 200, in its words: inside its answer stream, or as the whole JSON
 * body of a complete answer (`{"error": {...}}`). Retried where it says the server or its upstream failed
 * or is busy (a 5xx or 429 code, `api_error`, `rate_limit_error`, words of overload), else not (a refused
 * request does not change on a retry).
 */
function reportedError(error: unknown, message: string, where: 'stream' | 'whole'): Classified | undefined {
  let body = error;
  // (said as plain text: `data: {"error": "..."}`, or an `error` event whose data is not JSON)
  if (typeof body === 'string' && body.trim()) body = { message: body };
  if (!body || typeof body !== 'object') return undefined;
  const outer = body as { error?: unknown };
  const inner = (outer.error && typeof outer.error === 'object' ? outer.error : body) as {
    type?: unknown;
    code?: unknown;
    message?: unknown;
  };
  const type = typeof inner.type === 'string' && inner.type !== 'error' ? inner.type : undefined;
  const code = typeof inner.code === 'number' || typeof inner.code === 'string' ? inner.code : undefined;
  const said = clipWords(
    (typeof inner.message === 'string' && inner.message.trim() ? inner.message : message)
      .replace(/\s+/g, ' ')
      .trim(),
    300,
  );
  const numeric =
    typeof code === 'number' ? code : /^\d{3}$/.test(String(code ?? '')) ? Number(code) : undefined;
  const retryable =
    (numeric !== undefined && (numeric >= 500 || numeric === 429 || numeric === 408)) ||
    /^(api_error|rate_limit_error|server_error|timeout_error|overloaded_error)$/.test(type ?? '') ||
    /overload|rate.?limit|temporar|unavailable|timed? ?out|try again/i.test(said);
  const what = [type, code !== undefined ? `code ${code}` : undefined].filter(Boolean).join(', ');
  const reported = `${said ? JSON.stringify(said) : 'an error'}${what ? ` (${what})` : ''}`;
  return {
    retryable,
    reason:
      where === 'stream'
        ? `error in the answer stream: the server answered 200, then reported ${reported}`
        : `error as the answer: the server answered 200 with an error instead of an answer: ${reported}`,
  };
}
