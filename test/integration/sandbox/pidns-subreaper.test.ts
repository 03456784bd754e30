/**
 * A job's pid namespace ends with its pid 1 also under the worker's own subreaper rule
 * (`hygiene.become_subreaper`, docs/sandboxes.md, "Each job alone"). gVisor's runsc 0.0~20240729 (Debian
 * 13) hands a pid namespace's orphans to a child subreaper outside the namespace when its pid 1 exits,
 * instead of killing them: with the worker (pid 1 of the sandbox) a subreaper, a job's double-forked
 * survivor outlived its namespace there and reached the next job. The worker therefore sets the flag
 * only where it is needed: not at pid 1, and not where its jobs run in pid namespaces of their own (a
 * worker below an init, `docker run --init`, with jobs in namespaces: none; with plain forks: one).
 *
 * Driven directly in the python image with the sandbox's HostConfig and the job uids' capabilities (the
 * fork server's clone of a new pid namespace), run as pid 1 of the container: the worker's call, its flag
 * (PR_GET_CHILD_SUBREAPER), the same call in a process that is not pid 1, and the wall itself: a process
 * cloned into new pid and IPC namespaces double-forks a `setsid` sleeper holding a pipe and exits; the
 * pipe must reach its end (every holder gone) once that process is reaped. Run on 20221219 (the
 * machine's runsc) and on 20240729 (a second Docker engine with that runsc, through DOCKER_HOST:
 * docs/scaling.md). Before the fix both cases failed on both versions (the worker's call set the flag at
 * pid 1), and on 20240729 the survivor was alive 10 s after its namespace's pid 1 was reaped.
 */
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import { GVISOR_PIDS, hostConfig, JOB_UID_CAPS } from '../../../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../../../src-main/infra/sandbox/images.ts';
import { requireDocker, TEST_LIMITS } from '../../support/sandbox.ts';

const SCRIPT = String.raw`
import ctypes, json, os, select, signal, sys, time
sys.path.insert(0, "/opt/toolsmith")
from toolsmith_worker import hygiene

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def flag():
    v = ctypes.c_int(-1)
    libc.prctl(37, ctypes.byref(v), 0, 0, 0)  # PR_GET_CHILD_SUBREAPER
    return v.value

# the worker's call at pid 1, its jobs in pid namespaces of their own (and, at pid 1, plain forks too)
out = {"pid": os.getpid(), "set": hygiene.become_subreaper(True), "plain": hygiene.become_subreaper(False), "flag": flag()}
r, w = os.pipe()
k = os.fork()
if k == 0:
    # not pid 1 (docker run --init, a pod sharing its process namespace): no subreaper while its jobs have
    # pid namespaces; one once they are plain forks
    ns = [hygiene.become_subreaper(True), flag()]
    os.write(w, json.dumps([os.getpid() != 1, *ns, hygiene.become_subreaper(False), flag()]).encode())
    os._exit(0)
os.waitpid(k, 0)
out["child"] = json.loads(os.read(r, 200))
os.close(r)
os.close(w)

r, w = os.pipe()
job = libc.syscall(56, 0x20000000 | 0x08000000 | signal.SIGCHLD, 0, 0, 0, 0)  # clone(NEWPID | NEWIPC)
if job == 0:
    os.close(r)
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(30)
        os._exit(0)
    time.sleep(0.3)
    os._exit(0)
out["clone"] = job > 0
os.close(w)
if job > 0:
    os.waitpid(job, 0)
    # (gVisor kills the namespace as its pid 1 exits, without waiting for the kills: the end comes soon after)
    ready = select.select([r], [], [], 10)[0]
    out["survivor"] = "gone" if ready and os.read(r, 1) == b"" else "alive"
print("RESULT " + json.dumps(out), flush=True)
`;

async function probe(docker: Docker, image: string, runtime?: string): Promise<Record<string, unknown>> {
  const c = await docker.createContainer({
    Image: image,
    Entrypoint: ['/usr/bin/python3'],
    Cmd: ['-I', '-c', SCRIPT],
    User: '0:0',
    HostConfig: {
      ...hostConfig(TEST_LIMITS),
      CapAdd: [...JOB_UID_CAPS],
      // (gVisor: the sandbox kernel's own threads count in the pids limit, as the factory gives them)
      ...(runtime ? { Runtime: runtime, PidsLimit: TEST_LIMITS.pids + GVISOR_PIDS } : {}),
      LogConfig: { Type: 'json-file', Config: {} },
    },
  });
  try {
    await c.start();
    const status = (await c.wait()) as { StatusCode?: number };
    const logs = (await c.logs({ stdout: true, stderr: true })).toString('latin1');
    const line = logs.split('\n').find((l) => l.includes('RESULT '));
    if (!line) throw new Error(`no result (exit status ${status.StatusCode}): ${logs}`);
    return JSON.parse(line.slice(line.indexOf('RESULT ') + 7)) as Record<string, unknown>;
  } finally {
    await c.remove({ force: true });
  }
}

describe('a job pid namespace ends with its pid 1, the worker being pid 1', () => {
  for (const [level, runtime] of [
    ['docker', undefined],
    ['gvisor', 'runsc'],
  ] as const) {
    it(`no subreaper at pid 1; a double-forked survivor dies with its namespace: ${level}`, async () => {
      const docker = new Docker();
      await requireDocker(docker);
      const image = await buildImage(docker, 'python', imagePaths());
      const got = await probe(docker, image, runtime);
      const what = JSON.stringify(got);
      expect([got['pid'], got['set'], got['plain'], got['clone'], got['survivor']], what).toEqual([
        1,
        false,
        false,
        true,
        'gone',
      ]);
      // (gVisor 20221219 has no PR_GET_CHILD_SUBREAPER and no subreapers: the flag is read on runc only)
      if (level === 'docker')
        expect([got['flag'], got['child']], what).toEqual([0, [true, false, 0, true, 1]]);
      else expect((got['child'] as unknown[]).slice(0, 2), what).toEqual([true, false]);
    }, 180_000);
  }
});
