/**
 * The second wall alone for IPC (docs/security.md, "Every job alone"): with the job's namespaces AND the
 * fork server's IPC filter switched off (`nojobns`, `noipcfilter`), what a job leaves in the sandbox's
 * IPC namespace (SysV shared memory, message queues, semaphore sets, POSIX message queues) must be gone
 * before the next job on the same worker: the worker's wipe is then the only wall. Objects open to every
 * uid (a job of another uid, gVisor, would reach them too), of mode 000 (their owner, the next job on
 * runc and bubblewrap, may give them a mode back), and behind 600 others. runc holds by Docker's IPC
 * sysctls of 0 (nothing can be made); gVisor ignores them and bubblewrap has none: there the wipe alone.
 * Failed before (docs/security.md): on gVisor nothing was removed (no /proc/sysvipc, no /dev/mqueue), on
 * bubblewrap the POSIX queue stayed (no /dev/mqueue) and a segment behind 64 KiB of /proc/sysvipc/shm.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import { bubblewrapFactory, dockerFactory, oneWorker } from '../../support/sandbox.ts';
import { repoRoot } from '../../support/workspace.ts';

const ATTACK = `
import ctypes as _ipc_ct

_IPC = _ipc_ct.CDLL(None, use_errno=True)
_IPC.syscall.restype = _ipc_ct.c_long
_MQ_OPEN = {"x86_64": 240, "aarch64": 180}[__import__("platform").machine()]


def _ipc_worker():
    """Which worker runs this job (namespaces off: the parent is its fork server): the host name (a
    container's own) and the fork server's start time."""
    with open(f"/proc/{os.getppid()}/stat") as f:
        start = f.read().rsplit(")", 1)[1].split()[19]
    return f"{os.uname().nodename}/{os.getppid()}/{start}"


def _ipc_err(r):
    import errno

    return 0 if r >= 0 else errno.errorcode.get(_ipc_ct.get_errno(), str(_ipc_ct.get_errno()))


@tool(grade=(2, 2))
def ipc_plant(tag: int = 1, filler: int = 0, mode: int = 0o666) -> ToolResponse:
    """Make \`filler\` private shared memory segments first (rows of /proc/sysvipc/shm the keyed ones come
    after), then a shared memory segment, a message queue, a semaphore set and a POSIX message queue of
    mode \`mode\` under a key and a name the next job knows: what each call said."""
    key = 0x7A00 + tag
    made = 0
    for _ in range(filler):
        if _IPC.shmget(0, 1, 0o1666) < 0:
            break
        made += 1
    res = {
        "worker": _ipc_worker(),
        "filler": made,
        "shm": _ipc_err(_IPC.shmget(key, 4096, 0o1000 | mode)),  # IPC_CREAT
        "msg": _ipc_err(_IPC.msgget(key, 0o1000 | mode)),
        "sem": _ipc_err(_IPC.semget(key, 1, 0o1000 | mode)),
        "mq": _ipc_err(_IPC.syscall(_MQ_OPEN, b"toolsmith-plant-%d" % tag, os.O_CREAT | os.O_RDWR, mode, None, 0)),
    }
    return ToolResponse(success=True, data=res)


@tool(grade=(2, 2))
def ipc_look(tag: int = 1) -> ToolResponse:
    """What of ipc_plant's this job finds: 0 when it is there, else the error. A look-up by key asking no
    permission (flags 0) finds an object whatever its mode; a POSIX queue is there when it opens or its
    open is refused for its mode (EACCES: a queue of mode 000 is found too), not when it is ENOENT."""
    import errno

    key = 0x7A00 + tag
    mq = _IPC.syscall(_MQ_OPEN, b"toolsmith-plant-%d" % tag, os.O_RDONLY, 0, None, 0)
    mq = 0 if mq >= 0 or _ipc_ct.get_errno() == errno.EACCES else _ipc_err(mq)  # (EACCES: it is there)
    return ToolResponse(
        success=True,
        data={
            "worker": _ipc_worker(),
            "shm": _ipc_err(_IPC.shmget(key, 0, 0)),
            "msg": _ipc_err(_IPC.msgget(key, 0)),
            "sem": _ipc_err(_IPC.semget(key, 0, 0)),
            "mq": mq,
        },
    )
`;

const toolsSource = readFileSync(join(repoRoot, 'test/fixtures/sandbox/tools.py'), 'utf8') + '\n' + ATTACK;
const TOOLS = ['add', 'ipc_plant', 'ipc_look', 'whoami'];

const toolsWithWho =
  toolsSource + '\n' + readFileSync(join(repoRoot, 'test/fixtures/sandbox/jobns_tools.py'), 'utf8');

const ok = (r: ExecutionResult) => {
  expect(r.success, JSON.stringify(r.error)).toBe(true);
  return r.data as Record<string, unknown>;
};

for (const [level, make] of [
  ['docker', () => dockerFactory({ wallsOff: ['nojobns', 'noipcfilter'] })],
  ['gvisor', () => dockerFactory({ runtime: 'runsc', wallsOff: ['nojobns', 'noipcfilter'] })],
  ['process', async () => bubblewrapFactory({ wallsOff: ['nojobns', 'noipcfilter'] })],
] as const) {
  describe(
    `the wipe alone against IPC objects (namespaces and IPC filter off): ${level}`,
    { concurrent: true },
    () => {
      const run = oneWorker(make, toolsWithWho, TOOLS);

      describe('one case after another', { concurrent: false }, () => {
        it.each([
          ['a few objects, open to all', 1, 0, 0o666],
          ['a few objects of mode 000 (their owner may still chmod them back: IPC_SET)', 2, 0, 0],
          ['behind 600 segments (past 64 KiB of /proc/sysvipc/shm)', 3, 600, 0o666],
        ])(
          '%s: the next job on the same worker reaches none',
          async (_what, tag, filler, mode) => {
            const a = ok(
              await run(`emit_result(ipc_plant(tag=${tag}, filler=${filler}, mode=${mode}).data)\n`),
            );
            if (level === 'docker') {
              // runc applies Docker's IPC sysctls of 0 (NO_IPC_SYSCTLS): nothing can be made at all.
              expect([a['shm'], a['msg'], a['sem'], a['mq']], JSON.stringify(a)).toEqual([
                'EINVAL',
                'ENOSPC',
                'EINVAL',
                'ENOSPC',
              ]);
            } else {
              // The attack is real: every object was made (gVisor ignores the sysctls; bubblewrap has none).
              expect(a, JSON.stringify(a)).toMatchObject({ filler, shm: 0, msg: 0, sem: 0, mq: 0 });
            }
            const b = ok(await run(`emit_result(ipc_look(tag=${tag}).data)\n`));
            expect(b['worker'], 'the same worker served both jobs').toBe(a['worker']);
            // Nothing of it is found (ENOENT: not refused for its mode, not there at all).
            expect(b, JSON.stringify(b)).toMatchObject({
              shm: 'ENOENT',
              msg: 'ENOENT',
              sem: 'ENOENT',
              mq: 'ENOENT',
            });
            // and the worker goes on serving
            expect(ok(await run('emit_result(add(a=40, b=2).data)\n'))).toBe(42);
          },
          120_000,
        );
      });
    },
  );
}
