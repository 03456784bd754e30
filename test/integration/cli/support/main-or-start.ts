/**
 * A verb run two ways, for the tests of what is answered before main loads (store-verbs.test.ts,
 * pool-status-early.test.ts): through main() itself, as bin/start.mjs calls it without the steps before
 * it, or through bin/start.mjs; each child a fresh Node 24 with a probe that records whether main's
 * module loaded.
 */
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const node = join(root, 'node_modules/.bin/node');

/** What a verb printed, its exit code, and whether main's module loaded. */
export interface Answer {
  out: string;
  err: string;
  code: number | null;
  main: boolean;
}

/** Writes `main.mjs` into `dir`: it runs main() of the module `$MAIN` with its arguments. */
export function writeMain(dir: string): void {
  writeFileSync(
    join(dir, 'main.mjs'),
    `import { pathToFileURL } from 'node:url';
const { main } = await import(pathToFileURL(process.env.MAIN).href);
process.exitCode = await main(process.argv.slice(2));
`,
  );
}

/** Writes the two scripts `runVerb` starts into `dir`. */
export function writeMainAndProbe(dir: string): void {
  writeMain(dir);
  writeFileSync(
    join(dir, 'probe.mjs'),
    `import module from 'node:module';
const { writeFileSync } = process.getBuiltinModule('node:fs');
let main = false;
module.registerHooks({ resolve(s, c, next) { const r = next(s, c); if (r.url.endsWith('/src-main/cli/main.ts')) main = true; return r; } });
process.on('exit', () => writeFileSync(process.env.PROBE_OUT, JSON.stringify({ main })));
`,
  );
}

/** The environment's MAIN for `main.mjs`: the sources' main. */
export const MAIN_SOURCE = join(root, 'src-main/cli/main.ts');

/**
 * One verb through main() (`how` = 'main') or bin/start.mjs ('start'), with the scripts of `dir`
 * (writeMainAndProbe) and `env` (MAIN included).
 */
export function runVerb(
  dir: string,
  how: 'main' | 'start',
  args: string[],
  env: NodeJS.ProcessEnv,
  timeout = 120_000,
): Answer {
  const probe = join(dir, 'probe.json');
  rmSync(probe, { force: true });
  const r = spawnSync(
    node,
    [
      '--import',
      join(dir, 'probe.mjs'),
      how === 'main' ? join(dir, 'main.mjs') : join(root, 'bin/start.mjs'),
      ...args,
    ],
    { env: { ...env, PROBE_OUT: probe }, encoding: 'utf8', timeout },
  );
  // (a child killed at the timeout wrote no probe: it loaded main if it got that far, unknown here)
  const { main } = JSON.parse(readFileSync(probe, { encoding: 'utf8', flag: 'a+' }) || '{"main":true}') as {
    main: boolean;
  };
  return { out: r.stdout, err: r.stderr, code: r.status, main };
}
