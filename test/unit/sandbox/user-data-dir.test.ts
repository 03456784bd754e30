/**
 * One variable moves all of a person's Toolsmith data: `TOOLSMITH_HOME` moves the installation's id and
 * instance registry too (they stayed in ~/.local/share/toolsmith, so "this installation" included
 * Toolsmith processes of unrelated homes), unless `TOOLSMITH_DATA_DIR` names that folder itself.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { userDataDir } from '../../../src-main/infra/sandbox/installation.ts';

const saved = { home: process.env['TOOLSMITH_HOME'], data: process.env['TOOLSMITH_DATA_DIR'] };
afterEach(() => {
  for (const [k, v] of [
    ['TOOLSMITH_HOME', saved.home],
    ['TOOLSMITH_DATA_DIR', saved.data],
  ] as const)
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

describe('the installation data folder', () => {
  it('follows TOOLSMITH_HOME; TOOLSMITH_DATA_DIR wins over it', () => {
    delete process.env['TOOLSMITH_DATA_DIR'];
    process.env['TOOLSMITH_HOME'] = '/tmp/some-home';
    expect(userDataDir()).toBe('/tmp/some-home');
    process.env['TOOLSMITH_DATA_DIR'] = '/tmp/some-data';
    expect(userDataDir()).toBe('/tmp/some-data');
  });
});
