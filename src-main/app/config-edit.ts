/**
 * Edits of `.toolsmith/config.toml` made from the workbench, as text: only the tables being changed are
 * rewritten, so the user's comments and layout elsewhere in the file stay as they were.
 */
import { stringify } from 'smol-toml';
import type { ProviderConfig } from './config.ts';

/** What a provider edit writes: defaults (max_tokens, temperature, timeout) are left out unless set. */
export type ProviderEntry = Pick<ProviderConfig, 'id' | 'kind' | 'model'> &
  Partial<
    Pick<
      ProviderConfig,
      | 'base_url'
      | 'api_key_env'
      | 'max_tokens'
      | 'temperature'
      | 'timeout_ms'
      | 'idle_timeout_ms'
      | 'total_timeout_ms'
      | 'max_retries'
      | 'max_retry_wait_ms'
    >
  >;

const isHeader = (line: string) => /^\s*\[/.test(line);
const isProvidersHeader = (line: string) => /^\s*\[\[\s*providers\s*\]\]/.test(line);
const isTrivia = (line: string) => /^\s*(#.*)?$/.test(line);

/** The `[[providers]]` tables of a config file, as TOML text. */
export function providersToml(providers: ProviderEntry[]): string {
  return providers
    .map((p) => {
      const table: Record<string, unknown> = { id: p.id, kind: p.kind };
      if (p.base_url) table['base_url'] = p.base_url;
      table['model'] = p.model;
      if (p.api_key_env) table['api_key_env'] = p.api_key_env;
      if (p.max_tokens !== undefined) table['max_tokens'] = p.max_tokens;
      if (p.temperature !== undefined) table['temperature'] = p.temperature;
      for (const k of [
        'timeout_ms',
        'idle_timeout_ms',
        'total_timeout_ms',
        'max_retries',
        'max_retry_wait_ms',
      ] as const)
        if (p[k] !== undefined) table[k] = p[k];
      return '[[providers]]\n' + stringify(table).trimEnd() + '\n';
    })
    .join('\n');
}

/**
 * Replaces every `[[providers]]` table with `providers`, written where the first one stood (or at the
 * end of the file when there was none). Comment lines just above the next table stay with that table.
 */
export function replaceProviders(text: string, providers: ProviderEntry[]): string {
  const lines = text.split('\n');
  const kept: string[] = [];
  let insertAt = -1;
  for (let i = 0; i < lines.length;) {
    const line = lines[i] ?? '';
    if (!isProvidersHeader(line)) {
      kept.push(line);
      i++;
      continue;
    }
    if (insertAt < 0) insertAt = kept.length;
    let end = i + 1;
    while (end < lines.length && !isHeader(lines[end] ?? '')) end++;
    // Trailing comments and blank lines belong to whatever follows.
    let bodyEnd = end;
    while (bodyEnd > i + 1 && isTrivia(lines[bodyEnd - 1] ?? '')) bodyEnd--;
    for (let j = bodyEnd; j < end; j++) kept.push(lines[j] ?? '');
    i = end;
  }
  const block = providers.length ? providersToml(providers).trimEnd().split('\n') : [];
  if (insertAt < 0) {
    while (kept.length && (kept[kept.length - 1] ?? '') === '') kept.pop();
    return [...kept, ...(block.length ? ['', ...block] : []), ''].join('\n');
  }
  const after = kept.slice(insertAt);
  const needsGap = block.length > 0 && after.length > 0 && (after[0] ?? '') !== '';
  return [...kept.slice(0, insertAt), ...block, ...(needsGap ? [''] : []), ...after].join('\n');
}

/** Appends a `[sandboxes.<name>]` table (the caller checks that none exists). */
export function appendSandbox(
  text: string,
  name: string,
  s: { description: string; runtime: string },
): string {
  const table: Record<string, unknown> = { description: s.description };
  if (s.runtime !== 'python') table['runtime'] = s.runtime;
  const body = stringify({ sandboxes: { [name]: table } }).trimEnd();
  const base = text.replace(/\n*$/, '');
  return (base ? base + '\n\n' : '') + body + '\n';
}

/**
 * Sets `enabled` and `endpoint` in the `[telemetry]` table (no `endpoint` removes that line), the table's
 * other keys, its comments and the rest of the file as they were; a file with no `[telemetry]` table gets
 * one at its end. Undefined when the file writes the table another way (`telemetry = { ... }` inline or
 * dotted `telemetry.enabled = ...` keys), which this does not rewrite.
 */
export function setTelemetry(text: string, t: { enabled: boolean; endpoint?: string }): string | undefined {
  const lines = text.split('\n');
  if (lines.some((l) => /^\s*telemetry\s*(=|\.)/.test(l))) return undefined;
  const values = [
    `enabled = ${t.enabled}`,
    ...(t.endpoint !== undefined ? [stringify({ endpoint: t.endpoint }).trim()] : []),
  ];
  const at = lines.findIndex((l) => /^\s*\[\s*telemetry\s*\]\s*(#.*)?$/.test(l));
  if (at < 0) {
    const base = text.replace(/\n*$/, '');
    return (base ? base + '\n\n' : '') + ['[telemetry]', ...values].join('\n') + '\n';
  }
  let end = at + 1;
  while (end < lines.length && !isHeader(lines[end] ?? '')) end++;
  const body = lines.slice(at + 1, end).filter((l) => !/^\s*(enabled|endpoint)\s*=/.test(l));
  return [...lines.slice(0, at + 1), ...values, ...body, ...lines.slice(end)].join('\n');
}
