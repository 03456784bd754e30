/**
 * The next job's process (docs/scaling.md, "The next job's process"): where a job's process is wholly
 * alone (runc, bubblewrap: its own user, pid, mount and IPC namespaces, /proc and writable mounts), the
 * fork server makes the next job's process as soon as a job's result is out, before that job's cleaning,
 * so a job that comes after it finds its process ready; a running job never shares the CPU with its
 * making. It never sees the job it was made beside, and tools reloaded meanwhile discard it. Each case
 * holds its job open in a host tool call, looks from the host, then lets it go: no sleeps.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolResponse } from '../../../src-main/core/tools/model.ts';
import { POLL_MS } from '../../support/budgets.ts';
import { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import type { WorkerConnection } from '../../../src-main/infra/sandbox/connection.ts';
import { bubblewrapFactory, dockerFactory, runPython } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';
import { repoRoot } from '../../support/workspace.ts';
import { execIn } from './support/container-exec.ts';

const fixture = readFileSync(join(repoRoot, 'test/fixtures/sandbox/tools.py'), 'utf8');
const docker = new Docker();

/** The python3 processes of a worker: its container's (docker top), or under its process (bubblewrap). */
async function pythons(level: string, id: string): Promise<number> {
  if (level !== 'process') {
    const top = (await docker.getContainer(id).top({ ps_args: '-eo pid,comm' })) as {
      Titles: string[];
      Processes: string[][];
    };
    const col = Math.max(
      0,
      top.Titles.findIndex((t) => /CMD|COMMAND/i.test(t)),
    );
    return top.Processes.filter((p) => /python/.test(p[col] ?? '')).length;
  }
  const parent = new Map<number, number>();
  const comm = new Map<number, string>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      comm.set(Number(d), stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  let n = 0;
  for (const [pid, c] of comm) {
    if (!c.startsWith('python')) continue;
    for (let q: number | undefined = pid; q; q = parent.get(q))
      if (q === Number(id)) {
        n++;
        break;
      }
  }
  return n;
}

const until = async (what: string, ok: () => Promise<boolean>) => {
  const end = Date.now() + POLL_MS;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/**
 * A backend of `size` workers (no standby) on `factory`, whose tools.py is `source()` at each load (a
 * case changes it) and whose host tools are `hostTools`.
 */
function poolBackend(
  factory: TestFactory,
  size: number,
  source: () => string,
  hostTools: Record<string, () => Promise<ToolResponse>> = {},
): SandboxBackend {
  return new SandboxBackend({
    factory,
    pool: {
      minSize: size,
      maxSize: size,
      standby: 0,
      maxJobsPerWorker: 1000,
      idleMs: 60_000,
      queueTimeoutMs: 30_000,
    },
    maxOutputBytes: 50 * 1024,
    specFor: (name, runtime) => ({
      name,
      runtime,
      toolsSource: source(),
      hostTools: Object.keys(hostTools).map((name) => ({ name })),
      credentials: {},
    }),
    hostTools,
  });
}

for (const [level, make] of [
  ['docker', () => dockerFactory()],
  ['process', async () => bubblewrapFactory()],
] as const) {
  describe(`the next job's process: ${level}`, () => {
    let factory: TestFactory;
    let backend: SandboxBackend;
    let source = fixture;
    /** The host tool `hold`: answers once `release` is called. */
    let held: (() => void) | undefined;
    let holding: Promise<void> = Promise.resolve();
    const hold = (): Promise<ToolResponse> =>
      new Promise((resolve) => {
        held = () => resolve({ success: true, data: null });
      });
    const run = (code: string) =>
      runPython(backend, code, {
        sandbox: 'next',
        tools: [
          'add',
          'hold',
          'leave_everywhere',
          'find_everywhere',
          'spy_later_jobs',
          'read_leak',
          'other_processes',
          'nap',
        ],
        timeoutMs: 30_000,
      });
    const workerId = () => backend.workerIds('next')?.workers[0] as string;

    beforeAll(async () => {
      factory = await make();
      // (tools.py read on every load: a case changes it)
      backend = poolBackend(factory, 1, () => source, { hold });
      expect((await run('emit_result(add(a=1, b=1).data)\n')).data).toBe(2);
    }, 300_000);
    afterAll(async () => {
      await backend?.dispose();
      await factory?.dispose();
    });

    const holdJob = (code: string) => {
      held = undefined;
      const job = run(code);
      let ended = false;
      void job.then((r) => {
        ended = true;
        if (held === undefined) throw new Error(`the job ended before it held: ${JSON.stringify(r.error)}`);
      });
      holding = until('the job to hold', async () => {
        if (ended && held === undefined) throw new Error('the job ended before it held');
        return held !== undefined;
      });
      return job;
    };

    it('a job runs beside no other job process; once its result is out, the next one is ready', async () => {
      const job = holdJob('hold()\nemit_result("held")\n');
      await holding;
      // worker, fork server and the job: nothing is made while a job runs (it would take the job's CPU)
      expect(await pythons(level, workerId())).toBe(3);
      held?.();
      expect((await job).data).toBe('held');
      // worker, fork server and the next job's process, made without another job asking for it
      await until('the next job process', async () => (await pythons(level, workerId())) === 3);
      expect((await run('emit_result(add(a=2, b=2).data)\n')).data).toBe(4);
    });

    it('the next job process, made beside a job, finds nothing of it: no file, no survivor, no leak', async () => {
      // The job leaves a marker and a survivor that reads every process's memory it can reach for a later
      // job's secret, then holds; once its result is out the next job's process is made beside what it
      // left, before the sweep and wipe.
      const job = holdJob(
        'spy_later_jobs(how="double_fork", seconds=20)\nleave_everywhere()\nhold()\nemit_result("held")\n',
      );
      await holding;
      held?.();
      expect((await job).data).toBe('held');
      const next = await run(
        'secret = "LATER-SECRET-" + str(4000 + 242)\nemit_intermediate(len(secret))\nnap(seconds=1)\n' +
          'emit_result({"leak": read_leak().data, "left": find_everywhere().data, "ps": other_processes().data})\n',
      );
      expect(next.success, JSON.stringify(next.error)).toBe(true);
      const seen = next.data as { leak: string[]; left: unknown; ps: { others: string[] } };
      expect(seen.leak).toEqual([]);
      expect(seen.left).toEqual({ files: [], ipc: [] });
      expect(seen.ps.others).toEqual([]);
    });

    it('tools reloaded while a job runs: the next job runs the new tools, not the process made before', async () => {
      const job = holdJob('hold()\nemit_result(add(a=1, b=1).data)\n');
      await holding;
      source = fixture.replace('data=a + b', 'data=(a + b) * 100');
      const reloaded = backend.reload('next');
      held?.();
      expect((await job).data).toBe(2);
      await reloaded;
      expect((await run('emit_result(add(a=1, b=1).data)\n')).data).toBe(200);
    });
  });
}

/**
 * Which worker a job goes to (pool.ts, checkout): each worker tells the host once its next job's process
 * is ready (`next_ready`, read from that process's first line while no job runs). A job sent right after
 * another goes to the other worker, whose process is ready, instead of waiting for the first one's; a
 * job that comes after a pause goes to the same warm worker as before. `worker_id` answers with what tells
 * each worker's sandbox apart from a job (its root's device and its network namespace: every job's
 * process of a worker shares them; tools.py itself runs again in each job's process).
 */
const WHO =
  '\n\n@tool(grade=(0, 0))\n' +
  'def worker_id() -> ToolResponse:\n    """The worker that ran this job."""\n' +
  "    return ToolResponse(success=True, data=f\"{os.stat('/').st_dev}:{os.stat('/proc/self/ns/net').st_ino}\")\n";
for (const [level, make] of [
  ['docker', () => dockerFactory()],
  ['process', async () => bubblewrapFactory()],
] as const) {
  describe(`which worker a job goes to: ${level}`, () => {
    let factory: TestFactory;
    let backend: SandboxBackend;
    const who = async () => {
      const r = await runPython(backend, 'emit_result(worker_id().data)\n', {
        sandbox: 'pair',
        tools: ['worker_id'],
        timeoutMs: 30_000,
      });
      expect(r.success, JSON.stringify(r.error)).toBe(true);
      return r.data as string;
    };
    /** The connection of each worker the factory started, by id (what the pool's checkout reads). */
    const conns = new Map<string, WorkerConnection>();
    /**
     * Both workers idle with their next process ready: each has told the host (`nextReady`, as the
     * pool's checkout reads it). Waited for, not slept for: a loaded machine may take longer than any
     * fixed pause to make a job's process, and a job sent before then goes to the other worker.
     */
    const settled = () =>
      expect
        .poll(() => {
          const ids = backend.workerIds('pair')?.workers ?? [];
          return [ids.length, ids.every((id) => conns.get(id)?.nextReady === true)];
        })
        .toEqual([2, true]);
    beforeAll(async () => {
      factory = await make();
      const spawn = factory.spawn.bind(factory);
      factory.spawn = async (spec, signal) => {
        const made = await spawn(spec, signal);
        conns.set(made.id, made.conn);
        return made;
      };
      backend = poolBackend(factory, 2, () => fixture + WHO);
      await backend.warm('pair');
    }, 300_000);
    afterAll(async () => {
      await backend?.dispose();
      await factory?.dispose();
    });

    it('back to back: the second job runs on the other worker, whose process is ready', async () => {
      // (a machine that makes a job's process faster than the host sends the next job would keep one
      // worker: each pair starts from both workers ready, and one pair that moved is the proof)
      const pairs: [string, string][] = [];
      for (let i = 0; i < 4; i++) {
        await settled();
        const first = await who();
        pairs.push([first, await who()]);
      }
      expect(
        pairs.some(([a, b]) => a !== b),
        JSON.stringify(pairs),
      ).toBe(true);
    });

    it('after a pause: every job meets the same warm worker', async () => {
      await settled();
      const seen = new Set<string>();
      for (let i = 0; i < 3; i++) {
        seen.add(await who());
        await settled();
      }
      expect(seen.size).toBe(1);
    });
  });
}

/**
 * gVisor has no pidfd: its fork server watches its children through SIGCHLD (forkserver._ChildWatch), so
 * it holds the next job's process beside a job's exit and a result needs no ping there either (the next
 * process is asked for after the cleaning on gVisor: docs/scaling.md). (`docker top` cannot see inside a
 * gVisor sandbox, so the cases above run on runc and bubblewrap.) Each way a job's process can end is
 * reported with its own status, and the job after it runs: were an exit missed, the worker would wait
 * for it and the next job would never start.
 */
describe("the next job's process: gvisor (children watched through SIGCHLD)", () => {
  let factory: TestFactory;
  let backend: SandboxBackend;
  let source = fixture;
  const run = (code: string, timeoutMs = 30_000) =>
    runPython(backend, code, { sandbox: 'watch', tools: ['add', 'nap'], timeoutMs });
  beforeAll(async () => {
    factory = await dockerFactory({ runtime: 'runsc' });
    backend = poolBackend(factory, 1, () => source);
    expect((await run('emit_result(add(a=1, b=1).data)\n')).data).toBe(2);
  }, 300_000);
  afterAll(async () => {
    await backend?.dispose();
    await factory?.dispose();
  });

  it('a timed-out job, a failed one and a clean one: each ends as it did, and the next job runs', async () => {
    const slow = await run('while True:\n    pass\n', 3_000);
    expect(slow.exitReason).toBe('timeout');
    const failed = await run('emit_result({}["missing"])\n');
    expect(failed.exitReason).toBe('error');
    expect(failed.error?.type).toBe('KeyError');
    const ok = await Promise.all([1, 2, 3].map((b) => run(`emit_result(add(a=10, b=${b}).data)\n`)));
    expect(ok.map((r) => r.data)).toEqual([11, 12, 13]);
    expect(ok.every((r) => r.isolation === 'gvisor')).toBe(true);
  }, 120_000);

  it("the fork server's C loop makes the rooted jobs' processes, and each job's tree goes with it", async () => {
    // A failed job, a timed-out one and clean ones, back to back and at once.
    expect((await run('emit_result({}["missing"])\n')).exitReason).toBe('error');
    expect((await run('while True:\n    pass\n', 1_000)).exitReason).toBe('timeout');
    const ok = await Promise.all([1, 2, 3, 4].map((b) => run(`emit_result(add(a=20, b=${b}).data)\n`)));
    expect(ok.map((r) => r.data)).toEqual([21, 22, 23, 24]);
    // Seen inside the sandbox (docker exec: gVisor's processes are not the host's): the fork server (the
    // worker's child) has loaded the C loop (on gVisor nothing else loads its library: the walls of a
    // rooted job are made in Python), and /mnt holds one tree, the waiting process's: every earlier job's
    // was unmounted and removed once its process was gone.
    const id = backend.workerIds('watch')?.workers[0] as string;
    const probe = [
      'import json, os',
      'kids = [p for p in os.listdir("/proc") if p.isdigit() and "\\nPPid:\\t1\\n" in open(f"/proc/{p}/status").read() and open(f"/proc/{p}/comm").read().startswith("python")]',
      'roots = sorted({l.split()[4].split("/")[2] for l in open("/proc/1/mountinfo") if l.split()[4].startswith("/mnt/")})',
      'print(json.dumps({"servers": len(kids), "loop": all("_forkloop.so" in open(f"/proc/{p}/maps").read() for p in kids), "roots": roots, "folders": sorted(os.listdir("/mnt"))}))',
    ].join('\n');
    // (as the fork server's user: /mnt is its folder, mode 700, and the exec holds no capability to pass)
    const text = await execIn(id, ['python3', '-I', '-c', probe], '65534');
    const seen = JSON.parse(text.trim().split('\n').pop() ?? '{}') as {
      servers: number;
      loop: boolean;
      roots: string[];
      folders: string[];
    };
    expect(seen.servers).toBe(1);
    expect(seen.loop).toBe(true);
    expect(seen.folders).toHaveLength(1);
    expect(seen.roots.every((r) => seen.folders.includes(r))).toBe(true);
  }, 120_000);

  it('tools reloaded between jobs: the next job runs the new tools, not the process made before', async () => {
    expect((await run('emit_result(add(a=1, b=1).data)\n')).data).toBe(2);
    source = fixture.replace('data=a + b', 'data=(a + b) * 100');
    await backend.reload('watch');
    expect((await run('emit_result(add(a=1, b=1).data)\n')).data).toBe(200);
  }, 120_000);
});
