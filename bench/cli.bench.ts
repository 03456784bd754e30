/**
 * `npm run bench:cli`: prints JSON. Wall time of one-shot CLI verbs started as a user starts them
 * (`node bin/toolsmith.mjs <verb>` on Node 24, a fresh process each time), p50/p95 over N runs after
 * one warm-up: `sandboxes`, a cached `image build`, `kit list`, `tools`, `validate`, `--help`, plus a bare
 * `node -e 0` for the floor a process start costs on this machine. Target: sandboxes and a cached
 * image build <= 300 ms. `N=30 npm run bench:cli` for more runs; the load average is printed because
 * a busy machine moves these numbers.
 */
import { spawnSync } from 'node:child_process';
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

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0);
};

function once(args: string[]): number {
  const argv = args.length ? [bin, ...args] : ['-e', '0'];
  const t = performance.now();
  const r = spawnSync(node, argv, {
    encoding: 'utf8',
    env: { ...process.env, TOOLSMITH_HOME: join(ws, '.home') },
  });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const results: Record<
  string,
  { p50: number; p95: number; min: number; runs: number; p50OverFloor?: number }
> = {};
const loadBefore = loadavg()[0];
for (const [name, args] of Object.entries(cases)) {
  once(args); // warm-up: file system cache, a first image check
  const xs = Array.from({ length: N }, () => once(args));
  results[name] = { p50: pct(xs, 50), p95: pct(xs, 95), min: Math.round(Math.min(...xs)), runs: N };
}
// What the verb adds to a bare process start (steadier than wall time when the machine is busy).
const floor = results['node -e 0 (floor)']?.p50 ?? 0;
for (const [name, r] of Object.entries(results)) if (!name.startsWith('node')) r.p50OverFloor = r.p50 - floor;
rmSync(ws, { recursive: true, force: true });
process.stdout.write(
  JSON.stringify(
    {
      bench: 'cli',
      unit: 'ms wall per process',
      targetMs: { sandboxes: 300, 'image build (cached)': 300 },
      loadAverage: { before: Number(loadBefore?.toFixed(2)), after: Number(loadavg()[0]?.toFixed(2)) },
      results,
    },
    null,
    2,
  ) + '\n',
);
