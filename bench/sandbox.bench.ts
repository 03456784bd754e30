/**
 * `npm run bench:sandbox`: prints JSON for the Docker backend (and the bubblewrap fallback for comparison).
 * - per-job overhead for a trivial script on a warm pool (fresh forked process per job), host round trip;
 * - host tool-call round trip, timed inside the script;
 * - throughput with a pool of 2 containers;
 * - replacing a broken container (spawn + tools load) and cold start (first job on an empty pool).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { imagePaths } from '../src-main/app/sandbox-factory.ts';
import { SandboxBackend } from '../src-main/infra/sandbox/backend.ts';
import { DockerWorkerFactory } from '../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../src-main/infra/sandbox/images.ts';
import type { WorkerFactory } from '../src-main/infra/sandbox/pool.ts';
import { ProcessWorkerFactory } from '../src-main/infra/sandbox/process.ts';

const root = new URL('../', import.meta.url).pathname;
const toolsSource = readFileSync(join(root, 'test/fixtures/sandbox/tools.py'), 'utf8');
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0).toFixed(3));
};
const tools = { add: 'add', kill_worker: 'kill_worker', echo: 'echo' };

async function measure(factory: WorkerFactory & { dispose(): Promise<void> }) {
  const make = () =>
    new SandboxBackend({
      factory,
      pool: { minSize: 2, maxSize: 2, maxJobsPerWorker: 100_000, idleMs: 600_000, queueTimeoutMs: 60_000 },
      maxOutputBytes: 1 << 20,
      specFor: (name, runtime) => ({
        name,
        runtime,
        toolsSource,
        hostTools: [{ name: 'echo' }],
        credentials: {},
      }),
      hostTools: { echo: (a) => ({ success: true, data: a['x'] ?? null }) },
    });
  const run = (b: SandboxBackend, code: string) =>
    b.execute({ sandbox: 'bench', language: 'python', code, bodyStartLine: 1, tools, timeoutMs: 60_000 });

  // Cold start: the first job on an empty pool.
  const cold = make();
  let t0 = performance.now();
  const first = await run(cold, 'emit_result(1)\n');
  const coldMs = performance.now() - t0;
  if (!first.success) throw new Error(`cold start failed: ${JSON.stringify(first.error)}`);
  await cold.dispose();

  const b = make();
  await b.warm('bench');
  for (let i = 0; i < 50; i++) await run(b, 'emit_result(1)\n');
  const perJob: number[] = [];
  for (let i = 0; i < 500; i++) {
    t0 = performance.now();
    await run(b, 'emit_result(1)\n');
    perJob.push(performance.now() - t0);
  }

  const tc = await run(
    b,
    'ts = []\nfor i in range(500):\n    t = time.perf_counter()\n    echo(x=i)\n    ts.append((time.perf_counter() - t) * 1000)\nts.sort()\nemit_result({"p50": ts[250], "p95": ts[475]})\n',
  );
  const sandboxTool = await run(
    b,
    'ts = []\nfor i in range(500):\n    t = time.perf_counter()\n    add(a=i)\n    ts.append((time.perf_counter() - t) * 1000)\nts.sort()\nemit_result({"p50": ts[250]})\n',
  );

  const jobs = 1000;
  t0 = performance.now();
  let next = 0;
  let ok = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < jobs) {
        next++;
        if ((await run(b, 'emit_result(1)\n')).success) ok++;
      }
    }),
  );
  const throughput = (ok / (performance.now() - t0)) * 1000;

  // Replacement: a job kills its worker; the pool replaces it (spawn + load) before the next job.
  const repl: number[] = [];
  for (let i = 0; i < 5; i++) {
    await run(b, 'kill_worker()\n');
    const spec = { name: 'bench', runtime: 'python' as const, toolsSource, hostTools: [], credentials: {} };
    t0 = performance.now();
    const { conn } = await factory.spawn(spec);
    await conn.load({ source: toolsSource, hostTools: [], credentials: [] });
    repl.push(performance.now() - t0);
    await conn.kill('bench done');
  }
  await b.dispose();
  return {
    isolation: factory.isolation,
    cold_start_ms: Number(coldMs.toFixed(1)),
    per_job_ms: { p50: pct(perJob, 50), p95: pct(perJob, 95), target_p50: 5 },
    host_tool_call_ms: { ...(tc.data as object), target_p50: 1 },
    sandbox_tool_call_ms: sandboxTool.data,
    throughput_per_s: { pool_size: 2, jobs, ok, value: Number(throughput.toFixed(0)), target: 400 },
    replace_broken_worker_ms: { p50: pct(repl, 50), max: Number(Math.max(...repl).toFixed(1)), target: 300 },
  };
}

const docker = new Docker();
const paths = imagePaths();
const df = new DockerWorkerFactory(docker, (rt) => buildImage(docker, rt, paths));
await df.start();
const result: Record<string, unknown> = { docker: await measure(df) };
await df.dispose();
const pf = new ProcessWorkerFactory({ ...paths, memoryMb: 256, pids: 64, tmpfsMb: 16 });
result['process'] = await measure(pf);
process.stdout.write(JSON.stringify(result, null, 2) + '\n');
