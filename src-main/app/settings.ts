/**
 * Settings for every front end: the settings view (providers with where their key comes from, pool,
 * limits, runtimes), provider keys set at run time, and the LLM providers a run uses with those keys.
 *
 * A key goes only to the endpoint it was saved for. A key set at run time is bound to its provider's
 * endpoint (origin and path) when it is saved; a key read from a provider's `api_key_env` is bound to the
 * endpoint the config gives that provider. A request for another endpoint (a test with another base URL,
 * a `--base-url` override, an edited URL) gets no key: the caller asks for it again, with a message
 * naming both URLs. Every key known to the process is also added to `knownSecrets`, so that nothing
 * stored, exported, logged or shown carries it.
 */
import { telemetryView } from './telemetry.ts';
import { configSecretNames, learnOtelEnvSecrets, learnSecretsNamed } from './env-secrets.ts';
import type { TelemetryFailure } from './telemetry.ts';
import type { LlmProvider } from '../core/ports/llm.ts';
import { knownSecrets } from '../core/records/redact.ts';
import type { KeyPlace, Response } from '../contract/api.ts';
import type { Config, ProviderConfig } from './config.ts';
import { ToolsmithError } from './errors.ts';
import { createProviders, endpointOf, providerUrl } from './providers.ts';
import type { ProviderOverrides } from './providers.ts';
import type { ConfigDeps } from './deps.ts';

export { endpointOf };

/** What the key functions read: the running config and the keys set at run time. */
export interface KeyDeps extends ConfigDeps {
  readonly providerKeys: ProviderKeys;
}

/** Where a front end keeps a provider key: the desktop keychain, or this process only. */
export type KeyStore = (provider: string, key: string, endpoint: string) => KeyPlace;

/** A provider's endpoint as keys are bound to it. */
export const providerEndpoint = (p: Pick<ProviderConfig, 'kind' | 'base_url'>): string =>
  endpointOf(providerUrl(p));

interface BoundKey {
  key: string;
  /** See `endpointOf`. */
  endpoint: string;
  where: KeyPlace;
}

/** Provider keys set at run time, each bound to the endpoint it was saved for. */
export class ProviderKeys {
  private readonly keys = new Map<string, BoundKey>();

  set(provider: string, key: string, endpoint: string, where: KeyPlace = 'memory'): void {
    knownSecrets.add(key);
    this.keys.set(provider, { key, endpoint: endpointOf(endpoint), where });
  }
  has(provider: string): boolean {
    return this.keys.has(provider);
  }
  delete(provider: string): void {
    this.keys.delete(provider);
  }
  /** The stored entry (key, bound endpoint, where kept). */
  entry(provider: string): Readonly<BoundKey> | undefined {
    return this.keys.get(provider);
  }
  where(provider: string): KeyPlace | undefined {
    return this.keys.get(provider)?.where;
  }
  /** The key when `endpoint` is the one it was saved for; undefined otherwise. */
  keyFor(provider: string, endpoint: string): string | undefined {
    const e = this.keys.get(provider);
    return e && e.endpoint === endpointOf(endpoint) ? e.key : undefined;
  }
}

/**
 * Adds every secret the config points at (provider key variables, credentials, MCP env and headers,
 * telemetry headers).
 */
export function learnConfigSecrets(config: Config): void {
  learnSecretsNamed(configSecretNames(config));
}

/**
 * The same from the text of a config.toml that could not be used (invalid: a verb that answers without
 * it, config-words.ts): every variable it names for a secret (`api_key_env = "NAME"`, any `"env:NAME"`),
 * read from the text as it is, so that what such a verb prints is redacted as with the config whole.
 */
export function learnConfigTextSecrets(text: string): void {
  const names = [
    // (its key quoted or not, its value in any of TOML's strings: `"api_key_env" = """NAME"""` too)
    ...text.matchAll(/\bapi_key_env["']?\s*=\s*(?:"""|'''|["'])(?:env:)?([A-Za-z_][A-Za-z0-9_]*)["']/g),
    ...text.matchAll(/["']env:([A-Za-z_][A-Za-z0-9_]*)["']/g),
  ];
  for (const m of names) knownSecrets.add(process.env[m[1] as string]);
  learnOtelEnvSecrets();
}

/**
 * Why a provider has no key for its endpoint although one is stored: the key was saved for another URL.
 * Undefined when the key applies (or there is none).
 */
export function keyMismatch(svc: KeyDeps, p: ProviderConfig): string | undefined {
  const url = providerEndpoint(p);
  const stored = svc.providerKeys.entry(p.id);
  if (stored && stored.endpoint !== url)
    return `the stored key of provider ${p.id} was saved for ${stored.endpoint}, not ${url}: give the key again for this URL`;
  const configured = svc.config.providers.find((c) => c.id === p.id);
  if (
    !stored &&
    p.api_key_env &&
    process.env[p.api_key_env] &&
    (!configured || configured.api_key_env !== p.api_key_env || providerEndpoint(configured) !== url)
  )
    return `the key in $${p.api_key_env} goes only to ${configured ? providerEndpoint(configured) : 'the provider it is configured for'}, not ${url}`;
  return undefined;
}

/**
 * A provider's key for the endpoint `p` names: one set at run time (if saved for that endpoint), else its
 * environment variable (if the config gives this provider that variable and that endpoint).
 */
export function providerKey(svc: KeyDeps, p: ProviderConfig): string | undefined {
  const url = providerEndpoint(p);
  if (svc.providerKeys.has(p.id)) return svc.providerKeys.keyFor(p.id, url);
  if (!p.api_key_env) return undefined;
  const configured = svc.config.providers.find((c) => c.id === p.id);
  if (!configured || configured.api_key_env !== p.api_key_env || providerEndpoint(configured) !== url)
    return undefined;
  const key = process.env[p.api_key_env];
  knownSecrets.add(key);
  return key;
}

/** The configured LLM providers (optionally overridden), each with its key (see `providerKey`). */
export function providersFor(svc: KeyDeps, overrides: ProviderOverrides = {}): LlmProvider[] {
  return createProviders(svc.config, overrides, (p) => {
    const why = keyMismatch(svc, p);
    if (why && overrides.baseUrl)
      throw new ToolsmithError(
        'invalid_argument',
        `--base-url ${overrides.baseUrl} with --provider ${p.id}: ${why}; run without --provider, or add a provider for that URL`,
      );
    return providerKey(svc, p);
  });
}

/**
 * A provider needs a key unless it is a server on this machine (loopback base URL: Ollama, llama.cpp,
 * a local proxy), which takes none; the hosted APIs (no base URL, or a remote one) always do.
 */
export function keyNeeded(p: Pick<ProviderConfig, 'kind' | 'base_url'>): boolean {
  let host: string;
  try {
    host = new URL(providerUrl(p)).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return true;
  }
  return !(host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host));
}

export function settingsView(svc: KeyDeps, telemetryFailure?: TelemetryFailure): Response<'settings.get'> {
  const c = svc.config;
  return {
    providers: c.providers.map((p) => {
      const stored = svc.providerKeys.entry(p.id);
      return {
        id: p.id,
        kind: p.kind,
        model: p.model,
        ...(p.base_url !== undefined ? { baseUrl: p.base_url } : {}),
        ...(p.api_key_env !== undefined ? { apiKeyEnv: p.api_key_env } : {}),
        keySource: stored
          ? stored.endpoint === providerEndpoint(p)
            ? stored.where
            : 'none'
          : p.api_key_env && process.env[p.api_key_env]
            ? 'env'
            : 'none',
        ...(stored && stored.endpoint !== providerEndpoint(p) ? { keyFor: stored.endpoint } : {}),
        keyNeeded: keyNeeded(p),
      };
    }),
    pool: { ...c.pool },
    limits: { ...c.limits },
    runtimes: Object.entries(c.runtimes).map(([id, r]) => ({ id, enabled: r.enabled })),
    ...(c.workspace.max_grade !== undefined ? { maxGrade: c.workspace.max_grade } : {}),
    telemetry: telemetryView(c, telemetryFailure),
  };
}

/**
 * Sets the key of a configured provider for this service, bound to the provider's endpoint; `store` is
 * the front end's keychain (desktop), else the key is kept in this process only.
 */
export function setProviderKey(
  svc: KeyDeps,
  provider: string,
  key: string,
  store?: KeyStore,
): Response<'settings.setProviderKey'> {
  const p = svc.config.providers.find((x) => x.id === provider);
  if (!p) throw new ToolsmithError('not_found', `no provider ${provider} in the config`);
  const endpoint = providerEndpoint(p);
  knownSecrets.add(key);
  const where = store?.(provider, key, endpoint) ?? 'memory';
  svc.providerKeys.set(provider, key, endpoint, where);
  return { stored: true, where };
}

/** The settings feature every front end calls (built once by the composition root). */
export function settingsFeature(deps: KeyDeps) {
  /** The last run trace that was not sent (Settings › Run traces), until a trace is sent. */
  let telemetryFailure: TelemetryFailure | undefined;
  return {
    /** A trace of `runId` was sent (no `failure`) or was not: what Settings says of the last export. */
    noteTelemetry: (runId: string, failure?: string): void => {
      telemetryFailure = failure === undefined ? undefined : { runId, at: Date.now(), message: failure };
    },
    /**
     * Providers (with where each key comes from), pool, limits, runtimes, the maximum grade and run
     * traces (telemetry: on or off, where, the last trace not sent).
     */
    view: () => settingsView(deps, telemetryFailure),
    /** A provider's key: set at run time, else from its environment variable. */
    providerKey: (p: ProviderConfig) => providerKey(deps, p),
    /** The LLM providers a run uses (optionally overridden), with their keys. */
    providersFor: (overrides: ProviderOverrides = {}) => providersFor(deps, overrides),
    /** Sets a configured provider's key (in the front end's keychain when it has one, else in memory). */
    setProviderKey: (provider: string, key: string, store?: KeyStore) =>
      setProviderKey(deps, provider, key, store),
  };
}
export type SettingsFeature = ReturnType<typeof settingsFeature>;
