/**
 * Run traces (OpenTelemetry): where they go, from the workspace's `[telemetry]` table and the standard
 * `OTEL_*` environment variables (which win), and the export of a run when it ends. Off by default:
 * `[telemetry] enabled = true` or `OTEL_TRACES_EXPORTER=otlp` turns it on; `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none` turns it off whatever the config says. docs/telemetry.md.
 */
import { readFileSync } from 'node:fs';
import { isHttpUrl } from './config.ts';
import type { Config } from './config.ts';
import { urlWithoutCredentials } from '../core/records/redact.ts';
import { learnHeaderSecrets } from './env-secrets.ts';
import { withoutUserinfo } from '../core/text/http-url.ts';
import type { RunEvent } from '../core/records/events.ts';
import type { TelemetryView } from '../contract/api.ts';
import type { OtlpProtocol, OtlpTarget, ProviderFacts } from '../infra/telemetry/run-trace.ts';
import { endpointOf, providerUrl } from './providers.ts';

/** The OTLP transports sent (gRPC needs OpenTelemetry's gRPC exporter, which is not a dependency). */
const OTLP_PROTOCOLS: readonly OtlpProtocol[] = ['http/protobuf', 'http/json'];

/** The OTLP/HTTP traces endpoint of a collector on this machine (the specification's default). */
export { learnHeaderSecrets, learnOtelEnvSecrets } from './env-secrets.ts';

export const DEFAULT_OTLP_BASE = 'http://localhost:4318';
export const DEFAULT_SERVICE_NAME = 'toolsmith';

export type TelemetrySettings =
  { enabled: false; why: string } | ({ enabled: true; warnings: string[] } & OtlpTarget);

type Env = Readonly<Record<string, string | undefined>>;

/** `k=v,k2=v2` (W3C baggage form, values percent-encoded), as OTEL_EXPORTER_OTLP_HEADERS holds them. */
export function parseOtelHeaders(text: string | undefined): Record<string, string> {
  return parseOtelHeadersNamed(text, '').headers;
}

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What an HTTP header value may not hold: control characters but tab (a CR or LF would split it). */
const BAD_HEADER_VALUE = /[\x00-\x08\x0a-\x1f\x7f]/;

/**
 * Why a header cannot be sent, if it cannot: a name that is no HTTP token, a value with a control
 * character. Node refused such a header only when the trace was posted ("Header name must be a valid
 * HTTP token"), naming neither the setting nor that the header was the cause.
 */
function headerProblem(name: string, value: string, cutName = false): string | undefined {
  if (!HEADER_NAME.test(name)) {
    const lead = /^[!#$%&'*+.^_`|~0-9A-Za-z-]*/.exec(name)?.[0] ?? '';
    const shown = cutName ? `${lead.slice(0, 60)}...` : name.slice(0, 60);
    return `${JSON.stringify(shown)} is not a header name (letters, digits, - and the like, no spaces)`;
  }
  if (BAD_HEADER_VALUE.test(value))
    return `the value of header ${name} holds a control character (a line break?)`;
  return undefined;
}

/**
 * OTEL_EXPORTER_OTLP_HEADERS (or its _TRACES_ form, `variable`) parsed, with a warning for each entry
 * that is not sent: one that is not `key=value` (`Authorization: Bearer x`, written as an HTTP header,
 * was dropped silently and the collector answered 401), or a header HTTP cannot carry. A warning names the
 * entry by the text before its value only: the value is a credential.
 */
export function parseOtelHeadersNamed(
  text: string | undefined,
  variable: string,
): { headers: Record<string, string>; warnings: string[] } {
  const headers: Record<string, string> = {};
  const warnings: string[] = [];
  for (const part of (text ?? '').split(',')) {
    if (!part.trim()) continue;
    const i = part.indexOf('=');
    const key = i > 0 ? part.slice(0, i).trim() : '';
    // An entry in HTTP's form (`Authorization: Basic dXNlcjpw...==`) whose value holds a `=` (base64's
    // padding) is no key=value either: the text before that `=` is the credential, never shown as a name.
    if (!key || key.includes(':')) {
      const shown = /^\s*([^:=\s]{0,60})/.exec(part)?.[1] ?? '';
      warnings.push(
        `${variable}: the entry ${JSON.stringify(`${shown}${shown.length < part.trim().length ? '...' : ''}`)} is not key=value, and is not sent (write key=value pairs separated by commas, values percent-encoded: authorization=Bearer%20<token>)`,
      );
      continue;
    }
    let value = part.slice(i + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      // kept as written
    }
    // (a name is shown up to its first character a name cannot hold: `x bad=...` may be a credential's
    // `Bearer abc=` cut at its `=`)
    const problem = headerProblem(key, value, true);
    if (problem) {
      warnings.push(`${variable}: ${problem}; that header is not sent`);
      continue;
    }
    headers[key] = value;
  }
  return { headers, warnings };
}

/**
 * OTEL_RESOURCE_ATTRIBUTES: `key1=value1,key2=value2`, values percent-encoded (the specification's
 * resource SDK). An entry without a key or a `=` makes the whole value invalid: it is then discarded, and
 * the warning says so (the specification: "the entire environment variable value SHOULD be discarded").
 */
export function parseResourceAttributes(text: string | undefined): {
  attributes: Record<string, string>;
  warning?: string;
} {
  const attributes: Record<string, string> = {};
  const raw = (text ?? '').trim();
  if (!raw) return { attributes };
  for (const part of raw.split(',')) {
    const i = part.indexOf('=');
    const key = i > 0 ? part.slice(0, i).trim() : '';
    // An entry in HTTP's form (`Authorization: Basic dXNlcjpw...==`) whose value holds a `=` (base64's
    // padding) is no key=value either: the text before that `=` is the credential, never shown as a name.
    if (!key || key.includes(':')) {
      // (an entry in HTTP's form is named by the text before its `:`, as a header's is: what follows is a
      // value, a credential as often as not; other entries are shown as written, a word like `staging`)
      const name = /^\s*([^:=\s]{0,60})\s*:/.exec(part)?.[1];
      const shown = name !== undefined ? `${name}...` : part.trim().slice(0, 60);
      return {
        attributes: {},
        warning: `OTEL_RESOURCE_ATTRIBUTES is ignored: ${JSON.stringify(shown)} is not key=value (expected key1=value1,key2=value2, values percent-encoded)`,
      };
    }
    let value = part.slice(i + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      // kept as written
    }
    attributes[key] = value;
  }
  return { attributes };
}

/**
 * A PEM file named by OTEL_EXPORTER_OTLP_TRACES_<what> or OTEL_EXPORTER_OTLP_<what> (the signal's first),
 * read; one that cannot be read is a warning naming the variable and why, and is not used.
 */
function pemOf(env: Env, what: string, warnings: string[]): { name: string; pem: string } | undefined {
  for (const name of [`OTEL_EXPORTER_OTLP_TRACES_${what}`, `OTEL_EXPORTER_OTLP_${what}`]) {
    const path = env[name]?.trim();
    if (!path) continue;
    try {
      return { name, pem: readFileSync(path, 'utf8') };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      warnings.push(
        `${name}=${JSON.stringify(path)} is ignored: the file could not be read (${code === 'ENOENT' ? 'no such file' : (code ?? String(e))})`,
      );
      return undefined;
    }
  }
  return undefined;
}

/**
 * TLS and compression from the standard variables: the collector's CA (OTEL_EXPORTER_OTLP_CERTIFICATE),
 * a client certificate and key (mTLS: OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and _CLIENT_KEY, both or
 * neither), and `gzip` (OTEL_EXPORTER_OTLP_COMPRESSION), each also as its _TRACES_ variable, which wins.
 */
function transportOf(env: Env, warnings: string[]): Pick<OtlpTarget, 'tls' | 'compression'> {
  const out: Pick<OtlpTarget, 'tls' | 'compression'> = {};
  const tls: NonNullable<OtlpTarget['tls']> = {};
  const ca = pemOf(env, 'CERTIFICATE', warnings);
  if (ca) tls.ca = ca.pem;
  const cert = pemOf(env, 'CLIENT_CERTIFICATE', warnings);
  const key = pemOf(env, 'CLIENT_KEY', warnings);
  if (cert && key) {
    tls.cert = cert.pem;
    tls.key = key.pem;
  } else if (cert || key) {
    const has = (cert ?? key)!.name;
    warnings.push(
      `${has} is ignored: a client certificate needs its key and the key its certificate (set OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY)`,
    );
  }
  if (Object.keys(tls).length) out.tls = tls;
  const compression = (env.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION ?? env.OTEL_EXPORTER_OTLP_COMPRESSION ?? '')
    .trim()
    .toLowerCase();
  if (compression === 'gzip') out.compression = 'gzip';
  else if (compression && compression !== 'none')
    warnings.push(
      `OTLP compression ${compression} is not supported (gzip and none are): traces are sent uncompressed`,
    );
  return out;
}

/** A collector's base URL as its traces URL (`OTEL_EXPORTER_OTLP_ENDPOINT`, `endpoint`). */
export const tracesUrl = (base: string) => `${base.replace(/\/+$/, '')}/v1/traces`;

/**
 * A URL typed after `runs export --otlp`: the traces URL as is, except a bare collector address (no path,
 * `http://127.0.0.1:4318`), which gets `/v1/traces` as the endpoint settings do. It was posted to `/`,
 * where no collector takes traces, and the export failed with the collector's `HTTP 404`.
 */
export function typedTracesUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname === '/' && !u.search && !u.hash ? tracesUrl(url) : url;
  } catch {
    return url;
  }
}
const truthy = (v: string | undefined) => v?.trim().toLowerCase() === 'true';

/**
 * Where run traces go, or why they do not. Every header value is learnt as a secret (never stored,
 * logged or exported in the clear).
 */
export function telemetrySettings(config: Config, env: Env = process.env): TelemetrySettings {
  if (truthy(env.OTEL_SDK_DISABLED)) return { enabled: false, why: 'OTEL_SDK_DISABLED=true' };
  return resolveTarget(config, env);
}

/**
 * Where traces go when asked for explicitly (`toolsmith runs export --otlp`): the same endpoint, headers
 * and service name, whether or not live export is on.
 */
export function otlpTarget(config: Config, env: Env = process.env): OtlpTarget & { warnings: string[] } {
  const r = resolveTarget(config, env, true);
  if (!r.enabled) throw new Error(r.why); // never: forced
  return r;
}

function resolveTarget(config: Config, env: Env, forced = false): TelemetrySettings {
  const t = config.telemetry;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((x) => x.trim().toLowerCase())
    .filter(Boolean);
  if (!forced && exporters.includes('none')) return { enabled: false, why: 'OTEL_TRACES_EXPORTER=none' };
  const warnings: string[] = [];
  const others = exporters.filter((x) => x !== 'otlp');
  if (others.length) warnings.push(`OTEL_TRACES_EXPORTER names ${others.join(', ')}: only otlp is supported`);
  if (!forced && !exporters.includes('otlp') && !t.enabled)
    return {
      enabled: false,
      why: 'off by default: set [telemetry] enabled = true or OTEL_TRACES_EXPORTER=otlp',
    };
  // The variables win over the file; an unsupported one (grpc) is named and the file's (or protobuf) used.
  const asked = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim();
  let protocol: OtlpProtocol = t.protocol ?? 'http/protobuf';
  if (asked) {
    if ((OTLP_PROTOCOLS as readonly string[]).includes(asked)) protocol = asked as OtlpProtocol;
    else
      warnings.push(
        `OTLP protocol ${asked} is not supported (http/protobuf and http/json are): traces are sent as ${protocol}`,
      );
  }
  // The specification's OTLP/HTTP endpoint is a URL whose scheme is http or https; an environment value
  // that is not one (`localhost:4318`) is invalid, and an invalid value is warned about and treated as not
  // set (its common configuration rules); an empty one is unset. config.toml's are refused at load.
  const ignored: string[] = [];
  const endpointVar = (name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' | 'OTEL_EXPORTER_OTLP_ENDPOINT') => {
    const v = env[name]?.trim();
    if (!v) return undefined;
    if (isHttpUrl(v)) return v;
    ignored.push(`${name}=${JSON.stringify(withoutUserinfo(v))}`);
    return undefined;
  };
  const tracesVar = endpointVar('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const baseVar = endpointVar('OTEL_EXPORTER_OTLP_ENDPOINT');
  const url =
    tracesVar ||
    (baseVar ? tracesUrl(baseVar) : undefined) ||
    t.traces_endpoint ||
    tracesUrl(t.endpoint ?? DEFAULT_OTLP_BASE);
  // A base URL that already ends in the traces path (the traces URL written where the collector's
  // address goes): the specification appends /v1/traces to it all the same, and the collector answered
  // 404 to .../v1/traces/v1/traces with nothing saying why.
  const base = tracesVar
    ? undefined
    : baseVar
      ? 'OTEL_EXPORTER_OTLP_ENDPOINT'
      : t.traces_endpoint
        ? undefined
        : t.endpoint
          ? '[telemetry] endpoint'
          : undefined;
  if (base && /\/v1\/traces\/v1\/traces$/.test(new URL(url).pathname))
    warnings.push(
      `${base} ends in /v1/traces, and /v1/traces is added to it, so traces go to ${urlWithoutCredentials(url)}: give the collector's address there (${urlWithoutCredentials(url.replace(/\/v1\/traces\/v1\/traces$/, ''))}), or the whole traces URL as ${base === 'OTEL_EXPORTER_OTLP_ENDPOINT' ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : '[telemetry] traces_endpoint'}`,
    );
  for (const what of ignored)
    warnings.push(
      `${what} is ignored: an OTLP/HTTP endpoint is an http:// or https:// URL with a host and port, such as http://localhost:4318; traces go to ${urlWithoutCredentials(url)}`,
    );
  const headers: Record<string, string> = {};
  for (const [k, ref] of Object.entries(t.headers)) {
    const value = env[ref.slice(4)];
    const problem = value === undefined ? undefined : headerProblem(k, value);
    if (value === undefined) warnings.push(`[telemetry] header ${k}: ${ref.slice(4)} is not set`);
    else if (problem) warnings.push(`[telemetry] header ${k} (${ref.slice(4)}): ${problem}; it is not sent`);
    else headers[k] = value;
  }
  for (const name of ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'] as const) {
    const parsed = parseOtelHeadersNamed(env[name], name);
    Object.assign(headers, parsed.headers);
    warnings.push(...parsed.warnings);
  }
  learnHeaderSecrets(Object.values(headers));
  const resource = parseResourceAttributes(env.OTEL_RESOURCE_ATTRIBUTES);
  if (resource.warning) warnings.push(resource.warning);
  const { 'service.name': resourceName, ...resourceAttributes } = resource.attributes;
  const serviceName =
    env.OTEL_SERVICE_NAME?.trim() || resourceName?.trim() || t.service_name || DEFAULT_SERVICE_NAME;
  const timeout = Number(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT);
  return {
    enabled: true,
    url,
    headers,
    serviceName,
    ...(Object.keys(resourceAttributes).length ? { resourceAttributes } : {}),
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : t.timeout_ms,
    protocol,
    ...transportOf(env, warnings),
    warnings,
  };
}

/**
 * What the config says of each provider id: the API it speaks and its endpoint. A run records both for
 * the providers it may ask; this is the fallback for runs recorded before that (their ids looked up in
 * today's config).
 */
export const configuredProviders = (config: Config): Record<string, ProviderFacts> =>
  Object.fromEntries(
    config.providers.map((p) => [p.id, { kind: p.kind, endpoint: endpointOf(providerUrl(p)) }]),
  );

/**
 * Sends one run's trace (its events, as recorded) to the resolved endpoint. The OpenTelemetry packages
 * load only here, when a trace is sent. Resolves with the number of spans.
 */
export async function sendRunTrace(
  events: readonly RunEvent[],
  config: Config,
  target: OtlpTarget,
  signal?: AbortSignal,
): Promise<number> {
  const { exportRunTrace } = await import('../infra/telemetry/run-trace.ts');
  return exportRunTrace(events, target, {
    configuredProviders: configuredProviders(config),
    ...(signal ? { signal } : {}),
  });
}

/**
 * The waits before each new try of a trace a collector did not take for a transient reason (no
 * connection, a reset, HTTP 429, 502, 503, 504: a collector restarting), in a process that stays up (the
 * workbench, `serve`, `mcp`): 15 s in all, the time a stopping process waits for its traces. A one-shot
 * CLI command tries once: a retry would hold every command up while no collector answers.
 */
export const TRACE_RETRY_WAITS_MS: readonly number[] = [1000, 2000, 4000, 8000];

/**
 * `sendRunTrace`, tried again after each of `waits` while the collector's refusal is transient
 * (`OtlpExportError.transient`); a wait ends early, and the last failure is thrown, when `signal` aborts
 * (the process stops). The trace is the same each time (its ids derive from the run id), so a collector
 * that took a try whose answer was lost keeps one copy of each span. `onRetry` hears each failure
 * before its wait.
 */
export async function sendRunTraceRetrying(
  events: readonly RunEvent[],
  config: Config,
  target: OtlpTarget,
  opts: {
    signal?: AbortSignal;
    /** The process is stopping: no wait begins, and one under way ends (the last failure is thrown). */
    stopping?: AbortSignal;
    waits?: readonly number[];
    onRetry?: (e: unknown, waitMs: number) => void;
  } = {},
): Promise<number> {
  const waits = opts.waits ?? [];
  for (let i = 0; ; i++) {
    try {
      return await sendRunTrace(events, config, target, opts.signal);
    } catch (e) {
      const wait = waits[i];
      const stop = opts.stopping
        ? AbortSignal.any([opts.stopping, ...(opts.signal ? [opts.signal] : [])])
        : opts.signal;
      if (wait === undefined || !(e as { transient?: unknown }).transient || stop?.aborted) throw e;
      opts.onRetry?.(e, wait);
      const stopped = await new Promise<boolean>((resolve) => {
        const onAbort = () => {
          clearTimeout(timer);
          resolve(true);
        };
        const timer = setTimeout(() => {
          stop?.removeEventListener('abort', onAbort);
          resolve(false);
        }, wait);
        stop?.addEventListener('abort', onAbort, { once: true });
      });
      if (stopped) throw e;
    }
  }
}

/**
 * One line for a trace that was not sent: the endpoint and the cause, as `OtlpExportError` gives them
 * (`could not export to http://127.0.0.1:4318/v1/traces (connection refused)`).
 */
export function telemetryFailureLine(e: unknown, url: string): string {
  const reason = (e as { reason?: unknown } | undefined)?.reason;
  const why = typeof reason === 'string' ? reason : e instanceof Error ? e.message : String(e);
  return `could not export to ${(e as { url?: unknown } | undefined)?.url ?? urlWithoutCredentials(url)} (${why})`;
}

/** The OTEL_* variables that, set, decide over `[telemetry]` in the file (docs/telemetry.md). */
const OVERRIDING_VARS = [
  'OTEL_SDK_DISABLED',
  'OTEL_TRACES_EXPORTER',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
] as const;

/**
 * What names the configured traces URL, in a person's words: an `OTEL_*` variable, `[telemetry]
 * traces_endpoint` or `endpoint`, or `the default` (http://localhost:4318) when nothing does.
 */
export function traceUrlFrom(config: Config, env: Env = process.env): string {
  const t = config.telemetry;
  const validVar = (name: string) => {
    const v = env[name]?.trim();
    return !!v && isHttpUrl(v);
  };
  return validVar('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
    ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
    : validVar('OTEL_EXPORTER_OTLP_ENDPOINT')
      ? 'OTEL_EXPORTER_OTLP_ENDPOINT'
      : t.traces_endpoint
        ? '[telemetry] traces_endpoint'
        : t.endpoint
          ? '[telemetry] endpoint'
          : 'the default';
}

/** A trace that was not sent: the run, when, and the line that says why (`telemetryFailureLine`). */
export interface TelemetryFailure {
  runId: string;
  at: number;
  message: string;
}

/**
 * Settings › Telemetry: whether run traces are sent, where (and what names that URL), the config's own
 * values, the variables that win over them, and the last trace that was not sent.
 */
export function telemetryView(
  config: Config,
  lastError: TelemetryFailure | undefined,
  env: Env = process.env,
): TelemetryView {
  const t = config.telemetry;
  const live = telemetrySettings(config, env);
  const target = otlpTarget(config, env);
  const set = (name: string) => !!env[name]?.trim();
  const urlFrom = traceUrlFrom(config, env);
  return {
    enabled: live.enabled,
    ...(live.enabled ? {} : { why: live.why }),
    url: urlWithoutCredentials(target.url),
    urlFrom,
    ...(t.endpoint ? { endpoint: urlWithoutCredentials(t.endpoint) } : {}),
    configEnabled: t.enabled,
    envOverrides: OVERRIDING_VARS.filter(set),
    warnings: target.warnings,
    ...(lastError ? { lastError } : {}),
  };
}
