/**
 * A job's walls made in C (docs/scaling.md, "A job's walls in C"): on runc and bubblewrap each job's
 * process makes its ids, mounts, /proc, devpts, capabilities and filter with the C library's `ts_enter`
 * instead of jobns.enter's Python (which stays: no library, gVisor, `nocenter`). The two must leave the
 * job in the same state. Seen from inside a job, on one warm worker of each level, with each path: its
 * ids and id maps, capabilities, no_new_privs and filters, its OOM score and dumpable flag, its mounts
 * (mount point, root, options, type, source, super options: every one the kernel lists), its /proc's
 * processes, its working folder and the nested-user-namespace limit, its umask and signal masks; and
 * that the C path is the one taken (the worker's plan holds it) where it should be, and not with
 * `nocenter`. The plain process level too: there the job's namespaces and filter are its only walls.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { bubblewrapFactory, dockerFactory, runPython, testBackend } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';

const TOOLS = `
import ctypes, os, sys


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        return f"error {e.errno}"


@tool(grade=(0, 0))
def view() -> ToolResponse:
    """What this job's process is, as the kernel shows it."""
    status = {}
    for line in _read("/proc/self/status").splitlines():
        key, _, value = line.partition(":")
        if key in ("Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp", "Seccomp_filters", "SigBlk", "SigIgn", "Umask"):
            status[key] = value.split()
    mounts = []
    for line in _read("/proc/self/mountinfo").splitlines():
        head, _, tail = line.partition(" - ")
        f = head.split()
        # (mount and parent ids, device numbers and peer group numbers differ between any two processes;
        # whether a mount is shared, a slave or unbindable does not)
        mounts.append([f[3], f[4], f[5], *[o.split(":")[0] for o in f[6:]], "-", *tail.split()])
    jobns = sys.modules.get("toolsmith_worker.jobns")
    libc = ctypes.CDLL(None)
    return ToolResponse(success=True, data={
        "status": status,
        "uid_map": _read("/proc/self/uid_map").split(),
        "gid_map": _read("/proc/self/gid_map").split(),
        "setgroups": _read("/proc/self/setgroups").strip(),
        "oom_score_adj": _read("/proc/self/oom_score_adj").strip(),
        "dumpable": libc.prctl(3, 0, 0, 0, 0),
        "mounts": sorted(mounts),
        "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
        "cwd": os.getcwd(),
        "max_user_namespaces": _read("/proc/sys/user/max_user_namespaces").strip(),
        "walls": sorted(jobns.WALLS) if jobns else None,
        "c": bool(jobns and jobns._PLAN and jobns._PLAN[0]["native"] is not None),
    })
`;

type View = Record<string, unknown> & { c: boolean; walls: string[] | null; mounts: string[][] };

/** A mount point of another program's: Docker's container layers, shm and netns, a test's second engine. */
const foreign = (at: string) =>
  /\/overlay2\/|\/containers\/[0-9a-f]{64}\/|^\/run\/docker\/|\/netns\/|^\/tmp\/tsd-/.test(at);

for (const [level, make] of [
  ['docker', (wallsOff: string[]) => dockerFactory({ wallsOff })],
  ['process', async (wallsOff: string[]) => bubblewrapFactory({ wallsOff })],
  // (no bubblewrap: the job's namespaces and its filter are the only walls around it)
  ['process (plain)', async (wallsOff: string[]) => bubblewrapFactory({ wallsOff, noBubblewrap: true })],
] as const) {
  describe(`a job's walls in C and in Python: ${level}`, () => {
    const made: { factory: TestFactory; backend: SandboxBackend }[] = [];
    afterAll(async () => {
      for (const m of made) {
        await m.backend.dispose();
        await m.factory.dispose();
      }
    });

    /** Three jobs on one warm worker (the first job's process is the Python loop's, the rest the C loop's). */
    async function views(wallsOff: string[]): Promise<View[]> {
      const factory = await make(wallsOff);
      const backend = testBackend(factory, { toolsSource: TOOLS, pool: { maxSize: 1, standby: 0 } });
      made.push({ factory, backend });
      const out: View[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await runPython(backend, 'emit_result(view().data)\n', {
          sandbox: 'walls',
          tools: ['view'],
          timeoutMs: 60_000,
        });
        expect(r.error).toBeUndefined();
        out.push(r.data as View);
      }
      return out;
    }

    it('leave every job in the same state, with the C path taken by default and not with nocenter', async () => {
      const c = await views([]);
      const py = await views(['nocenter']);
      for (const v of c) expect(v.c).toBe(true);
      for (const v of py) expect(v.c).toBe(false);
      // The walls a job must have to be alone, all in place on both paths.
      for (const v of [...c, ...py])
        expect(v.walls).toEqual(
          expect.arrayContaining(['user', 'pid', 'ipc', 'ids', 'mnt', 'proc', 'pts', 'nocaps', 'seccomp']),
        );
      const fstype = (m: string[]) => m[m.indexOf('-') + 1];
      expect(c[0]?.mounts.some((m) => m[1] === '/proc' && fstype(m) === 'proc')).toBe(true);
      expect(c[0]?.mounts.some((m) => m[1] === '/dev/pts' && fstype(m) === 'devpts')).toBe(true);
      // (each worker has job uids of its own: the job's uid and gid are compared by place, not value)
      const same = (v: View) => {
        // The plain process level's job sees a copy of the host's mount table, and what other programs
        // mount and unmount while the six jobs run comes and goes between them: a container's layers,
        // shm and network namespace, or a whole second Docker engine's data root (other tests start
        // both). Those are not the job's walls; every other mount is compared.
        v = { ...v, mounts: v.mounts.filter((m) => !foreign(m[1] as string)) };
        const st = v['status'] as Record<string, string[]>;
        const [uid, gid] = [st['Uid']?.[0] as string, st['Gid']?.[0] as string];
        expect(st['Uid']).toEqual([uid, uid, uid, uid]);
        expect(v['uid_map']).toEqual([uid, uid, '1']);
        expect(v['gid_map']).toEqual([gid, gid, '1']);
        // (and what names the worker's container, folders and ids: its overlay's layers, its container id,
        // the process level's /tmp/toolsmith-{worker,protocol}-XXXXXX and the sandbox's own uid)
        const text = JSON.stringify({ ...v, c: undefined })
          .replace(new RegExp(`\\b${uid}\\b`, 'g'), 'UID')
          .replace(new RegExp(`\\b${gid}\\b`, 'g'), 'GID')
          .replace(/lowerdir=[^"]*/g, 'lowerdir=*')
          .replace(/[0-9a-f]{64}/g, 'ID')
          .replace(/(toolsmith-\w+)-\w{6}/g, '$1-*')
          .replace(/([ug]id)=\d{6,}/g, '$1=N');
        return JSON.parse(text) as View;
      };
      for (let i = 0; i < 3; i++) expect(same(c[i] as View)).toEqual(same(py[i] as View));
    }, 300_000);
  });
}
