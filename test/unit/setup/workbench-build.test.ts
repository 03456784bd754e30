/**
 * `npm start` builds only what changed: the stamp of the build's inputs (sources and build config) and
 * the check that the last build's outputs are there and were built from the same inputs. The help of
 * `npm start` and `toolsmith serve` names the way through the host-commands guard.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inputsStamp, upToDate } from '../../../scripts/workbench-build.mjs';
import { repoRoot } from '../../support/workspace.ts';

const stamp = inputsStamp;
const fresh = (root: string, out: string) => upToDate(root, out);

describe('the workbench build is skipped when nothing changed', () => {
  let root: string;
  let out: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'toolsmith-build-'));
    out = join(root, 'out');
    for (const d of ['src-main/app', 'src-renderer/src', 'src-preload'])
      mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, 'src-main/app/a.ts'), 'export const a = 1;\n');
    writeFileSync(join(root, 'src-renderer/src/App.tsx'), 'export {};\n');
    writeFileSync(join(root, 'package.json'), '{}\n');
    for (const o of ['main/index.js', 'preload/index.cjs', 'renderer/index.html']) {
      mkdirSync(join(out, o, '..'), { recursive: true });
      writeFileSync(join(out, o), '');
    }
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const built = () => writeFileSync(join(out, '.build-inputs'), `${stamp(root)}\n`);

  it('up to date after a build; an edited, added or removed source or a changed config is not', () => {
    expect(fresh(root, out)).toBe(false); // never built
    built();
    expect(fresh(root, out)).toBe(true);

    const later = new Date(Date.now() + 5_000);
    utimesSync(join(root, 'src-main/app/a.ts'), later, later);
    expect(fresh(root, out)).toBe(false);
    built();

    writeFileSync(join(root, 'src-renderer/src/New.tsx'), 'export {};\n');
    expect(fresh(root, out)).toBe(false);
    built();

    rmSync(join(root, 'src-renderer/src/New.tsx'));
    expect(fresh(root, out)).toBe(false);
    built();

    writeFileSync(join(root, 'package.json'), '{"name": "x"}\n');
    expect(fresh(root, out)).toBe(false);
    built();
    expect(fresh(root, out)).toBe(true);
  });

  it('a missing output is rebuilt whatever the stamp says', () => {
    built();
    rmSync(join(out, 'renderer/index.html'));
    expect(fresh(root, out)).toBe(false);
  });
});

describe('the way through the host-commands guard in --help', () => {
  it('npm start --help names --allow-host-commands and why', () => {
    const r = spawnSync(process.execPath, [join(repoRoot, 'scripts/start.mjs'), '--help'], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--allow-host-commands');
    expect(r.stdout).toMatch(/stdio MCP servers/);
    expect(r.stdout).toMatch(/cannot ask you first/);
  });

  it('toolsmith serve --help names it too', () => {
    const r = spawnSync(process.execPath, [join(repoRoot, 'bin/toolsmith.mjs'), 'serve', '--help'], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    const help = r.stdout.replace(/\s+/g, ' '); // commander wraps the descriptions
    expect(help).toContain('--allow-host-commands');
    expect(help).toMatch(/stdio MCP servers/);
    expect(help).toMatch(/npm start -- --allow-host-commands/);
  });
});
