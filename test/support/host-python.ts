/**
 * The host's Python for tests that ask CPython itself (a parse, a compile, the worker's own modules):
 * Debian's `/usr/bin/python3` (the version the sandbox images' worker is written for), run with `-I`
 * (isolated: no PYTHON* variables, no user site-packages, not the current folder on `sys.path`) and `-B`
 * (no `__pycache__` written beside the modules it imports: `path` is often the clone's
 * sandbox-images/python, where a run left `toolsmith_worker/__pycache__` in the clone, from
 * js-jobns.test.ts). Never a bare `python3` from PATH: a person's PATH may put another one first (a pyenv
 * shim, a virtualenv, a Conda base) with another version and other modules, and the test would then
 * check that one.
 */
import { spawnSync } from 'node:child_process';
import type { SpawnSyncOptionsWithStringEncoding, SpawnSyncReturns } from 'node:child_process';

export const HOST_PYTHON = '/usr/bin/python3';

/**
 * Runs `HOST_PYTHON -I -B -c code ...args`; `path` is put first on `sys.path` (`-I` leaves the current
 * folder off it). Throws, saying what to install, when there is no such interpreter.
 */
export function hostPython(
  code: string,
  args: readonly string[] = [],
  options: Omit<SpawnSyncOptionsWithStringEncoding, 'encoding'> & { path?: string } = {},
): SpawnSyncReturns<string> {
  const { path, ...rest } = options;
  const prelude = path === undefined ? '' : `import sys; sys.path.insert(0, ${JSON.stringify(path)})\n`;
  const r = spawnSync(HOST_PYTHON, ['-I', '-B', '-c', prelude + code, ...args], {
    ...rest,
    encoding: 'utf8',
  });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT')
    throw new Error(`${HOST_PYTHON} is needed for this test (Debian: apt-get install python3)`);
  return r;
}
