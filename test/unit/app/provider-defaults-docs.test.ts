/**
 * The provider defaults a person reads are the ones the config applies: the README's "Optional per
 * provider" line, the sample workspace's commented defaults and docs/reliability.md's table, each
 * against PROVIDER_DEFAULTS. The README said `timeout_ms` (120000) while the code waits 30000.
 */
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROVIDER_DEFAULTS } from '../../../src-main/app/config.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (f: string) => readFileSync(join(root, f), 'utf8');
const num = (s: string) => Number(s.replace(/[\s_,]/g, ''));

describe('provider defaults in the docs', () => {
  it("README: every `key` (N) of the providers' optional settings is the default applied", () => {
    const line = read('README.md')
      .split('\n\n')
      .find((p) => p.includes('Optional per provider'));
    expect(line).toBeDefined();
    const stated = [...(line ?? '').matchAll(/`(\w+)` \(([\d_,. ]+)\)/g)];
    expect(stated.length).toBeGreaterThanOrEqual(3);
    for (const [, key, value] of stated)
      expect([key, num(value ?? '')]).toEqual([
        key,
        PROVIDER_DEFAULTS[key as keyof typeof PROVIDER_DEFAULTS],
      ]);
  });

  it('docs/reliability.md and the sample config say the same deadlines', () => {
    const table = read('docs/reliability.md');
    const sample = read('resources/workspace/.toolsmith/config.toml');
    for (const key of ['timeout_ms', 'idle_timeout_ms', 'total_timeout_ms'] as const) {
      const row = new RegExp(`\\| \`${key}\` \\| ([\\d ]+) \\|`).exec(table);
      expect([key, num(row?.[1] ?? '')]).toEqual([key, PROVIDER_DEFAULTS[key]]);
      const commented = new RegExp(`# ${key} = (\\d+)`).exec(sample);
      expect([key, num(commented?.[1] ?? '')]).toEqual([key, PROVIDER_DEFAULTS[key]]);
    }
  });
});
