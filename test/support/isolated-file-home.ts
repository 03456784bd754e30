/**
 * Vitest setup file of every node project: each test file gets a home of its own inside the run's
 * (`isolated-home.ts`), so files that run at the same time (the integration and e2e projects run
 * several at once) never share an installation id, a data folder, a recent list or a CLI cache: a
 * file that lists "its installation's" containers sees only its own. Runs in the file's worker before
 * the file is loaded; processes the file starts inherit it. Removed when the file ends.
 */
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import { FILE_TMP_PREFIX, TMP_LIST } from './isolated-home.ts';
import { removeRunContainers } from './run-containers.ts';

/** The variables that place Toolsmith's data; `isolated-home.ts` sets them for the whole run. */
export const HOME_VARS = ['TOOLSMITH_HOME', 'TOOLSMITH_DATA_DIR', 'XDG_DATA_HOME', 'XDG_CACHE_HOME'] as const;

/** The run's folder (set by `isolated-home.ts`), else the system's temp folder. */
const root = process.env['TOOLSMITH_TEST_ROOT'] ?? tmpdir();
mkdirSync(root, { recursive: true });
const dir = mkdtempSync(join(root, 'file-'));
process.env['TOOLSMITH_HOME'] = join(dir, 'toolsmith');
process.env['TOOLSMITH_DATA_DIR'] = join(dir, 'data');
process.env['XDG_DATA_HOME'] = join(dir, 'xdg-data');
process.env['XDG_CACHE_HOME'] = join(dir, 'xdg-cache');
// A temporary folder of the file's own, beside the run's (isolated-home.ts, RUN_TMP_PREFIX): what the
// file and its processes put in $TMPDIR goes when the file ends; listed in the run's folder, so the run
// removes it when the file could not.
const runTmp = process.env['TOOLSMITH_TEST_ROOT'] ? process.env['TMPDIR'] : undefined;
const fileTmp = runTmp ? mkdtempSync(join(dirname(runTmp), FILE_TMP_PREFIX)) : undefined;
if (fileTmp) {
  chmodSync(fileTmp, 0o711); // (as the run's: isolated-home.ts)
  appendFileSync(process.env['TOOLSMITH_TEST_TMP_LIST'] ?? join(root, TMP_LIST), `${fileTmp}\n`);
  process.env['TMPDIR'] = fileTmp;
}

// The file's own current folder: the folder the tests were started in (the clone, for a person) may
// hold a workspace of theirs (`toolsmith init .`), which the CLI opens when no workspace is named, in
// this process (`main`) and in the processes a test starts without a `cwd` of their own; the unit
// files' `validate`, `tools` and `kit list` then read the person's workspace instead of the sample.
const startedIn = process.cwd();
const cwd = join(dir, 'cwd');
mkdirSync(cwd);
process.chdir(cwd);

// (Registered first, so it runs after the file's own afterAll hooks: its services are closed by then.)
afterAll(async () => {
  try {
    await removeRunContainers(dir);
  } finally {
    // (back where the run started before the folder goes: the next file in a shared worker takes its own)
    process.chdir(startedIn);
    rmSync(dir, { recursive: true, force: true });
    if (fileTmp) {
      rmSync(fileTmp, { recursive: true, force: true });
      // (the next file in a shared worker takes its own; the run's until then)
      process.env['TMPDIR'] = runTmp;
    }
  }
});
