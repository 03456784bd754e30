/**
 * No test runs a bare `python3` (or `python`) from PATH on the host: a person's PATH may put another one
 * first (a pyenv shim, a virtualenv, Conda), of another version and with other modules, and the test
 * would check that one. The suite's Python is `test/support/host-python.ts` (`/usr/bin/python3 -I`).
 * (Commands run inside a container or a sandbox, `docker exec ... python3`, are not the host's.)
 */
import { fileURLToPath } from 'node:url';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'fixtures') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (/\.(ts|tsx|mts|mjs|js)$/.test(name)) yield p;
  }
}

/** A host process started as a bare python: the program is the call's first argument. */
const BARE_PYTHON =
  /\b(?:spawn|spawnSync|execFile|execFileSync)\(\s*['"`]python3?['"`]|\bexecSync\(\s*['"`]python3?\s/g;

describe("tests use the suite's Python, never the first one on PATH", () => {
  it('no test or test support file starts a bare python3', () => {
    const found: string[] = [];
    for (const f of files(join(root, 'test'))) {
      if (f === fileURLToPath(import.meta.url)) continue; // its own examples below
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(BARE_PYTHON))
        found.push(`${relative(root, f)}:${text.slice(0, m.index).split('\n').length}`);
    }
    expect(found).toEqual([]);
  });

  it('the check finds one', () => {
    expect("spawnSync(\n  'python3',\n  ['-c', 'print(1)'],\n)".match(BARE_PYTHON)).toHaveLength(1);
    expect("execFileSync('python3', ['-c', x])".match(BARE_PYTHON)).toHaveLength(1);
    expect("spawnSync('docker', ['exec', id, 'python3', '-c', x])".match(BARE_PYTHON)).toBeNull();
  });
});
