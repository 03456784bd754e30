/**
 * The job's seccomp filter against the 32-bit ABI (docs/sandboxes.md, "Each job alone, by the kernel"):
 * an x86_64 process may still enter the kernel through `int 0x80`, where every call has the i386 ABI's
 * number (keyctl 288, io_uring_setup 425, unshare 310, ...), none of the job filter's rules match, and
 * the architecture in seccomp_data is i386's. The job filter (jobns._assemble) and the fork server's
 * IPC filter (hygiene.deny_ipc) allowed every call of another architecture: harmless where a filter
 * around the job refuses them (runc's profile kills the process, bubblewrap's filter answers EPERM), but
 * on the plain process level, where the job filter is the only one, a job made every call the filter
 * exists to refuse. Tool code here is the attacker: it enters the kernel through `int 0x80` from a
 * forked child (so that a SIGSYS ends that child only) and reports what each call answered. Both ways
 * of making a job's walls (in C, and jobns.enter's Python under `nocenter`) are attacked, with the
 * sweep and wipe off.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import type { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { bubblewrapFactory, dockerFactory, runPython, testBackend } from '../../support/sandbox.ts';
import { kernelTakesInt80 } from '../../support/int80.ts';
import type { TestFactory } from '../../support/sandbox.ts';

const TOOLS = `
import ctypes, mmap, os, platform, sys

# long call(nr, a, b, c, d, e): the i386 ABI's registers from the x86_64 call's, then int 0x80
#   push rbx; mov rax,rdi; mov rbx,rsi; mov r11,rdx; mov rdx,rcx; mov rcx,r11; mov rsi,r8; mov rdi,r9;
#   int 0x80; pop rbx; ret
_CODE = bytes.fromhex("534889f84889f34989d34889ca4c89d94c89c64c89cfcd805bc3")

# (i386 numbers, arch/x86/entry/syscalls/syscall_32.tbl) call name -> (nr, arguments)
_JOB_FILTER = {
    "keyctl": (288, (0, -3 & 0xFFFFFFFF, 0)),  # KEYCTL_GET_KEYRING_ID of the session keyring
    "io_uring_setup": (425, (1, 0)),  # (a NULL params: EFAULT once the kernel takes it)
    "personality": (136, (0xFFFFFFFF,)),  # (a query)
    "unshare_user": (310, (0x10000000,)),  # CLONE_NEWUSER (ENOSPC past the filter: max_user_namespaces 0)
    "userfaultfd": (374, (0,)),
    "bpf": (357, (0, 0, 0)),
    "ptrace_traceme": (26, (0, 0, 0, 0)),
}
_IPC_FILTER = {"shmget": (395, (0, 4096, 0o600)), "semget": (393, (0, 1, 0o600)), "msgget": (399, (0, 0o600))}
_RMID = {"shmget": 31, "semget": 66, "msgget": 71}  # x86_64 shmctl, semctl, msgctl (IPC_RMID: 0)


def _i386(calls):
    """Each call through int 0x80 in a child of its own: what the kernel answered (0 or more, or
    -errno), or the signal that ended the child."""
    m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    m.write(_CODE)
    f = ctypes.CFUNCTYPE(ctypes.c_int, *[ctypes.c_long] * 6)(ctypes.addressof(ctypes.c_char.from_buffer(m)))
    libc = ctypes.CDLL(None)
    out = {}
    for name, (nr, args) in calls.items():
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            got = f(nr, *(list(args) + [0] * (5 - len(args))))
            if name in _RMID and got >= 0:
                libc.syscall(_RMID[name], got, 0, 0)  # (made: removed at once, never left behind)
            os.write(w, str(got).encode())
            os._exit(0)
        os.close(w)
        text = os.read(r, 64).decode()
        os.close(r)
        _, status = os.waitpid(pid, 0)
        out[name] = int(text) if text else f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else "nothing"
    return out


@tool(grade=(2, 2))
def abi32(ipc: bool = False) -> ToolResponse:
    """The job filter's (or with ipc, the IPC filter's) calls made through the 32-bit ABI."""
    if platform.machine() != "x86_64":
        return ToolResponse(success=False, message="x86_64 only")
    jobns = sys.modules["toolsmith_worker.jobns"]
    return ToolResponse(success=True, data={
        "calls": _i386(_IPC_FILTER if ipc else _JOB_FILTER),
        "walls": sorted(jobns.WALLS),
        "c": bool(jobns._PLAN and jobns._PLAN[0]["native"] is not None),
    })
`;

interface Abi32 {
  calls: Record<string, number | string>;
  walls: string[];
  c: boolean;
}

/**
 * Refused: EPERM (-1), or the whole process ended by SIGSYS (runc's profile: another architecture); on a
 * machine whose kernel has no `int 0x80` entry (support/int80.ts), the fault (SIGSEGV) every call is there
 * before any filter is asked. What is left is what was not refused.
 */
const refused = (calls: Record<string, number | string>) =>
  Object.entries(calls).filter(([, v]) =>
    kernelTakesInt80() ? v !== -1 && v !== 'signal 31' : v !== 'signal 11',
  );

for (const [level, make] of [
  ['docker', (wallsOff: string[]) => dockerFactory({ wallsOff })],
  ['process (bubblewrap)', async (wallsOff: string[]) => bubblewrapFactory({ wallsOff })],
  // (no filter around the job: the job filter, and the fork server's IPC filter, are the only ones)
  ['process (plain)', async (wallsOff: string[]) => bubblewrapFactory({ wallsOff, noBubblewrap: true })],
] as const) {
  describe(`the 32-bit ABI against a job's filters: ${level}`, () => {
    const made: { factory: TestFactory; backend: SandboxBackend }[] = [];
    afterAll(async () => {
      for (const m of made) {
        await m.backend.dispose();
        await m.factory.dispose();
      }
    });

    async function run(wallsOff: string[], code: string): Promise<ExecutionResult[]> {
      const factory = await make(wallsOff);
      const backend = testBackend(factory, {
        toolsSource: TOOLS,
        pool: { minSize: 1, maxSize: 1, standby: 0 },
      });
      made.push({ factory, backend });
      const out: ExecutionResult[] = [];
      // (the first job's process is the Python loop's, the second the C loop's)
      for (let i = 0; i < 2; i++)
        out.push(await runPython(backend, code, { sandbox: 'abi', tools: ['abi32'], timeoutMs: 60_000 }));
      return out;
    }

    for (const [path, off] of [
      ['in C', []],
      ['in Python (nocenter)', ['nocenter']],
    ] as const)
      it(`every call the job filter refuses is refused through int 0x80 too (walls made ${path})`, async () => {
        for (const r of await run([...off, 'nosweep', 'nowipe'], 'emit_result(abi32().data)\n')) {
          expect(r.error, JSON.stringify(r.error)).toBeUndefined();
          const got = r.data as unknown as Abi32;
          expect(got.c).toBe(off.length === 0);
          expect(got.walls).toContain('seccomp');
          expect(Object.keys(got.calls)).toHaveLength(7);
          expect(refused(got.calls), JSON.stringify(got.calls)).toEqual([]);
        }
      }, 300_000);

    it('with the namespaces and job filter off, the IPC filter refuses SysV IPC through int 0x80 too', async () => {
      for (const r of await run(
        ['nojobns', 'noseccomp', 'nosweep', 'nowipe'],
        'emit_result(abi32(ipc=True).data)\n',
      )) {
        expect(r.error, JSON.stringify(r.error)).toBeUndefined();
        const got = r.data as unknown as Abi32;
        expect(Object.keys(got.calls)).toHaveLength(3);
        expect(refused(got.calls), JSON.stringify(got.calls)).toEqual([]);
      }
    }, 300_000);
  });
}
