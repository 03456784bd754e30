/** A verb run without its argument names that argument first, not a required option. */
import { describe, expect, it } from 'vitest';
import { cli } from '../../support/cli.ts';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';

describe('a verb without its argument', () => {
  it.each([
    [['exec'], 'exec: missing FILE (script file, or - for standard input)'],
    [['exec', '--sandbox', 'ecommerce'], 'exec: missing FILE'],
    [['run'], 'run: missing TASK (what to do, in words)'],
    [['run', '--sandbox', 'ecommerce', '--mode', 'plan'], 'run: missing TASK'],
    [['tool', 'call', '--args', '{}'], 'tool call: missing NAME'],
    [['validate', '--lang', 'python'], 'validate: missing FILE'],
    [['-w', '/nonexistent', 'runs', 'show'], 'runs show: missing ID'],
  ])(
    'toolsmith %j says which argument is missing, with the usage, and exits 2',
    async (argv, message) => {
      const r = await cli(...argv);
      expect(r.code).toBe(2);
      expect(r.err).toContain(message);
      expect(r.err).toContain('usage: toolsmith ');
      expect(r.err).not.toContain("--sandbox <name>' not specified");
    },
    STARTS_PROCESSES_MS,
  );
  it('an argument given still leads to the missing option', async () => {
    // (exec, run and prompt take the workspace's default sandbox; tool call has none)
    const r = await cli('tool', 'call', 'get_user');
    expect(r.code).toBe(2);
    expect(r.err).toContain("required option '--sandbox <name>' not specified");
  });
  it('--help is never a missing argument', async () => {
    expect((await cli('exec', '--help')).code).toBe(0);
  });
});
