/**
 * `npm run bench:sandbox`: prints JSON for each isolation level side by side: docker (runc), gvisor (Docker's
 * runsc runtime) and process (bubblewrap). `BENCH_LEVELS=docker,gvisor` picks levels.
 * - per-job overhead for a trivial script on a warm pool (fresh forked process per job), host round trip;
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
import { readdirSync, readFileSync } from 'node:fs';
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
  const status = () => b.status()[0];
  await until('a standby', () => status()?.standby === 1);
  for (let i = 0; i < 50; i++) await run(b, 'emit_result(1)\n');
  const perJob: number[] = [];
  for (let i = 0; i < 500; i++) {
    t0 = performance.now();
    await run(b, 'emit_result(1)\n');
    perJob.push(performance.now() - t0);
  }

  // A job that breaks its worker: the result is back at once, the removal happens after.
  const broken: number[] = [];
  const removalAfter: number[] = [];
  for (let i = 0; i < 10; i++) {
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
  for (let i = 0; i < 7; i++) {
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
  for (let i = 0; i < 5; i++) {
    const spec = { name: 'bench', runtime: 'python' as const, toolsSource, hostTools: [], credentials: {} };
    t0 = performance.now();
    const { conn } = await factory.spawn(spec);
    await conn.load({ source: toolsSource, hostTools: [], credentials: [] });
    spawn.push(performance.now() - t0);
    await conn.kill('bench done');
  }
  return {
    isolation: factory.isolation,
    cold_start_ms: Number(coldMs.toFixed(1)),
    per_job_ms: { p50: pct(perJob, 50), p95: pct(perJob, 95), target_p50: 5 },
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
const levels = (process.env['BENCH_LEVELS'] ?? 'docker,gvisor,process').split(',');
const containerExists = (id: string) =>
  docker
    .getContainer(id)
    .inspect()
    .then(
      () => true,
      () => false,
    );
const result: Record<string, unknown> = {};
for (const level of levels) {
  if (level === 'docker' || level === 'gvisor') {
    const df = new DockerWorkerFactory(
      docker,
      (rt) => buildImage(docker, rt, paths),
      undefined,
      level === 'gvisor' ? { runtime: 'runsc' } : {},
    );
    await df.start();
    result[level] = await measure(df, (id) => docker.getContainer(id).kill(), containerExists);
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
process.stdout.write(JSON.stringify(result, null, 2) + '\n');
