/**
 * Setup done from the workbench: providers added, edited, removed and tested, sandboxes created. Each
 * edit writes `.toolsmith/config.toml` (only the tables it changes) and reloads the service's config,
 * so the next run uses it without a restart.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { checkName, atomicWrite } from '../infra/workspace/files.ts';
import { TOOLS_SKELETON } from '../infra/workspace/init.ts';
import { checkReachable, forgetDownEndpoints } from '../infra/llm/reachability.ts';
import { appendSandbox, replaceProviders } from './config-edit.ts';
import type { ProviderEntry } from './config-edit.ts';
import { parseConfig, PROVIDER_DEFAULTS } from './config.ts';
import type { ProviderConfig } from './config.ts';
import { ToolsmithError } from './errors.ts';
import { makeProvider, providerUrl } from './providers.ts';
import type { ToolsmithService } from './service.ts';
import type { KeyStore } from './settings.ts';
import type { Response } from '../contract/api.ts';

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
}

export type { KeyStore };

function readConfigText(svc: ToolsmithService): string {
  return existsSync(svc.files.configFile) ? readFileSync(svc.files.configFile, 'utf8') : '';
}

/** Checks the edited text parses and validates before it replaces the file; then reloads. */
function writeConfig(svc: ToolsmithService, text: string): void {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (e) {
    throw new ToolsmithError('internal', `the edited config does not parse: ${(e as Error).message}`);
  }
  try {
    parseConfig(raw, svc.files.configFile);
  } catch (e) {
    throw new ToolsmithError('invalid_argument', (e as Error).message);
  }
  atomicWrite(svc.files.configFile, text);
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
  svc: ToolsmithService,
  input: ProviderInput,
  storeKey?: KeyStore,
): Response<'providers.save'> {
  const list = svc.config.providers.map(entryOf);
  const target = input.previousId ?? input.id;
  const index = list.findIndex((p) => p.id === target);
  if (input.previousId && index < 0) throw new ToolsmithError('not_found', `no provider ${input.previousId}`);
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
  if (index >= 0) list[index] = entry;
  else list.push(entry);
  writeConfig(svc, replaceProviders(readConfigText(svc), list));
  if (target !== input.id) {
    const key = svc.providerKeys.get(target);
    const where = svc.providerKeyWhere.get(target);
    svc.providerKeys.delete(target);
    svc.providerKeyWhere.delete(target);
    if (key !== undefined && input.apiKey === undefined) {
      svc.providerKeys.set(input.id, key);
      svc.providerKeyWhere.set(input.id, storeKey?.(input.id, key) ?? where ?? 'memory');
    }
  }
  if (input.apiKey === undefined) return { id: input.id };
  const where = storeKey?.(input.id, input.apiKey) ?? 'memory';
  svc.providerKeys.set(input.id, input.apiKey);
  svc.providerKeyWhere.set(input.id, where);
  return { id: input.id, keyStored: where };
}

export function removeProvider(svc: ToolsmithService, id: string): void {
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
  svc.providerKeyWhere.delete(id);
}

export type ProviderTestResult = Response<'providers.test'>;

/**
 * "Test connection": a TCP connect to the endpoint (short timeout), then a one-line completion with no
 * retries. `draft` fields override the saved provider (testing a form before saving it).
 */
export async function testProvider(
  svc: ToolsmithService,
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
  // Without an id there is no saved provider, hence no key but the one given.
  const key = req.apiKey ?? (req.id ? svc.providerKey(p) : undefined);
  const llm = makeProvider(p, key, { retry: { maxRetries: 0, baseDelayMs: 0, maxDelayMs: 0 } });
  try {
    const r = await llm.generate({
      system: 'You are a connection test.',
      user: 'Reply with the word OK.',
      maxTokens: 16,
      // Any answer proves the connection, even one cut at these 16 tokens.
      acceptTruncated: true,
    });
    return { ok: true, url, model: r.model, latencyMs: ms(), reply: r.text.slice(0, 200) };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
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
  svc: ToolsmithService,
  req: { name: string; runtime: string; description: string },
): { name: string; file: string } {
  try {
    checkName('sandbox', req.name);
  } catch (e) {
    throw new ToolsmithError('invalid_argument', (e as Error).message);
  }
  if (
    svc.files.sandboxNames().includes(req.name) ||
    existsSync(join(svc.workspaceDir, 'sandboxes', req.name))
  )
    throw new ToolsmithError('invalid_argument', `a sandbox ${req.name} already exists`);
  if (svc.config.sandboxes[req.name])
    throw new ToolsmithError('invalid_argument', `the config already has [sandboxes.${req.name}]`);
  const enabled = svc.enabledRuntimes();
  if (!enabled.includes(req.runtime))
    throw new ToolsmithError(
      'invalid_argument',
      `runtime ${req.runtime} is not enabled in this workspace; enabled: ${enabled.join(', ') || 'none'}`,
    );
  const description = req.description.trim();
  writeConfig(svc, appendSandbox(readConfigText(svc), req.name, { description, runtime: req.runtime }));
  const doc = (description || `Tools of the ${req.name} sandbox.`)
    .replace(/\\/g, '\\\\')
    .replace(/"""/g, '\\"\\"\\"');
  svc.files.writeTools(req.name, TOOLS_SKELETON.replace('DESCRIPTION', doc));
  svc.invalidateRegistry(req.name);
  return { name: req.name, file: svc.files.toolsFile(req.name) };
}
