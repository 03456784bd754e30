/**
 * bin/toolsmith, the installed command, finds the package's folder and its Node without starting a
 * program on npm's layouts: each `readlink` or `uname` it ran was ~4 ms of CPU of every verb on this
 * machine (docs/scaling.md, "Issue 29: the `sh` launcher without subprocesses"). Shown by running it
 * with a PATH that holds no program at all: on npm's global layout (PREFIX/bin/toolsmith a link to
 * ../lib/node_modules/toolsmith-workbench/bin/toolsmith) and from the clone it still starts the shipped
 * Node; a link made elsewhere still follows its chain with `readlink` (PATH given back), and a PATH
 * without it then fails as before rather than running something else.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/workspace.ts';

const dir = mkdtempSync(join(tmpdir(), 'toolsmith-launcher-exec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string })
  .version;

/** `/bin/sh LAUNCHER --version` with PATH set to `path` (an empty folder: no program can be found). */
function run(launcher: string, path: string) {
  return spawnSync('/bin/sh', [launcher, '--version'], {
    encoding: 'utf8',
    env: { PATH: path, HOME: dir },
    timeout: 60_000,
  });
}

describe('bin/toolsmith starts no program before Node on npm layouts', () => {
  const empty = join(dir, 'empty');
  mkdirSync(empty);

  it("npm's global layout: found through the link with no readlink and no uname", () => {
    const prefix = join(dir, 'prefix');
    mkdirSync(join(prefix, 'bin'), { recursive: true });
    mkdirSync(join(prefix, 'lib', 'node_modules'), { recursive: true });
    symlinkSync(repoRoot, join(prefix, 'lib', 'node_modules', 'toolsmith-workbench'));
    symlinkSync('../lib/node_modules/toolsmith-workbench/bin/toolsmith', join(prefix, 'bin', 'toolsmith'));
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    const r = run(join(prefix, 'bin', 'toolsmith'), empty);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(version);
  });

  it('the clone: the shipped Node found with no uname', () => {
    const r = run(join(repoRoot, 'bin', 'toolsmith'), empty);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(version);
  });

  it('a link made elsewhere follows its chain with readlink (and needs it)', () => {
    const other = join(dir, 'other');
    mkdirSync(other);
    symlinkSync(join(repoRoot, 'bin', 'toolsmith'), join(other, 'ts'));
    const withTools = run(join(other, 'ts'), '/usr/bin:/bin');
    expect(withTools.status, withTools.stderr).toBe(0);
    expect(withTools.stdout.trim()).toBe(version);
    const without = run(join(other, 'ts'), empty);
    expect(without.status).not.toBe(0);
    expect(without.stderr).toMatch(/readlink/);
  });
});
