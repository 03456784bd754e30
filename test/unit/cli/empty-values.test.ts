/**
 * An option given an empty value, as a shell leaves it from an unset variable (`--models "$MODELS"`,
 * `--suite-run "$ID"`): a usage error naming the option, never the same as leaving it out. Before,
 * `eval SUITE --models ""` ran the whole suite on the configured models (LLM calls nobody asked for),
 * and `runs list --suite-run ""` (or `--sandbox ""`, `--model ""`, `--search ""`) listed every run.
 * The same holds for every option and argument of every verb: `runs show ""` said "no run ", and
 * `template create --file s.py --pattern ""` said "--file needs --pattern", which was given.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { cli } from '../../support/cli.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace('toolsmith-empty-values-');
afterAll(() => removeWorkspace(ws));

describe('an empty option value', () => {
  it.each(['--suite-run', '--sandbox', '--model', '--search'])(
    'runs list %s "" is a usage error naming it',
    async (option) => {
      const r = await cli('--workspace', ws, 'runs', 'list', option, '');
      expect(r.code).toBe(2);
      expect(r.err).toBe(`toolsmith: ${option} is empty: give a value, or leave ${option} out\n`);
      expect(r.out).toBe('');
    },
    STARTS_PROCESSES_MS,
  );

  it.each([
    [
      ['template', 'create', 't1', '--file', 'SCRIPT', '--pattern', ''],
      'toolsmith: --pattern is empty: give a value, or leave --pattern out\n',
    ],
    [
      ['template', 'create', 't1', '--from-run', 'abc', '--pattern', ' '],
      'toolsmith: --pattern is empty: give a value, or leave --pattern out\n',
    ],
    [
      ['template', 'create', 't1', '--file', 'SCRIPT', '--pattern', 'p {x}', '--slot', 'x=int', '--slot', ''],
      'toolsmith: --slot is empty: give a value, or leave --slot out\n',
    ],
    [
      ['runs', 'show', ''],
      'toolsmith: runs show: ID is empty (run id); usage: toolsmith runs show [options] <id>\n',
    ],
    [
      ['runs', 'delete', ' '],
      'toolsmith: runs delete: ID is empty (run id); usage: toolsmith runs delete [options] <id>\n',
    ],
    [
      ['template', 'create', '', '--file', 'SCRIPT', '--pattern', 'p'],
      'toolsmith: template create: NAME is empty (template name); usage: toolsmith template create [options] <name>\n',
    ],
  ])(
    '%j is a usage error naming what is empty',
    async (args, err) => {
      const script = join(ws, 'empty-values-script.py');
      writeFileSync(script, 'emit_result(1)\n');
      const r = await cli('--workspace', ws, ...args.map((a) => (a === 'SCRIPT' ? script : a)));
      expect(r.err).toBe(err);
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
    },
    STARTS_PROCESSES_MS,
  );

  it(
    'eval SUITE --models " , " is a usage error, before any run',
    async () => {
      const r = await cli('--workspace', ws, 'eval', 'ecommerce', '--models', ' , ');
      expect(r.code).toBe(2);
      expect(r.err).toContain('toolsmith: --models names no model (got " , ")');
      expect(r.out).toBe('');
      const runs = await cli('--workspace', ws, 'runs', 'list', '--json');
      expect((JSON.parse(runs.out) as { runs: unknown[] }).runs).toEqual([]);
    },
    STARTS_PROCESSES_MS,
  );
});
