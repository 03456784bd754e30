/**
 * `npm run bench:js-jobns`: what a JS job's namespaces of its own cost, and what making its process ahead
 * saves (docs/scaling.md, "JS jobs in namespaces of their own" and "JS jobs: the next job's process made
 * ahead"). Per level (`BENCH_LEVELS`, default docker,process: bubblewrap), two warm pools of one node
 * worker each, compared side by side (`BENCH_AB`):
 * - `jobns` (default): jobs through the launcher (jobns-launch) against plain child processes (the worker's
 *   `nojobns` test switch), both started on the job's arrival (`noahead`), as before;
 * - `ahead`: the launcher with the next job's process made ahead against the same started on the job's
 *   arrival (`noahead`);
 * - `netns` (gVisor): rooted jobs in a network namespace of their own against the sandbox's one
 *   (`nonetns`).
 * - `clean`: the sweep and wipe after each job (deno: the launcher's, `--clean`; node and bun: the
 *   worker's) against none (`nosweep`, `nowipe`), jobs through the launcher either way.
 * - `ipcfilter`: each job's process with the launcher's IPC filter (deny_ipc, a second seccomp program
 *   every system call of the job then runs) against without it (`noipcfilter`).
 * Docker and gVisor levels also give each way's CPU per back-to-back job (its container's cgroup).
 * Level `gvisor` (runsc) runs bun jobs (rooted there: node is refused on gVisor); the others node, or
 * `BENCH_RUNTIME` (node, bun, deno).
 * `BENCH_JOBS` (default 200) trivial jobs each, in interleaved rounds of 25 back to back (each job sent as
 * the last result arrives) and, with `BENCH_PACED` (default 10, 0: none) jobs each sent `BENCH_PACE_MS`
 * (default 100) after the last result, so that the machine's load moves both ways alike. Prints JSON:
 * per-job round-trip p50, p90 and mean (ms), back to back and paced, and the load average at the start
 * and the end.
 */
import { loadavg } from 'node:os';
import Docker from 'dockerode';
import { imagePaths } from '../src-main/app/sandbox-factory.ts';
import { SandboxBackend } from '../src-main/infra/sandbox/backend.ts';
import { DockerWorkerFactory } from '../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../src-main/infra/sandbox/images.ts';
import type { WorkerFactory } from '../src-main/infra/sandbox/pool.ts';
import { ProcessWorkerFactory } from '../src-main/infra/sandbox/process.ts';
import { cgroupCpuMs } from './support/cgroup.ts';
import { ONE_WORKER_POOL } from './support/one-worker.ts';

const paths = imagePaths();
const docker = new Docker();
const jobs = Number(process.env['BENCH_JOBS'] ?? 200);
const levels = (process.env['BENCH_LEVELS'] ?? 'docker,process').split(',').filter(Boolean);
const paced = Number(process.env['BENCH_PACED'] ?? 10);
const paceMs = Number(process.env['BENCH_PACE_MS'] ?? 100);
const AB: Record<string, Record<string, string[]>> = {
  jobns: { jobns: ['noahead'], plain: ['nojobns'] },
  ahead: { ahead: [], noahead: ['noahead'] },
  netns: { netns: [], nonetns: ['nonetns'] },
  clean: { clean: [], noclean: ['nosweep', 'nowipe'] },
  ipcfilter: { ipcfilter: [], noipcfilter: ['noipcfilter'] },
};
const ab = process.env['BENCH_AB'] ?? 'jobns';
const ways: Record<string, string[]> =
  AB[ab] ??
  (() => {
    throw new Error(`BENCH_AB=${ab}: one of ${Object.keys(AB).join(', ')}`);
  })();
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
  const runtime =
    name === 'gvisor' ? 'bun' : ((process.env['BENCH_RUNTIME'] ?? 'node') as 'node' | 'bun' | 'deno');
  const run = async (b: SandboxBackend) => {
    const t = performance.now();
    const r = await b.execute({
      sandbox: 'bench',
      runtime,
      language: 'js',
      code: 'emitResult(1);\n',
      bodyStartLine: 1,
      tools: {},
      timeoutMs: 60_000,
    });
    if (!r.success) throw new Error(`a bench job failed: ${JSON.stringify(r.error)}`);
    return performance.now() - t;
  };
  const names = Object.keys(ways);
  const times: Record<string, { b2b: number[]; paced: number[] }> = Object.fromEntries(
    names.map((w) => [w, { b2b: [], paced: [] }]),
  );
  // The CPU of each way's containers over its back-to-back jobs (docker, gVisor: their cgroups; gVisor's
  // sandbox kernel included).
  const cpuOf = (b: SandboxBackend) =>
    name === 'process'
      ? NaN
      : (b.workerIds('bench', runtime)?.workers ?? []).reduce((sum, id) => sum + (cgroupCpuMs(id) ?? NaN), 0);
  const cpu: Record<string, number> = Object.fromEntries(names.map((w) => [w, 0]));
  try {
    for (const { b } of Object.values(made)) for (let i = 0; i < 20; i++) await run(b);
    for (let done = 0; done < jobs; done += 25)
      for (const way of names) {
        const b = made[way]!.b;
        const cpu0 = cpuOf(b);
        for (let i = 0; i < Math.min(25, jobs - done); i++) times[way]!.b2b.push(await run(b));
        cpu[way]! += cpuOf(b) - cpu0;
        for (let i = 0; i < paced; i++) {
          await new Promise((r) => setTimeout(r, paceMs));
          times[way]!.paced.push(await run(b));
        }
      }
  } finally {
    for (const { f, b } of Object.values(made)) {
      await b.dispose();
      await f.dispose();
    }
  }
  const of = (xs: number[]) => ({ p50: pct(xs, 50), p90: pct(xs, 90), mean: mean(xs), n: xs.length });
  const res: Record<string, unknown> = { runtime };
  for (const w of names)
    res[w] = {
      back_to_back: of(times[w]!.b2b),
      ...(paced > 0 ? { paced: of(times[w]!.paced) } : {}),
      ...(name === 'process' ? {} : { cpu_ms_per_job: Number((cpu[w]! / times[w]!.b2b.length).toFixed(2)) }),
    };
  const [a, b] = names as [string, string];
  const diff = (k: 'b2b' | 'paced') => Number((pct(times[a]![k], 50) - pct(times[b]![k], 50)).toFixed(2));
  res[`p50_${a}_minus_${b}_ms`] = {
    back_to_back: diff('b2b'),
    ...(paced > 0 ? { paced: diff('paced') } : {}),
  };
  return res;
}

const load = () => loadavg().map((x) => Number(x.toFixed(2)));
const out: Record<string, unknown> = { ab, pace_ms: paceMs, loadavg_start: load() };
for (const l of levels) out[l] = await level(l);
out['loadavg_end'] = load();
console.log(JSON.stringify(out, null, 2));
