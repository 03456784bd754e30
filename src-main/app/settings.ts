/**
 * Settings for every front end: the settings view (providers with where their key comes from, pool,
 * limits, runtimes), provider keys set at run time, and the LLM providers a run uses with those keys.
 */
import type { LlmProvider } from '../core/ports/llm.ts';
import type { KeyPlace, Response } from '../contract/api.ts';
import type { ProviderConfig } from './config.ts';
import { ToolsmithError } from './errors.ts';
import { createProviders, providerUrl } from './providers.ts';
import type { ProviderOverrides } from './providers.ts';
import type { ToolsmithService } from './service.ts';

/** Where a front end keeps a provider key: the desktop keychain, or this process only. */
export type KeyStore = (provider: string, key: string) => KeyPlace;

/** A provider's key: one set at run time (keychain or this process), else its environment variable. */
export function providerKey(svc: ToolsmithService, p: ProviderConfig): string | undefined {
  return svc.providerKeys.get(p.id) ?? (p.api_key_env ? process.env[p.api_key_env] : undefined);
}

/** The configured LLM providers (optionally overridden), each with its key (see `providerKey`). */
export function providersFor(svc: ToolsmithService, overrides: ProviderOverrides = {}): LlmProvider[] {
  return createProviders(svc.config, overrides, (p) => providerKey(svc, p));
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

export function settingsView(svc: ToolsmithService): Response<'settings.get'> {
  const c = svc.config;
  return {
    providers: c.providers.map((p) => ({
      id: p.id,
      kind: p.kind,
      model: p.model,
      ...(p.base_url !== undefined ? { baseUrl: p.base_url } : {}),
      ...(p.api_key_env !== undefined ? { apiKeyEnv: p.api_key_env } : {}),
      keySource: svc.providerKeys.has(p.id)
        ? (svc.providerKeyWhere.get(p.id) ?? 'memory')
        : p.api_key_env && process.env[p.api_key_env]
          ? 'env'
          : 'none',
      keyNeeded: keyNeeded(p),
    })),
    pool: { ...c.pool },
    limits: { ...c.limits },
    runtimes: Object.entries(c.runtimes).map(([id, r]) => ({ id, enabled: r.enabled })),
    ...(c.workspace.max_grade !== undefined ? { maxGrade: c.workspace.max_grade } : {}),
  };
}

/**
 * Sets the key of a configured provider for this service; `store` is the front end's keychain (desktop),
 * else the key is kept in this process only.
 */
export function setProviderKey(
  svc: ToolsmithService,
  provider: string,
  key: string,
  store?: KeyStore,
): Response<'settings.setProviderKey'> {
  if (!svc.config.providers.some((p) => p.id === provider))
    throw new ToolsmithError('not_found', `no provider ${provider} in the config`);
  svc.providerKeys.set(provider, key);
  const where = store?.(provider, key) ?? 'memory';
  svc.providerKeyWhere.set(provider, where);
  return { stored: true, where };
}
