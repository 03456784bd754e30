/**
 * The command lines bin/start.mjs answers before main for `runs list` and `template list`
 * (cli/store-verbs.ts `storeVerbAsked`): read whole only when main would take them the same way;
 * anything else (a value commander refuses or that is left empty, another option, the workspace option
 * after the verb, `--suite-run`, a help) is main's to answer.
 */
import { describe, expect, it } from 'vitest';
import { storeVerbAsked } from '../../../src-main/cli/store-verbs.ts';

describe('storeVerbAsked', () => {
  it('reads runs list with its filters and template list, the workspace option before the verb', () => {
    expect(storeVerbAsked(['runs', 'list'])).toEqual({
      workspace: undefined,
      verb: 'runs list',
      runs: { limit: 50 },
    });
    expect(
      storeVerbAsked([
        '-w',
        'ws',
        'runs',
        'list',
        '--status',
        'failed',
        '--kind=all',
        '--limit',
        '7',
        '--limit',
        '8',
        '--since',
        '2026-01-01',
        '--sort',
        'tokens',
        '--dir',
        'asc',
        '--search',
        'user u1',
        '--count',
        '--json',
      ]),
    ).toEqual({
      workspace: 'ws',
      verb: 'runs list',
      runs: {
        status: 'failed',
        kind: 'all',
        limit: 8,
        since: Date.parse('2026-01-01'),
        sort: 'tokens',
        dir: 'asc',
        search: 'user u1',
        count: true,
        json: true,
      },
    });
    expect(storeVerbAsked(['--workspace=ws', 'template', 'list', '--json'])).toEqual({
      workspace: 'ws',
      verb: 'template list',
      runs: { limit: 50, json: true },
    });
  });

  it('leaves to main what it would refuse or read otherwise', () => {
    for (const argv of [
      ['runs', 'list', '--limit', '0'],
      ['runs', 'list', '--limit', '1.5'],
      ['runs', 'list', '--limit', '10001'],
      ['runs', 'list', '--limit', '0', '--limit', '5'],
      ['runs', 'list', '--since', 'x', '--since', '2026-01-01'],
      ['runs', 'list', '--status', 'bogus', '--status', 'failed'],
      ['runs', 'list', '--status', 'bogus'],
      ['runs', 'list', '--status', ''],
      ['runs', 'list', '--sandbox', '  '],
      ['runs', 'list', '--sandbox', '-x'],
      ['runs', 'list', '--since', 'not a date'],
      ['runs', 'list', '--limit'],
      ['runs', 'list', '--suite-run', 'x'],
      ['runs', 'list', '--bogus'],
      ['runs', 'list', '--count=1'],
      ['runs', 'list', 'extra'],
      ['runs', 'list', '--', '--json'],
      ['runs', 'list', '--help'],
      ['runs', 'list', '-h'],
      ['runs', 'list', '--workspace', 'ws'],
      ['--workspace', '', 'runs', 'list'],
      ['--workspace', 'a', '-w', 'b', 'runs', 'list'],
      ['--json', 'runs', 'list'],
      ['runs', 'show', 'x'],
      ['runs'],
      ['template', 'list', '--count'],
      ['template', 'list', '--limit', '3'],
      ['template', 'test', 'x'],
      ['kit', 'list'],
      [],
    ])
      expect(storeVerbAsked(argv), argv.join(' ')).toBeUndefined();
  });
});
