/**
 * No test reads or writes the person's own Toolsmith home, workspace or store (docs/decisions.md,
 * "No test reads the person's Toolsmith data"):
 * - every node project runs the run's isolated home (`test/support/isolated-home.ts`) and gives each
 *   file its own (`test/support/isolated-file-home.ts`);
 * - those cover every variable the sources read to place Toolsmith's data, so a new one (say
 *   `XDG_CONFIG_HOME`) fails here until the set-up points it away from the home;
 * - no test support file reaches for the home itself (`homedir()`, `$HOME`, `~/`).
 */
import { fileURLToPath } from 'node:url';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOME_VARS } from '../../support/isolated-file-home.ts';
import { TMP_LIST } from '../../support/isolated-home.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'fixtures') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (/\.(ts|tsx|mts|mjs|js)$/.test(name)) yield p;
  }
}

/**
 * The support code of the tests: test/support and every `support/` folder under test/. Not the run's
 * global setup, the one file that reads the person's home: to move the run out of it and check that
 * the run left it alone (`test/support/isolated-home.ts`); nor its test, which plays a person's home.
 */
const supportFiles = [...files(join(root, 'test'))].filter(
  (f) =>
    relative(root, f).split(sep).includes('support') &&
    !['test/support/isolated-home.ts', 'test/unit/support/isolated-home.test.ts'].includes(relative(root, f)),
);

/** Ways to reach the person's home. */
const HOME_ACCESS = [
  /\bhomedir\s*\(/,
  /\buserInfo\s*\(/,
  /process\.env(\.HOME\b|\[\s*['"`]HOME['"`]\s*\])/,
  /['"`]~\//,
  /\/root\/|\/home\/[a-z]/,
];

describe('tests never see the home of the person running them', () => {
  it('the support files exist and none of them reads the home', () => {
    expect(supportFiles.length).toBeGreaterThan(10);
    const hits = supportFiles.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          HOME_ACCESS.some((re) => re.test(line)) ? [`${relative(root, f)}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(hits).toEqual([]);
  });

  it('every node project has the run home and the per-file home; the browser project runs no node code', () => {
    const config = readFileSync(join(root, 'vitest.config.ts'), 'utf8');
    const projects = config.split(/\n\s{6}\{\n/).slice(1);
    const names = projects.map((p) => /name: '([^']+)'/.exec(p)?.[1]);
    expect(names).toEqual([
      'unit',
      'renderer',
      'components',
      'integration-local',
      'integration',
      'integration-serial',
      'e2e',
    ]);
    for (const p of projects) {
      // The browser project runs no node code; the Chromium it starts gets a home of its own.
      if (/browser: \{/.test(p)) {
        expect(p).toMatch(/launchOptions: \{[^}]*\benv: chromiumEnv,/);
        expect(config).toMatch(
          /const chromiumEnv = \{[^}]*HOME: chromiumHome,\s*XDG_CONFIG_HOME: join\(chromiumHome/,
        );
        continue;
      }
      expect(p, /name: '([^']+)'/.exec(p)?.[1]).toMatch(/globalSetup: \[isolatedHome\b/);
      expect(p, /name: '([^']+)'/.exec(p)?.[1]).toMatch(/setupFiles: \[fileHome\]/);
    }
  });

  it('the set-up covers every variable the sources read to place Toolsmith data', () => {
    const read = new Set<string>();
    for (const dir of ['src-main', 'bin', 'scripts'])
      for (const f of files(join(root, dir)))
        for (const m of readFileSync(f, 'utf8').matchAll(
          /process\.env(?:\.|\[\s*['"`])((?:TOOLSMITH_(?:HOME|DATA_DIR)|XDG_[A-Z_]+))\b/g,
        ))
          read.add(m[1]!);
    expect(read.size).toBeGreaterThan(0);
    expect([...read].filter((v) => !(HOME_VARS as readonly string[]).includes(v))).toEqual([]);
  });

  it('this file runs in a home of its own, inside the run home, away from the person’s', () => {
    const runRoot = process.env['TOOLSMITH_TEST_ROOT'];
    expect(runRoot).toBeTruthy();
    for (const v of HOME_VARS) {
      expect(process.env[v], v).toContain(`${runRoot}${sep}file-`);
      expect(process.env[v]!.startsWith(homedir() + sep) && !runRoot!.startsWith(homedir()), v).toBe(false);
    }
    const own = process.env['TOOLSMITH_HOME']!.slice(runRoot!.length + 1).split(sep)[0];
    expect(own).toMatch(/^file-/);
    // HOME and every XDG base folder are the run's too: whatever falls back to them lands there.
    for (const v of ['HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME'])
      expect(process.env[v]!.startsWith(runRoot! + sep), v).toBe(true);
    expect(homedir().startsWith(runRoot! + sep)).toBe(true);
    // The V8 compile cache is the run's, shared by every file (warm starts), never the person's.
    expect(process.env['NODE_COMPILE_CACHE']).toBe(join(runRoot!, 'v8-compile-cache'));
  });

  it('this file’s temporary folder is its own, beside the run’s, and listed for the run to remove', () => {
    // (the run's list, in the first project's set-up folder: every project's files are listed there)
    const list = process.env['TOOLSMITH_TEST_TMP_LIST']!;
    expect(basename(list)).toBe(TMP_LIST);
    const [runTmp, ...files] = readFileSync(list, 'utf8').split('\n').filter(Boolean);
    expect(basename(runTmp!)).toMatch(/^tst-/);
    expect(basename(tmpdir())).toMatch(/^tsf-/);
    expect(dirname(tmpdir())).toBe(dirname(runTmp!));
    expect(files).toContain(tmpdir());
  });

  it('no test replaces process.env (its real environment, which os.tmpdir() reads, would stay apart from it)', () => {
    // After process.env is replaced with a copy, the per-file home's TMPDIR and the others are set on a plain object
    // only: later files of the same worker made their temporary folders in a removed file's.
    const hits = ['test', 'bench'].flatMap((d) =>
      [...files(join(root, d))].flatMap((f) =>
        /process\.env\s*=(?!=)/.test(readFileSync(f, 'utf8')) ? [relative(root, f)] : [],
      ),
    );
    expect(hits).toEqual([]);
  });

  it('no test, bench or script turns its own URL into a path with .pathname (a clone in "My Projects" reads %20)', () => {
    const hits = ['test', 'bench', 'scripts'].flatMap((d) =>
      [...files(join(root, d))].flatMap((f) =>
        /import\.meta\.url,?\s*\)\.pathname/.test(readFileSync(f, 'utf8')) ? [relative(root, f)] : [],
      ),
    );
    expect(hits).toEqual([]);
  });
});
