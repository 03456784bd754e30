/**
 * Jobs alone, by the kernel (docs/security.md, "Jobs alone"): each job runs as pid 1 of namespaces of
 * its own made by the fork server. Every case is written as the attack (tool code is the attacker's) and
 * runs on each level it applies to; the walls behind the namespaces (the sweep of the sandbox's pid
 * namespace, the wipe of its writable mounts) are attacked alone with the namespaces switched off, and
 * the namespaces with the sweep and wipe switched off (the worker's internal TOOLSMITH_TEST_WALLS).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import { bubblewrapFactory, dockerFactory, oneWorker } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';
import { repoRoot } from '../../support/workspace.ts';

const toolsSource =
  readFileSync(join(repoRoot, 'test/fixtures/sandbox/tools.py'), 'utf8') +
  '\n' +
  readFileSync(join(repoRoot, 'test/fixtures/sandbox/jobns_tools.py'), 'utf8');
const TOOLS = [
  'add',
  'whoami',
  'proc_mem_everywhere',
  'pid_guess',
  'kill_everyone',
  'escape_calls',
  'spy_namespace',
  'tmp_marker',
  'spy_later_jobs',
  'read_leak',
  'nap',
  'other_processes',
  'leave_everywhere',
  'find_everywhere',
  'ns_games',
  'ipc_leave',
  'ipc_find',
  'proc_fd_reach',
  'uid_reach',
  'tree_escape',
];

interface Whoami {
  pid: number;
  ppid: number;
  pids: number[];
  uid: number;
  cap_eff: string;
  cap_prm: string;
  seccomp_filters: string | null;
  proc: string;
  tmp: string;
  hidden: string[];
  environ: string;
  max_userns: string;
}

/**
 * One backend (its own factory, pool and containers) per suite. The suites run at the same time, a few
 * at once (vitest's maxConcurrency): a gVisor container is slow to start, and its wait no longer holds up
 * the suites after it. A suite's own cases run one after the other, in order.
 */
function suite(name: string, make: () => Promise<TestFactory>, body: (run: Run) => void) {
  describe(name, { concurrent: true }, () => {
    const run = oneWorker(make, toolsSource, TOOLS);
    describe('one case after another', { concurrent: false }, () =>
      body((code, timeoutMs = 15_000) => run(code, timeoutMs)),
    );
  });
}
type Run = (code: string, timeoutMs?: number) => Promise<ExecutionResult>;

const ok = (r: ExecutionResult) => {
  expect(r.success, JSON.stringify(r.error)).toBe(true);
  return r.data;
};

/**
 * The namespaces themselves, with the sweep and wipe off. runc and bubblewrap: user, pid, mount and IPC
 * namespaces of the job's own. gVisor (no mount in a child user namespace, no mount namespace): pid and
 * IPC namespaces, and a tree of the job's own it is chrooted into, with a /proc of its pid namespace and
 * fresh /tmp and /dev/shm (docs/security.md, "A tree of its own (gVisor)").
 */
for (const [level, make] of [
  ['docker', () => dockerFactory({ wallsOff: ['nosweep', 'nowipe'] })],
  ['gvisor', () => dockerFactory({ runtime: 'runsc', wallsOff: ['nosweep', 'nowipe'] })],
  ['process', async () => bubblewrapFactory({ wallsOff: ['nosweep', 'nowipe'] })],
] as const) {
  suite(`jobs alone, namespaces only (sweep and wipe off): ${level}`, make, (run) => {
    it('a job is pid 1 of a pid namespace of its own, with no capability and the job filter', async () => {
      const me = ok(await run('emit_result(whoami().data)\n')) as unknown as Whoami;
      expect(me.pid).toBe(1);
      expect(me.ppid).toBe(0);
      // (the process level: a uid of its own per worker when the tests run as root, else theirs)
      if (level === 'process') expect(me.uid).toBe(process.getuid?.() === 0 ? me.uid : process.getuid?.());
      // gVisor: a uid of its own per job (from 100000), never the worker's 65534
      else if (level === 'gvisor') expect(me.uid).toBeGreaterThanOrEqual(100000);
      else expect(me.uid).toBe(65534);
      expect(me.uid).not.toBe(0);
      expect(me.cap_eff).toBe('0000000000000000');
      // none to raise either (gVisor's worker keeps CAP_DAC_OVERRIDE permitted for its wipe: never a job's)
      expect(me.cap_prm).toBe('0000000000000000');
      expect(me.pids).toEqual([1]);
      expect(me.proc).toBe('proc');
      expect(me.tmp).toBe('tmpfs');
      if (level !== 'gvisor') {
        expect(me.max_userns).toBe('0'); // no user namespace below the job's
        // bubblewrap's filter and the job's; runc: the container profile too
        expect(Number(me.seccomp_filters)).toBeGreaterThanOrEqual(level === 'docker' ? 3 : 2);
      }
    });

    it('the protocol socket name is in no environment a job can read', async () => {
      const me = ok(await run('emit_result(whoami().data)\n')) as unknown as Whoami;
      expect(me.environ).not.toContain('TOOLSMITH_PROTOCOL_SOCKET');
      expect(me.environ).not.toContain('/run/toolsmith-protocol');
    });

    it('no process outside the job can be opened through /proc: not init, worker or fork server', async () => {
      const got = ok(await run('emit_result(proc_mem_everywhere().data)\n')) as Record<string, string[]>;
      // (gVisor lists the fds of any process its /proc shows, whatever its dumpable flag: the job's /proc
      // shows none but the job's own)
      expect(got).toEqual({});
    });

    it('no pid outside the job can be signalled, pidfd-opened or traced', async () => {
      expect(ok(await run('emit_result(pid_guess(top=300).data)\n'))).toEqual([]);
    });

    it('kill(-1, SIGKILL) from a job ends only the job: the same worker serves the next', async () => {
      const r = await run('emit_result(kill_everyone().data)\n');
      expect(r.exitReason).toBe('ok');
      expect(r.data).toMatch(/^alive/);
      ok(await run('emit_result(add(a=1, b=2).data)\n'));
    });

    it('a survivor of its job (double fork, setsid) dies with its namespace: the next job finds nothing', async () => {
      ok(await run('emit_result(spy_namespace(seconds=20).data)\n'));
      const b = ok(
        await run(
          'nap(seconds=1)\nemit_result({"leak": read_leak().data, "pids": pid_guess(top=300).data, "me": whoami().data["pids"]})\n',
        ),
      ) as { leak: string[]; pids: number[]; me: number[] };
      expect(b.leak).toEqual([]);
      expect(b.pids).toEqual([]);
      expect(b.me).toEqual([1]);
    }, 60_000);

    it('what a job writes in /tmp and /dev/shm is in mounts of its own: the next job finds none', async () => {
      const a = ok(await run('emit_result(tmp_marker(write="one").data)\n')) as string[];
      expect(a).toEqual(['/dev/shm/marker-one', '/tmp/marker-one']);
      const b = ok(await run('emit_result(tmp_marker().data)\n'));
      expect(b).toEqual([]);
    });
  });
}

/** The job's seccomp filter on every level (all walls on): nothing may undo or get around the namespaces. */
for (const [level, make] of [
  ['docker', () => dockerFactory()],
  ['gvisor', () => dockerFactory({ runtime: 'runsc' })],
  ['process (bubblewrap)', async () => bubblewrapFactory()],
] as const) {
  suite(`jobs alone, the job's seccomp filter: ${level}`, make, (run) => {
    it('every call that could undo the namespaces or reach unneeded kernel surface is refused', async () => {
      const got = ok(await run('emit_result(escape_calls().data)\n')) as Record<string, number | string>;
      expect(Object.keys(got).length).toBeGreaterThanOrEqual(16);
      for (const [call, result] of Object.entries(got)) expect([call, result]).toEqual([call, -1]);
    });
  });
}

/**
 * The namespaces' own walls with the job's seccomp filter off: the job's user namespace may hold no other
 * (its max_user_namespaces is 0; gVisor: a chrooted process may make no user namespace at all), and
 * without a capability nothing it mounted can be undone or covered, nor its chroot left.
 */
for (const [level, make] of [
  ['docker', () => dockerFactory({ wallsOff: ['noseccomp', 'nosweep', 'nowipe'] })],
  ['gvisor', () => dockerFactory({ runtime: 'runsc', wallsOff: ['noseccomp', 'nosweep', 'nowipe'] })],
  ['process', async () => bubblewrapFactory({ wallsOff: ['noseccomp', 'nosweep', 'nowipe'] })],
] as const) {
  suite(`jobs alone, the job filter off: ${level}`, make, (run) => {
    it('no nested user namespace, no unmount or mount, no setns: every call is still refused', async () => {
      const got = ok(await run('emit_result(escape_calls().data)\n')) as Record<string, number | string>;
      // (gVisor 20221219: unshare(CLONE_NEWNS) succeeds and makes no mount namespace; the unmounts and the
      // mount below are tried after it, and still refused)
      const walls = [
        'unshare_user',
        ...(level === 'gvisor' ? [] : ['unshare_ns']),
        'setns',
        'umount2_proc',
        'umount2_tmp',
        'mount_proc',
        'chroot',
        'open_tree',
        'fsopen',
        'clone_newns',
      ];
      const worked = walls.filter((call) => !(typeof got[call] === 'number' && got[call] < 0));
      expect(worked, JSON.stringify(got)).toEqual([]);
      const me = ok(await run('emit_result(whoami().data)\n')) as unknown as Whoami;
      if (level !== 'gvisor') expect(me.max_userns).toBe('0');
      // the filter was off, and the job still sees nothing outside its namespace
      expect(me.pids).toEqual([1]);
      expect(ok(await run('emit_result(proc_mem_everywhere().data)\n'))).toEqual({});
    });
  });
}

/** The container's seccomp profile alone (no namespaces, no job filter): what Docker's default allowed. */
suite(
  "the container's own seccomp profile alone (namespaces and job filter off): docker",
  () => dockerFactory({ wallsOff: ['nojobns', 'noseccomp'] }),
  (run) => {
    it('io_uring, bpf, userfaultfd, keyctl, ptrace, perf events and the new mount API are refused', async () => {
      const got = ok(await run('emit_result(escape_calls().data)\n')) as Record<string, number | string>;
      const denied = [
        'io_uring_setup',
        'bpf',
        'userfaultfd',
        'keyctl',
        'ptrace',
        'perf_event_open',
        'open_tree',
        'fsopen',
        'setns',
      ];
      expect(Object.fromEntries(denied.map((c) => [c, got[c]]))).toEqual(
        Object.fromEntries(denied.map((c) => [c, -1])),
      );
    });
  },
);

/** What ns_games tries (jobns_tools.py), each refused: see "More ways out of the namespaces" below. */
const NS_GAMES_REFUSED = [
  'uid_map_root',
  'setuid_root',
  'setgroups_root',
  'sethostname',
  'cgroup_mkdir',
  'cgroup_release_agent',
  'proc_sys_hostname',
  'proc_sys_core_pattern',
  'ns_last_pid',
  'sysrq_trigger',
  'kcore',
  'open_by_handle_at',
  'name_to_handle_at',
  'add_key',
  'request_key',
  'kcmp',
  'clone3',
  'move_mount',
  'fanotify_init',
  'process_madvise',
  'pidfd_getfd_self',
  'process_vm_readv_self',
  'unshare_net',
  'unshare_uts',
  'unshare_cgroup',
  'unshare_time',
  'unshare_pid',
  'unshare_ipc',
  'setns_own_net',
  'setns_own_uts',
  'setns_own_pid',
  'setns_own_mnt',
  'setns_own_ipc',
  'setns_own_user',
  'setns_own_cgroup',
  'mknod_mem',
  'mknod_null_open',
  'mknod_disk',
  'exec_from_tmp',
  'exec_from_shm',
];

/**
 * The walls behind the namespaces, each alone: with the namespaces off, the sweep still ends what a job
 * left, the wipe still empties what it wrote, and the worker (pid 1 of the sandbox on every level, not
 * dumpable, its environment block scrubbed) and its fork server stay closed to a job.
 */
for (const [level, make] of [
  ['docker', () => dockerFactory({ wallsOff: ['nojobns'] })],
  ['gvisor', () => dockerFactory({ runtime: 'runsc', wallsOff: ['nojobns'] })],
  ['process (bubblewrap)', async () => bubblewrapFactory({ wallsOff: ['nojobns'] })],
] as const) {
  suite(`the second walls alone (namespaces off): ${level}`, make, (run) => {
    it('the worker is pid 1; neither it nor the fork server can be opened, and /proc/1/environ names no socket', async () => {
      const me = ok(await run('emit_result(whoami().data)\n')) as unknown as Whoami;
      expect(me.pid).not.toBe(1);
      expect(me.environ).not.toContain('TOOLSMITH_PROTOCOL_SOCKET');
      expect(me.environ).not.toContain('toolsmith-protocol');
      const got = ok(await run('emit_result(proc_mem_everywhere().data)\n')) as Record<string, string[]>;
      expect(Object.keys(got)).toContain('1');
      const bad =
        level === 'gvisor'
          ? ['mem-open', 'mem-write', 'environ']
          : ['mem-open', 'mem-write', 'environ', 'fds'];
      expect(Object.entries(got).filter(([, hits]) => hits.some((h) => bad.includes(h)))).toEqual([]);
    });

    it('a survivor of its job is swept before the next job, and what it wrote is wiped', async () => {
      ok(await run('emit_result(spy_namespace(seconds=20).data)\n'));
      const b = ok(
        await run('nap(seconds=1)\nemit_result({"leak": read_leak().data, "ps": other_processes().data})\n'),
      ) as {
        leak: string[];
        ps: { others: string[] };
      };
      expect(b.leak).toEqual([]);
      expect(b.ps.others).toEqual([]);
    }, 60_000);

    it('markers in /tmp and /dev/shm are wiped before the next job', async () => {
      expect(ok(await run('emit_result(tmp_marker(write="two").data)\n'))).toEqual([
        '/dev/shm/marker-two',
        '/tmp/marker-two',
      ]);
      expect(ok(await run('emit_result(tmp_marker().data)\n'))).toEqual([]);
    });

    // (the counterpart of "IPC and sockets across jobs", where the job's IPC and pid namespaces hold
    // with the IPC filter and sweep off)
    it('IPC and sockets across jobs: the IPC filter refuses the objects, the sweep ends the listener', async () => {
      const a = ok(await run('emit_result(ipc_leave(tag=5).data)\n')) as Record<string, unknown>;
      // the fork server's IPC filter (its EPERM) refused the segment, the SysV and the POSIX queue
      expect([a['shm'], a['msg'], a['mq']], JSON.stringify(a)).toEqual(['EPERM', 'EPERM', 'EPERM']);
      const b = ok(await run('nap(seconds=1)\nemit_result(ipc_find(tag=5).data)\n')) as Record<
        string,
        unknown
      >;
      for (const k of ['shm', 'msg', 'mq', 'abstract', 'tcp'])
        expect([k, b[k] === 0], JSON.stringify(b)).toEqual([k, false]);
    }, 60_000);

    // (the counterpart of "more escapes": the job filter, the missing capabilities and the closing of the
    // worker's files, without the job's namespaces)
    it('ids, root, host name, cgroups, kernel knobs, handles, keyrings, devices: still refused; no worker fd', async () => {
      const got = ok(await run('emit_result(ns_games().data)\n')) as Record<string, unknown>;
      // (code run from its tmpfs too: bubblewrap's own /tmp and /dev/shm are made noexec by the worker at
      // its start, seal.py, since bwrap has no such option. The process groups are the sandbox's, shared.)
      const worked = NS_GAMES_REFUSED.filter(
        (k) => !(typeof got[k] === 'string' || (typeof got[k] === 'number' && got[k] !== 0)),
      );
      expect(worked, JSON.stringify(got)).toEqual([]);
      expect(got['socket_fds']).toEqual([]);
      expect(got['worker_files']).toEqual([]);
      expect(got['shared_mounts']).toBe(0);
    });

    // (the counterpart of "the job's seccomp filter" with the namespaces on: a plain fork gets it too)
    it("the job's seccomp filter alone still refuses every call that could get around the walls", async () => {
      const got = ok(await run('emit_result(escape_calls().data)\n')) as Record<string, number | string>;
      expect(Object.keys(got).length).toBeGreaterThanOrEqual(16);
      for (const [call, result] of Object.entries(got)) expect([call, result]).toEqual([call, -1]);
    });
  });
}

/**
 * More ways out of the namespaces (ns_games in jobns_tools.py), with the sweep and wipe off: ids remapped
 * to root, setuid/setgroups root, the host name, cgroups (mkdir, release_agent), kernel knobs (hostname,
 * core_pattern, ns_last_pid, sysrq, kcore), the open_by_handle_at "shocker" escape, keyrings, kcmp, clone3,
 * move_mount, fanotify, process_madvise, pidfd_getfd, process_vm_readv, every namespace it did not get
 * (unshare) or has (setns), a device node, code run from its tmpfs, shared mount propagation, a socket
 * among its fds, process groups outside it.
 */
for (const [level, make] of [
  ['docker', () => dockerFactory({ wallsOff: ['nosweep', 'nowipe'] })],
  ['gvisor', () => dockerFactory({ runtime: 'runsc', wallsOff: ['nosweep', 'nowipe'] })],
  ['process', async () => bubblewrapFactory({ wallsOff: ['nosweep', 'nowipe'] })],
] as const) {
  suite(`jobs alone, more escapes (sweep and wipe off): ${level}`, make, (run) => {
    it('ids, root, host name, cgroups, kernel knobs, handles, keyrings, namespaces, devices, tmpfs code: all refused', async () => {
      const got = ok(await run('emit_result(ns_games().data)\n')) as Record<string, unknown>;
      const worked = NS_GAMES_REFUSED.filter(
        (k) => !(typeof got[k] === 'string' || (typeof got[k] === 'number' && got[k] !== 0)),
      );
      expect(worked, JSON.stringify(got)).toEqual([]);
      expect(got['socket_fds']).toEqual([]);
      expect(got['worker_files']).toEqual([]);
      expect(got['process_groups']).toEqual([]);
      expect(got['shared_mounts']).toBe(0);
    });
  });
}

/** The job filter off too: the namespaces and the missing capabilities alone refuse the same games. */
for (const [level, make] of [
  ['docker', () => dockerFactory({ wallsOff: ['noseccomp', 'nosweep', 'nowipe'] })],
  ['gvisor', () => dockerFactory({ runtime: 'runsc', wallsOff: ['noseccomp', 'nosweep', 'nowipe'] })],
  ['process', async () => bubblewrapFactory({ wallsOff: ['noseccomp', 'nosweep', 'nowipe'] })],
] as const) {
  suite(`jobs alone, more escapes with the job filter off: ${level}`, make, (run) => {
    it('ids, root, host name, cgroups, kernel knobs, handles, namespaces, devices, tmpfs code: still refused', async () => {
      const got = ok(await run('emit_result(ns_games().data)\n')) as Record<string, unknown>;
      // (kcmp, clone3, process_vm_readv and pidfd_getfd of itself, keyrings: only the filter refuses them,
      // and on itself they reach nothing of another job)
      const walls = NS_GAMES_REFUSED.filter(
        (k) =>
          ![
            'kcmp',
            'clone3',
            'process_vm_readv_self',
            'pidfd_getfd_self',
            'add_key',
            'request_key',
            'process_madvise',
            // gVisor: no cgroup or time namespace exists there (the flags make none), and it checks no
            // capability for mknod: the job filter alone refuses device nodes (docs/security.md)
            ...(level === 'gvisor'
              ? ['unshare_cgroup', 'unshare_time', 'mknod_mem', 'mknod_null_open', 'mknod_disk']
              : []),
          ].includes(k),
      );
      const worked = walls.filter(
        (k) => !(typeof got[k] === 'string' || (typeof got[k] === 'number' && got[k] !== 0)),
      );
      expect(worked, JSON.stringify(got)).toEqual([]);
      expect(got['shared_mounts']).toBe(0);
      expect(got['process_groups']).toEqual([]);
    });
  });
}

/**
 * SysV shared memory and message queues, POSIX message queues, an abstract unix socket and a loopback
 * TCP port (the sandbox's network namespace is shared by its jobs): left by one job for the next, with
 * the fork server's IPC filter, the sweep and the wipe off. The job's IPC namespace holds what it made
 * and ends with it; its pid namespace ends the listener.
 */
for (const [level, make] of [
  ['docker', () => dockerFactory({ wallsOff: ['noipcfilter', 'nosweep', 'nowipe'] })],
  ['gvisor', () => dockerFactory({ runtime: 'runsc', wallsOff: ['noipcfilter', 'nosweep', 'nowipe'] })],
  ['process', async () => bubblewrapFactory({ wallsOff: ['noipcfilter', 'nosweep', 'nowipe'] })],
] as const) {
  suite(`jobs alone, IPC and sockets across jobs (IPC filter, sweep off): ${level}`, make, (run) => {
    it('what one job leaves in SysV IPC, POSIX queues, abstract sockets and loopback ports, the next does not reach', async () => {
      const a = ok(await run('emit_result(ipc_leave(tag=3).data)\n')) as Record<string, unknown>;
      // The attack was real: with the filter off the job made its segment and queues (in its own namespace).
      expect([a['shm'], a['msg'], a['mq']], JSON.stringify(a)).toEqual([0, 0, 0]);
      const b = ok(await run('emit_result(ipc_find(tag=3).data)\n')) as Record<string, unknown>;
      for (const k of ['shm', 'msg', 'mq', 'abstract', 'tcp'])
        expect([k, b[k] === 0], JSON.stringify(b)).toEqual([k, false]);
    }, 60_000);
  });
}

/**
 * gVisor lets a process list another's fd links, read its environment and open the links the file's own
 * mode lets it in, whatever the dumpable flag. Attacked: every fd of every process outside the job, read
 * as a link, opened for reading and writing, its fdinfo read; every environment. The job's /proc (its
 * tree's, of its pid namespace) shows no process but its own: nothing is listed, read or opened.
 */
suite(
  'jobs alone, the fds of processes outside the job: gvisor',
  () => dockerFactory({ runtime: 'runsc' }),
  (run) => {
    it('no fd of the worker or fork server is listed or opens; no environment reads', async () => {
      const got = ok(await run('emit_result(proc_fd_reach().data)\n')) as Record<string, string[]>;
      expect(got).toEqual({});
      const reach = ok(await run('emit_result(uid_reach().data)\n')) as unknown as UidReach;
      expect(reach.others).toEqual({});
    });
  },
);

/**
 * gVisor's tree of the job's own (docs/security.md, "A tree of its own (gVisor)"), with the job filter,
 * sweep and wipe off: the chroot and the missing capabilities alone. Attacked: `..` far above the root,
 * the folder of every job's tree, a directory fd, /proc/1/root, chroot (the subfolder-and-`..` escape),
 * a user namespace to gain the capability for it, pivot_root, a bind mount of /, the mount table; two
 * jobs in a row, the second's process made while nothing of the first is left.
 */
suite(
  'jobs alone, a tree of its own with the job filter off: gvisor',
  () => dockerFactory({ runtime: 'runsc', wallsOff: ['noseccomp', 'nosweep', 'nowipe'] }),
  (run) => {
    it('no way out of the tree: no other job, no sandbox /proc, no chroot, user namespace or mount', async () => {
      for (let i = 0; i < 2; i++) {
        const got = ok(await run('emit_result(tree_escape().data)\n')) as Record<string, unknown>;
        const what = JSON.stringify(got);
        expect(got['above_root'], what).toContain('usr');
        expect(got['mnt'], what).toEqual([]);
        expect(got['proc_pids'], what).toEqual([1]);
        expect(got['fd_dirs'], what).toEqual([]);
        expect([got['root_link'], got['root_same']], what).toEqual(['/', true]);
        for (const call of ['chroot', 'unshare_user', 'pivot_root', 'bind_root'])
          expect([call, typeof got[call] === 'number' && got[call] < 0], what).toEqual([call, true]);
        expect(got['chroot_in_userns'], what).toBeUndefined();
        expect(
          (got['mount_points'] as string[]).filter(
            (p) => p.startsWith('/mnt') || p.startsWith('/run/toolsmith'),
          ),
          what,
        ).toEqual([]);
      }
    }, 60_000);
  },
);

interface UidReach {
  ids: number[];
  groups: number[];
  others: Record<
    string,
    { uid: string | null; name: string | null; fds: number | null; opened: string[]; environ: number | null }
  >;
  regain: { setresuid: string; fsuid: number };
}

/**
 * A uid of its own (docs/security.md, "A uid of its own"): on gVisor the worker starts as root with
 * CAP_SETUID, CAP_SETGID, CAP_KILL, CAP_SYS_ADMIN and CAP_SYS_CHROOT only, becomes 65534, and its fork
 * server runs each job under a uid of its own (from 100000, never the one before) with no capability. Attacked as that job, with the job's
 * namespaces on and off: every process outside it (worker, fork server, the next job's process) has its
 * fd links listed, each opened for reading and writing (a write to an opened stderr forges a container
 * log line), its environment read; then the worker's uid is asked back. On runc and bubblewrap the jobs
 * share the worker's uid (see the doc for why) and the kernel keeps every fd list and environment of a
 * non-dumpable process closed; on gVisor the job's /proc (its tree's) shows no other process, and with
 * the namespaces off the fd names still list (its /proc does not check the uid) but none opens.
 */
for (const [level, off, make] of [
  ['docker', '', () => dockerFactory({})],
  ['gvisor', '', () => dockerFactory({ runtime: 'runsc' })],
  ['process', '', async () => bubblewrapFactory({})],
  ['docker', ' (namespaces off)', () => dockerFactory({ wallsOff: ['nojobns'] })],
  ['gvisor', ' (namespaces off)', () => dockerFactory({ runtime: 'runsc', wallsOff: ['nojobns'] })],
  ['process', ' (namespaces off)', async () => bubblewrapFactory({ wallsOff: ['nojobns'] })],
] as const) {
  suite(`a uid of its own${off}: ${level}`, make, (run) => {
    it("no fd of the worker, fork server or next job opens, no environment reads, the uid stays the job's", async () => {
      const a = ok(await run('emit_result(uid_reach().data)\n')) as unknown as UidReach;
      const b = ok(await run('emit_result(uid_reach().data)\n')) as unknown as UidReach;
      for (const got of [a, b]) {
        const uid = got.ids[0]!;
        expect(new Set(got.ids).size, JSON.stringify(got.ids)).toBe(1); // real, effective, saved: uid and gid
        expect(uid).not.toBe(0);
        if (level === 'gvisor') {
          expect(got.regain.setresuid).not.toBe('done'); // (elsewhere 65534 is the job's own uid)
          expect(uid).toBeGreaterThanOrEqual(100000);
          expect(got.groups).toEqual([]);
        }
        for (const [pid, o] of Object.entries(got.others)) {
          const what = `${pid} ${JSON.stringify(o)}`;
          expect(
            o.opened.filter((l) => l !== '/dev/null'),
            what,
          ).toEqual([]);
          expect(o.environ ?? 0, what).toBe(0);
          if (level === 'gvisor') expect(o.uid?.split(/\s+/), what).not.toContain(String(uid));
          else expect(o.fds, what).toBeNull();
        }
        // with namespaces: a /proc of the job's own (gVisor: its tree's), nothing else in it
        if (!off) expect(Object.keys(got.others)).toEqual([]);
      }
      // the job before and the one after never share a uid; the worker and fork server were attacked
      if (level === 'gvisor') {
        expect(a.ids[0]).not.toBe(b.ids[0]);
        if (off) expect(Object.keys(a.others).length, JSON.stringify(a.others)).toBeGreaterThanOrEqual(2);
      }
    }, 60_000);
  });
}
