/**
 * The bubblewrap level's seccomp program, run through a classic-BPF interpreter (the subset the
 * assembler emits) for both architectures, and its syscall numbers checked against the kernel headers
 * installed here (linux-libc-dev). The program's effect in a real sandbox is tested in
 * test/integration/sandbox/process-level.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  AUDIT_ARCH,
  CHECKED,
  DENIED,
  ENOSYS,
  EPERM,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  X32_SYSCALL_BIT,
  seccompFilter,
} from '../../../src-main/infra/sandbox/seccomp.ts';
import type { SeccompArch } from '../../../src-main/infra/sandbox/seccomp.ts';

/** Runs a program on one seccomp_data {nr, arch, args}; answers the action word. */
function evaluate(prog: Buffer, nr: number, arch: number, args: number[] = []): number {
  const data = Buffer.alloc(64);
  data.writeInt32LE(nr, 0);
  data.writeUInt32LE(arch >>> 0, 4);
  args.forEach((a, i) => {
    data.writeUInt32LE(a >>> 0, 16 + 8 * i);
    data.writeUInt32LE(Math.floor(a / 2 ** 32) >>> 0, 20 + 8 * i);
  });
  let acc = 0;
  for (let pc = 0, steps = 0; pc * 8 < prog.length; pc++, steps++) {
    if (steps > 10_000) throw new Error('loop');
    const code = prog.readUInt16LE(pc * 8);
    const jt = prog.readUInt8(pc * 8 + 2);
    const jf = prog.readUInt8(pc * 8 + 3);
    const k = prog.readUInt32LE(pc * 8 + 4);
    switch (code) {
      case 0x20: // ld [k]
        acc = data.readUInt32LE(k);
        break;
      case 0x15: // jeq #k
        pc += acc === k ? jt : jf;
        break;
      case 0x35: // jge #k
        pc += acc >= k ? jt : jf;
        break;
      case 0x45: // jset #k
        pc += (acc & k) >>> 0 ? jt : jf;
        break;
      case 0x06: // ret #k
        return k;
      default:
        throw new Error(`opcode ${code.toString(16)} at ${pc}`);
    }
  }
  throw new Error('fell off the end of the program');
}

const ERR = (e: number) => (SECCOMP_RET_ERRNO | e) >>> 0;
const CLONE_NEWUSER = 0x10000000;
const CLONE_NEWNS = 0x00020000;
const CLONE_NEWTIME = 0x80;
const SIGCHLD = 17;
const THREAD_FLAGS = 0x003d0f00; // CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|PARENT_SETTID|CHILD_CLEARTID

describe.each<[SeccompArch, { read: number; write: number; openat: number; fork?: number }]>([
  ['x64', { read: 0, write: 1, openat: 257, fork: 57 }],
  ['arm64', { read: 63, write: 64, openat: 56 }],
])('seccomp filter (%s)', (arch, ordinary) => {
  const prog = seccompFilter(arch);
  const A = AUDIT_ARCH[arch];
  const n = (name: keyof typeof CHECKED) => CHECKED[name][arch] as number;

  it('is a whole number of instructions and well under the kernel limit', () => {
    expect(prog.length % 8).toBe(0);
    expect(prog.length / 8).toBeLessThan(200);
  });

  it('refuses every denied call with EPERM', () => {
    for (const [name, nums] of Object.entries(DENIED)) {
      const nr = nums[arch];
      if (nr === undefined) continue;
      expect(evaluate(prog, nr, A), name).toBe(ERR(EPERM));
    }
  });

  it('allows ordinary calls', () => {
    for (const nr of Object.values(ordinary))
      expect(evaluate(prog, nr, A), String(nr)).toBe(SECCOMP_RET_ALLOW);
  });

  it('clone: a fork or a thread is allowed, any namespace flag refused', () => {
    expect(evaluate(prog, n('clone'), A, [SIGCHLD])).toBe(SECCOMP_RET_ALLOW);
    expect(evaluate(prog, n('clone'), A, [THREAD_FLAGS])).toBe(SECCOMP_RET_ALLOW);
    for (const flag of [
      CLONE_NEWUSER,
      CLONE_NEWNS,
      0x20000000,
      0x40000000,
      0x02000000,
      0x04000000,
      0x08000000,
    ])
      expect(evaluate(prog, n('clone'), A, [SIGCHLD | flag]), flag.toString(16)).toBe(ERR(EPERM));
    // A flag in the upper half of the 64-bit argument does not hide a namespace flag in the lower half.
    expect(evaluate(prog, n('clone'), A, [2 ** 32 + CLONE_NEWUSER])).toBe(ERR(EPERM));
  });

  it('clone3 answers ENOSYS (its flags are out of reach), so libc falls back to clone', () => {
    expect(evaluate(prog, n('clone3'), A, [0, 88])).toBe(ERR(ENOSYS));
  });

  it('unshare: namespaces refused (CLONE_NEWTIME too), other flags allowed', () => {
    expect(evaluate(prog, n('unshare'), A, [CLONE_NEWUSER])).toBe(ERR(EPERM));
    expect(evaluate(prog, n('unshare'), A, [CLONE_NEWTIME])).toBe(ERR(EPERM));
    expect(evaluate(prog, n('unshare'), A, [0x400])).toBe(SECCOMP_RET_ALLOW); // CLONE_FILES
  });

  it("personality: only Docker's list", () => {
    for (const p of [0, 8, 0x20000, 0x20008, 0xffffffff])
      expect(evaluate(prog, n('personality'), A, [p])).toBe(SECCOMP_RET_ALLOW);
    expect(evaluate(prog, n('personality'), A, [0x0040000])).toBe(ERR(EPERM)); // ADDR_NO_RANDOMIZE
  });

  it('a call of another architecture is refused, even an allowed number', () => {
    const other = arch === 'x64' ? AUDIT_ARCH.arm64 : AUDIT_ARCH.x64;
    expect(evaluate(prog, ordinary.read, other)).toBe(ERR(EPERM));
    expect(evaluate(prog, ordinary.read, 0x40000003)).toBe(ERR(EPERM)); // AUDIT_ARCH_I386
  });

  it("with per-job namespaces (the bubblewrap level's filter): the job's clone and mounts pass, nothing else more", () => {
    const jobns = seccompFilter(arch, { jobNamespaces: true });
    const job = CLONE_NEWUSER | 0x20000000 | CLONE_NEWNS | 0x08000000;
    expect(evaluate(jobns, n('clone'), A, [SIGCHLD | job])).toBe(SECCOMP_RET_ALLOW);
    for (const flag of [0x40000000, 0x02000000, 0x04000000])
      expect(evaluate(jobns, n('clone'), A, [SIGCHLD | job | flag]), flag.toString(16)).toBe(ERR(EPERM));
    expect(evaluate(jobns, n('unshare'), A, [CLONE_NEWUSER])).toBe(ERR(EPERM));
    expect(evaluate(jobns, n('clone3'), A, [0, 88])).toBe(ERR(ENOSYS));
    for (const [name, nums] of Object.entries(DENIED)) {
      const nr = nums[arch];
      if (nr === undefined) continue;
      expect(evaluate(jobns, nr, A), name).toBe(name === 'mount' ? SECCOMP_RET_ALLOW : ERR(EPERM));
    }
  });

  if (arch === 'x64')
    it('x32 numbers (bit 30) are refused as a whole: a denied call cannot come in that way', () => {
      expect(evaluate(prog, X32_SYSCALL_BIT | (DENIED.ptrace?.x64 as number), A)).toBe(ERR(EPERM));
      expect(evaluate(prog, X32_SYSCALL_BIT | ordinary.read, A)).toBe(ERR(EPERM));
    });
});

describe('syscall numbers match the kernel headers', () => {
  const headers: [SeccompArch, string][] = [
    ['x64', '/usr/include/x86_64-linux-gnu/asm/unistd_64.h'],
    ['arm64', '/usr/include/asm-generic/unistd.h'],
  ];
  it.each(headers)('%s: %s', (arch, file) => {
    if (!existsSync(file))
      throw new Error(
        `${file} is missing: install the kernel headers (Debian: apt-get install linux-libc-dev)`,
      );
    const text = readFileSync(file, 'utf8');
    const defined = new Map<string, number>();
    for (const m of text.matchAll(/^#define __NR_(\w+)\s+(\d+)/gm)) defined.set(m[1] as string, Number(m[2]));
    let checked = 0;
    for (const [name, nums] of Object.entries({ ...DENIED, ...CHECKED })) {
      expect(nums[arch], `${name} on ${arch}`).toBe(defined.get(name));
      checked++;
    }
    expect(checked).toBeGreaterThan(60);
  });
});
