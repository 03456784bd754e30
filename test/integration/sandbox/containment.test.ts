/**
 * One shared suite against every isolation level (docker = runc, gvisor = Docker's runsc runtime,
 * process = bubblewrap): the happy path (sandbox tools and a host-side tool call) and
 * each containment case. Every case must end with the right exitReason and a clear message, leave the
 * host unharmed and the pool serving the next job. A missing Docker engine is a failure, not a skip.
 */
import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import type { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { Installation } from '../../../src-main/infra/sandbox/installation.ts';
import { WORKER_UID_BASE, WORKER_UID_COUNT } from '../../../src-main/infra/sandbox/process.ts';
import { ISOLATION_LEVELS, runPython, testBackend } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';
import { repoRoot } from '../../support/workspace.ts';

const toolsSource = readFileSync(join(repoRoot, 'test/fixtures/sandbox/tools.py'), 'utf8');
const TOOLS = [
  'add',
  'poison',
  'state',
  'fork_bomb',
  'network',
  'write_root',
  'fill_tmp',
  'kill_worker',
  'secret_echo',
  'weather',
  'leave_traces',
  'find_traces',
  'spy_later_jobs',
  'nap',
  'read_leak',
  'fork_loop',
  'other_processes',
  'leave_everywhere',
  'find_everywhere',
  'read_worker',
  'zombie_leader',
  'live_tasks',
  'leave_locked',
  'find_locked',
];
const SECRET = 'sk-very-secret-value-123';

const docker = new Docker();
const { docker: onDocker, gvisor, bubblewrap } = ISOLATION_LEVELS;
// The three levels run at the same time, each on its own backend, pool and containers (a gVisor container
// is slow to start: its wait no longer holds up the other levels); a level's cases run one after the
// other, in order (several look at what the job before them left on the same worker).
describe.each([onDocker, gvisor, bubblewrap])(
  'sandbox backend: %s',
  { concurrent: true },
  (_name, level, make) => {
    let backend: SandboxBackend;
    let factory: TestFactory;
    beforeAll(async () => {
      factory = await make();
      // With a standby, as configured by default: every case that breaks a worker promotes it.
      backend = testBackend(factory, {
        toolsSource,
        pool: { standby: 1 },
        credentials: { api_token: SECRET },
        hostTools: {
          weather: (args) => ({ success: true, data: { city: String(args['city']), celsius: 21 } }),
        },
      });
    }, 300_000);
    afterAll(async () => {
      await backend?.dispose();
      await factory?.dispose();
    });

    describe('one case after another', { concurrent: false }, () => {
      const run = (code: string, timeoutMs = 10_000, only?: string[]): Promise<ExecutionResult> =>
        runPython(backend, code, { sandbox: 'fixture', tools: only ?? TOOLS, timeoutMs });
      const servesNext = async () => {
        const r = await run('emit_result(add(a=40, b=2).data)\n');
        expect(r).toMatchObject({ success: true, data: 42, exitReason: 'ok' });
      };

      it('happy path: sandbox tools, a host tool call, logs, intermediates, traces', async () => {
        const r = await run(
          'x = add(a=1, b=2)\nprint("hi")\nemit_intermediate(x.data)\nw = weather(city="Berlin")\nemit_result({"sum": x.data, "w": w.data})\n',
        );
        expect(r).toMatchObject({
          success: true,
          exitReason: 'ok',
          data: { sum: 3, w: { city: 'Berlin', celsius: 21 } },
          intermediates: [3],
          logs: ['hi'],
        });
        expect(r.toolCalls.map((t) => [t.name, t.location])).toEqual([
          ['add', 'sandbox'],
          ['weather', 'host'],
        ]);
        expect(r.toolCalls[0]?.result).toEqual({ success: true, data: 3 });
        expect(r.isolation).toBe(level);
      });

      it('structured traceback frames on body lines', async () => {
        const r = await run('d = {"a": 1}\n\nemit_result(d["b"])\n');
        expect(r.exitReason).toBe('error');
        expect(r.error).toMatchObject({
          type: 'KeyError',
          message: "'b'",
          frames: [{ line: 3, name: '<script>', text: 'emit_result(d["b"])' }],
        });
      });

      it('fork bomb: stopped by the process limit, host unharmed', async () => {
        const r = await run('fork_bomb()\nemit_result(1)\n', 15_000);
        expect(r.success).toBe(false);
        // gVisor's sentry accounts the memory of every forked process: a burst of forks can reach the
        // memory limit before the process limit (seen on a loaded machine). Either limit stops the bomb.
        expect(['error', 'crashed', 'timeout', ...(level === 'gvisor' ? ['oom'] : [])]).toContain(
          r.exitReason,
        );
        await servesNext();
      }, 60_000);

      it('memory bomb: reported as oom', async () => {
        const r = await run('x = "a" * (2 * 10**9)\nemit_result(len(x))\n', 20_000);
        expect(r.exitReason).toBe('oom');
        expect(r.error?.message).toMatch(/memory/i);
        await servesNext();
      }, 60_000);

      it('CPU loop: timeout', async () => {
        const r = await run('while True:\n    pass\n', 1500);
        expect(r.exitReason).toBe('timeout');
        expect(r.error?.message).toMatch(/time limit/);
        await servesNext();
      }, 30_000);

      it('one long C-level operation (10**10**8): timeout', async () => {
        const r = await run('x = 10**10**8\nemit_result(1)\n', 1500);
        expect(r.exitReason).toBe('timeout');
        await servesNext();
      }, 30_000);

      it('stdout flood: output_limit', async () => {
        const r = await run('while True:\n    print("x" * 1000)\n');
        expect(r.exitReason).toBe('output_limit');
        expect(r.error?.message).toMatch(/exceeded 51200 bytes/);
        await servesNext();
      }, 30_000);

      it('huge result: output_limit', async () => {
        const r = await run('emit_result("x" * 10**7)\n');
        expect(r.exitReason).toBe('output_limit');
        expect(r.data).toBeUndefined();
        await servesNext();
      }, 30_000);

      it('network attempt fails', async () => {
        const r = await run('emit_result(network().data)\n');
        expect(r.success).toBe(false);
        expect(r.exitReason).toBe('error');
        expect(r.error?.type).toMatch(/OSError|gaierror|ConnectionRefusedError|TimeoutError|PermissionError/);
        await servesNext();
      }, 30_000);

      it('write to the root file system fails', async () => {
        const r = await run('r = write_root()\nemit_result(r.message if not r.success else r.data)\n');
        expect(r.data).toBe('the root file system is read-only');
        await servesNext();
      });

      it('disk fill of /tmp stops at the tmpfs size', async () => {
        const r = await run('emit_result(fill_tmp().data)\n');
        expect(r.exitReason).toBe('error');
        expect(r.error?.message).toMatch(/No space left/);
        await servesNext();
      }, 30_000);

      it('no state poisoning between jobs (fresh process per job)', async () => {
        const a = await run('emit_result(poison().data)\n');
        expect(a.data).toEqual({ n: 1, data: [1, 2, 3, 99] });
        const b = await run('emit_result(state().data)\n');
        expect(b.data).toEqual({ n: 0, data: [1, 2, 3] });
        // Scripts see read-only module stand-ins: poisoning json.dumps is refused before it runs.
        const p = await run('json.dumps = None\nemit_result(state().data)\n');
        expect(p.exitReason).toBe('rejected');
        expect(p.error?.message).toMatch(/json\.dumps is read-only/);
        const c = await run('emit_result(json.dumps([1]))\n');
        expect(c.data).toBe('[1]');
      });

      it('nothing a job starts or writes in /tmp meets the next job on the same worker', async () => {
        const a = await run('emit_result(leave_traces().data)\n');
        expect(a.success).toBe(true);
        const b = await run('emit_result(find_traces().data)\n');
        expect(b.success).toBe(true);
        const seen = b.data as { worker: number; files: string[]; processes: string[] };
        // The same worker served both jobs, so the check is meaningful.
        expect(seen.worker).toBe((a.data as { worker: number }).worker);
        expect(seen.files).toEqual([]);
        expect(seen.processes.filter((p) => /sleep/.test(p))).toEqual([]);
      });

      // Between jobs on one warm worker (docs/sandboxes.md, "Between jobs"): each case is the attack of a job
      // that escaped the language rules (its tool may do anything), and the next job on the same worker looks.
      const sameWorker = async (first: ExecutionResult) => {
        const w = (first.data as { worker: number }).worker;
        const next = await run('emit_result(other_processes().data)\n');
        expect(next.success).toBe(true);
        expect((next.data as { worker: number }).worker, 'the next job ran on the same worker').toBe(w);
        return next.data as { worker: number; others: string[] };
      };

      it.each(['clone_parent', 'double_fork'])(
        'a %s + setsid survivor is gone before the next job and reads none of its memory',
        async (how) => {
          const a = await run(`emit_result(spy_later_jobs(how="${how}", seconds=20).data)\n`);
          expect(a.success, JSON.stringify(a.error)).toBe(true);
          // The next job holds a secret and stays alive while a survivor would scan its memory.
          const b = await run(
            'secret = "LATER-SECRET-" + str(4000 + 242)\nemit_intermediate(len(secret))\nnap(seconds=2)\nemit_result({"leak": read_leak().data, "ps": other_processes().data})\n',
            15_000,
          );
          expect(b.success, JSON.stringify(b.error)).toBe(true);
          const seen = b.data as { leak: string[]; ps: { worker: number; others: string[] } };
          expect(seen.ps.worker, 'the same worker served both jobs').toBe(
            (a.data as { worker: number }).worker,
          );
          expect(seen.leak).toEqual([]);
          expect(seen.ps.others).toEqual([]);
          await servesNext();
        },
        60_000,
      );

      it('a fork loop racing the cleanup: nothing of it is left for the next job', async () => {
        const a = await run('emit_result(fork_loop(seconds=20).data)\n');
        expect(a.success, JSON.stringify(a.error)).toBe(true);
        const b = await run('emit_result(other_processes().data)\n');
        expect(b.success, JSON.stringify(b.error)).toBe(true);
        expect((b.data as { others: string[] }).others).toEqual([]);
        const c = await sameWorker(b);
        expect(c.others).toEqual([]);
        await servesNext();
      }, 60_000);

      it('a process whose main thread exited (a zombie-looking leader) with a live thread is gone before the next job', async () => {
        const a = await run('emit_result(zombie_leader(seconds=20).data)\n');
        expect(a.success, JSON.stringify(a.error)).toBe(true);
        const b = await run('emit_result(live_tasks().data)\n');
        expect(b.success, JSON.stringify(b.error)).toBe(true);
        expect((b.data as { worker: number }).worker, 'the same worker served both jobs').toBe(
          (a.data as { worker: number }).worker,
        );
        expect((b.data as { tasks: string[] }).tasks).toEqual([]);
        await servesNext();
      }, 60_000);

      it('nothing a job writes in any writable path or IPC object meets the next job', async () => {
        const a = await run('emit_result(leave_everywhere().data)\n');
        expect(a.success, JSON.stringify(a.error)).toBe(true);
        const wrote = (a.data as { wrote: string[] }).wrote;
        // The job could write somewhere (so the check below is meaningful), never to / or /dev themselves.
        expect(wrote).toEqual(expect.arrayContaining(['/tmp', '/dev/shm']));
        expect(wrote).not.toContain('/');
        expect(wrote).not.toContain('/dev');
        const b = await run('emit_result(find_everywhere().data)\n');
        expect(b.success, JSON.stringify(b.error)).toBe(true);
        expect(b.data).toEqual({ files: [], ipc: [] });
        await servesNext();
      }, 30_000);

      it('locked folders, FIFOs and a tree deeper than the recursion limit are emptied before the next job', async () => {
        const a = await run('emit_result(leave_locked().data)\n', 30_000);
        expect(a.success, JSON.stringify(a.error)).toBe(true);
        expect((a.data as { wrote: string[] }).wrote).toEqual(expect.arrayContaining(['/tmp']));
        const b = await run('emit_result(find_locked().data)\n');
        expect(b.success, JSON.stringify(b.error)).toBe(true);
        expect(b.data).toEqual({ files: [] });
        await servesNext();
      }, 60_000);

      it('a job can neither ptrace nor read the memory of the worker or its fork server', async () => {
        const r = await run('emit_result(read_worker().data)\n');
        expect(r.success, JSON.stringify(r.error)).toBe(true);
        // (gVisor reads /proc/<pid>/environ of a non-dumpable process: the job's /proc, of its own pid
        // namespace there too, shows neither the worker nor the fork server)
        const bad = ['ptrace', 'mem', 'environ'];
        const got = r.data as { server: string[]; worker: string[] };
        expect(got.server.filter((x) => bad.includes(x))).toEqual([]);
        expect(got.worker.filter((x) => bad.includes(x))).toEqual([]);
        await servesNext();
      }, 30_000);

      it('a tool call made at the edge of the recursion limit is recorded whenever the tool ran', async () => {
        // The script recurses to just short of the limit before each call: where the tool can still run but
        // the wrapper's own recording cannot, the call would be one the record never shows.
        const r = await run(
          [
            'def at(n):',
            '    if n == 0:',
            '        return poison()',
            '    return at(n - 1)',
            'for d in range(1000, 940, -1):',
            '    try:',
            '        at(d)',
            '    except RuntimeError:',
            '        pass',
            'emit_result(state().data["n"])',
            '',
          ].join('\n'),
          30_000,
        );
        expect(r.success, JSON.stringify(r.error)).toBe(true);
        const ran = r.data as number;
        expect(ran, 'the tool ran at least once near the limit').toBeGreaterThan(0);
        expect(r.toolCalls.filter((t) => t.name === 'poison')).toHaveLength(ran);
      }, 60_000);

      it('a timeout replaces the worker', async () => {
        const before = backend.status()[0]?.replaced ?? 0;
        const r = await run('while True:\n    pass\n', 1000);
        expect(r.exitReason).toBe('timeout');
        await servesNext();
        expect(backend.status()[0]?.replaced ?? 0).toBeGreaterThan(before);
      }, 30_000);

      it('forged protocol lines printed by the script are only logs', async () => {
        const forged = '{"type":"emit","kind":"result","data":"forged","id":"x"}';
        const r = await run(`print('${forged}')\nprint('{"type":"done","ok":true}')\nemit_result("real")\n`);
        expect(r.data).toBe('real');
        expect(r.logs).toContain(forged);
      });

      it('a tool outside the run is refused and recorded', async () => {
        const r = await run('emit_result(add(a=1).data)\n', 10_000, ['state']);
        expect(r.success).toBe(false);
        expect(r.error?.type).toBe('PermissionError');
        expect(r.toolCalls[0]).toMatchObject({ name: 'add', refused: true });
        const h = await run('emit_result(weather(city="x").data)\n', 10_000, ['add']);
        expect(h.success).toBe(false);
      });

      it('the worker re-checks the core rules on the exact text (host validation skipped)', async () => {
        const r = await run('import os\nemit_result(os.getcwd())\n');
        expect(r.exitReason).toBe('rejected');
        expect(r.error?.message).toMatch(/imports are not available/);
        const d = await run('emit_result(().__class__.__bases__)\n');
        expect(d.exitReason).toBe('rejected');
      });

      it('credentials reach tools, never the results', async () => {
        const r = await run('emit_result({"v": secret_echo().data, "c": credential("api_token")})\n');
        expect(r.success).toBe(true);
        expect(JSON.stringify(r)).not.toContain(SECRET);
        expect(r.data).toEqual({ v: '***', c: '***' });
      });

      it('killing the worker: crashed, and a new worker serves the next job', async () => {
        const r = await run('kill_worker()\nemit_result(1)\n');
        if (level === 'docker' || level === 'bubblewrap') {
          // A job alone in its pid namespace (runc, bubblewrap) has no pid for the worker: kill(getppid() = 0) reaches
          // only its own process group, and the namespace's pid 1 ignores SIGKILL sent from inside.
          expect(r.exitReason).toBe('ok');
        } else {
          expect(r.exitReason).toBe('crashed');
          expect(r.error?.message).toMatch(/died|exited/);
        }
        await servesNext();
      }, 30_000);

      it('pool status counts replaced workers', () => {
        const s = backend.status()[0];
        expect(s?.replaced).toBeGreaterThan(0);
        expect(s?.size).toBeGreaterThan(0);
      });

      it('module attribute walks are refused by the worker itself (host validation skipped)', async () => {
        const cases: [string, RegExp][] = [
          [
            'os = statistics.sys.modules["os"]\nemit_result(os.popen("id").read())\n',
            /statistics\.sys is not available/,
          ],
          [
            'f = json.codecs.open("/etc/passwd")\nemit_result(f.read()[:200])\n',
            /json\.codecs is not available/,
          ],
          ['b = re.enum.bltns\nemit_result(str(b.eval("1+1")))\n', /re\.enum is not available/],
          ['emit_result(str(json.codecs.builtins.exec))\n', /json\.codecs is not available/],
          ['emit_result(datetime.sys.version)\n', /datetime\.sys is not available/],
          ['emit_result(dict(statistics.sys.modules["os"].environ))\n', /statistics\.sys is not available/],
          ['m = statistics\nemit_result(m.sys.modules["os"].getcwd())\n', /statistics can only be used as/],
          ['emit_result(getattr(json, "codecs").open("/etc/passwd").read())\n', /json can only be used as/],
          [
            'def walk(m):\n    return m.sys\nemit_result(str(walk(datetime)))\n',
            /datetime can only be used as/,
          ],
        ];
        for (const [code, message] of cases) {
          const r = await run(code);
          expect(r.exitReason, code).toBe('rejected');
          expect(r.error?.message, code).toMatch(message);
          expect(JSON.stringify(r)).not.toMatch(/root:|uid=|PATH=/);
        }
        await servesNext();
      });

      it('computed str.format templates are refused by the worker itself (host validation skipped)', async () => {
        const u = 'u = "_" * 2\n';
        for (const code of [
          `${u}t = "{0." + u + "class" + u + "." + u + "mro" + u + "}"\nemit_result(t.format(1))\n`,
          `${u}t = "{0." + u + "init" + u + "." + u + "globals" + u + "[os].environ}"\nemit_result(t.format(ToolResponse))\n`,
          `${u}emit_result(f"{{0.{u}class{u}}}".format(1))\n`,
          `${u}emit_result(str.format("{0." + u + "class" + u + "}", 1))\n`,
          `${u}t = "{t." + u + "init" + u + "}"\nemit_result(t.format_map({"t": ToolResponse}))\n`,
          'emit_result("{0.real.imag}".format(1))\n',
        ]) {
          const r = await run(code);
          expect(r.exitReason, code).toBe('rejected');
          expect(r.error?.message, code).toMatch(/string literal template|may not walk attributes/);
        }
      });

      it('scripts still get the allow-listed module attributes, and only those', async () => {
        const r = await run(
          'emit_result({"j": json.dumps({"a": 1}), "r": math.sqrt(16), "m": statistics.mean([1, 3]), "f": re.findall(r"\\d", "a1b2"), "d": (datetime.date(2026, 1, 1) + datetime.timedelta(days=1)).isoformat(), "c": collections.Counter("aab").most_common(1), "s": "{:.2f}".format(math.pi), "t": time.time() > 0})\n',
        );
        expect(r).toMatchObject({
          success: true,
          data: {
            j: '{"a": 1}',
            r: 4,
            m: 2,
            f: ['1', '2'],
            d: '2026-01-02',
            c: [['a', 2]],
            s: '3.14',
            t: true,
          },
        });
      });
    });
  },
);

describe('host unharmed', () => {
  it('nothing was written outside the sandbox', () => {
    expect(existsSync('/etc/toolsmith-pwned')).toBe(false);
    expect(existsSync('/opt/toolsmith-pwned')).toBe(false);
    expect(existsSync('/usr/toolsmith-pwned')).toBe(false);
  });
  it('no container of this process is left behind', async () => {
    const left = await docker.listContainers({
      all: true,
      // This file's installation too: a pid is reused (a container another run's killed process left,
      // under the same pid, is not this file's).
      filters: {
        label: [
          'toolsmith.pool=1',
          `toolsmith.owner=${process.pid}`,
          `toolsmith.installation=${new Installation().id}`,
        ],
      },
    });
    expect(left).toEqual([]);
    // Processes of the sandbox user outside any container (the process backend's workers and whatever
    // they forked, e.g. the fork bomb): none may survive. Containers of other test files running at the
    // same time are Docker's and are not counted.
    // The sandbox users: 65534 (Docker's workers and, without root, the process backend's) and the range
    // of uids the process backend gives its workers when it runs as root.
    const sandboxUid = (uid: number) =>
      uid === 65534 || (uid >= WORKER_UID_BASE && uid < WORKER_UID_BASE + WORKER_UID_COUNT);
    const strays = () =>
      execSync('ps -eo pid=,uid=')
        .toString()
        .split('\n')
        .map((l) => l.trim().split(/\s+/))
        .filter(([pid, uid]) => pid && sandboxUid(Number(uid)))
        .map(([pid]) => pid as string)
        .flatMap((pid) => {
          try {
            if (/docker|containerd/.test(readFileSync(`/proc/${pid}/cgroup`, 'utf8'))) return [];
            return [`${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim()}`];
          } catch {
            return [];
          }
        });
    // Killed workers may take a moment to be gone; a survivor stays.
    await expect.poll(() => strays(), { timeout: 10_000, interval: 250 }).toEqual([]);
  });
});
