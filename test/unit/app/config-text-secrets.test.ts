/**
 * A config.toml that is invalid still names the variables that hold secrets, and what a verb answering
 * without it prints is redacted as with the config whole: whichever way TOML lets the key and its value
 * be written (a quoted key, a multi-line or literal string), as the parsed config would have read it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { learnConfigSecrets, learnConfigTextSecrets } from '../../../src-main/app/settings.ts';
import { parseConfig } from '../../../src-main/app/config.ts';
import { knownSecrets } from '../../../src-main/core/records/redact.ts';
import { parseTomlFile } from '../../../src-main/infra/workspace/files.ts';

const vars = ['QA18_K1', 'QA18_K2', 'QA18_K3', 'QA18_K4'];
afterEach(() => {
  for (const v of vars) delete process.env[v];
});

describe("an invalid config's secrets, read from its text", () => {
  it('are the ones the valid config names, however the key and its value are written', () => {
    vars.forEach((v, i) => (process.env[v] = `sk-qa18-config-text-secret-${i}-0123456789`));
    const providers = [
      '[[providers]]\nid = "a"\nkind = "openai"\nmodel = "m"\n"api_key_env" = "QA18_K1"',
      '[[providers]]\nid = "b"\nkind = "openai"\nmodel = "m"\napi_key_env = """QA18_K2"""',
      "[[providers]]\nid = 'c'\nkind = 'openai'\nmodel = 'm'\n'api_key_env' = '''QA18_K3'''",
      '[[providers]]\nid = "d"\nkind = "openai"\nmodel = "m"\napi_key_env = "env:QA18_K4"',
    ].join('\n');
    // The same text valid: what learnConfigSecrets learns from it.
    learnConfigSecrets(parseConfig(parseTomlFile('config.toml', `${providers}\n`)));
    for (const v of vars) expect(knownSecrets.text(process.env[v]!), v).not.toContain(process.env[v]);
    // From the text alone (here with other values, unknown to the redactor until then).
    vars.forEach((v, i) => (process.env[v] = `sk-qa18-config-text-other-${i}-9876543210`));
    learnConfigTextSecrets(`${providers}\n[limits\n`);
    for (const v of vars) expect(knownSecrets.text(process.env[v]!), v).not.toContain(process.env[v]);
  });
});
