/**
 * The command lines bin/start.mjs answers before main for `init --empty` (cli/init-early.ts
 * `initEmptyAsked`): read only when main would take them the same way; anything else (no `--empty`, a
 * help, `--`, another option, an empty name or DIR, a name that looks like an option, two names or two
 * DIRs, the workspace option before the verb) is main's to answer, before anything is made.
 */
import { describe, expect, it } from 'vitest';
import { initEmptyAsked } from '../../../src-main/cli/init-early.ts';

describe('initEmptyAsked', () => {
  it('reads init [DIR] --empty with --name and --json, in any order', () => {
    expect(initEmptyAsked(['init', '--empty'])).toEqual({ dir: '.', name: undefined, json: false });
    expect(initEmptyAsked(['init', 'ws', '--empty'])).toEqual({ dir: 'ws', name: undefined, json: false });
    expect(initEmptyAsked(['init', '--json', '--name', 'a b', '--empty', 'ws'])).toEqual({
      dir: 'ws',
      name: 'a b',
      json: true,
    });
    expect(initEmptyAsked(['init', 'ws', '--name=x', '--empty', '--empty'])).toEqual({
      dir: 'ws',
      name: 'x',
      json: false,
    });
  });

  it("leaves to main what it does not read as main's init does", () => {
    for (const argv of [
      ['init', 'ws'],
      ['init', '--json', 'ws'],
      ['-w', 'x', 'init', 'ws', '--empty'],
      ['runs', 'list', '--empty'],
      ['init', 'ws', '--empty', '--help'],
      ['init', 'ws', '--empty', '-h'],
      ['init', 'help', '--empty'],
      ['init', 'ws', '--empty', '--'],
      ['init', 'ws', 'other', '--empty'],
      ['init', '', '--empty'],
      ['init', ' ', '--empty'],
      ['init', 'ws', '--empty', '--name'],
      ['init', 'ws', '--empty', '--name', ''],
      ['init', 'ws', '--empty', '--name='],
      ['init', 'ws', '--empty', '--name', ' '],
      ['init', 'ws', '--empty', '--name', '--json'],
      ['init', 'ws', '--empty', '--name', 'a', '--name', 'b'],
      ['init', 'ws', '--empty', '--bogus'],
      ['init', 'ws', '--empty=yes'],
      ['init', '-', '--empty'],
    ])
      expect(initEmptyAsked(argv), argv.join(' ')).toBeUndefined();
  });
});
