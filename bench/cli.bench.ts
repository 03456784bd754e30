/**
 * `npm run bench:cli`: prints JSON. Wall time of one-shot CLI verbs started as a user starts them, a
 * fresh process each time, p50/p95 over N runs after one warm-up: `sandboxes`, a cached `image build`,
 * `kit list`, `tools`, `validate`, `--help`, plus a bare `node -e 0` for the floor a process start costs.
 * Two ways in:
 * - `clone`: `node bin/toolsmith.mjs <verb>` on the Node 24 of node_modules;
 * - `installed`: the packed tarball (`npm pack`, whose prepack builds the CLI bundle and the renderer)
 *   installed into a temporary prefix (`npm install -g --prefix TMP`), run as `TMP/bin/toolsmith` with
 *   the machine's Node first on PATH (Node 20 here; the sh launcher execs the package's Node 24 on the
 *   bundle, the machine's Node never starts). Its floor is the shipped Node's `-e 0`;
 *   `machineNodeFloor` is `/usr/bin/node -e 0`, what a `#!/usr/bin/env node` launcher would cost
 *   before anything else. `INSTALLED=0` skips it (pack and install take minutes).
 * Target: sandboxes, a cached image build, --help and validate <= 300 ms p50 through the installed
 * command. `N=30 npm run bench:cli` for more runs; the load average is printed because a busy machine
 * moves these numbers.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../', import.meta.url).pathname;
const node = join(root, 'node_modules/.bin/node');
const bin = join(root, 'bin/toolsmith.mjs');
const N = Number(process.env['N'] ?? 15);

const ws = mkdtempSync(join(tmpdir(), 'toolsmith-bench-cli-'));
cpSync(join(root, 'resources/workspace'), ws, { recursive: true, filter: (s) => !/runs\.db|logs/.test(s) });
const script = join(ws, 'script.py');
writeFileSync(script, 'r = get_user(user_id="u1")\nemit_result(r.data)\n');

const cases: Record<string, string[]> = {
  'node -e 0 (floor)': [],
  sandboxes: ['--workspace', ws, 'sandboxes'],
  'image build (cached)': ['image', 'build'],
  'kit list': ['--workspace', ws, 'kit', 'list'],
  tools: ['--workspace', ws, 'tools', '--sandbox', 'ecommerce'],
  validate: ['--workspace', ws, 'validate', script, '--sandbox', 'ecommerce'],
  '--help': ['--help'],
};

const machineNode = '/usr/bin/node';

/** Packs the clone and installs the tarball into a temporary prefix; its `bin/toolsmith`. */
function installTarball(): { bin: string; prefix: string } {
  const prefix = mkdtempSync(join(tmpdir(), 'toolsmith-bench-prefix-'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', prefix], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'], // (prepack's build log goes to stderr)
    maxBuffer: 64 * 1024 * 1024,
  });
  const tarball = join(prefix, (JSON.parse(out) as { filename: string }[])[0]!.filename);
  execFileSync(
    'npm',
    [
      'install',
      '-g',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      tarball,
    ],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, PATH: `/usr/bin:${process.env['PATH']}` },
    },
  );
  return { bin: join(prefix, 'bin', 'toolsmith'), prefix };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0);
};

interface Way {
  /** The program and arguments that start a verb, and the PATH it runs with. */
  argv: (args: string[]) => [string, string[]];
  floor: [string, string[]];
  path?: string;
}

function once(way: Way, args: string[] | undefined): number {
  const [cmd, argv] = args ? way.argv(args) : way.floor;
  const t = performance.now();
  const r = spawnSync(cmd, argv, {
    encoding: 'utf8',
    env: { ...process.env, TOOLSMITH_HOME: join(ws, '.home'), ...(way.path ? { PATH: way.path } : {}) },
  });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

type Result = { p50: number; p95: number; min: number; runs: number; p50OverFloor?: number };

function measure(way: Way, only?: string[]): Record<string, Result> {
  const results: Record<string, Result> = {};
  for (const [name, args] of Object.entries(cases)) {
    if (only && !only.includes(name)) continue;
    const a = name.startsWith('node') ? undefined : args;
    once(way, a); // warm-up: file system cache, compile cache, a first image check
    const xs = Array.from({ length: N }, () => once(way, a));
    results[name] = { p50: pct(xs, 50), p95: pct(xs, 95), min: Math.round(Math.min(...xs)), runs: N };
  }
  // What the verb adds to a bare process start (steadier than wall time when the machine is busy).
  const floor = results['node -e 0 (floor)']?.p50 ?? 0;
  for (const [name, r] of Object.entries(results))
    if (!name.startsWith('node')) r.p50OverFloor = r.p50 - floor;
  return results;
}

const loadBefore = loadavg()[0];
const clone = measure({ argv: (args) => [node, [bin, ...args]], floor: [node, ['-e', '0']] });
let installed: Record<string, Result> | undefined;
let installedNode: string | undefined;
let machineNodeFloor: Result | undefined;
if (process.env['INSTALLED'] !== '0') {
  const { bin: installedBin, prefix } = installTarball();
  installedNode = spawnSync(machineNode, ['--version'], { encoding: 'utf8' }).stdout.trim();
  try {
    const shipped = join(
      prefix,
      'lib/node_modules/toolsmith-workbench/node_modules',
      `node-${process.platform}-${process.arch}`,
      'bin/node',
    );
    installed = measure({
      argv: (args) => [installedBin, args],
      floor: [shipped, ['-e', '0']],
      path: `${join(prefix, 'bin')}:/usr/bin:/bin`,
    });
    machineNodeFloor = measure({ argv: () => [machineNode, []], floor: [machineNode, ['-e', '0']] }, [
      'node -e 0 (floor)',
    ])['node -e 0 (floor)'];
  } finally {
    rmSync(prefix, { recursive: true, force: true });
  }
}
rmSync(ws, { recursive: true, force: true });
process.stdout.write(
  JSON.stringify(
    {
      bench: 'cli',
      unit: 'ms wall per process',
      targetMs: { installed: { sandboxes: 300, 'image build (cached)': 300, '--help': 300, validate: 300 } },
      loadAverage: { before: Number(loadBefore?.toFixed(2)), after: Number(loadavg()[0]?.toFixed(2)) },
      clone: { node: process.version, results: clone },
      ...(installed
        ? {
            installed: {
              machineNode: installedNode,
              floor: "the shipped Node's -e 0",
              machineNodeFloor,
              results: installed,
            },
          }
        : {}),
    },
    null,
    2,
  ) + '\n',
);
