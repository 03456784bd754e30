/**
 * The fork server's C loop is built with the host's C compiler when images are built (images.ts
 * buildForkLoop): once per source, compiler and machine, into the cache; with no compiler the worker
 * keeps its Python loop, and the reason is said (test/integration/sandbox/fork-loop.test.ts runs both).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  FORK_LOOP_LIBRARY,
  buildForkLoop,
  copyPythonWorker,
} from '../../../src-main/infra/sandbox/images.ts';
import { repoRoot } from '../../support/workspace.ts';

const imagesDir = join(repoRoot, 'sandbox-images');
const dirs: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'toolsmith-forkloop-'));
  dirs.push(d);
  return d;
};
const cc = process.env['CC'];
afterEach(() => {
  if (cc === undefined) delete process.env['CC'];
  else process.env['CC'] = cc;
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("the fork server's C loop, built", () => {
  it('builds a shared library once into the cache, and copies it beside the worker package', () => {
    const cache = temp();
    const built = buildForkLoop(imagesDir, cache);
    expect(built.why).toBeUndefined();
    const path = built.path as string;
    expect(readFileSync(path).subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    const mtime = statSync(path).mtimeMs;
    expect(buildForkLoop(imagesDir, cache).path).toBe(path); // (cached: not built again)
    expect(statSync(path).mtimeMs).toBe(mtime);
    const withLoop = temp();
    copyPythonWorker(imagesDir, withLoop, path);
    expect(existsSync(join(withLoop, FORK_LOOP_LIBRARY))).toBe(true);
    const without = temp();
    copyPythonWorker(imagesDir, without);
    expect(existsSync(join(without, FORK_LOOP_LIBRARY))).toBe(false);
    expect(existsSync(join(without, 'toolsmith_worker/forkserver.py'))).toBe(true);
  });

  it('needs no glibc symbol newer than 2.17: it loads in the Debian image and any glibc of a decade', () => {
    const path = buildForkLoop(imagesDir, temp()).path as string;
    const syms = execFileSync('objdump', ['-T', path], { encoding: 'utf8' });
    const versions = [...syms.matchAll(/GLIBC_(\d+)\.(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(versions.length).toBeGreaterThan(5);
    expect(versions.filter(([major, minor]) => major! > 2 || minor! > 17)).toEqual([]);
    expect(syms).toMatch(/ts_serve/);
  });

  it('no compiler, or one that fails: no library, and the reason names the compiler', () => {
    process.env['CC'] = '/nonexistent/cc';
    const missing = buildForkLoop(imagesDir, temp());
    expect(missing.path).toBeUndefined();
    expect(missing.why).toMatch(/^\/nonexistent\/cc: .*ENOENT/);
    process.env['CC'] = 'false';
    const cache = temp();
    const failing = buildForkLoop(imagesDir, cache);
    expect(failing.path).toBeUndefined();
    expect(failing.why).toMatch(/^false exited 1/);
    expect(buildForkLoop(imagesDir, cache)).toBe(failing); // (kept for the process: not tried again)
    // A compiler given with arguments, as $CC may be.
    process.env['CC'] = 'cc -DTOOLSMITH_TEST=1';
    expect(buildForkLoop(imagesDir, temp()).path).toMatch(/\.so$/);
  });
});
