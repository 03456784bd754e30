/**
 * The user's copy of the sample workspace (infra/workspace/init.ts, defaultWorkspaceDir): made whole or
 * not at all, its folders one level at a time. A data folder under /proc made Node's recursive mkdir
 * spin forever at full CPU, deaf to SIGTERM; now it is a one-line error naming the folder.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultWorkspaceDir } from '../../../src-main/infra/workspace/init.ts';
import { sourceBin } from '../../support/cli-bin.ts';
import { cliArgv } from '../../support/toolsmith-process.ts';

const saved = process.env['TOOLSMITH_HOME'];
const homes: string[] = [];
const home = () => {
  const h = mkdtempSync(join(tmpdir(), 'toolsmith-default-ws-'));
  homes.push(h);
  process.env['TOOLSMITH_HOME'] = join(h, 'data', 'nested');
  return join(h, 'data', 'nested');
};
afterEach(() => {
  if (saved === undefined) delete process.env['TOOLSMITH_HOME'];
  else process.env['TOOLSMITH_HOME'] = saved;
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

describe('the copy of the sample workspace', () => {
  it('is made under missing parents, whole, with nothing left aside', () => {
    const data = home();
    const dir = defaultWorkspaceDir();
    expect(dir).toBe(join(data, 'sample-workspace'));
    expect(existsSync(join(dir, '.toolsmith', 'config.toml'))).toBe(true);
    expect(existsSync(join(dir, 'sandboxes'))).toBe(true);
    expect(readdirSync(data)).toEqual(['sample-workspace']);
    // The second call finds it and copies nothing (an edit stays).
    writeFileSync(join(dir, 'mine.txt'), 'kept');
    expect(defaultWorkspaceDir()).toBe(dir);
    expect(existsSync(join(dir, 'mine.txt'))).toBe(true);
  });

  it('a folder left without its config.toml is filled in, what it held kept', () => {
    const data = home();
    const dir = join(data, 'sample-workspace');
    mkdirSync(join(dir, 'sandboxes'), { recursive: true });
    writeFileSync(join(dir, 'notes.md'), 'mine');
    expect(defaultWorkspaceDir()).toBe(dir);
    expect(existsSync(join(dir, '.toolsmith', 'config.toml'))).toBe(true);
    expect(existsSync(join(dir, 'notes.md'))).toBe(true);
    expect(readdirSync(data)).toEqual(['sample-workspace']);
  });

  it.each([
    ['sandboxes'],
    ['kit', 'list'],
    ['tools', '--sandbox', 'ecommerce'],
    ['validate', 'x.py', '--sandbox', 'ecommerce'],
  ])(
    'a data folder under /proc: a one-line error naming it, exit 3, at once (%s, a verb the verb cache answers)',
    (...verb) => {
      const cwd = mkdtempSync(join(tmpdir(), 'toolsmith-default-ws-cwd-'));
      homes.push(cwd);
      writeFileSync(join(cwd, 'x.py'), 'emit_result(1)\n');
      const r = spawnSync(...cliArgv(verb, sourceBin), {
        cwd,
        env: { ...process.env, TOOLSMITH_HOME: '/proc/toolsmith-qa' },
        encoding: 'utf8',
        timeout: 60_000,
        killSignal: 'SIGKILL',
      });
      expect(r.signal).toBeNull();
      expect(r.status).toBe(3);
      expect(r.stderr.trim()).toMatch(
        /^toolsmith: no workspace is named and the sample workspace cannot be copied to \/proc\/toolsmith-qa\/sample-workspace \(\$TOOLSMITH_HOME\): .*\/proc takes no new folders/,
      );
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    },
  );

  it('a data folder on a read-only file system: one line naming the folder and the cause, not the temporary copy, exit 3', () => {
    if (process.getuid?.() !== 0) throw new Error('this test mounts a read-only tmpfs: run it as root');
    const cwd = mkdtempSync(join(tmpdir(), 'toolsmith-default-ws-cwd-'));
    const ro = mkdtempSync(join(tmpdir(), 'toolsmith-default-ws-ro-'));
    homes.push(cwd, ro);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', ro]);
    try {
      const r = spawnSync(...cliArgv(['runs', 'list'], sourceBin), {
        cwd,
        env: { ...process.env, TOOLSMITH_HOME: ro },
        encoding: 'utf8',
        timeout: 60_000,
        killSignal: 'SIGKILL',
      });
      expect(r.status).toBe(3);
      // Before: "toolsmith: <ro>/sample-workspace.<pid>.tmp: mkdir failed: EROFS: read-only file system".
      expect(r.stderr.trim()).toBe(
        `toolsmith: no workspace is named and the sample workspace cannot be copied to ${ro}/sample-workspace ($TOOLSMITH_HOME): ${ro} cannot be written (EROFS: read-only file system); name a workspace (--workspace DIR) or set TOOLSMITH_HOME to a folder you can write`,
      );
    } finally {
      execFileSync('umount', [ro]);
    }
  });
});
