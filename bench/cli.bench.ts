/**
 * `npm run bench:cli`: prints JSON. Wall time of one-shot CLI verbs started as a user starts them, a
 * fresh process each time, p50/p95 over N runs after one warm-up: `sandboxes`, a cached `image build`,
 * `kit list`, `tools`, `validate` (the same script: answered from the verb cache; and a script edited
 * before every run: the whole path), `--help`, the other one-shot verbs that need no sandbox run (`prompt`,
 * `kit info`, `runs list`, `template list`, `skill list`, `mcp-servers list`, `pool status`, `init --empty`),
 * plus a bare `node -e 0` for the floor a process start costs.
 * Two ways in:
 * - `clone`: `node bin/toolsmith.mjs <verb>` on the Node 24 of node_modules;
 * - `installed`: the packed tarball (`npm pack`, whose prepack builds the CLI bundle and the renderer)
 *   installed into a temporary prefix (`npm install -g --prefix TMP`), run as `TMP/bin/toolsmith` with
 *   the machine's Node first on PATH (Node 20 here; the sh launcher execs the package's Node 24 on the
 *   bundle, the machine's Node never starts). Its floor is the shipped Node's `-e 0`;
 *   `machineNodeFloor` is `/usr/bin/node -e 0`, what a `#!/usr/bin/env node` launcher would cost
 *   before anything else. `INSTALLED=0` skips it (pack and install take minutes); `CLONE=0` skips the
 *   clone's run; `INSTALLED_PREFIX=DIR` measures a prefix installed before (kept), for before/after
 *   rounds of two builds interleaved; `MCP=0` skips the MCP sessions. Each step is named on stderr as it starts, and every wait is bounded (a verb 120 s, an
 *   MCP session 120 s to its answers and 4 s to its end): a stuck step fails the bench, never hangs it
 *   (a run used to wait forever on an `mcp` process that never ended after its input closed).
 * `mcp ...`: `toolsmith mcp` on stdio, a session as a client runs it: spawn to the answer to
 * `initialize`, spawn to the answer to `tools/list`, then the MCP SDK client's stop (input closed, 2 s,
 * SIGTERM, 2 s, SIGKILL) timed from the input closed to the exit, with `signalled` = the stops that
 * needed a signal (target 0). Twice: on the sample workspace, and with a sandbox whose upstream MCP
 * server never answers anything (`mcp, upstream server silent`): the answers must not wait for it.
 * Targets through the installed command: every verb (`kit list` and `tools` included) within 2x the
 * shipped Node's own `-e 0` p50 (`p50OverFloorRatio`, a ratio measured in the same run, steadier than
 * the milliseconds on a busy machine; `cpuOverFloorRatio` is the same for CPU time, steadier still); `mcp initialize` <= 300 ms p50, upstream server silent or not. `N=30 npm run bench:cli` for
 * more runs; `ONLY="runs list,template list"` for those verbs alone (with the floor); the load average is
 * printed because a busy machine moves these numbers.
 */
import { fileURLToPath } from 'node:url';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const root = fileURLToPath(new URL('../', import.meta.url));
const node = join(root, 'node_modules/.bin/node');
const bin = join(root, 'bin/toolsmith.mjs');
const N = Number(process.env['N'] ?? 15);

const ws = mkdtempSync(join(tmpdir(), 'toolsmith-bench-cli-'));
cpSync(join(root, 'resources/workspace'), ws, { recursive: true, filter: (s) => !/runs\.db|logs/.test(s) });
const script = join(ws, 'script.py');
writeFileSync(script, 'r = get_user(user_id="u1")\nemit_result(r.data)\n');
// The same workspace with a sandbox whose upstream MCP server never answers (not even its initialize).
const silentWs = mkdtempSync(join(tmpdir(), 'toolsmith-bench-cli-silent-'));
cpSync(ws, silentWs, { recursive: true });
appendFileSync(
  join(silentWs, '.toolsmith/config.toml'),
  `\n[mcp_servers.silent]\ncommand = ${JSON.stringify(node)}\nargs = [${JSON.stringify(join(root, 'test/fixtures/mcp/faulty-server.mjs'))}, "--silent"]\ntimeout_ms = 600000\n\n[sandboxes.mute]\ndescription = "A server that never answers."\n\n[sandboxes.mute.mcp.silent]\n`,
);

// `validate` of the same script answers from the verb cache (src-main/cli/verb-cache.ts) after its first
// run; a script edited before every run (a new comment) takes the whole path: commander, pyright's
// parser, the rules.
const freshScript = join(ws, 'fresh.py');
let freshRuns = 0;
// `init DIR` makes a new workspace: DIR is removed before every run.
const initDir = join(ws, 'new-workspace');
const before: Record<string, () => void> = {
  'validate (a new script each run)': () =>
    writeFileSync(freshScript, `# run ${++freshRuns}\nr = get_user(user_id="u1")\nemit_result(r.data)\n`),
  'init --empty': () => rmSync(initDir, { recursive: true, force: true }),
};

const cases: Record<string, string[]> = {
  'node -e 0 (floor)': [],
  sandboxes: ['--workspace', ws, 'sandboxes'],
  'image build (cached)': ['image', 'build'],
  'kit list': ['--workspace', ws, 'kit', 'list'],
  tools: ['--workspace', ws, 'tools', '--sandbox', 'ecommerce'],
  validate: ['--workspace', ws, 'validate', script, '--sandbox', 'ecommerce'],
  'validate (a new script each run)': ['--workspace', ws, 'validate', freshScript, '--sandbox', 'ecommerce'],
  '--help': ['--help'],
  // The other one-shot verbs the README lists that answer without a sandbox run or an LLM.
  prompt: ['--workspace', ws, 'prompt', '--task', 'email of user u1', '--sandbox', 'ecommerce'],
  'kit info': ['--workspace', ws, 'kit', 'info', 'orders'],
  'runs list': ['--workspace', ws, 'runs', 'list'],
  'template list': ['--workspace', ws, 'template', 'list'],
  'skill list': ['--workspace', ws, 'skill', 'list', '--sandbox', 'ecommerce'],
  'mcp-servers list': ['--workspace', ws, 'mcp-servers', 'list'],
  'pool status': ['--workspace', ws, 'pool', 'status'],
  'init --empty': ['init', initDir, '--empty'],
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

/** CPU ms of this process's children that were waited for (cutime + cstime), Linux only (else 0). */
function childrenCpuMs(): number {
  try {
    // Fields after the command name (which may hold spaces): 14th and 15th are cutime and cstime.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return 0;
  }
}

function once(way: Way, args: string[] | undefined): number {
  const [cmd, argv] = args ? way.argv(args) : way.floor;
  const t = performance.now();
  const r = spawnSync(cmd, argv, {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, TOOLSMITH_HOME: join(ws, '.home'), ...(way.path ? { PATH: way.path } : {}) },
  });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr}`);
  return ms;
}

type Result = {
  p50: number;
  p95: number;
  min: number;
  runs: number;
  p50OverFloor?: number;
  p50OverFloorRatio?: number;
  /**
   * CPU (user + system) per run, from this process's waited-for children's times in /proc/self/stat
   * (10 ms ticks, averaged over the runs): steadier than wall time on a machine other work keeps busy.
   */
  cpuMs?: number;
  cpuOverFloorRatio?: number;
  /** Stops that needed a signal (the input closed, the server still there 2 s later). */
  signalled?: number;
};

/**
 * One MCP session as a client runs it: spawn, `initialize` (timed to its answer), `tools/list` (timed
 * to its answer, from spawn), then the stop of the MCP SDK's StdioClientTransport: the input closed,
 * 2 s, SIGTERM, 2 s, SIGKILL (timed from the input closed to the exit; `signalled` counts the stops
 * that needed a signal, target 0). Each wait is bounded, so a server that never answers or never ends
 * fails the bench instead of hanging it.
 */
function mcpSession(
  way: Way,
  workspace: string,
): Promise<{ initialize: number; toolsList: number; stop: number; signalled: boolean }> {
  const [cmd, argv] = way.argv(['--workspace', workspace, 'mcp']);
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const p = spawn(cmd, argv, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, TOOLSMITH_HOME: join(ws, '.home'), ...(way.path ? { PATH: way.path } : {}) },
    });
    let buf = '';
    let err = '';
    let initialize: number | undefined;
    let toolsList: number | undefined;
    let closedAt: number | undefined;
    let stoppedAt: number | undefined;
    let signalled = false;
    const timers: NodeJS.Timeout[] = [];
    const stop = () => {
      closedAt = performance.now();
      p.stdin.end();
      timers.push(
        setTimeout(() => {
          if (p.exitCode !== null || p.signalCode !== null) return;
          signalled = true;
          p.kill('SIGTERM');
        }, 2_000),
        setTimeout(() => p.exitCode === null && p.signalCode === null && p.kill('SIGKILL'), 4_000),
      );
    };
    timers.push(
      setTimeout(() => {
        if (closedAt === undefined) {
          reject(new Error(`mcp: no answer within 120 s: ${err}`));
          p.kill('SIGKILL');
        }
      }, 120_000),
    );
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      if (initialize === undefined && buf.includes('"id":1')) {
        initialize = performance.now() - t;
        p.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
        p.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) + '\n');
      }
      if (toolsList === undefined && buf.includes('"id":2')) {
        toolsList = performance.now() - t;
        stop();
      }
    });
    p.on('error', reject);
    // The process's own exit, as the SDK client sees it (`exitCode`): 'close' also waits for every other
    // holder of its pipes (an upstream server it started inherits its stderr).
    p.on('exit', () => {
      if (closedAt !== undefined) stoppedAt ??= performance.now();
      p.stdout.destroy();
      p.stderr.destroy();
    });
    p.on('close', () => {
      for (const x of timers) clearTimeout(x);
      if (initialize === undefined || toolsList === undefined || closedAt === undefined)
        return reject(new Error(`mcp: ended before answering initialize and tools/list: ${err}`));
      resolve({ initialize, toolsList, stop: (stoppedAt ?? performance.now()) - closedAt, signalled });
    });
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

async function measureMcp(way: Way, floor: number, workspace: string): Promise<Record<string, Result>> {
  await mcpSession(way, workspace); // warm-up
  const xs: Awaited<ReturnType<typeof mcpSession>>[] = [];
  for (let i = 0; i < N; i++) xs.push(await mcpSession(way, workspace));
  const result = (ms: number[], withFloor: boolean): Result => {
    const p50 = pct(ms, 50);
    return {
      p50,
      p95: pct(ms, 95),
      min: Math.round(Math.min(...ms)),
      runs: N,
      ...(withFloor
        ? {
            p50OverFloor: p50 - floor,
            p50OverFloorRatio: floor ? Math.round((p50 / floor) * 100) / 100 : 0,
          }
        : {}),
    };
  };
  return {
    initialize: result(
      xs.map((x) => x.initialize),
      true,
    ),
    'tools/list (from spawn)': result(
      xs.map((x) => x.toolsList),
      true,
    ),
    'stop (input closed to exit)': {
      ...result(
        xs.map((x) => x.stop),
        false,
      ),
      signalled: xs.filter((x) => x.signalled).length,
    },
  };
}

function measure(way: Way, only?: string[]): Record<string, Result> {
  const results: Record<string, Result> = {};
  for (const [name, args] of Object.entries(cases)) {
    if (only && !only.includes(name)) continue;
    const a = name.startsWith('node') ? undefined : args;
    const prepare = before[name] ?? (() => {});
    prepare();
    once(way, a); // warm-up: file system cache, compile cache, a first image check
    // The preparation's CPU is this process's own, not its children's: outside cpuMs.
    const cpu0 = childrenCpuMs();
    const xs = Array.from({ length: N }, () => (prepare(), once(way, a)));
    results[name] = {
      p50: pct(xs, 50),
      p95: pct(xs, 95),
      min: Math.round(Math.min(...xs)),
      runs: N,
      cpuMs: Math.round((childrenCpuMs() - cpu0) / N),
    };
  }
  // What the verb adds to a bare process start (steadier than wall time when the machine is busy).
  const floor = results['node -e 0 (floor)']?.p50 ?? 0;
  const cpuFloor = results['node -e 0 (floor)']?.cpuMs ?? 0;
  for (const [name, r] of Object.entries(results))
    if (!name.startsWith('node')) {
      r.p50OverFloor = r.p50 - floor;
      r.p50OverFloorRatio = floor ? Math.round((r.p50 / floor) * 100) / 100 : 0;
      if (cpuFloor && r.cpuMs !== undefined)
        r.cpuOverFloorRatio = Math.round((r.cpuMs / cpuFloor) * 100) / 100;
    }
  return results;
}

/** Progress on stderr (stdout is the JSON): where the bench is, should a step hang. */
const step = (text: string) =>
  process.stderr.write(`bench:cli: ${text} (load ${loadavg()[0]?.toFixed(1)})\n`);

/** Both MCP workspaces: the sample's (no upstream server), and one whose upstream server never answers. */
async function measureMcpBoth(way: Way, floor: number): Promise<Record<string, Result>> {
  const out: Record<string, Result> = {};
  for (const [label, workspace] of [
    ['mcp', ws],
    ['mcp, upstream server silent', silentWs],
  ] as const) {
    step(`${label}: sessions`);
    for (const [name, r] of Object.entries(await measureMcp(way, floor, workspace)))
      out[`${label} ${name}`] = r;
  }
  return out;
}

/**
 * `ONLY="runs list,template list"`: those verbs alone (and the floor, which every ratio needs), for
 * before/after rounds of one change that take a minute, not the whole list's several under load.
 */
const only = process.env['ONLY']
  ? ['node -e 0 (floor)', ...process.env['ONLY'].split(',').map((s) => s.trim())]
  : undefined;
for (const name of only ?? []) if (!(name in cases)) throw new Error(`ONLY: no verb "${name}" here`);

const loadBefore = loadavg()[0];
const cloneWay: Way = { argv: (args) => [node, [bin, ...args]], floor: [node, ['-e', '0']] };
let clone: Record<string, Result> | undefined;
if (process.env['CLONE'] !== '0') {
  step('clone: one-shot verbs');
  clone = measure(cloneWay, only);
  if (process.env['MCP'] !== '0')
    Object.assign(clone, await measureMcpBoth(cloneWay, clone['node -e 0 (floor)']?.p50 ?? 0));
}
let installed: Record<string, Result> | undefined;
let installedNode: string | undefined;
let machineNodeFloor: Result | undefined;
if (process.env['INSTALLED'] !== '0') {
  step('installed: npm pack (prepack builds the workbench and the CLI bundle) and npm install -g');
  // INSTALLED_PREFIX=DIR: a prefix installed before (`npm install -g --prefix DIR TARBALL`), measured as
  // it is and kept: before/after rounds of two builds interleaved on a shared machine.
  const reused = process.env['INSTALLED_PREFIX'];
  const { bin: installedBin, prefix } = reused
    ? { bin: join(reused, 'bin', 'toolsmith'), prefix: reused }
    : installTarball();
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
    step('installed: one-shot verbs');
    installed = measure(installedWay, only);
    if (process.env['MCP'] !== '0')
      Object.assign(installed, await measureMcpBoth(installedWay, installed['node -e 0 (floor)']?.p50 ?? 0));
    machineNodeFloor = measure({ argv: () => [machineNode, []], floor: [machineNode, ['-e', '0']] }, [
      'node -e 0 (floor)',
    ])['node -e 0 (floor)'];
  } finally {
    if (!reused) rmSync(prefix, { recursive: true, force: true });
  }
}
rmSync(ws, { recursive: true, force: true });
rmSync(silentWs, { recursive: true, force: true });
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
          'validate (a new script each run)': 300,
          'mcp initialize': 300,
          'mcp, upstream server silent initialize': 300,
        },
      },
      targetP50OverFloorRatio: { installed: 2 },
      loadAverage: { before: Number(loadBefore?.toFixed(2)), after: Number(loadavg()[0]?.toFixed(2)) },
      ...(clone ? { clone: { node: process.version, results: clone } } : {}),
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
