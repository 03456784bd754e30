/**
 * The seccomp filter of the bubblewrap level (`bwrap --seccomp FD` loads a compiled classic BPF program).
 * No libseccomp binding installs from npm here and Debian's `scmp_sys_resolver`/`seccomp-tools` are not a
 * dependency of Toolsmith, so the program is assembled here: a deny-list close to Docker's default profile
 * (what a sandboxed script never needs and the kernel attack surface it would reach), for x86_64 and
 * aarch64, checking the architecture first. Everything else is allowed (an allow-list would have to follow
 * every Python, glibc and Node release). Denied calls fail with EPERM, so a library that probes one
 * (io_uring in libuv, clone3 in glibc) falls back instead of crashing.
 */

/** The architectures a filter exists for (`process.arch` names). */
export type SeccompArch = 'x64' | 'arm64';

/** A denied system call: its name and number per architecture (absent: the architecture has none). */
type Numbers = Partial<Record<SeccompArch, number>>;

/**
 * Syscalls refused outright (EPERM). Numbers from the kernel's uapi headers
 * (`asm/unistd_64.h` for x86_64; aarch64 uses `asm-generic/unistd.h`); a unit test compares them with the
 * headers installed on the machine.
 */
export const DENIED: Record<string, Numbers> = {
  // Reading or writing another process's memory, or tracing it.
  ptrace: { x64: 101, arm64: 117 },
  process_vm_readv: { x64: 310, arm64: 270 },
  process_vm_writev: { x64: 311, arm64: 271 },
  process_madvise: { x64: 440, arm64: 440 },
  pidfd_getfd: { x64: 438, arm64: 438 },
  kcmp: { x64: 312, arm64: 272 },
  // Kernel attack surface a script never needs.
  bpf: { x64: 321, arm64: 280 },
  perf_event_open: { x64: 298, arm64: 241 },
  userfaultfd: { x64: 323, arm64: 282 },
  io_uring_setup: { x64: 425, arm64: 425 },
  io_uring_enter: { x64: 426, arm64: 426 },
  io_uring_register: { x64: 427, arm64: 427 },
  keyctl: { x64: 250, arm64: 219 },
  add_key: { x64: 248, arm64: 217 },
  request_key: { x64: 249, arm64: 218 },
  fanotify_init: { x64: 300, arm64: 262 },
  // File systems and namespaces.
  mount: { x64: 165, arm64: 40 },
  umount2: { x64: 166, arm64: 39 },
  pivot_root: { x64: 155, arm64: 41 },
  chroot: { x64: 161, arm64: 51 },
  setns: { x64: 308, arm64: 268 },
  fsopen: { x64: 430, arm64: 430 },
  fsconfig: { x64: 431, arm64: 431 },
  fsmount: { x64: 432, arm64: 432 },
  fspick: { x64: 433, arm64: 433 },
  move_mount: { x64: 429, arm64: 429 },
  open_tree: { x64: 428, arm64: 428 },
  mount_setattr: { x64: 442, arm64: 442 },
  open_by_handle_at: { x64: 304, arm64: 265 },
  name_to_handle_at: { x64: 303, arm64: 264 },
  quotactl: { x64: 179, arm64: 60 },
  quotactl_fd: { x64: 443, arm64: 443 },
  // Kernel modules, rebooting, swap, the clock, the kernel log.
  init_module: { x64: 175, arm64: 105 },
  finit_module: { x64: 313, arm64: 273 },
  delete_module: { x64: 176, arm64: 106 },
  create_module: { x64: 174 },
  get_kernel_syms: { x64: 177 },
  query_module: { x64: 178 },
  kexec_load: { x64: 246, arm64: 104 },
  kexec_file_load: { x64: 320, arm64: 294 },
  reboot: { x64: 169, arm64: 142 },
  swapon: { x64: 167, arm64: 224 },
  swapoff: { x64: 168, arm64: 225 },
  acct: { x64: 163, arm64: 89 },
  syslog: { x64: 103, arm64: 116 },
  settimeofday: { x64: 164, arm64: 170 },
  clock_settime: { x64: 227, arm64: 112 },
  clock_adjtime: { x64: 305, arm64: 266 },
  vhangup: { x64: 153, arm64: 58 },
  // Hardware and legacy interfaces.
  iopl: { x64: 172 },
  ioperm: { x64: 173 },
  modify_ldt: { x64: 154 },
  lookup_dcookie: { x64: 212, arm64: 18 },
  nfsservctl: { x64: 180, arm64: 42 },
  uselib: { x64: 134 },
  ustat: { x64: 136 },
  sysfs: { x64: 139 },
  _sysctl: { x64: 156 },
  // NUMA placement (Docker allows these only with CAP_SYS_NICE).
  mbind: { x64: 237, arm64: 235 },
  set_mempolicy: { x64: 238, arm64: 237 },
  set_mempolicy_home_node: { x64: 450, arm64: 450 },
  migrate_pages: { x64: 256, arm64: 238 },
  move_pages: { x64: 279, arm64: 239 },
};

/** Syscalls allowed only with some arguments (the checks are in `seccompFilter`). */
export const CHECKED: Record<'clone' | 'clone3' | 'unshare' | 'personality', Numbers> = {
  clone: { x64: 56, arm64: 220 },
  clone3: { x64: 435, arm64: 435 },
  unshare: { x64: 272, arm64: 97 },
  personality: { x64: 135, arm64: 92 },
};

/** The namespaces of a job's process (jobns.py JOB_FLAGS): CLONE_NEWNS | NEWIPC | NEWUSER | NEWPID. */
export const JOB_NAMESPACES = 0x00020000 | 0x08000000 | 0x10000000 | 0x20000000;
/** What the bubblewrap level's filter keeps of the deny-list when jobs get namespaces of their own. */
export const PROCESS_JOBNS_ALLOWED = new Set(['mount']);

/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET: clone with any of them is refused. */
export const CLONE_NAMESPACES =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
/** unshare also knows CLONE_NEWTIME (in clone's flags the same bit is part of the exit signal). */
export const UNSHARE_NAMESPACES = CLONE_NAMESPACES | 0x00000080;
/** The personalities Docker's default profile allows: PER_LINUX, PER_LINUX32, UNAME26 (+32), and the query. */
export const PERSONALITIES = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff];

export const AUDIT_ARCH: Record<SeccompArch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };
/** x86_64's x32 ABI: the same calls with this bit set in the number (a way around a deny-list by number). */
export const X32_SYSCALL_BIT = 0x40000000;

export const SECCOMP_RET_ALLOW = 0x7fff0000;
export const SECCOMP_RET_ERRNO = 0x00050000;
export const EPERM = 1;
export const ENOSYS = 38;

// Classic BPF opcodes (linux/bpf_common.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

/** Offsets in struct seccomp_data: nr, arch, args[6] (little endian: the low word of each argument first). */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

type Label = string;
type Insn =
  | { op: 'ld'; off: number }
  | { op: 'jeq' | 'jge' | 'jset'; k: number; jt: Label | 0; jf: Label | 0 }
  | { op: 'ret'; k: number }
  | { op: 'label'; name: Label };

/**
 * The filter for one architecture: `struct sock_filter[]` as bwrap reads it (8 bytes per instruction,
 * host byte order). A system call of another architecture (a 32-bit `int 0x80`, aarch32) or an x32 call
 * is refused as a whole.
 */
export function seccompFilter(arch: SeccompArch, opts: { jobNamespaces?: boolean } = {}): Buffer {
  // With per-job namespaces (docs/security.md, "Jobs alone"): the fork server's clone with the job's
  // four namespace flags and the new job process's mounts inside them pass, as in the containers' profile;
  // the job then installs its own filter refusing both (jobns.py). unshare and setns stay refused here.
  const jobns = opts.jobNamespaces === true;
  const prog: Insn[] = [
    { op: 'ld', off: ARCH },
    { op: 'jeq', k: AUDIT_ARCH[arch], jt: 0, jf: 'deny' },
    { op: 'ld', off: NR },
  ];
  if (arch === 'x64') prog.push({ op: 'jge', k: X32_SYSCALL_BIT, jt: 'deny', jf: 0 });
  for (const [name, nums] of Object.entries(DENIED)) {
    if (jobns && PROCESS_JOBNS_ALLOWED.has(name)) continue;
    const nr = nums[arch];
    if (nr !== undefined) prog.push({ op: 'jeq', k: nr, jt: 'deny', jf: 0 });
  }
  // clone3 passes its flags in a struct the filter cannot read: ENOSYS makes glibc fall back to clone.
  prog.push(
    { op: 'jeq', k: num(CHECKED.clone3, arch), jt: 'enosys', jf: 0 },
    { op: 'jeq', k: num(CHECKED.clone, arch), jt: 'clone', jf: 0 },
    { op: 'jeq', k: num(CHECKED.unshare, arch), jt: 'unshare', jf: 0 },
    { op: 'jeq', k: num(CHECKED.personality, arch), jt: 'personality', jf: 0 },
    { op: 'label', name: 'allow' },
    { op: 'ret', k: SECCOMP_RET_ALLOW },
    { op: 'label', name: 'deny' },
    { op: 'ret', k: SECCOMP_RET_ERRNO | EPERM },
    { op: 'label', name: 'enosys' },
    { op: 'ret', k: SECCOMP_RET_ERRNO | ENOSYS },
    { op: 'label', name: 'clone' },
    { op: 'ld', off: ARG0_LOW },
    {
      op: 'jset',
      k: jobns ? CLONE_NAMESPACES & ~JOB_NAMESPACES : CLONE_NAMESPACES,
      jt: 'deny2',
      jf: 'allow2',
    },
    { op: 'label', name: 'unshare' },
    { op: 'ld', off: ARG0_LOW },
    { op: 'jset', k: UNSHARE_NAMESPACES, jt: 'deny2', jf: 'allow2' },
    { op: 'label', name: 'personality' },
    { op: 'ld', off: ARG0_LOW },
    ...PERSONALITIES.map((k): Insn => ({ op: 'jeq', k, jt: 'allow2', jf: 0 })),
    { op: 'label', name: 'deny2' },
    { op: 'ret', k: SECCOMP_RET_ERRNO | EPERM },
    { op: 'label', name: 'allow2' },
    { op: 'ret', k: SECCOMP_RET_ALLOW },
  );
  return assemble(prog);
}

/** The filter for this machine's architecture, or undefined where there is none. */
export function hostSeccompFilter(
  arch: string = process.arch,
  opts: { jobNamespaces?: boolean } = {},
): Buffer | undefined {
  return arch === 'x64' || arch === 'arm64' ? seccompFilter(arch, opts) : undefined;
}

function num(n: Numbers, arch: SeccompArch): number {
  const v = n[arch];
  if (v === undefined) throw new Error(`no syscall number for ${arch}`);
  return v;
}

/**
 * Resolves labels into forward jump offsets (classic BPF jumps only forward, by at most 255). Jumps to
 * the shared `allow`/`deny` returns near the top of the argument checks would be backward, so those
 * checks jump to their own copies below them (`allow2`, `deny2`).
 */
function assemble(prog: Insn[]): Buffer {
  const at = new Map<string, number>();
  let pc = 0;
  for (const i of prog) {
    if (i.op === 'label') at.set(i.name, pc);
    else pc++;
  }
  const out = Buffer.alloc(pc * 8);
  pc = 0;
  const jump = (target: Label | 0, from: number): number => {
    if (target === 0) return 0;
    const to = at.get(target);
    if (to === undefined) throw new Error(`seccomp: no label ${target}`);
    const d = to - from - 1;
    if (d < 0 || d > 255) throw new Error(`seccomp: jump to ${target} out of range (${d})`);
    return d;
  };
  for (const i of prog) {
    if (i.op === 'label') continue;
    let code: number;
    let jt = 0;
    let jf = 0;
    let k: number;
    if (i.op === 'ld') {
      code = LD_W_ABS;
      k = i.off;
    } else if (i.op === 'ret') {
      code = RET_K;
      k = i.k;
    } else {
      code = i.op === 'jeq' ? JEQ_K : i.op === 'jge' ? JGE_K : JSET_K;
      jt = jump(i.jt, pc);
      jf = jump(i.jf, pc);
      k = i.k;
    }
    out.writeUInt16LE(code, pc * 8);
    out.writeUInt8(jt, pc * 8 + 2);
    out.writeUInt8(jf, pc * 8 + 3);
    out.writeUInt32LE(k >>> 0, pc * 8 + 4);
    pc++;
  }
  if (pc > 4096) throw new Error('seccomp: program too long');
  return out;
}

/** Docker's names of the architectures a container profile covers (x32 is refused by the x86_64 rules). */
const DOCKER_ARCHES: Record<SeccompArch, string> = { x64: 'SCMP_ARCH_X86_64', arm64: 'SCMP_ARCH_AARCH64' };

/**
 * What a container's processes keep of the deny-list above: the fork server makes each job's process with
 * clone(CLONE_NEWUSER | NEWPID | NEWNS | NEWIPC) and that process mounts its own /proc and tmpfs mounts
 * in its namespaces (docs/security.md, "Jobs alone"); then it installs a filter of its own that refuses
 * these too (sandbox-images/python/toolsmith_worker/jobns.py). Without a capability in the container's
 * user namespace, nothing else can use them.
 */
export const CONTAINER_ALLOWED = new Set(['mount']);
/** Namespace flags no process of a container needs: clone and unshare with any of them are refused. */
export const CONTAINER_DENIED_NAMESPACES = [0x02000000, 0x04000000, 0x40000000]; // NEWCGROUP, NEWUTS, NEWNET

/**
 * The seccomp profile of every sandbox container (`SecurityOpt: seccomp=<this JSON>`), in place of
 * Docker's default: the deny-list of the process level (io_uring, bpf, ptrace, keyctl, ... fail with
 * EPERM), clone3 failing with ENOSYS (glibc falls back to clone, whose flags a filter can read), clone
 * and unshare refused with namespace flags a job's namespaces do not need. Docker's default refuses every
 * namespace flag to a container without CAP_SYS_ADMIN, which would leave jobs in one shared namespace.
 */
export function dockerSeccompProfile(): string {
  const names = (arch: SeccompArch) =>
    Object.entries(DENIED)
      .filter(([name, n]) => n[arch] !== undefined && !CONTAINER_ALLOWED.has(name))
      .map(([name]) => name);
  const denied = [...new Set([...names('x64'), ...names('arm64')])].sort();
  const flagRules = ['clone', 'unshare'].flatMap((name) =>
    [...CONTAINER_DENIED_NAMESPACES, ...(name === 'unshare' ? [0x00000080] : [])].map((bit) => ({
      names: [name],
      action: 'SCMP_ACT_ERRNO',
      errnoRet: EPERM,
      args: [{ index: 0, value: bit, valueTwo: bit, op: 'SCMP_CMP_MASKED_EQ' }],
    })),
  );
  return JSON.stringify({
    defaultAction: 'SCMP_ACT_ALLOW',
    architectures: Object.values(DOCKER_ARCHES),
    syscalls: [
      { names: denied, action: 'SCMP_ACT_ERRNO', errnoRet: EPERM },
      { names: ['clone3'], action: 'SCMP_ACT_ERRNO', errnoRet: ENOSYS },
      ...flagRules,
    ],
  });
}
