/**
 * LLM providers from the workspace config, optionally overridden from the command line. Keys come from
 * the environment variable each provider names (CLI) or from the OS keychain (desktop, via `keyFor`);
 * a key is never written to a record or a log.
 */
import { LlmError } from '../core/ports/llm.ts';
import type { LlmProvider, LlmRequest, LlmResponse } from '../core/ports/llm.ts';
import { knownSecrets } from '../core/records/redact.ts';
import { baseUrlOptionProblem } from '../core/text/http-url.ts';
import { ANTHROPIC_DEFAULT_URL, AnthropicProvider } from '../infra/llm/anthropic.ts';
import { OPENAI_DEFAULT_URL, OpenAiProvider } from '../infra/llm/openai.ts';
import { DEFAULT_RETRY } from '../infra/llm/retry.ts';
import type { RetryPolicy } from '../infra/llm/retry.ts';
import { PROVIDER_DEFAULTS } from './config.ts';
import type { Config, ProviderConfig } from './config.ts';
import { ToolsmithError } from './errors.ts';

export interface ProviderOverrides {
  /** A configured provider id, or the id of the ad-hoc provider made from baseUrl. */
  provider?: string;
  baseUrl?: string;
  model?: string;
  kind?: 'openai' | 'anthropic';
  /** The wait for a response to start (`timeout_ms`), for every provider the run uses (`--timeout-ms`). */
  timeoutMs?: number;
  /** Retries of a timeout, a 429, a 5xx or a dropped connection (`max_retries`; `--retries`). */
  maxRetries?: number;
}

/** The most a whole call may take (config.ts's bound of `total_timeout_ms`). */
const MAX_TOTAL_MS = 3_600_000;

/**
 * A provider's config with the command line's request timeout and retries (`--timeout-ms`, `--retries`)
 * in place of its own. A longer timeout raises the silence allowed between streamed chunks and the whole
 * call's deadline with it (a slow local server that takes 2 minutes to start answering must not be cut
 * by the 3-minute total after its first try), never lowers them.
 */
export function tuneProvider(
  p: ProviderConfig,
  o: Pick<ProviderOverrides, 'timeoutMs' | 'maxRetries'>,
): ProviderConfig {
  if (o.timeoutMs === undefined && o.maxRetries === undefined) return p;
  const timeout = o.timeoutMs ?? p.timeout_ms;
  const retries = o.maxRetries ?? p.max_retries;
  return {
    ...p,
    timeout_ms: timeout,
    max_retries: retries,
    idle_timeout_ms: Math.max(p.idle_timeout_ms, timeout),
    total_timeout_ms: Math.min(
      MAX_TOTAL_MS,
      Math.max(p.total_timeout_ms, timeout * (retries + 1) + p.max_retry_wait_ms * retries),
    ),
  };
}

export type KeyLookup = (p: ProviderConfig) => string | undefined;

export const envKey: KeyLookup = (p) => (p.api_key_env ? process.env[p.api_key_env] : undefined);

/** The endpoint a provider's requests go to (its base_url, else the vendor's default). */
export const providerUrl = (p: Pick<ProviderConfig, 'kind' | 'base_url'>): string =>
  p.base_url ?? (p.kind === 'anthropic' ? ANTHROPIC_DEFAULT_URL : OPENAI_DEFAULT_URL);

/** The endpoint a key is bound to: the URL's origin and path (no trailing slash, query or fragment). */
export function endpointOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return url.replace(/\/+$/, '');
  }
}

/**
 * An LLM provider whose prompts, errors and answers never carry its key (nor any other key the process
 * knows): an endpoint that echoes the Authorization header in a 401 body or in a completion gets it
 * redacted here, at the edge, before anything records or shows it; a prompt quoting a secret (a tool's
 * error fed back for a retry) is sent with it redacted. Streamed tokens are redacted across pieces.
 */
export function redacting(
  llm: LlmProvider,
  key: string | undefined,
  keyEnv?: string,
  noKeyHint?: string,
): LlmProvider {
  knownSecrets.add(key);
  const clean = (s: string) => knownSecrets.text(s);
  return Object.assign(Object.create(llm) as LlmProvider, {
    async generate(req: LlmRequest): Promise<LlmResponse> {
      const onToken = req.onToken;
      const tokens = onToken ? knownSecrets.stream(onToken) : undefined;
      try {
        // The prompt goes off the machine: no known secret in it either (a tool's result or error quoted
        // in a retry's prompt or an INTERACTIVE step's context, whichever key it holds: an MCP server's,
        // another sandbox's, a provider's).
        const sent = { ...req, system: clean(req.system), user: clean(req.user) };
        const r = await llm.generate(tokens ? { ...sent, onToken: (t: string) => tokens.push(t) } : sent);
        tokens?.end();
        return knownSecrets.value({ ...r, text: clean(r.text) });
      } catch (e) {
        tokens?.end();
        if (e instanceof Error) {
          e.message = clean(e.message);
          if (e.stack) e.stack = clean(e.stack);
          // Every own field too (retries' reasons, the SDK's parsed body in `error`...).
          const fields = e as unknown as Record<string, unknown>;
          for (const k of Object.keys(fields)) fields[k] = knownSecrets.value(fields[k]);
          if (e.cause instanceof Error) e.cause.message = clean(e.cause.message);
          // Refused for its credentials while no key was sent: that is the cause to name, with what to
          // set. The variable meant to hold the key is not set; or the provider names none (a local
          // server's, as the sample's Ollama: it takes no key) and this server asks for one.
          if (!key && e instanceof LlmError && (e.status === 401 || e.status === 403))
            e.message += noKeyHint
              ? `; no API key was sent: ${noKeyHint}`
              : keyEnv
                ? `; no API key was sent: $${keyEnv} (api_key_env) is not set in this environment`
                : `; no API key was sent: provider ${llm.id} names no api_key_env; this server asks for a key: add api_key_env = "NAME" to its [[providers]] table in .toolsmith/config.toml and set the environment variable NAME to the key (or give the key in the workbench's Settings > LLM providers)`;
        }
        throw e;
      }
    },
  });
}

export function makeProvider(
  p: ProviderConfig,
  key: string | undefined,
  extra: { retry?: RetryPolicy; noKeyHint?: string } = {},
): LlmProvider {
  const common = {
    id: p.id,
    model: p.model,
    ...(p.base_url ? { baseUrl: p.base_url } : {}),
    ...(key ? { apiKey: key } : {}),
    maxTokens: p.max_tokens,
    temperature: p.temperature,
    timeoutMs: p.timeout_ms,
    idleTimeoutMs: p.idle_timeout_ms,
    totalTimeoutMs: p.total_timeout_ms,
    retry: extra.retry ?? {
      maxRetries: p.max_retries,
      baseDelayMs: DEFAULT_RETRY.baseDelayMs,
      maxDelayMs: p.max_retry_wait_ms,
    },
  };
  return redacting(
    p.kind === 'anthropic' ? new AnthropicProvider(common) : new OpenAiProvider(common),
    key,
    p.api_key_env,
    extra.noKeyHint,
  );
}

export function createProviders(
  config: Config,
  o: ProviderOverrides = {},
  keyFor: KeyLookup = envKey,
): LlmProvider[] {
  if (o.baseUrl) {
    // `localhost:8080/v1` parses (as scheme `localhost:`) and failed on the first request, unnamed.
    const problem = baseUrlOptionProblem(o.baseUrl);
    if (problem) throw new ToolsmithError('invalid_argument', problem);
    const url = new URL(o.baseUrl);
    if (!o.model) throw new ToolsmithError('invalid_argument', '--base-url needs --model');
    const base = config.providers.find((p) => p.id === o.provider);
    const p: ProviderConfig = tuneProvider(
      {
        id: o.provider ?? 'cli',
        kind: o.kind ?? base?.kind ?? 'openai',
        base_url: url.toString().replace(/\/$/, ''),
        model: o.model,
        ...PROVIDER_DEFAULTS,
        ...(base
          ? {
              max_tokens: base.max_tokens,
              temperature: base.temperature,
              timeout_ms: base.timeout_ms,
              idle_timeout_ms: base.idle_timeout_ms,
              total_timeout_ms: base.total_timeout_ms,
              max_retries: base.max_retries,
              max_retry_wait_ms: base.max_retry_wait_ms,
            }
          : {}),
        ...(base?.api_key_env ? { api_key_env: base.api_key_env } : {}),
      },
      o,
    );
    // A configured provider's key goes only to its own endpoint, never to an override's.
    if (base && endpointOf(providerUrl(base)) !== endpointOf(providerUrl(p))) {
      if (keyFor(base) !== undefined)
        throw new ToolsmithError(
          'invalid_argument',
          `the key of provider ${base.id} goes only to ${endpointOf(providerUrl(base))}, not --base-url ${endpointOf(providerUrl(p))}; run without --provider (no key is sent), or add a provider for that URL with its own key`,
        );
      return [makeProvider(p, undefined)];
    }
    // A bare --base-url is no provider of the config: it has no [[providers]] table to name a key in
    // (the 401 hint for configured providers would send the person looking for one).
    return [
      makeProvider(
        p,
        keyFor(p),
        base
          ? {}
          : {
              noKeyHint: `--base-url sends none; this server asks for a key: add a [[providers]] table for it to .toolsmith/config.toml (id = "NAME", base_url = "${p.base_url}", model, api_key_env = "VAR"), set the environment variable VAR to the key and run with --provider NAME`,
            },
      ),
    ];
  }
  let list = config.providers;
  if (o.provider) {
    list = list.filter((p) => p.id === o.provider);
    if (!list.length) {
      throw new ToolsmithError(
        'not_found',
        `no provider ${o.provider} in the config; configured: ${config.providers.map((p) => p.id).join(', ') || 'none'}`,
      );
    }
  }
  return list.map((p) => makeProvider(tuneProvider(o.model ? { ...p, model: o.model } : p, o), keyFor(p)));
}
