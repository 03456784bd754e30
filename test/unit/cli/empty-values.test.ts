/**
 * An option given an empty value, as a shell leaves it from an unset variable (`--models "$MODELS"`,
 * `--suite-run "$ID"`): a usage error naming the option, never the same as leaving it out. Before,
 * `eval SUITE --models ""` ran the whole suite on the configured models (LLM calls nobody asked for),
 * and `runs list --suite-run ""` (or `--sandbox ""`, `--model ""`, `--search ""`) listed every run.
 */
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
      expect(r.err).toBe(`toolsmith: ${option} is empty: give what to match, or leave ${option} out\n`);
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
