/**
 * Where a job's CPU goes (`npm run bench:stages`), on the docker and process levels (`BENCH_LEVELS`):
 * the worker's Python, copied to a folder of this run's own and marked with a stamp at each stage of a
 * job's process (its thread CPU time and page faults so far: a new process starts both at zero), runs
 * `BENCH_JOBS` (default 300) jobs back to back on one warm worker (`BENCH_WALLS_OFF`: ways the worker
 * leaves out, as its TOOLSMITH_TEST_WALLS; `noforkloop` measures the fork server's Python loop alone).
 * Prints, as JSON, the p50 of each stage's CPU (µs) and faults, the job process's whole CPU (its exit
 * included: from the fork server's reaped-children time), the fork server's and the worker's CPU per
 * job, and this machine's floor in the same sandbox: one bare fork + exit + wait, and what a new process
 * pays per page of its parent's memory it reads or writes (the cost that sets everything else on a
 * machine with slow page faults).
 *
 * The stamps are put in by text (each anchor below must be found once): the product's files are not
 * changed, and a stale anchor stops the bench with the file and text to update. gVisor (`gvisor` in
 * BENCH_LEVELS) counts thread time in 10 ms steps, too coarse for these stages: there the stamps read the
 * wall clock from the moment the fork server asked for the clone, its processes are not visible from the
 * host, and the CPU per job is the container's cgroup's (sandbox kernel included). In place of the faults
 * (which gVisor does not count) each gVisor stamp reads the sandbox's AnonPages: every 2 MiB range a
 * process copies on its first write after a fork adds 2048 kB, so `job_process_stage_ranges` is how many
 * ranges each stage copied, on average (docs/scaling.md, "gVisor: what a job's process writes").
 * `BENCH_ROWS=<file>` writes every job's stamps there as JSON.
 */
import { fileURLToPath } from 'node:url';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { imagePaths } from '../src-main/app/sandbox-factory.ts';
import { SandboxBackend } from '../src-main/infra/sandbox/backend.ts';
import { DockerWorkerFactory } from '../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../src-main/infra/sandbox/images.ts';
import type { WorkerFactory } from '../src-main/infra/sandbox/pool.ts';
import { ProcessWorkerFactory } from '../src-main/infra/sandbox/process.ts';
import { cgroupCpuMs } from './support/cgroup.ts';
import { procStat, workerPids } from './support/procs.ts';
import { instrumentedImages } from './support/stages.ts';
import { ONE_WORKER_POOL } from './support/one-worker.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const toolsSource = readFileSync(join(root, 'test/fixtures/sandbox/tools.py'), 'utf8');
const JOBS = Number(process.env['BENCH_JOBS'] ?? 300);
const levels = (process.env['BENCH_LEVELS'] ?? 'docker,process').split(',').filter(Boolean);
// (walls or ways the worker leaves out, as TOOLSMITH_TEST_WALLS: `noforkloop` measures the Python loop)
const wallsOff = (process.env['BENCH_WALLS_OFF'] ?? '').split(',').filter(Boolean);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

async function measure(factory: WorkerFactory & { dispose(): Promise<void> }, isolation: string) {
  const b = new SandboxBackend({
    factory,
    pool: ONE_WORKER_POOL,
    maxOutputBytes: 1 << 20,
    specFor: (name, runtime) => ({ name, runtime, toolsSource, hostTools: [], credentials: {} }),
    hostTools: {},
  });
  const tools = { fork_floor: 'fork_floor', page_floor: 'page_floor', job_floor: 'job_floor' };
  const run = (code: string) =>
    b.execute({ sandbox: 'bench', language: 'python', code, bodyStartLine: 1, tools, timeoutMs: 600_000 });
  try {
    await b.warm('bench');
    for (let i = 0; i < 30; i++) await run('emit_result(1)\n');
    const fork = await run('emit_result(fork_floor(n=200).data)\n');
    const page = await run('emit_result(page_floor(pages=2000, n=20).data)\n');
    const pyJob = await run(`emit_result(job_floor(n=${isolation === 'gvisor' ? 50 : 200}).data)\n`);
    if (!fork.success || !page.success || !pyJob.success)
      throw new Error(`floor failed: ${JSON.stringify(fork.error ?? page.error ?? pyJob.error)}`);
    // (the floor jobs' processes are reaped, with their children's CPU, before counting starts)
    for (let i = 0; i < 5; i++) await run('emit_result(1)\n');
    const id = b.workerIds('bench')?.workers[0] as string;
    const gvisor = isolation === 'gvisor';
    const { worker, server } = gvisor
      ? { worker: process.pid, server: process.pid }
      : workerPids(isolation, id);
    const w0 = procStat(worker);
    const s0 = procStat(server);
    const cg0 = gvisor ? (cgroupCpuMs(id) ?? NaN) : 0;
    const rows: [string, number, number][][] = [];
    const lat: number[] = [];
    for (let i = 0; i < JOBS; i++) {
      const t = performance.now();
      const r = await run('emit_result(1)\n');
      lat.push(performance.now() - t);
      if (!r.success) throw new Error(`job failed: ${JSON.stringify(r.error)}`);
      const json = r.logs.find((l) => l.startsWith('TOOLSMITH_STAGES '))?.slice('TOOLSMITH_STAGES '.length);
      if (json) rows.push(JSON.parse(json) as [string, number, number][]);
    }
    const w1 = procStat(worker);
    const s1 = procStat(server);
    const cgroupPerJob = gvisor ? ((cgroupCpuMs(id) ?? NaN) - cg0) / JOBS : 0;
    if (rows.length < JOBS / 2)
      throw new Error(`bench:stages: stages came back from ${rows.length} of ${JOBS} jobs`);
    const names = rows[0]!.map((s) => s[0]);
    const stagesUs: Record<string, number> = {};
    const stagesFaults: Record<string, number> = {};
    names.forEach((name, k) => {
      const prev = (row: [string, number, number][], j: number) => (k === 0 ? 0 : (row[k - 1]![j] as number));
      stagesUs[name] = Math.round(
        pct(
          rows.map((row) => row[k]![1] - prev(row, 1)),
          50,
        ),
      );
      stagesFaults[name] = Math.round(
        pct(
          rows.map((row) => row[k]![2] - prev(row, 2)),
          50,
        ),
      );
    });
    // gVisor: the 2 MiB ranges copied in each stage, on average (the sandbox's AnonPages, in 2048 kB steps)
    const stagesRanges: Record<string, number> = {};
    if (gvisor)
      names.forEach((name, k) => {
        if (k === 0) return;
        const d = rows.map((row) => (row[k]![2] - row[k - 1]![2]) / 2048);
        stagesRanges[name] = Number((d.reduce((a, x) => a + x, 0) / d.length).toFixed(2));
      });
    if (process.env['BENCH_ROWS']) writeFileSync(process.env['BENCH_ROWS'], JSON.stringify(rows));
    const untilRun =
      pct(
        rows.map((row) => row[row.length - 1]![1]),
        50,
      ) / 1000;
    const childMs = (s1.ccpu - s0.ccpu) / JOBS;
    const f = fork.data as { p50_ms: number; cpu_ms: number };
    const pg = page.data as { read_us: number; write_us: number; child_us: number };
    const pj = pyJob.data as { p50_ms: number; cpu_ms: number };
    const r2 = (x: number) => Number(x.toFixed(2));
    if (gvisor)
      return {
        isolation,
        jobs: JOBS,
        floor: {
          fork_exit_wait_p50_ms: r2(f.p50_ms),
          fork_cpu_ms: r2(f.cpu_ms),
          python_job_cpu_ms: r2(pj.cpu_ms),
        },
        job_p50_ms: r2(pct(lat, 50)),
        // Wall-clock stages (µs, p50) from the clone request; faults as the sandbox kernel counts them.
        job_process_stage_wall_us: stagesUs,
        // The 2 MiB ranges copied (on average) in each stage, from the stage before it: every write to a
        // range shared with the fork server copies all of it (docs/scaling.md, "gVisor's fork")
        job_process_stage_ranges: stagesRanges,
        job_process_ranges_until_result: Number(
          Object.values(stagesRanges)
            .reduce((a, x) => a + x, 0)
            .toFixed(2),
        ),
        job_process_until_result_ms: r2(untilRun),
        // Everything of the container per job (worker, fork server, job, and gVisor's own kernel).
        container_cpu_ms: r2(cgroupPerJob),
        container_cpu_over_fork: r2(cgroupPerJob / f.cpu_ms),
      };
    return {
      isolation,
      jobs: JOBS,
      floor: {
        fork_exit_wait_p50_ms: r2(f.p50_ms),
        fork_cpu_ms: r2(f.cpu_ms),
        page_read_us: r2(pg.read_us),
        page_write_us: r2(pg.write_us),
        // The least a Python job in a fresh process costs (a fork whose child runs a compiled script and
        // writes its result as JSON: no walls, no protocol).
        python_job_cpu_ms: r2(pj.cpu_ms),
        python_job_cpu_over_fork: r2(pj.cpu_ms / f.cpu_ms),
      },
      job_p50_ms: r2(pct(lat, 50)),
      // The job's own process, stage by stage (p50 of each stage's thread CPU and its page faults).
      job_process_stage_us: stagesUs,
      job_process_stage_faults: stagesFaults,
      job_process_until_result_ms: r2(untilRun),
      // Its whole CPU, exit included (the fork server's reaped-children time, 10 ms ticks over all jobs).
      job_process_cpu_ms: r2(childMs),
      job_process_exit_and_rest_ms: r2(childMs - untilRun),
      job_process_faults: r2((s1.cflt - s0.cflt) / JOBS),
      fork_server_cpu_ms: r2((s1.cpu - s0.cpu) / JOBS),
      fork_server_faults: r2((s1.flt - s0.flt) / JOBS),
      worker_cpu_ms: r2((w1.cpu - w0.cpu) / JOBS),
      sandbox_cpu_over_fork: r2((childMs + (s1.cpu - s0.cpu) / JOBS + (w1.cpu - w0.cpu) / JOBS) / f.cpu_ms),
      sandbox_cpu_over_python_job: r2(
        (childMs + (s1.cpu - s0.cpu) / JOBS + (w1.cpu - w0.cpu) / JOBS) / pj.cpu_ms,
      ),
    };
  } finally {
    await b.dispose();
  }
}

const images = instrumentedImages(join(root, 'sandbox-images'));
const wallImages = levels.includes('gvisor')
  ? instrumentedImages(join(root, 'sandbox-images'), 'wall')
  : undefined;
const paths = { ...imagePaths(), imagesDir: images };
const result: Record<string, unknown> = {};
try {
  for (const level of levels) {
    if (level === 'docker') {
      const docker = new Docker();
      const df = new DockerWorkerFactory(docker, (rt) => buildImage(docker, rt, paths), undefined, {
        wallsOff,
      });
      await df.start();
      try {
        result['docker'] = await measure(df, 'docker');
      } finally {
        await df.dispose();
      }
    } else if (level === 'gvisor' && wallImages) {
      const docker = new Docker();
      const gPaths = { ...paths, imagesDir: wallImages };
      const gf = new DockerWorkerFactory(docker, (rt) => buildImage(docker, rt, gPaths), undefined, {
        runtime: 'runsc',
        wallsOff,
      });
      await gf.start();
      try {
        result['gvisor'] = await measure(gf, 'gvisor');
      } finally {
        await gf.dispose();
      }
    } else if (level === 'process') {
      const pf = new ProcessWorkerFactory({ ...paths, memoryMb: 256, pids: 64, tmpfsMb: 16, wallsOff });
      try {
        result['process'] = await measure(pf, 'bubblewrap');
      } finally {
        await pf.dispose();
      }
    } else throw new Error(`bench:stages: unknown level ${level} (docker, process, gvisor)`);
  }
} finally {
  rmSync(images, { recursive: true, force: true });
  if (wallImages) rmSync(wallImages, { recursive: true, force: true });
}
result['loadavg'] = readFileSync('/proc/loadavg', 'utf8').trim();
process.stdout.write(JSON.stringify(result, null, 2) + '\n');
