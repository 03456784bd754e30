/**
 * `npm run bench:js-jobns`: what a JS job's namespaces of its own cost (docs/scaling.md, "JS jobs in
 * namespaces of their own"). Per level (`BENCH_LEVELS`, default docker,process: bubblewrap), two warm
 * pools of one node worker each: jobs through the launcher (jobns-launch) and plain child processes (the
 * worker's `nojobns` test switch), `BENCH_JOBS` (default 200) trivial jobs each, in interleaved rounds of
 * 25 so that the machine's load moves both alike. Prints JSON: per-job round-trip p50, p90 and mean (ms).
 */
import Docker from 'dockerode';
import { imagePaths } from '../src-main/app/sandbox-factory.ts';
import { SandboxBackend } from '../src-main/infra/sandbox/backend.ts';
import { DockerWorkerFactory } from '../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../src-main/infra/sandbox/images.ts';
import type { WorkerFactory } from '../src-main/infra/sandbox/pool.ts';
import { ProcessWorkerFactory } from '../src-main/infra/sandbox/process.ts';
import { ONE_WORKER_POOL } from './support/one-worker.ts';

const paths = imagePaths();
const docker = new Docker();
const jobs = Number(process.env['BENCH_JOBS'] ?? 200);
const levels = (process.env['BENCH_LEVELS'] ?? 'docker,process').split(',').filter(Boolean);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0).toFixed(2));
};
const mean = (xs: number[]) => Number((xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1)).toFixed(2));

async function factoryFor(
  level: string,
  wallsOff: string[],
): Promise<WorkerFactory & { dispose(): Promise<void> }> {
  if (level === 'process')
    return new ProcessWorkerFactory({ ...paths, memoryMb: 256, pids: 64, tmpfsMb: 16, wallsOff });
  const f = new DockerWorkerFactory(docker, (rt) => buildImage(docker, rt, paths), undefined, {
    ...(level === 'gvisor' ? { runtime: 'runsc' } : {}),
    wallsOff,
  });
  await f.start();
  return f;
}

async function level(name: string): Promise<Record<string, unknown>> {
  const ways = { jobns: [] as string[], plain: ['nojobns'] };
  const made: Record<string, { f: WorkerFactory & { dispose(): Promise<void> }; b: SandboxBackend }> = {};
  for (const [way, off] of Object.entries(ways)) {
    const f = await factoryFor(name, off);
    const b = new SandboxBackend({
      factory: f,
      pool: ONE_WORKER_POOL,
      maxOutputBytes: 1 << 20,
      specFor: (sandbox, runtime) => ({
        name: sandbox,
        runtime,
        toolsSource: '',
        hostTools: [],
        credentials: {},
      }),
    });
    made[way] = { f, b };
  }
  const run = async (b: SandboxBackend) => {
    const t = performance.now();
    const r = await b.execute({
      sandbox: 'bench',
      language: 'js',
      code: 'emitResult(1);\n',
      bodyStartLine: 1,
      tools: {},
      timeoutMs: 60_000,
    });
    if (!r.success) throw new Error(`a bench job failed: ${JSON.stringify(r.error)}`);
    return performance.now() - t;
  };
  const times: Record<string, number[]> = { jobns: [], plain: [] };
  try {
    for (const { b } of Object.values(made)) for (let i = 0; i < 20; i++) await run(b);
    for (let done = 0; done < jobs; done += 25)
      for (const way of Object.keys(ways))
        for (let i = 0; i < Math.min(25, jobs - done); i++) times[way]?.push(await run(made[way]!.b));
  } finally {
    for (const { f, b } of Object.values(made)) {
      await b.dispose();
      await f.dispose();
    }
  }
  const of = (xs: number[]) => ({ p50: pct(xs, 50), p90: pct(xs, 90), mean: mean(xs), n: xs.length });
  const jobns = of(times['jobns'] ?? []);
  const plain = of(times['plain'] ?? []);
  return { jobns, plain, p50_added_ms: Number((jobns.p50 - plain.p50).toFixed(2)) };
}

const out: Record<string, unknown> = {};
for (const l of levels) out[l] = await level(l);
console.log(JSON.stringify(out, null, 2));
