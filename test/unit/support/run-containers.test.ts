/**
 * Which installations a test home's teardown looks at (test/support/run-containers.ts): those inside the
 * home only. A home holds the image build's cached debootstrap root, whose `var/run` is a link to the
 * host's `/run`; the walk followed it, read the host's /run (dockerd's folders vanishing under it ended a
 * passing run with ENOENT), and would have taken an installation found there for the home's.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { installationDirs } from '../../support/run-containers.ts';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'run-containers-'));
  made.push(d);
  return d;
};

describe("a test home's installations", () => {
  it('are found at any depth, and never through a symbolic link out of the home', () => {
    const home = temp();
    const outside = temp();
    mkdirSync(join(home, 'a', 'b', 'data'), { recursive: true });
    writeFileSync(join(home, 'a', 'b', 'data', 'installation-id'), 'x');
    writeFileSync(join(home, 'installation-id'), 'y');
    // Like the debootstrap root's var/run -> /run: a link to a folder outside holding an installation.
    mkdirSync(join(outside, 'data'));
    writeFileSync(join(outside, 'data', 'installation-id'), 'z');
    mkdirSync(join(home, 'root', 'var'), { recursive: true });
    symlinkSync(outside, join(home, 'root', 'var', 'run'));
    expect(installationDirs(home).sort()).toEqual([home, join(home, 'a', 'b', 'data')].sort());
  });

  it('a home already gone has none', () => {
    expect(installationDirs(join(temp(), 'gone'))).toEqual([]);
  });
});
