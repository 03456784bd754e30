/**
 * Keys of config.toml that no setting has are dropped by the schema: `timout_s = 30` under `[limits]`
 * left the limit at 300 s and nothing said so. Each is now named, with its line and the setting near it,
 * in every table of the config (arrays of tables and named tables included); a strict table's unknown key
 * is already an error, and is not warned about twice.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_KEY_WARNINGS, unknownConfigKeys } from '../../../src-main/app/config-keys.ts';
import { parseTomlFile } from '../../../src-main/infra/workspace/files.ts';

const keysOf = (text: string) => unknownConfigKeys(parseTomlFile('config.toml', text), 'config.toml', text);

describe('config keys no setting has', () => {
  it("the sample workspace's config has none", () => {
    const file = join(import.meta.dirname, '../../../resources/workspace/.toolsmith/config.toml');
    expect(keysOf(readFileSync(file, 'utf8'))).toEqual([]);
  });

  it('each is named with its line and the setting near it, in every kind of table', () => {
    const text = [
      '[limits]', // 1
      'timout_s = 30', // 2
      'cpus = 1', // 3
      '[limit]', // 4
      'cpus = 2', // 5
      '[[providers]]', // 6
      'id = "a"', // 7
      'kind = "openai"', // 8
      'base_url = "http://127.0.0.1:1/v1"', // 9
      'model = "m"', // 10
      '[[providers]]', // 11
      'id = "b"', // 12
      'kind = "openai"', // 13
      'base_url = "http://127.0.0.1:1/v1"', // 14
      'modle = "m"', // 15
      '[sandboxes.shop]', // 16
      'runtim = "node"', // 17
      '[sandboxes.shop.mcp.files]', // 18
      'alias = {}', // 19
      '[mcp_servers.files]', // 20
      'command = "x"', // 21
      'argz = []', // 22
      '[engines.e]', // 23
      'host = "unix:///x.sock"', // 24
      'something_else = 1', // 25
      '',
    ].join('\n');
    const said = '; fix or remove it';
    const ignored = ': it is ignored, and what it was meant to set keeps its default';
    expect(keysOf(text)).toEqual([
      `config.toml:2: limits.timout_s is no setting (did you mean timeout_s?)${ignored}${said}`,
      `config.toml:4: limit is no setting (did you mean limits?)${ignored}${said}`,
      `config.toml:15: providers[1].modle is no setting (did you mean model?)${ignored}${said}`,
      `config.toml:17: sandboxes.shop.runtim is no setting (did you mean runtime?)${ignored}${said}`,
      `config.toml:19: sandboxes.shop.mcp.files.alias is no setting (did you mean aliases?)${ignored}${said}`,
      `config.toml:22: mcp_servers.files.argz is no setting (did you mean args?)${ignored}${said}`,
      `config.toml:25: engines.e.something_else is no setting${ignored}${said}`,
    ]);
  });

  it('names chosen by the person (sandboxes, servers, env, headers, prices) are never taken for keys', () => {
    const text = [
      '[sandboxes.anything_at_all]',
      'description = "x"',
      '[sandboxes.anything_at_all.credentials]',
      'whatever_name = "env:X"',
      '[mcp_servers.s]',
      'command = "x"',
      '[mcp_servers.s.env]',
      'MY_VAR = "1"',
      '[prices]',
      'some-model = { prompt = 1, completion = 2 }',
      '[runtimes.python]',
      'enabled = true',
      '',
    ].join('\n');
    expect(keysOf(text)).toEqual([]);
  });

  it('a key that is not bare is quoted as TOML writes it, its control characters escaped', () => {
    expect(keysOf('[limits]\n"\\u001b[31m" = 1\n')).toEqual([
      expect.stringMatching(/^config\.toml(:\d+)?: limits\."\\u001b\[31m" is no setting: /),
    ]);
  });

  it("a key of digits is a key, not an array's index", () => {
    // Before: `limits[5]`, as if [limits] were a list.
    expect(keysOf('[limits]\n5 = 1\n')).toEqual([
      expect.stringMatching(/^config\.toml:2: limits\."5" is no setting: /),
    ]);
  });

  it(`past ${MAX_KEY_WARNINGS} keys the rest are counted, not each looked for in the whole text`, () => {
    const text = `[limits]\n${Array.from({ length: 100 }, (_, i) => `k${i} = 1`).join('\n')}\n`;
    const said = keysOf(text);
    expect(said).toHaveLength(MAX_KEY_WARNINGS + 1);
    expect(said[0]).toMatch(/^config\.toml:2: limits\.k0 is no setting/);
    expect(said[MAX_KEY_WARNINGS]).toBe(
      `config.toml: ${100 - MAX_KEY_WARNINGS} more keys no setting has (the first ${MAX_KEY_WARNINGS} are named above): they are ignored; fix or remove them`,
    );
  });

  it("a strict table's unknown key is the parse error's, not a warning too", () => {
    expect(keysOf('[telemetry]\nenable = true\n[approval]\ntool = []\n')).toEqual([]);
  });
});
