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
 * `mcp initialize`: spawn to the answer to the client's `initialize` of `toolsmith mcp` on stdio (the
 * process is then stopped by closing its input, as clients do).
 * Targets through the installed command: every verb (`kit list` and `tools` included) within 2x the
 * shipped Node's own `-e 0` p50 (`p50OverFloorRatio`, a ratio measured in the same run, steadier than
 * the milliseconds on a busy machine); `mcp initialize` <= 300 ms p50. `N=30 npm run bench:cli` for
 * more runs; the load average is printed because a busy machine moves these numbers.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
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

type Result = {
  p50: number;
  p95: number;
  min: number;
  runs: number;
  p50OverFloor?: number;
  p50OverFloorRatio?: number;
};

/** Spawn to the answer to `initialize` of `toolsmith mcp` on stdio; the process is then stopped. */
function mcpInitialize(way: Way): Promise<number> {
  const [cmd, argv] = way.argv(['--workspace', ws, 'mcp']);
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const p = spawn(cmd, argv, {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { ...process.env, TOOLSMITH_HOME: join(ws, '.home'), ...(way.path ? { PATH: way.path } : {}) },
    });
    let buf = '';
    let ms: number | undefined;
    p.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      if (ms === undefined && buf.includes('"id":1')) {
        ms = performance.now() - t;
        p.stdin.end();
      }
    });
    p.on('error', reject);
    p.on('close', () => (ms === undefined ? reject(new Error('mcp: no answer to initialize')) : resolve(ms)));
    p.stdin.write(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'bench', version: '1' },
        },
      }) + '\n',
    );
  });
}

async function measureMcp(way: Way, floor: number): Promise<Result> {
  await mcpInitialize(way); // warm-up
  const xs: number[] = [];
  for (let i = 0; i < N; i++) xs.push(await mcpInitialize(way));
  const p50 = pct(xs, 50);
  return {
    p50,
    p95: pct(xs, 95),
    min: Math.round(Math.min(...xs)),
    runs: N,
    p50OverFloor: p50 - floor,
    p50OverFloorRatio: floor ? Math.round((p50 / floor) * 100) / 100 : 0,
  };
}

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
    if (!name.startsWith('node')) {
      r.p50OverFloor = r.p50 - floor;
      r.p50OverFloorRatio = floor ? Math.round((r.p50 / floor) * 100) / 100 : 0;
    }
  return results;
}

const loadBefore = loadavg()[0];
const cloneWay: Way = { argv: (args) => [node, [bin, ...args]], floor: [node, ['-e', '0']] };
const clone = measure(cloneWay);
clone['mcp initialize'] = await measureMcp(cloneWay, clone['node -e 0 (floor)']?.p50 ?? 0);
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
    const installedWay: Way = {
      argv: (args) => [installedBin, args],
      floor: [shipped, ['-e', '0']],
      path: `${join(prefix, 'bin')}:/usr/bin:/bin`,
    };
    installed = measure(installedWay);
    installed['mcp initialize'] = await measureMcp(installedWay, installed['node -e 0 (floor)']?.p50 ?? 0);
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
      targetMs: {
        installed: {
          sandboxes: 300,
          'image build (cached)': 300,
          '--help': 300,
          validate: 300,
          'mcp initialize': 300,
        },
      },
      targetP50OverFloorRatio: { installed: 2 },
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
