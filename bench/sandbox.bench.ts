/**
 * `npm run bench:sandbox`: prints JSON for each isolation level side by side: docker (runc), gvisor (Docker's
 * runsc runtime) and process (bubblewrap). `BENCH_LEVELS=docker,gvisor` picks levels; `BENCH_ONLY=per_job`
 * measures only the per-job figures (and `gvisor_over_docker_p50`), for a machine too loaded for the rest.
 * - per-job overhead for a trivial script on a warm pool (fresh forked process per job), host round trip:
 *   back to back (the next job sent as its result comes: the pool saturated) and paced (each job
 *   BENCH_PACE_MS, default 30, 300 on gVisor, after the last result: a warm, idle worker, as between an
 *   LLM's steps; gVisor takes ~120 ms to make a job's process here);
 * - `BENCH_AB=jobns`: jobs in namespaces of their own against a plain fork (the `nojobns` switch), side by side;
 * - `BENCH_AB=rooted` (gVisor): jobs in a tree of their own against the namespaces without it (`norooted`);
 * - `BENCH_AB=center`: a job's walls made in C against jobns.enter's Python (`nocenter`);
 * - `BENCH_AB=forkloop`: the fork server's loop in C against its Python loop alone (`noforkloop`; on gVisor
 *   too, where the C loop watches children through SIGCHLD and makes each job's tree folder);
 * - `BENCH_AB=ptyahead` (gVisor): `pty` loaded by the fork server against each rooted job importing it;
 * - `BENCH_AB=engine` (docker, gVisor): the same jobs on another Docker engine (`BENCH_AB_DOCKER_HOST=unix:///...`,
 *   e.g. one whose `runsc` is another gVisor version, the images loaded into it) against this machine's own;
 * - `BENCH_AB=netns` (gVisor): each rooted job in a network namespace of its own against the sandbox's
 *   one (`nonetns`);
 * - `BENCH_AB_WORKERS=2` with any BENCH_AB: each side a pool of that many workers (default 1), as
 *   bench:sandbox's own per-job figures run, so back to back the pool alternates between them;
 * - `BENCH_AB=1`: the next job's process made ahead (docs/scaling.md) against the old order (the worker's
 *   `noearly` test switch); `BENCH_AB=afterresult`: made once a result is out against made while the
 *   job runs (`duringjob`); both pools warm, rounds interleaved so load moves them alike, back to back
 *   and paced, with the fork floor of the same run (docker and process levels);
 * - `floor`: what this machine can do, measured in the same run and the same sandbox: a bare fork + exit +
 *   wait of the worker's Python (a tool forks inside a job), `docker exec` of a trivial Python in one of
 *   the pool's containers (the process level takes the docker level's), and the ratios the targets are
 *   set in (job p50 / fork <= 3, docker exec / job >= 50, sandbox CPU per job / fork CPU <= 2; jobs/s on
 *   2 cores); `gvisor_over_docker_p50` (<= 10) when both levels ran;
 * - `namespace_cost`: what each of a job's namespaces costs (clone + exit + wait with each, in a sandbox
 *   container on runc and gVisor; BENCH_NS=0 leaves it out);
 * - host tool-call round trip, timed inside the script;
 * - throughput with a pool of 2 containers;
 * - replacing a broken worker as a user sees it: from killing one of the pool's workers (`docker kill` of
 *   its container, SIGKILL of its process) until the pool runs as many jobs at once as before, the
 *   standby promoted in its place (`replace_broken_worker_ms`); and, separately, what starting a new
 *   worker costs (create + start + ready + tools load: `spawn_ms`), which the standby keeps off that path;
 * - cold start (first job on an empty pool);
 * - a job whose worker breaks (an over-cap result): how long until its result is back
 *   (`broken_worker_result_ms`), and how long after that the worker's container/process is gone
 *   (`removal_after_result_ms`): the result does not wait for the removal.
 */
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { imagePaths } from '../src-main/app/sandbox-factory.ts';
import { SandboxBackend } from '../src-main/infra/sandbox/backend.ts';
import { DockerWorkerFactory } from '../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../src-main/infra/sandbox/images.ts';
import { dockerSeccompProfile } from '../src-main/infra/sandbox/seccomp.ts';
import type { WorkerFactory } from '../src-main/infra/sandbox/pool.ts';
import { ProcessWorkerFactory } from '../src-main/infra/sandbox/process.ts';
import { cgroupCpuMs } from './support/cgroup.ts';
import { ONE_WORKER_POOL } from './support/one-worker.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const toolsSource = readFileSync(join(root, 'test/fixtures/sandbox/tools.py'), 'utf8');
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0).toFixed(3));
};
/**
 * The pause before each paced job (BENCH_PACE_MS): long enough for the next job's process to be ready
 * (gVisor's fork alone takes 60-90 ms here, its whole job process ~120 ms: docs/scaling.md).
 */
const paceMs = (isolation: string) =>
  Number(process.env['BENCH_PACE_MS'] ?? (isolation === 'gvisor' ? 300 : 30));
const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** BENCH_QUICK=1: per-job latency, the floor and throughput only (side-by-side runs on a loaded machine). */
const quick = process.env['BENCH_QUICK'] === '1';
const tools = {
  add: 'add',
  kill_worker: 'kill_worker',
  echo: 'echo',
  fork_floor: 'fork_floor',
  job_floor: 'job_floor',
};

/** CPU time (ms) so far of a process and every process under it (the reaped ones counted in their parents). */
function treeCpuMs(root: number): number {
  const procs = new Map<number, { ppid: number; ms: number }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.set(Number(d), {
        ppid: Number(f[1]),
        ms: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10,
      });
    } catch {
      /* gone */
    }
  }
  let total = 0;
  for (const [pid, p] of procs) {
    for (let q: number | undefined = pid; q; q = procs.get(q)?.ppid) {
      if (q === root) {
        total += p.ms;
        break;
      }
    }
  }
  return total;
}

/** The sandbox's own CPU (ms) so far: every worker of the pool with its fork server and jobs. */
const sandboxCpuMs = (isolation: string, ids: string[]) =>
  ids.reduce(
    (sum, id) =>
      sum +
      ((isolation === 'docker' || isolation === 'gvisor' ? cgroupCpuMs(id) : treeCpuMs(Number(id))) ?? NaN),
    0,
  );

/**
 * CPU time (ms) so far of the processes that serve the pool's containers: in each container the worker
 * and the fork server (its job children are counted in the fork server's reaped-children time), the
 * container's containerd-shim, and dockerd (the whole daemon). Read from /proc (clock ticks of 10 ms).
 */
function containerCpu(ids: string[]): Record<string, number> {
  const out: Record<string, number> = {
    worker: 0,
    fork_server_and_job_children: 0,
    containerd_shim: 0,
    dockerd: 0,
  };
  const procs = new Map<number, { comm: string; ppid: number; self: number; children: number }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.set(Number(d), {
        comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
        ppid: Number(f[1]),
        self: (Number(f[11]) + Number(f[12])) * 10,
        children: (Number(f[13]) + Number(f[14])) * 10,
      });
    } catch {
      /* gone */
    }
  }
  for (const [pid, p] of procs) {
    if (p.comm === 'dockerd') out['dockerd'] = (out['dockerd'] ?? 0) + p.self;
    let text = '';
    try {
      text = p.comm.startsWith('containerd-shim')
        ? readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        : p.comm === 'python3'
          ? readFileSync(`/proc/${pid}/cgroup`, 'utf8')
          : '';
    } catch {
      continue;
    }
    if (!ids.some((id) => text.includes(id))) continue;
    const parent = procs.get(p.ppid);
    if (p.comm.startsWith('containerd-shim')) out['containerd_shim'] = (out['containerd_shim'] ?? 0) + p.self;
    else if (parent?.comm !== 'python3') out['worker'] = (out['worker'] ?? 0) + p.self;
    else if (procs.get(parent.ppid)?.comm !== 'python3')
      out['fork_server_and_job_children'] = (out['fork_server_and_job_children'] ?? 0) + p.self + p.children;
    // (a job's child: counted in its fork server's reaped-children time once it is gone)
  }
  return out;
}

const until = async (what: string, ok: () => boolean, ms = 30_000) => {
  const end = performance.now() + ms;
  while (!ok()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

async function measure(
  factory: WorkerFactory & { dispose(): Promise<void> },
  kill: (id: string) => Promise<void>,
  exists: (id: string) => Promise<boolean>,
  dockerExec?: (id: string) => number,
) {
  // (polled: the last answer of a check started in the background)
  const known = new Map<string, boolean>();
  const workerExists = (id: string) => {
    void exists(id).then((v) => known.set(id, v));
    return known.get(id) ?? true;
  };
  const size = 2;
  const make = () =>
    new SandboxBackend({
      factory,
      pool: {
        minSize: size,
        maxSize: size,
        maxJobsPerWorker: 100_000,
        idleMs: 600_000,
        queueTimeoutMs: 60_000,
        standby: 1,
      },
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
  const run = (b: SandboxBackend, code: string, timeoutMs = 60_000) =>
    b.execute({ sandbox: 'bench', language: 'python', code, bodyStartLine: 1, tools, timeoutMs });

  // Cold start: the first job on an empty pool.
  let t0 = performance.now();
  let coldMs = 0;
  if (!quick) {
    const cold = make();
    const first = await run(cold, 'emit_result(1)\n');
    coldMs = performance.now() - t0;
    if (!first.success) throw new Error(`cold start failed: ${JSON.stringify(first.error)}`);
    await cold.dispose();
  }

  const b = make();
  await b.warm('bench');
  const status = () => b.status()[0];
  await until('a standby', () => status()?.standby === 1);
  for (let i = 0; i < 50; i++) await run(b, 'emit_result(1)\n');
  const perJob: number[] = [];
  for (let i = 0; i < 500; i++) {
    t0 = performance.now();
    await run(b, 'emit_result(1)\n');
    perJob.push(performance.now() - t0);
  }
  // The same job coming to a warm, idle worker (a pause after each result, as between an LLM's steps):
  // the latency a job has when the pool is not saturated.
  const paced: number[] = [];
  for (let i = 0; i < 200; i++) {
    await pause(paceMs(factory.isolation));
    t0 = performance.now();
    await run(b, 'emit_result(1)\n');
    paced.push(performance.now() - t0);
  }
  // BENCH_ONLY=per_job: only the per-job figures (a loaded machine where the rest times out).
  if (process.env['BENCH_ONLY'] === 'per_job') {
    process.stderr.write(`${factory.isolation} per-job p50 ${pct(perJob, 50)} ms\n`);
    await b.dispose();
    return {
      isolation: factory.isolation,
      per_job_ms: { p50: pct(perJob, 50), p95: pct(perJob, 95), target_p50: 5 },
      per_job_paced_ms: { p50: pct(paced, 50), p95: pct(paced, 95), pause_ms: paceMs(factory.isolation) },
    };
  }

  // The floor of this machine, in the same sandbox: a bare fork + exit + wait of the worker's Python.
  // (300 forks may take minutes on a loaded machine: its own time limit.)
  const floorRun = await run(b, 'emit_result(fork_floor(n=300).data)\n', 600_000);
  if (!floorRun.success) throw new Error(`fork floor failed: ${JSON.stringify(floorRun.error)}`);
  const floor = floorRun.data as { p50_ms: number; cpu_ms: number };
  // The least a Python job in a fresh process costs here: the same fork, its child running a script
  // compiled beforehand and writing its result as JSON to a pipe (no walls, no protocol).
  const jobFloorN = factory.isolation === 'gvisor' ? 100 : 300;
  const jobFloorRun = await run(b, `emit_result(job_floor(n=${jobFloorN}).data)\n`, 600_000);
  if (!jobFloorRun.success) throw new Error(`job floor failed: ${JSON.stringify(jobFloorRun.error)}`);
  const jobFloor = jobFloorRun.data as { p50_ms: number; cpu_ms: number };
  // `docker exec` of a trivial Python in one of this pool's containers (Docker levels).
  const execMs: number[] = [];
  const execIn = b.workerIds('bench')?.workers[0];
  if (dockerExec && execIn) for (let i = 0; i < 7; i++) execMs.push(dockerExec(execIn));

  // A job that breaks its worker: the result is back at once, the removal happens after.
  const broken: number[] = [];
  const removalAfter: number[] = [];
  for (let i = 0; i < (quick ? 0 : 10); i++) {
    await until('a standby', () => status()?.standby === 1 && status()?.size === size);
    const before = new Set(b.workerIds('bench')?.workers ?? []);
    t0 = performance.now();
    const r = await run(b, 'emit_result("x" * (2 * 1024 * 1024))\n');
    const back = performance.now();
    broken.push(back - t0);
    if (r.exitReason !== 'output_limit') throw new Error(`over-cap job ended ${r.exitReason}`);
    const victim = [...before].find((id) => !b.workerIds('bench')?.workers.includes(id));
    if (victim) {
      await until('the broken worker removed', () => !workerExists(victim), 30_000);
      removalAfter.push(performance.now() - back);
    }
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
  const ids = b.workerIds('bench')?.workers ?? [];
  const cpu0 = factory.isolation !== 'bubblewrap' ? containerCpu(ids) : undefined;
  const sandbox0 = sandboxCpuMs(factory.isolation, ids);
  const host0 = process.cpuUsage();
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
  const sandboxCpuPerJob = (sandboxCpuMs(factory.isolation, ids) - sandbox0) / Math.max(1, ok);
  const host = process.cpuUsage(host0);
  const cpu: Record<string, number> = { host_node: (host.user + host.system) / 1000 };
  if (cpu0) for (const [k, v] of Object.entries(containerCpu(ids))) cpu[k] = v - (cpu0[k] ?? 0);
  const cpuPerJob = Object.fromEntries(
    Object.entries(cpu).map(([k, v]) => [k, Number((v / Math.max(1, ok)).toFixed(2))]),
  );

  // Replacement as a user sees it: one of the pool's workers is killed from outside; the time until the
  // pool runs `size` jobs at once again, all of them successful, with `size` workers (the standby
  // promoted). A job handed to the dying worker before the pool noticed counts: it is retried.
  const repl: number[] = [];
  let promoted = 0;
  for (let i = 0; i < (quick ? 0 : 7); i++) {
    await until('a standby', () => status()?.standby === 1 && status()?.size === size);
    const before = status()?.promoted ?? 0;
    const victim = b.workerIds('bench')?.workers[0] as string;
    t0 = performance.now();
    const killed = kill(victim); // (not awaited: jobs keep coming while Docker kills it)
    for (;;) {
      const rs = await Promise.all(Array.from({ length: size }, () => run(b, 'emit_result(1)\n')));
      if (
        rs.every((r) => r.success) &&
        status()?.size === size &&
        !b.workerIds('bench')?.workers.includes(victim)
      )
        break;
    }
    repl.push(performance.now() - t0);
    await killed;
    promoted += (status()?.promoted ?? 0) - before;
  }
  await b.dispose();

  // What the standby saves: starting a new worker (create + start + ready + tools load).
  const spawn: number[] = [];
  for (let i = 0; i < (quick ? 0 : 5); i++) {
    const spec = { name: 'bench', runtime: 'python' as const, toolsSource, hostTools: [], credentials: {} };
    t0 = performance.now();
    const { conn } = await factory.spawn(spec);
    await conn.load({ source: toolsSource, hostTools: [], credentials: [] });
    spawn.push(performance.now() - t0);
    await conn.kill('bench done');
  }
  const jobP50 = pct(perJob, 50);
  const execP50 = execMs.length ? pct(execMs, 50) : undefined;
  const r2 = (x: number) => Number(x.toFixed(2));
  return {
    isolation: factory.isolation,
    // Against what this machine can do, measured in this run (issue targets beside each ratio).
    floor: {
      fork_exit_wait_p50_ms: r2(floor.p50_ms),
      fork_cpu_ms: r2(floor.cpu_ms),
      docker_exec_python_p50_ms: execP50,
      // Back to back (the next job sent as soon as a result is back: the pool saturated, so on 2 cores
      // bound by the CPU a job takes) and paced (the job reaches a warm worker after a pause).
      job_p50_ms: jobP50,
      job_over_fork: { value: r2(jobP50 / floor.p50_ms), target_max: 3 },
      paced_job_p50_ms: pct(paced, 50),
      paced_job_over_fork: { value: r2(pct(paced, 50) / floor.p50_ms), target_max: 3 },
      docker_exec_over_job: execP50 ? { value: r2(execP50 / jobP50), target_min: 50 } : undefined,
      docker_exec_over_paced_job: execP50
        ? { value: r2(execP50 / pct(paced, 50)), target_min: 50 }
        : undefined,
      // The sandbox's CPU per job (worker + fork server + job; gVisor: its kernel too) during the
      // throughput run, and its ratio to one bare fork's.
      cpu_ms_per_job: r2(sandboxCpuPerJob),
      cpu_over_fork: { value: r2(sandboxCpuPerJob / floor.cpu_ms), target_max: 2 },
      // The same against the least a Python job costs (job_floor): what the walls, the protocol, the
      // fork server and the worker add to it.
      python_job_p50_ms: r2(jobFloor.p50_ms),
      python_job_cpu_ms: r2(jobFloor.cpu_ms),
      python_job_cpu_over_fork: r2(jobFloor.cpu_ms / floor.cpu_ms),
      cpu_over_python_job: r2(sandboxCpuPerJob / jobFloor.cpu_ms),
      jobs_per_s_2_cores: Number(throughput.toFixed(0)),
      jobs_per_s_2_cores_cpu_bound: Number((2000 / sandboxCpuPerJob).toFixed(0)),
    },
    cold_start_ms: Number(coldMs.toFixed(1)),
    per_job_ms: { p50: pct(perJob, 50), p95: pct(perJob, 95), target_p50: 5 },
    per_job_paced_ms: { p50: pct(paced, 50), p95: pct(paced, 95), pause_ms: paceMs(factory.isolation) },
    host_tool_call_ms: { ...(tc.data as object), target_p50: 1 },
    sandbox_tool_call_ms: sandboxTool.data,
    throughput_per_s: { pool_size: 2, jobs, ok, value: Number(throughput.toFixed(0)), target: 400 },
    // Where the CPU of the throughput run went, per job (ms; dockerd: the whole daemon).
    throughput_cpu_ms_per_job: cpuPerJob,
    replace_broken_worker_ms: {
      p50: pct(repl, 50),
      max: Number(Math.max(...repl).toFixed(1)),
      runs: repl.length,
      from_standby: promoted,
      target: 300,
    },
    spawn_ms: { p50: pct(spawn, 50), max: Number(Math.max(...spawn).toFixed(1)) },
    broken_worker_result_ms: {
      p50: pct(broken, 50),
      max: Number(Math.max(...broken).toFixed(1)),
      runs: broken.length,
    },
    removal_after_result_ms: { p50: pct(removalAfter, 50), runs: removalAfter.length },
  };
}

const docker = new Docker();
const paths = imagePaths();
const levels = (process.env['BENCH_LEVELS'] ?? 'docker,gvisor,process').split(',').filter(Boolean);
const containerExists = (id: string) =>
  docker
    .getContainer(id)
    .inspect()
    .then(
      () => true,
      () => false,
    );
/** Two ways to run the same job, measured side by side: names and the walls each leaves out. */
interface ABPair {
  a: string;
  b: string;
  wallsA: string[];
  wallsB: string[];
  /** Side A on another Docker engine (its socket from BENCH_AB_DOCKER_HOST), side B on this one. */
  engineA?: boolean;
}
const AB_PAIRS: Record<string, ABPair> = {
  // The next job's process made ahead of its job, against the old order (the worker's `noearly` switch:
  // made after the last job's cleaning).
  early: { a: 'early', b: 'after', wallsA: [], wallsB: ['noearly'] },
  // Made as soon as a job's result is out, against made while the job runs (`duringjob`).
  afterresult: { a: 'afterresult', b: 'duringjob', wallsA: [], wallsB: ['duringjob'] },
  // Each job in namespaces of its own (jobns.py), against a plain fork (`nojobns`): what the walls cost.
  jobns: { a: 'jobns', b: 'nojobns', wallsA: [], wallsB: ['nojobns'] },
  // gVisor: each job in a tree of its own (jobns.enter_rooted), against the user, pid and IPC namespaces
  // alone that it had before (`norooted`).
  rooted: { a: 'rooted', b: 'userns', wallsA: [], wallsB: ['norooted'] },
  // gVisor (no pidfd): children watched through SIGCHLD, so the next job's process is made as soon as a
  // result is out and the result needs no ping, against the fork server waiting for each child (`nowatch`).
  watch: { a: 'watch', b: 'nowatch', wallsA: [], wallsB: ['nowatch'] },
  // The fork server's steady state in its C loop (forkloop.py), against its Python loop alone.
  forkloop: { a: 'cloop', b: 'pyloop', wallsA: [], wallsB: ['noforkloop'] },
  // A job's walls made in C (ts_enter), against jobns.enter's Python (`nocenter`).
  center: { a: 'cwalls', b: 'pywalls', wallsA: [], wallsB: ['nocenter'] },
  // gVisor: `pty` imported by the fork server for every rooted job's _refuse_ptys, against each job's
  // process importing it (`ptyinjob`).
  ptyahead: { a: 'ptyahead', b: 'ptyinjob', wallsA: [], wallsB: ['ptyinjob'] },
  // Two engines side by side, e.g. two runsc versions (docs/scaling.md, "Debian 13's runsc"): side A on the
  // engine at BENCH_AB_DOCKER_HOST (`unix:///path/to/docker.sock`, its images already loaded), side B on
  // this machine's default one.
  engine: { a: 'other_engine', b: 'this_engine', wallsA: [], wallsB: [], engineA: true },
  // gVisor: each rooted job in a network namespace of its own (a network stack of the sandbox kernel's
  // per job), against the sandbox's one (`nonetns`).
  netns: { a: 'netns', b: 'nonetns', wallsA: [], wallsB: ['nonetns'] },
};

const result: Record<string, unknown> = {};
if (process.env['BENCH_AB']) {
  const ab = AB_PAIRS[process.env['BENCH_AB'] === '1' ? 'early' : process.env['BENCH_AB']];
  if (!ab) throw new Error(`BENCH_AB: one of 1, ${Object.keys(AB_PAIRS).join(', ')}`);
  for (const level of levels) result[level] = await pairAB(level, ab);
  result['loadavg'] = readFileSync('/proc/loadavg', 'utf8').trim();
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  process.exit(0);
}
for (const level of levels) {
  if (level === 'docker' || level === 'gvisor') {
    const df = new DockerWorkerFactory(
      docker,
      (rt) => buildImage(docker, rt, paths),
      undefined,
      level === 'gvisor' ? { runtime: 'runsc' } : {},
    );
    await df.start();
    result[level] = await measure(
      df,
      (id) => docker.getContainer(id).kill(),
      containerExists,
      (id) => {
        const t = performance.now();
        execFileSync('docker', ['exec', id, 'python3', '-c', 'pass'], { stdio: 'ignore' });
        return performance.now() - t;
      },
    );
    await df.dispose();
  } else if (level === 'process') {
    const pf = new ProcessWorkerFactory({ ...paths, memoryMb: 256, pids: 64, tmpfsMb: 16 });
    result['process'] = await measure(
      pf,
      async (pid) => {
        process.kill(-Number(pid), 'SIGKILL');
      },
      async (pid) => {
        try {
          process.kill(Number(pid), 0);
          return true;
        } catch {
          return false;
        }
      },
    );
  } else throw new Error(`unknown level ${level} (docker, gvisor, process)`);
}
const p50 = (level: string) =>
  (result[level] as { per_job_ms?: { p50: number } } | undefined)?.per_job_ms?.p50;
const dockerP50 = p50('docker');
const gvisorP50 = p50('gvisor');
if (dockerP50 && gvisorP50)
  result['gvisor_over_docker_p50'] = { value: Number((gvisorP50 / dockerP50).toFixed(2)), target_max: 10 };
const procFloor = result['process'] as
  | {
      floor?: {
        docker_exec_over_job?: unknown;
        docker_exec_over_paced_job?: unknown;
        job_p50_ms: number;
        paced_job_p50_ms: number;
      };
    }
  | undefined;
const dockerExec = (result['docker'] as { floor?: { docker_exec_python_p50_ms?: number } } | undefined)?.floor
  ?.docker_exec_python_p50_ms;
if (procFloor?.floor && dockerExec)
  procFloor.floor.docker_exec_over_job = {
    value: Number((dockerExec / procFloor.floor.job_p50_ms).toFixed(2)),
    target_min: 50,
  };
if (procFloor?.floor && dockerExec)
  procFloor.floor.docker_exec_over_paced_job = {
    value: Number((dockerExec / procFloor.floor.paced_job_p50_ms).toFixed(2)),
    target_min: 50,
  };
if (process.env['BENCH_NS'] !== '0') result['namespace_cost'] = await namespaceCost();
result['loadavg'] = readFileSync('/proc/loadavg', 'utf8').trim();
process.stdout.write(JSON.stringify(result, null, 2) + '\n');

/**
 * What each namespace of a job costs: clone() + exit + wait of the worker's Python in a sandbox container
 * (its seccomp profile, its user), with no namespace (a plain fork), with each of user, user+pid,
 * user+mount, user+IPC, all four, and all four plus the job's setup (jobns.enter: ids, mounts, /proc,
 * capabilities, seccomp filter). Rounds interleave the kinds so load moves them alike; p50 in ms.
 */
async function namespaceCost(): Promise<Record<string, unknown>> {
  const image = await buildImage(docker, 'python', paths);
  const dir = mkdtempSync(join(tmpdir(), 'toolsmith-bench-'));
  const profile = join(dir, 'seccomp.json');
  writeFileSync(profile, dockerSeccompProfile());
  const script = `
import ctypes, json, os, statistics, sys, time
sys.path.insert(0, "/opt/toolsmith")
from toolsmith_worker import hygiene, jobns
hygiene.find_writable()
lib = ctypes.PyDLL(None, use_errno=True)
lib.syscall.restype = ctypes.c_long
lib.syscall.argtypes = [ctypes.c_long] * 6
U, P, M, I = jobns.CLONE_NEWUSER, jobns.CLONE_NEWPID, jobns.CLONE_NEWNS, jobns.CLONE_NEWIPC
kinds = {"fork": (0, False), "user": (U, False), "user_pid": (U | P, False), "user_mnt": (U | M, False), "user_ipc": (U | I, False), "all": (U | P | M | I, False), "all_with_setup": (U | P | M | I, True)}
uid, gid = os.getuid(), os.getgid()
jobns.prepare()
ts = {k: [] for k in kinds}
for _ in range(12):
    for k, (flags, setup) in kinds.items():
        for _ in range(10):
            t = time.perf_counter()
            pid = lib.syscall(jobns._ARCH["clone"], flags | 17, 0, 0, 0, 0)
            if pid == 0:
                if setup:
                    jobns.enter(uid, gid)
                os._exit(0)
            os.waitpid(pid, 0)
            ts[k].append((time.perf_counter() - t) * 1000)
p50 = {k: round(statistics.median(v), 3) for k, v in ts.items()}
print(json.dumps({"p50_ms": p50, "over_fork_ms": {k: round(v - p50["fork"], 3) for k, v in p50.items() if k != "fork"}}))
`;
  const out: Record<string, unknown> = {};
  try {
    for (const [level, runtime] of [
      ['docker', 'runc'],
      ['gvisor', 'runsc'],
    ] as const) {
      try {
        const text = execFileSync(
          'docker',
          [
            'run',
            '--rm',
            '--runtime',
            runtime,
            '--user',
            '65534:65534',
            '--cap-drop',
            'ALL',
            '--read-only',
            '--network',
            'none',
            '--security-opt',
            'no-new-privileges',
            '--security-opt',
            `seccomp=${profile}`,
            '--security-opt',
            'systempaths=unconfined',
            '--tmpfs',
            '/tmp:rw,nosuid,nodev,noexec,size=16m,mode=1777',
            '--entrypoint',
            'python3',
            image,
            '-I',
            '-c',
            script,
          ],
          { encoding: 'utf8', timeout: 300_000 },
        );
        out[level] = JSON.parse(text.trim().split('\n').pop() ?? '{}');
      } catch (e) {
        out[level] = { error: e instanceof Error ? e.message.split('\n')[0] : String(e) };
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

/**
 * BENCH_AB=1 (or `early`), BENCH_AB=jobns: per-job p50 of the two ways of a pair (AB_PAIRS), one warm pool
 * of one worker each (BENCH_AB_WORKERS: that many), 12 interleaved rounds of 25 jobs (load moves both
 * alike), and the fork floor measured in between; with each side's CPU per job (its containers' cgroups:
 * docker and gVisor) over the back-to-back jobs.
 */
async function pairAB(level: string, ab: ABPair): Promise<Record<string, unknown>> {
  const otherHost = process.env['BENCH_AB_DOCKER_HOST'] ?? '';
  if (ab.engineA && (level === 'process' || !otherHost.startsWith('unix://')))
    throw new Error(
      'BENCH_AB=engine: docker or gvisor levels, with BENCH_AB_DOCKER_HOST=unix:///path/to/its.sock',
    );
  const makeFactory = async (wallsOff: string[], other = false) => {
    if (level === 'process')
      return new ProcessWorkerFactory({ ...paths, memoryMb: 256, pids: 64, tmpfsMb: 16, wallsOff });
    const engine = other ? new Docker({ socketPath: otherHost.slice('unix://'.length) }) : docker;
    const df = new DockerWorkerFactory(
      engine,
      (rt) => buildImage(engine, rt, paths),
      undefined,
      level === 'gvisor' ? { runtime: 'runsc', wallsOff } : { wallsOff },
    );
    await df.start();
    return df;
  };
  const workers = Number(process.env['BENCH_AB_WORKERS'] ?? 1);
  const backendOf = (factory: WorkerFactory) =>
    new SandboxBackend({
      factory,
      pool: { ...ONE_WORKER_POOL, minSize: workers, maxSize: workers },
      maxOutputBytes: 1 << 20,
      specFor: (name, runtime) => ({ name, runtime, toolsSource, hostTools: [], credentials: {} }),
    });
  const run = (b: SandboxBackend, code: string, timeoutMs = 60_000) =>
    b.execute({ sandbox: 'bench', language: 'python', code, bodyStartLine: 1, tools, timeoutMs });
  const fs = [await makeFactory(ab.wallsA, ab.engineA), await makeFactory(ab.wallsB)];
  const [early, after] = fs.map(backendOf) as [SandboxBackend, SandboxBackend];
  for (const b of [early, after]) {
    if (workers > 1) await b.warm('bench');
    for (let i = 0; i < 30; i++) await run(b, 'emit_result(1)\n');
  }
  const cgroups = level === 'docker' || level === 'gvisor';
  const cpuOf = (b: SandboxBackend) =>
    cgroups ? sandboxCpuMs(level, b.workerIds('bench')?.workers ?? []) : NaN;
  const cpu: Record<'early' | 'after', number> = { early: 0, after: 0 };
  const ts: Record<'early' | 'after', number[]> = { early: [], after: [] };
  const paced: Record<'early' | 'after', number[]> = { early: [], after: [] };
  const forks: number[] = [];
  for (let round = 0; round < 12; round++) {
    for (const [name, b] of [
      ['early', early],
      ['after', after],
    ] as const) {
      const cpu0 = cpuOf(b);
      for (let i = 0; i < 25; i++) {
        const t = performance.now();
        await run(b, 'emit_result(1)\n');
        ts[name].push(performance.now() - t);
      }
      cpu[name] += cpuOf(b) - cpu0;
      for (let i = 0; i < 10; i++) {
        await pause(paceMs(level));
        const t = performance.now();
        await run(b, 'emit_result(1)\n');
        paced[name].push(performance.now() - t);
      }
    }
    const fl = await run(early, 'emit_result(fork_floor(n=20).data)\n', 600_000);
    forks.push((fl.data as { p50_ms: number }).p50_ms);
  }
  await early.dispose();
  await after.dispose();
  for (const f of fs) await (f as { dispose(): Promise<void> }).dispose();
  const fork = pct(forks, 50);
  const r2 = (x: number) => Number(x.toFixed(2));
  const perJobCpu = (name: 'early' | 'after') =>
    cgroups ? { cpu_ms_per_job: r2(cpu[name] / ts[name].length) } : {};
  return {
    fork_exit_wait_p50_ms: fork,
    workers,
    [ab.a]: {
      p50: pct(ts.early, 50),
      p95: pct(ts.early, 95),
      over_fork: r2(pct(ts.early, 50) / fork),
      ...perJobCpu('early'),
    },
    [ab.b]: {
      p50: pct(ts.after, 50),
      p95: pct(ts.after, 95),
      over_fork: r2(pct(ts.after, 50) / fork),
      ...perJobCpu('after'),
    },
    [`${ab.a}_over_${ab.b}_p50`]: r2(pct(ts.early, 50) / pct(ts.after, 50)),
    // A job reaching a warm, idle worker (paceMs after the last result).
    paced: {
      pause_ms: paceMs(level),
      [ab.a]: {
        p50: pct(paced.early, 50),
        p95: pct(paced.early, 95),
        over_fork: r2(pct(paced.early, 50) / fork),
      },
      [ab.b]: {
        p50: pct(paced.after, 50),
        p95: pct(paced.after, 95),
        over_fork: r2(pct(paced.after, 50) / fork),
      },
      [`${ab.a}_over_${ab.b}_p50`]: r2(pct(paced.early, 50) / pct(paced.after, 50)),
    },
  };
}
