/**
 * Syntax errors read in English whatever the locale (src-main/core/lang/python/pyright.ts forces
 * pyright's English diagnostics): the CLI bundle carries pyright's English strings only
 * (scripts/cli-pyright.mjs), so the sources and the installed command must say the same thing, and
 * every other message Toolsmith gives the LLM is English. Pyright reads the locale from the
 * environment when it first needs a message, which this file's fresh module graph has not done yet.
 */
import { describe, expect, it } from 'vitest';

describe('pyright syntax errors', () => {
  it('are English under a German locale', async () => {
    const saved = { LC_ALL: process.env['LC_ALL'], VSCODE_NLS_CONFIG: process.env['VSCODE_NLS_CONFIG'] };
    process.env['LC_ALL'] = 'de';
    process.env['VSCODE_NLS_CONFIG'] = JSON.stringify({ locale: 'de' });
    try {
      const { parsePython } = await import('../../../src-main/core/lang/python/pyright.ts');
      const { getLocaleFromEnv } = await import('@zzzen/pyright-internal/dist/localization/localize.js');
      expect(getLocaleFromEnv()).toBe('de'); // pyright would otherwise pick its German strings
      const r = parsePython('x = (\n');
      expect(r.syntaxErrors.map((e) => e.message)).toContain('"(" was not closed');
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });
});
