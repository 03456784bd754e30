/**
 * Setup done from the workbench: providers added, edited, removed and tested, sandboxes created. Each
 * edit writes `.toolsmith/config.toml` (only the tables it changes) and reloads the service's config,
 * so the next run uses it without a restart.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { checkName } from '../infra/workspace/files.ts';
import { TOOLS_SKELETON } from '../infra/workspace/init.ts';
import { checkReachable, forgetDownEndpoints } from '../infra/llm/reachability.ts';
import { appendSandbox, replaceProviders, setTelemetry } from './config-edit.ts';
import { otlpTarget } from './telemetry.ts';
import type { ProviderEntry } from './config-edit.ts';
import { parseConfig, PROVIDER_DEFAULTS } from './config.ts';
import type { ProviderConfig } from './config.ts';
import { ToolsmithError } from './errors.ts';
import { makeProvider, providerUrl } from './providers.ts';
import type { WorkspaceDeps } from './deps.ts';
import { keyMismatch, providerEndpoint, providerKey } from './settings.ts';
import type { KeyDeps, KeyStore } from './settings.ts';
import { knownSecrets, urlWithoutCredentials } from '../core/records/redact.ts';
import type { Response } from '../contract/api.ts';
import { errorMessage } from '../core/errors.ts';
import { runtimeNotEnabled } from '../core/sandbox/runtimes.ts';

export interface ProviderInput {
  id: string;
  kind: 'openai' | 'anthropic';
  baseUrl?: string;
  model: string;
  apiKeyEnv?: string;
  /** Kept like keys set in Settings (the desktop keychain, or this process only), never in the file. */
  apiKey?: string;
  /** The id being edited, when it is renamed. */
  previousId?: string;
  /** A new provider: an existing one of that id is not replaced (the Add form). */
  add?: boolean;
}

export type { KeyStore };

/**
 * What setup needs: the workspace's files, the running config and the provider keys, reloading the
 * config after an edit, the enabled runtimes and forgetting a sandbox's cached tools.
 */
export interface AdminDeps extends WorkspaceDeps, KeyDeps {
  reloadConfig(): unknown;
  enabledRuntimes(): string[];
  invalidateRegistry(sandbox: string): void;
}

function readConfigText(svc: WorkspaceDeps): string {
  return svc.files.editableConfigText();
}

/** Checks the edited text parses and validates before it replaces the file; then reloads. */
function writeConfig(svc: WorkspaceDeps & Pick<AdminDeps, 'reloadConfig'>, text: string): void {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (e) {
    throw new ToolsmithError('internal', `the edited config does not parse: ${errorMessage(e)}`);
  }
  try {
    parseConfig(raw, svc.files.configFile);
  } catch (e) {
    throw new ToolsmithError('invalid_argument', errorMessage(e));
  }
  svc.files.writeConfig(text);
  svc.reloadConfig();
  forgetDownEndpoints();
}

/** A provider as the config file holds it: the settings that differ from the defaults. */
const entryOf = (p: ProviderConfig): ProviderEntry => {
  const entry: ProviderEntry = {
    id: p.id,
    kind: p.kind,
    model: p.model,
    ...(p.base_url ? { base_url: p.base_url } : {}),
    ...(p.api_key_env ? { api_key_env: p.api_key_env } : {}),
  };
  for (const k of Object.keys(PROVIDER_DEFAULTS) as (keyof typeof PROVIDER_DEFAULTS)[])
    if (p[k] !== PROVIDER_DEFAULTS[k]) entry[k] = p[k];
  return entry;
};

/** Adds a provider, or replaces the one named `previousId ?? id` (keeping its other settings). */
export function saveProvider(
  svc: AdminDeps,
  input: ProviderInput,
  storeKey?: KeyStore,
): Response<'providers.save'> {
  const list = svc.config.providers.map(entryOf);
  const target = input.previousId ?? input.id;
  const index = list.findIndex((p) => p.id === target);
  if (input.previousId && index < 0) throw new ToolsmithError('not_found', `no provider ${input.previousId}`);
  if (input.add && index >= 0)
    throw new ToolsmithError(
      'invalid_argument',
      `a provider ${input.id} already exists: edit it in the table, or give the new one another id`,
    );
  if (list.some((p, i) => p.id === input.id && i !== index))
    throw new ToolsmithError('invalid_argument', `a provider ${input.id} already exists`);
  const old = index >= 0 ? list[index] : undefined;
  const entry: ProviderEntry = {
    ...(old ?? {}),
    id: input.id,
    kind: input.kind,
    model: input.model,
  };
  delete entry.base_url;
  delete entry.api_key_env;
  if (input.baseUrl) entry.base_url = input.baseUrl.replace(/\/+$/, '');
  if (input.apiKeyEnv) entry.api_key_env = input.apiKeyEnv;
  // A stored key goes only to the URL it was saved for: a new URL needs the key again.
  const endpoint = providerEndpoint({
    kind: entry.kind,
    ...(entry.base_url ? { base_url: entry.base_url } : {}),
  });
  // An environment variable's value goes only where the person who wrote the config file sent it: the
  // workbench (a renderer, a browser page) cannot point a set variable at a new URL.
  if (
    entry.api_key_env &&
    process.env[entry.api_key_env] &&
    !svc.config.providers.some((p) => p.api_key_env === entry.api_key_env && providerEndpoint(p) === endpoint)
  )
    throw new ToolsmithError(
      'refused',
      `$${entry.api_key_env} is set in this process and is not configured for ${endpoint}: enter the key in the form instead, or write api_key_env into .toolsmith/config.toml yourself`,
    );
  const stored = svc.providerKeys.entry(target);
  if (stored && input.apiKey === undefined && stored.endpoint !== endpoint)
    throw new ToolsmithError(
      'invalid_argument',
      `the stored key of provider ${target} was saved for ${stored.endpoint}; enter the key again to use it with ${endpoint} (a key goes only to the URL it was saved for)`,
    );
  if (index >= 0) list[index] = entry;
  else list.push(entry);
  writeConfig(svc, replaceProviders(readConfigText(svc), list));
  if (target !== input.id) {
    svc.providerKeys.delete(target);
    if (stored && input.apiKey === undefined) {
      const where = storeKey?.(input.id, stored.key, endpoint) ?? stored.where;
      svc.providerKeys.set(input.id, stored.key, endpoint, where);
    }
  }
  if (input.apiKey === undefined) return { id: input.id };
  knownSecrets.add(input.apiKey);
  const where = storeKey?.(input.id, input.apiKey, endpoint) ?? 'memory';
  svc.providerKeys.set(input.id, input.apiKey, endpoint, where);
  return { id: input.id, keyStored: where };
}

export function removeProvider(svc: AdminDeps, id: string): void {
  const list = svc.config.providers.map(entryOf);
  if (!list.some((p) => p.id === id)) throw new ToolsmithError('not_found', `no provider ${id}`);
  writeConfig(
    svc,
    replaceProviders(
      readConfigText(svc),
      list.filter((p) => p.id !== id),
    ),
  );
  svc.providerKeys.delete(id);
}

/**
 * Moves a provider to position `to` (clamped to the list): the LLM tier tries providers in this order,
 * so the first is the default. Rewrites only the providers of config.toml; returns the new order.
 */
export function moveProvider(svc: AdminDeps, id: string, to: number): string[] {
  const list = svc.config.providers.map(entryOf);
  const from = list.findIndex((p) => p.id === id);
  if (from < 0) throw new ToolsmithError('not_found', `no provider ${id}`);
  const [entry] = list.splice(from, 1);
  list.splice(Math.min(to, list.length), 0, entry as ProviderEntry);
  if (from !== Math.min(to, list.length - 1)) writeConfig(svc, replaceProviders(readConfigText(svc), list));
  return list.map((p) => p.id);
}

export type ProviderTestResult = Response<'providers.test'>;

/**
 * "Test connection": a TCP connect to the endpoint (short timeout), then a one-line completion with no
 * retries. `draft` fields override the saved provider (testing a form before saving it).
 */
export async function testProvider(
  svc: AdminDeps,
  req: { id?: string; kind?: 'openai' | 'anthropic'; baseUrl?: string; model?: string; apiKey?: string },
): Promise<ProviderTestResult> {
  const saved = req.id ? svc.config.providers.find((p) => p.id === req.id) : undefined;
  if (req.id && !saved && (!req.kind || !req.model))
    throw new ToolsmithError('not_found', `no provider ${req.id}`);
  const kind = req.kind ?? saved?.kind;
  const model = req.model ?? saved?.model;
  if (!kind || !model) throw new ToolsmithError('invalid_argument', 'a provider test needs kind and model');
  const baseUrl = req.baseUrl ? req.baseUrl.replace(/\/+$/, '') : req.kind ? undefined : saved?.base_url;
  const p: ProviderConfig = {
    id: req.id ?? 'test',
    kind,
    model,
    ...(baseUrl ? { base_url: baseUrl } : {}),
    ...(saved?.api_key_env ? { api_key_env: saved.api_key_env } : {}),
    max_tokens: 16,
    temperature: 0,
    timeout_ms: 20_000,
    idle_timeout_ms: 20_000,
    total_timeout_ms: 30_000,
    max_retries: 0,
    max_retry_wait_ms: 0,
  };
  const url = providerUrl(p);
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  const reach = await checkReachable(url, { fresh: true });
  if (!reach.ok)
    return { ok: false, url, model, latencyMs: ms(), error: reach.reason ?? `cannot reach ${url}` };
  // Without an id there is no saved provider, hence no key but the one given. A saved key goes only to
  // the URL it was saved for: testing another URL needs the key again.
  if (req.apiKey === undefined && req.id && saved) {
    const why = keyMismatch(svc, p);
    if (why) return { ok: false, url, model, latencyMs: ms(), error: why };
  }
  if (req.apiKey !== undefined) knownSecrets.add(req.apiKey);
  const key = req.apiKey ?? (req.id ? providerKey(svc, p) : undefined);
  const llm = makeProvider(p, key, { retry: { maxRetries: 0, baseDelayMs: 0, maxDelayMs: 0 } });
  try {
    const r = await llm.generate({
      system: 'You are a connection test.',
      user: 'Reply with the word OK.',
      maxTokens: 16,
      // Any answer proves the connection, even one cut at these 16 tokens.
      acceptTruncated: true,
    });
    // The connection works whatever the model made of the line; a refusal or a filter is said as the reply.
    const reply = r.withheld ? `(no text: ${r.withheld})` : r.text.slice(0, 200);
    return { ok: true, url, model: r.model, latencyMs: ms(), reply };
  } catch (e) {
    const message = errorMessage(e);
    return {
      ok: false,
      url,
      model,
      latencyMs: ms(),
      error: message.includes(url) ? message : `${message} (${url})`,
    };
  }
}

/** Creates `sandboxes/<name>/tools.py` (a one-tool skeleton) and its `[sandboxes.<name>]` table. */
export function createSandbox(
  svc: AdminDeps,
  req: { name: string; runtime: string; description: string },
): { name: string; file: string } {
  try {
    checkName('sandbox', req.name);
  } catch (e) {
    throw new ToolsmithError('invalid_argument', errorMessage(e));
  }
  if (svc.files.sandboxNames().includes(req.name) || existsSync(join(svc.files.root, 'sandboxes', req.name)))
    throw new ToolsmithError('invalid_argument', `a sandbox ${req.name} already exists`);
  if (svc.config.sandboxes[req.name])
    throw new ToolsmithError('invalid_argument', `the config already has [sandboxes.${req.name}]`);
  const enabled = svc.enabledRuntimes();
  if (!enabled.includes(req.runtime))
    throw new ToolsmithError('invalid_argument', runtimeNotEnabled(req.runtime, enabled));
  const description = req.description.trim();
  writeConfig(svc, appendSandbox(readConfigText(svc), req.name, { description, runtime: req.runtime }));
  const doc = (description || `Tools of the ${req.name} sandbox.`)
    .replace(/\\/g, '\\\\')
    .replace(/"""/g, '\\"\\"\\"');
  svc.files.writeTools(req.name, TOOLS_SKELETON.replace('DESCRIPTION', doc));
  svc.invalidateRegistry(req.name);
  return { name: req.name, file: svc.files.toolsFile(req.name) };
}

/** Setup from the workbench (providers, new sandboxes), built once by the composition root. */
/**
 * Settings › Telemetry: `[telemetry] enabled` and `endpoint` written to the config (no endpoint: the line
 * removed, traces go to the default). Refused where the file writes the table inline, and where a new
 * endpoint would take the collector's credentials elsewhere: the configured headers (a key from an
 * environment variable) and client certificate go to the configured endpoint, and only the person who
 * wrote the config file (or the environment) may point them at another URL, as a provider's key.
 */
export function saveTelemetry(svc: AdminDeps, req: { enabled: boolean; endpoint?: string }): void {
  const t = svc.config.telemetry;
  const bare = (u: string | undefined) => u?.trim().replace(/\/+$/, '') || undefined;
  // The endpoint as the form shows it (settings.get: its credentials as [redacted]@, a final slash as
  // written) is the one in the file, kept as it is there: turning export on or off rewrote it with
  // "[redacted]" in place of its credentials, or refused the toggle beside the collector's headers.
  const shown = t.endpoint === undefined ? undefined : bare(urlWithoutCredentials(t.endpoint));
  const same = bare(req.endpoint) !== undefined && bare(req.endpoint) === shown;
  const endpoint = same ? t.endpoint : bare(req.endpoint);
  if (!same && endpoint?.includes('[redacted]'))
    throw new ToolsmithError(
      'invalid_argument',
      "the endpoint's credentials are not shown here ([redacted]), so an endpoint with them is not changed from here: edit .toolsmith/config.toml yourself",
    );
  if (endpoint !== t.endpoint) {
    const target = otlpTarget(svc.config);
    const creds = [
      ...Object.keys(target.headers).map((h) => `header ${h}`),
      ...(target.tls?.key ? ['a client certificate'] : []),
    ];
    if (creds.length)
      throw new ToolsmithError(
        'refused',
        `the collector's credentials (${creds.join(', ')}) are sent to the configured endpoint; a new endpoint is not set from here: write it into .toolsmith/config.toml yourself`,
      );
  }
  const text = setTelemetry(readConfigText(svc), {
    enabled: req.enabled,
    ...(endpoint ? { endpoint } : {}),
  });
  if (text === undefined)
    throw new ToolsmithError(
      'refused',
      'the config writes telemetry as an inline table or dotted keys (telemetry = {...}, telemetry.enabled = ...), which is not rewritten from here: edit .toolsmith/config.toml yourself',
    );
  writeConfig(svc, text);
}

export function adminFeature(deps: AdminDeps) {
  return {
    saveProvider: (input: ProviderInput, storeKey?: KeyStore) => saveProvider(deps, input, storeKey),
    removeProvider: (id: string) => removeProvider(deps, id),
    moveProvider: (id: string, to: number) => moveProvider(deps, id, to),
    testProvider: (req: Parameters<typeof testProvider>[1]) => testProvider(deps, req),
    createSandbox: (req: Parameters<typeof createSandbox>[1]) => createSandbox(deps, req),
    saveTelemetry: (req: { enabled: boolean; endpoint?: string }) => saveTelemetry(deps, req),
  };
}
export type AdminFeature = ReturnType<typeof adminFeature>;
