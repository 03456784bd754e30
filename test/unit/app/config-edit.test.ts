import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendSandbox, replaceProviders } from '../../../src-main/app/config-edit.ts';
import { parseConfig } from '../../../src-main/app/config.ts';
import { repoRoot } from '../../support/workspace.ts';

const sample = readFileSync(join(repoRoot, 'resources/workspace/.toolsmith/config.toml'), 'utf8');

describe('config edits keep the rest of the file', () => {
  it('replaces the providers where they stood and keeps every comment outside them', () => {
    const text = replaceProviders(sample, [
      { id: 'local', kind: 'openai', base_url: 'http://127.0.0.1:11434/v1', model: 'qwen2.5-coder:7b' },
      { id: 'claude', kind: 'anthropic', model: 'claude-sonnet-4-5', api_key_env: 'ANTHROPIC_API_KEY' },
    ]);
    const config = parseConfig(parse(text));
    expect(config.providers.map((p) => [p.id, p.kind, p.model])).toEqual([
      ['local', 'openai', 'qwen2.5-coder:7b'],
      ['claude', 'anthropic', 'claude-sonnet-4-5'],
    ]);
    expect(config.providers[1]?.api_key_env).toBe('ANTHROPIC_API_KEY');
    // The comment above the providers, and those in later tables, are still there, in order.
    expect(text).toContain('# LLM providers, tried in order by the inference tiers.');
    expect(text).toContain('# Workers kept started and loaded beside the pool');
    expect(text.indexOf('[[providers]]')).toBeGreaterThan(text.indexOf('# LLM providers'));
    expect(text.indexOf('[[providers]]')).toBeLessThan(text.indexOf('[pool]'));
    // Everything but the providers parses to the same values.
    const before = parseConfig(parse(sample));
    expect({ ...config, providers: [] }).toEqual({ ...before, providers: [] });
  });

  it('removing the last provider leaves no [[providers]] table; adding one to a file without any appends it', () => {
    const none = replaceProviders(sample, []);
    expect(none).not.toContain('[[providers]]');
    expect(parseConfig(parse(none)).providers).toEqual([]);
    const again = replaceProviders(none, [{ id: 'x', kind: 'openai', model: 'm' }]);
    expect(parseConfig(parse(again)).providers.map((p) => p.id)).toEqual(['x']);
    expect(again.trimEnd().endsWith('model = "m"')).toBe(true);
  });

  it('quotes values that need it (a model with a colon, a URL)', () => {
    const text = replaceProviders('', [
      { id: 'a', kind: 'openai', model: 'x:"7b"', base_url: 'http://h:1/v1' },
    ]);
    expect(parseConfig(parse(text)).providers[0]).toMatchObject({
      model: 'x:"7b"',
      base_url: 'http://h:1/v1',
    });
  });

  it('appends a sandbox table with its description and runtime', () => {
    const text = appendSandbox(sample, 'billing-2', {
      description: 'Invoices "and" refunds',
      runtime: 'node',
    });
    const config = parseConfig(parse(text));
    expect(config.sandboxes['billing-2']).toEqual({
      description: 'Invoices "and" refunds',
      runtime: 'node',
      credentials: {},
      mcp: {},
    });
    expect(text.startsWith(sample.trimEnd())).toBe(true);
  });
});
