/**
 * A verb asked for `--json` that fails prints its error as one JSON object on stdout too (it printed only
 * the line on stderr, and a program parsing stdout got nothing): the kind, the code where the service
 * gave one, the message and the exit code. Without --json stdout stays empty.
 */
import { describe, expect, it } from 'vitest';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { cli } from '../../support/cli.ts';

describe('errors with --json', { timeout: STARTS_PROCESSES_MS }, () => {
  it('an unknown run: {"error": {kind, code, message, exit}} on stdout, the line on stderr', async () => {
    const r = await cli('runs', 'show', 'nosuch-run', '--json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual({
      error: { kind: 'toolsmith', code: 'not_found', message: 'no run nosuch-run', exit: 2 },
    });
    expect(r.err).toBe('toolsmith: no run nosuch-run\n');
  });

  it('a usage error too; without --json stdout stays empty', async () => {
    const r = await cli('run', '--json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toMatchObject({
      error: { kind: 'usage', exit: 2, message: expect.stringMatching(/missing TASK/) },
    });
    const plain = await cli('runs', 'show', 'nosuch-run');
    expect(plain).toMatchObject({ code: 2, out: '', err: 'toolsmith: no run nosuch-run\n' });
  });
});
