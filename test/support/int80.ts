/**
 * Whether this machine's kernel can be entered through `int 0x80` at all (the 32-bit ABI the walls-abi
 * tests attack). Some virtual machines offer no such entry: there `int 0x80` from a 64-bit process is a
 * general protection fault (SIGSEGV) before the kernel's system call path, and before any seccomp filter,
 * is reached (seen on a Firecracker guest with kernel 6.18, CONFIG_IA32_EMULATION=y). On such a machine
 * no call can be made through that ABI, so "none made" holds whatever the filters say, and the tests
 * expect that fault instead of the filters' answers (they say so on stderr).
 *
 * Asked once per test process, on the host, with the host's Python: the child makes i386 `getpid` (20)
 * through `int 0x80` (our own six bytes of code: `mov rax, rdi; int 0x80; ret`) and nothing else.
 */
import { hostPython } from './host-python.ts';

const PROBE = `import ctypes, mmap, os
m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
m.write(bytes([0x48, 0x89, 0xF8, 0xCD, 0x80, 0xC3]))
f = ctypes.CFUNCTYPE(ctypes.c_long, ctypes.c_long)(ctypes.addressof(ctypes.c_char.from_buffer(m)))
pid = os.fork()
if pid == 0:
    os._exit(0 if f(20) == os.getpid() else 3)
_, st = os.waitpid(pid, 0)
print(f"signal {os.WTERMSIG(st)}" if os.WIFSIGNALED(st) else f"exit {os.WEXITSTATUS(st)}")
`;

let known: boolean | undefined;

/** True where `int 0x80` reaches the kernel (i386 getpid answers the pid); false where it faults. */
export function kernelTakesInt80(): boolean {
  if (known !== undefined) return known;
  const r = hostPython(PROBE);
  const said = r.stdout.trim();
  if (said === 'exit 0') known = true;
  else if (said === 'signal 11') {
    known = false;
    process.stderr.write(
      'int 0x80 is a fault on this machine (no 32-bit system call entry): the 32-bit ABI tests expect that fault, since no call can be made through it here\n',
    );
  } else throw new Error(`could not tell whether this kernel takes int 0x80: ${said || r.stderr}`);
  return known;
}
