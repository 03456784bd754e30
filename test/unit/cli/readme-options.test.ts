/**
 * The README's command table names every option of the verbs it lists: each row's options against the
 * verb's own `--help` (commander's, so an option added to a verb fails here until the README names it).
 * `run`'s row lacked `--lang`, `--kind`, `--timeout` and `--no-templates`; `exec`'s `--kit`; `prompt`'s
 * `--lang`; `tools`' `--language`.
 */
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../../support/cli.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The command-table row that documents `verb`. */
const rowOf = (verb: string) => readme.split('\n').find((l) => l.startsWith(`| \`${verb} `)) ?? '';

describe('README command table', () => {
  it.each(['validate', 'prompt', 'tools', 'sandboxes', 'exec', 'run', 'eval', 'mcp', 'serve', 'init'])(
    '`%s`: every option of its --help is in its row',
    async (verb) => {
      const help = await cli(verb, '--help');
      const options = [...help.out.matchAll(/^\s+(?:-\w, )?(--[a-z][a-z-]*)/gm)]
        .map((m) => m[1] ?? '')
        .filter((o) => o !== '--help');
      expect(options.length).toBeGreaterThan(0);
      const row = rowOf(verb);
      expect(row, `README has a row for ${verb}`).not.toBe('');
      expect(options.filter((o) => !row.includes(o))).toEqual([]);
    },
  );
});
