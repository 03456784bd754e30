/**
 * The fallback for machines without a Docker engine, and the `process` isolation level: the same worker
 * as a host process, inside bubblewrap when it is installed (no network, read-only binds, its own /tmp,
 * a seccomp filter, /usr/local hidden), else a plain subprocess. Its limits count only its own processes
 * and cap memory as memory (docs/sandboxes.md, "The process level"):
 * - a cgroup per worker (pids.max, memory without swap) where Toolsmith can make one (cgroups.ts);
 * - a uid of its own per worker from a reserved range when Toolsmith runs as root (never root, never the
 *   uid 65534 that Docker's workers share), so RLIMIT_NPROC counts only that worker;
 * - under bubblewrap, rlimits set inside the sandbox's user namespace, where RLIMIT_NPROC counts only the
 *   namespace's processes (Linux >= 5.14);
 * - RLIMIT_DATA at the memory limit (python; node needs room for V8's reservations), files and core.
 * The isolation level (`bubblewrap` | `process`) and what its limits are made of here
 * (`isolationDetails`) are recorded in every result.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { release, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { RuntimeId } from '../../core/sandbox/runtimes.ts';
import { WorkerCgroups } from './cgroups.ts';
import type { WorkerCgroup } from './cgroups.ts';
import { credentialEnv, SHM_MB } from './docker.ts';
import { WorkerConnection } from './connection.ts';
import { exitStatusText } from './stderr-tail.ts';
import { inheritableFds, stdioWithout } from './host-fds.ts';
import type { Stdio } from './host-fds.ts';
import {
  buildForkLoop,
  buildJobLauncher,
  copyNodeWorker,
  copyPythonWorker,
  PYTHON_WORKER_PACKAGE,
} from './images.ts';
import { normaliseModes } from './modes.ts';
import type { SandboxSpec, WorkerFactory } from './pool.ts';
import { hostSeccompFilter } from './seccomp.ts';
import { errorMessage } from '../../core/errors.ts';

/** A command's absolute path on the PATH, or undefined. */
function which(cmd: string): string | undefined {
  const r = spawnSync('which', [cmd], { encoding: 'utf8' });
  const path = r.status === 0 ? r.stdout.trim().split('\n')[0] : undefined;
  return path || undefined;
}

/** The uids workers run under when Toolsmith runs as root: systemd's unused 0x70000000 block. */
export const WORKER_UID_BASE = 0x70000000;
export const WORKER_UID_COUNT = 65536;
/**
 * Node 24 reserves about 570 MiB of writable address space before running any code (measured: it does
 * not start under RLIMIT_DATA 560 MiB, does under 570): its data limit is the memory limit plus this.
 */
export const NODE_DATA_RESERVE_MB = 640;

export interface ProcessOptions {
  imagesDir: string;
  /** Node binary for JS workers. */
  nodeBinary: string;
  memoryMb: number;
  pids: number;
  tmpfsMb: number;
  /** Force plain subprocesses even where bubblewrap exists (tests of both levels). */
  noBubblewrap?: boolean;
  /** Make no cgroups even where they can be made (tests of the other limits). */
  noCgroups?: boolean;
  /** Tests only: walls the worker leaves out (`TOOLSMITH_TEST_WALLS`, as DockerOptions.wallsOff). */
  wallsOff?: string[];
  /** The reserved uid range (when running as root); default WORKER_UID_BASE / WORKER_UID_COUNT. */
  uidBase?: number;
  uidCount?: number;
  /** Where built artifacts are cached (the fork server's C loop); default ~/.cache/toolsmith. */
  cacheDir?: string;
}

/** The device nodes of the sandbox's /dev (bound from the host's, as `bwrap --dev` does) and its links. */
const DEV_NODES = ['/dev/null', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom'];
const DEV_LINKS: readonly (readonly [string, string])[] = [
  ['/proc/self/fd', '/dev/fd'],
  ['/proc/self/fd/0', '/dev/stdin'],
  ['/proc/self/fd/1', '/dev/stdout'],
  ['/proc/self/fd/2', '/dev/stderr'],
];

/** uids of live workers in this process (factories share the range). */
const uidsInUse = new Set<number>();

export class ProcessWorkerFactory implements WorkerFactory {
  readonly isolation: 'bubblewrap' | 'process';
  /** What the limits are made of on this machine (recorded in every result). */
  readonly details: string;
  private readonly opts: ProcessOptions;
  private readonly dir: string;
  private readonly python: string;
  private readonly root: boolean;
  private readonly cgroups: WorkerCgroups | undefined;
  /** Which processes RLIMIT_NPROC counts, when it is set: a worker's own uid, or its user namespace. */
  private readonly nprocScope: 'uid' | 'userns' | undefined;
  private readonly prlimit: string;
  private readonly seccompFile: string | undefined;
  private readonly usrLocalBinds: string[];
  private readonly bwrapPath: string | undefined;
  /** Live workers: ended and cleared (cgroup removed, uid released) by dispose. */
  private readonly live = new Map<ChildProcess, { kill: () => Promise<void>; gone: Promise<void> }>();

  constructor(opts: ProcessOptions) {
    this.opts = opts;
    this.root = process.getuid?.() === 0;
    // A world-readable copy of the workers: the repository may live where the workers' uids cannot read.
    this.dir = mkdtempSync(join(passableTmpdir(), 'toolsmith-worker-'));
    chmodSync(this.dir, 0o755);
    mkdirSync(join(this.dir, 'bin'), { recursive: true });
    // worker.py and its package folder, with the fork server's C loop where this machine builds it
    copyPythonWorker(opts.imagesDir, this.dir, buildForkLoop(opts.imagesDir, opts.cacheDir).path);
    try {
      // with the JS jobs' launcher into namespaces of their own, where this machine builds it
      copyNodeWorker(opts.imagesDir, this.dir, buildJobLauncher(opts.imagesDir, opts.cacheDir).path);
    } catch {
      /* the node worker is optional for this backend */
    }
    copyFileSync(opts.nodeBinary, join(this.dir, 'bin', 'node'));
    // Folders and copies are made with the person's umask: under `umask 077` they were 0700 and 0600
    // (the C loop 0700), so the workers' uids could not read worker.py's package and every Python worker
    // died at its first import ("No module named 'toolsmith_worker.worker'"). bin/node execute-only: a
    // process started from a binary it cannot read is not dumpable (the kernel's rule), so no job reads
    // the node worker's or another job's memory (docs/sandboxes.md, "Between jobs").
    normaliseModes(this.dir, { 'bin/node': 0o111 });
    this.python =
      ['/usr/bin/python3', '/usr/local/bin/python3'].find(
        (p) => spawnSync(p, ['-c', 'import sys;sys.exit(sys.version_info<(3,11))']).status === 0,
      ) ?? 'python3';
    this.prlimit = ['/usr/bin/prlimit', '/bin/prlimit'].find((p) => existsSync(p)) ?? 'prlimit';

    // Bubblewrap is used when the exact command line a worker gets starts here (bwrapStarts): the same
    // layout, the same hardening, the same seccomp filter on fd 3. User namespaces stay allowed inside:
    // the fork server makes each job's process in user, pid, mount and IPC namespaces of its own (the
    // filter lets that clone and the job's own mounts through; the job then installs a filter refusing
    // both, and sets its user namespace's max_user_namespaces to 0: jobns.py, docs/security.md).
    // One bubblewrap binary, by its absolute path, for the probe and every spawn (the workers get a PATH
    // of their own, which must not pick another one).
    this.bwrapPath = opts.noBubblewrap ? undefined : which('bwrap');
    const bwrap = this.bwrapPath !== undefined;
    const filter = bwrap ? hostSeccompFilter(process.arch, { jobNamespaces: true }) : undefined;
    if (filter) {
      this.seccompFile = join(this.dir, 'seccomp.bpf');
      writeFileSync(this.seccompFile, filter, { mode: 0o644 });
    }
    this.usrLocalBinds = this.python.startsWith('/usr/local/') ? pythonFiles(this.python) : [];
    this.isolation = bwrap && this.bwrapStarts() ? 'bubblewrap' : 'process';
    if (this.isolation === 'process' && this.seccompFile) {
      rmSync(this.seccompFile, { force: true });
      this.seccompFile = undefined;
    }

    const cg = opts.noCgroups ? { reason: 'cgroups turned off' } : WorkerCgroups.detect();
    this.cgroups = cg.cgroups;
    this.nprocScope = this.root
      ? 'uid'
      : this.isolation === 'bubblewrap' && kernelAtLeast(5, 14)
        ? 'userns'
        : undefined;

    const mb = opts.memoryMb;
    this.details = [
      this.isolation,
      this.cgroups
        ? `${this.cgroups.description}: ${opts.pids} tasks, ${mb} MiB`
        : `no cgroup (${cg.reason ?? 'unavailable'})`,
      this.root ? `a uid of its own per worker (from ${opts.uidBase ?? WORKER_UID_BASE})` : "the user's uid",
      this.nprocScope
        ? `RLIMIT_NPROC ${opts.pids} (${this.nprocScope === 'uid' ? 'its own uid' : 'its user namespace'})`
        : this.cgroups
          ? ''
          : 'no process-count limit (RLIMIT_NPROC would count all of the user’s processes)',
      `RLIMIT_DATA ${mb} MiB (node: +${NODE_DATA_RESERVE_MB} MiB)`,
      ...(this.isolation === 'bubblewrap'
        ? [
            filter ? `seccomp deny-list (${process.arch})` : `no seccomp filter for ${process.arch}`,
            'jobs in namespaces of their own',
            '/usr/local hidden',
            'writable mounts noexec',
          ]
        : ['no seccomp, host file system']),
    ]
      .filter(Boolean)
      .join('; ');
  }

  async spawn(spec: SandboxSpec): Promise<{ conn: WorkerConnection; id: string }> {
    // Under bubblewrap every worker seals the sandbox's writable mounts (noexec, nosuid, nodev) and gives
    // up the capabilities bubblewrap granted for that before it runs anything else: the Python worker
    // itself, the node worker through seal.py, which then execs it.
    const bwrap = this.isolation === 'bubblewrap';
    const dir = bwrap ? this.boxDir() : this.dir;
    const worker =
      spec.runtime === 'python'
        ? [this.python, '-I', '-S', '-u', join(dir, 'worker.py'), ...(bwrap ? ['--seal-mounts'] : [])]
        : [
            ...(bwrap ? [this.python, '-I', '-S', join(dir, PYTHON_WORKER_PACKAGE, 'seal.py')] : []),
            join(dir, 'bin', 'node'),
            '--disallow-code-generation-from-strings',
            join(dir, 'worker.mjs'),
          ];
    const limited = [...this.rlimits(spec.runtime), ...worker];
    let argv: string[];
    if (this.isolation === 'bubblewrap') {
      // The rlimits are set inside, in the sandbox's user namespace (see rlimits()).
      argv = [...this.bwrapArgs(), '--', ...limited];
    } else {
      argv = limited;
    }
    const env: Record<string, string> = {
      PATH: '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      PYTHONDONTWRITEBYTECODE: '1',
    };
    // Under bubblewrap /tmp is a private tmpfs that the worker empties after every job; a plain process
    // shares the host's /tmp, which the worker must never touch.
    if (this.isolation === 'bubblewrap') env['TOOLSMITH_PRIVATE_TMP'] = '1';
    if (this.opts.wallsOff?.length) env['TOOLSMITH_TEST_WALLS'] = this.opts.wallsOff.join(',');
    for (const [k, v] of Object.entries(spec.credentials)) env[credentialEnv(k)] = v;

    // Never root and never the uid Docker's workers share: a uid of this worker's own.
    const uid = this.root
      ? takeUid(this.opts.uidBase ?? WORKER_UID_BASE, this.opts.uidCount ?? WORKER_UID_COUNT)
      : undefined;
    let cg: WorkerCgroup | undefined;
    try {
      cg = this.cgroups?.create(String(uid ?? process.pid), {
        pids: this.opts.pids,
        memoryBytes: this.opts.memoryMb * 1024 * 1024,
      });
    } catch (e) {
      if (uid !== undefined) uidsInUse.delete(uid);
      throw new Error(`could not make the worker's cgroup: ${errorMessage(e)}`);
    }
    // With a cgroup the worker waits at a gate (one line on its stdin) until it is in the group, so that
    // nothing it forks starts outside.
    if (cg) argv = ['/bin/sh', '-c', 'read -r go && exec "$@"', 'toolsmith-worker', ...argv];
    const seccompFd =
      this.isolation === 'bubblewrap' && this.seccompFile ? openSync(this.seccompFile, 'r') : undefined;
    const stdio: Stdio[] = ['pipe', 'pipe', 'pipe', ...(seccompFd !== undefined ? [seccompFd] : [])];
    // Descriptors this process was handed without close-on-exec would reach the worker and every job
    // (bubblewrap passes them on): /dev/null in their place.
    const handed = inheritableFds(stdio.length);
    const nullFd = handed.length ? openSync('/dev/null', 'r+') : undefined;
    let child: ChildProcess;
    try {
      child = spawn(argv[0] as string, argv.slice(1), {
        stdio: nullFd !== undefined ? stdioWithout(stdio, handed, nullFd) : stdio,
        env,
        cwd: this.dir,
        detached: true,
        ...(uid !== undefined ? { uid, gid: uid } : {}),
      });
    } finally {
      if (seccompFd !== undefined) closeSync(seccompFd); // the child has its own copy (fd 3)
      if (nullFd !== undefined) closeSync(nullFd);
    }
    const kill = async () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
      cg?.killAll();
    };
    const { stdin, stdout, stderr } = child;
    if (!stdin || !stdout || !stderr) throw new Error('the worker process has no stdio pipes');
    const conn = new WorkerConnection(stdin, stdout, this.isolation, kill, {
      stderr,
      redact: Object.values(spec.credentials),
      isolationDetails: this.details,
      ...(cg ? { oomKills: () => cg.oomKills() } : {}),
      reportsExit: true,
    });
    let ended = () => {};
    const gone = new Promise<void>((resolve) => (ended = resolve));
    this.live.set(child, { kill, gone });
    let cleaning = false;
    const cleanup = () => {
      if (cleaning) return;
      cleaning = true;
      void (async () => {
        const done = await clearWorker(cg, uid, this.isolation === 'bubblewrap');
        // A uid (and its RLIMIT_NPROC count) is given to another worker only once nothing runs under it.
        if (uid !== undefined && done) uidsInUse.delete(uid);
        this.live.delete(child);
        ended();
      })();
    };
    child.on('exit', (code, sig) => {
      conn.exited(exitStatusText(code, sig), `worker process exited (${sig ?? code})`);
      cleanup();
    });
    child.on('error', (e) => {
      conn.markClosed(`worker process failed to start: ${e.message}`);
      cleanup();
    });
    if (cg && child.pid) {
      try {
        cg.enter(child.pid);
      } catch (e) {
        await kill();
        conn.markClosed(`could not move the worker into its cgroup: ${errorMessage(e)}`, false);
        throw new Error(`could not move the worker into its cgroup: ${errorMessage(e)}`);
      }
      stdin.write('\n'); // through the gate
    }
    return { conn, id: String(child.pid ?? '') };
  }

  /**
   * Where a bubblewrap sandbox sees the worker folder: straight in its /tmp, whatever the host's TMPDIR.
   * Bound at its host path, a nested TMPDIR (`/tmp/user/1000`, as Debian's libpam-tmpdir sets it) had
   * bubblewrap make the folders above it in the sandbox's /tmp, owned by the sandbox's user: the worker's
   * wipe keeps what was there at its start, so with the job namespaces off one job's files in them met
   * the next job (docs/security.md, "Every job alone").
   */
  private boxDir(): string {
    return join('/tmp', basename(this.dir));
  }

  /**
   * The bubblewrap command line of a worker up to its `--`: the one definition that both the spawn of
   * every worker and the probe that chooses this level (bwrapStarts) use.
   */
  private bwrapArgs(): string[] {
    return [
      this.bwrapPath ?? 'bwrap',
      '--unshare-all',
      '--die-with-parent',
      '--new-session',
      // The worker is pid 1 of the sandbox (no bubblewrap reaper there): a process that is not dumpable,
      // so no job reads or writes its memory or its fds (docs/security.md, "Jobs alone").
      '--as-pid-1',
      '--ro-bind',
      '/usr',
      '/usr',
      '--symlink',
      'usr/lib',
      '/lib',
      '--symlink',
      'usr/lib64',
      '/lib64',
      '--symlink',
      'usr/bin',
      '/bin',
      '--proc',
      '/proc',
      // /dev by hand, not `--dev`: for its devpts mount bubblewrap maps uid 0 during setup and then puts
      // the program in a second, nested user namespace, which holds no capability over the sandbox's
      // mounts, so the worker could not make them noexec (seal.py). The worker mounts a fresh devpts
      // instance of its own on /dev/pts instead (seal.py, nosuid and noexec; never the host's), and each
      // job one of its own over it (jobns.py): /dev/ptmx leads to whichever instance is there.
      ...DEV_NODES.flatMap((n) => ['--dev-bind', n, n]),
      '--dev-bind-try',
      '/dev/tty',
      '/dev/tty',
      ...DEV_LINKS.flatMap(([target, link]) => ['--symlink', target, link]),
      '--dir',
      '/dev/pts',
      '--symlink',
      'pts/ptmx',
      '/dev/ptmx',
      // The sandbox's POSIX message queues as files (of its own IPC namespace), as Docker mounts them:
      // without the mount a queue is reached by name alone and no wipe lists it, so with the job
      // namespaces and the IPC filter off one job's queue met the next (docs/security.md, "Every job
      // alone"). Each job with namespaces of its own gets a fresh one there (jobns.py).
      '--mqueue',
      '/dev/mqueue',
      // Between jobs (docs/sandboxes.md): a small private /dev/shm, then / (and /dev in it) read-only, so
      // /tmp and /dev/shm are the only writable places (the worker empties both after every job, and
      // makes both noexec at its start: seal.py).
      '--perms',
      '1777',
      '--size',
      String(SHM_MB * 1024 * 1024),
      '--tmpfs',
      '/dev/shm',
      '--size',
      String(this.opts.tmpfsMb * 1024 * 1024),
      '--tmpfs',
      '/tmp',
      // The worker folder lives under /tmp: bind it after the fresh tmpfs so it stays visible.
      '--ro-bind',
      this.dir,
      this.boxDir(),
      ...this.hardeningArgs(),
      '--remount-ro',
      '/',
      '--chdir',
      '/tmp',
    ];
  }

  /**
   * Whether a worker's bubblewrap command line (bwrapArgs, the seccomp filter on fd 3) starts a program
   * here, as the user workers run as (nobody when Toolsmith runs as root: no user namespace needs root).
   */
  private bwrapStarts(): boolean {
    const [cmd = 'bwrap', ...args] = this.bwrapArgs();
    const fd = this.seccompFile ? openSync(this.seccompFile, 'r') : undefined;
    try {
      return (
        spawnSync(cmd, [...args, '--', '/usr/bin/true'], {
          stdio: ['ignore', 'ignore', 'ignore', ...(fd !== undefined ? [fd] : [])],
          ...(this.root ? { uid: 65534, gid: 65534 } : {}),
        }).status === 0
      );
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /**
   * The bubblewrap arguments of this level beyond the file system layout: /usr/local hidden (an empty
   * read-only tmpfs; the python in use put back when it lives there), the seccomp filter (fd 3), a user
   * namespace of its own (in which the fork server makes each job's own namespaces).
   */
  private hardeningArgs(): string[] {
    return [
      '--tmpfs',
      '/usr/local',
      ...this.usrLocalBinds.flatMap((p) => ['--ro-bind', p, p]),
      '--remount-ro',
      '/usr/local',
      ...(this.seccompFile ? ['--seccomp', '3'] : []),
      '--unshare-user',
      // In the sandbox's own user namespace only, and only until the worker has made every writable
      // mount noexec, nosuid and nodev: it then gives up every capability, bounding set included, and
      // checks it holds none (seal.py; bubblewrap has no noexec option of its own).
      '--cap-add',
      'CAP_SYS_ADMIN',
      '--cap-add',
      'CAP_SETPCAP',
    ];
  }

  /** prlimit: data (memory), processes where the count is the worker's own, files, core dumps. */
  private rlimits(runtime: RuntimeId): string[] {
    const dataMb = this.opts.memoryMb + (runtime === 'python' ? 0 : NODE_DATA_RESERVE_MB);
    return [
      this.prlimit,
      `--data=${dataMb * 1024 * 1024}`,
      ...(this.nprocScope ? [`--nproc=${this.opts.pids}`] : []),
      '--nofile=256',
      '--core=0',
      '--',
    ];
  }

  /** Ends every worker still alive, waits until each is cleared, then removes the cgroup parents. */
  async dispose(): Promise<void> {
    const live = [...this.live.values()];
    await Promise.all(live.map((w) => w.kill()));
    await Promise.all(live.map((w) => w.gone));
    this.cgroups?.dispose();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * After a worker exits: everything left in its cgroup (or, for a plain process without one, under its
 * uid) is killed, then the cgroup removed. Answers whether nothing of the worker is left. Killed
 * processes may take seconds to be gone on a loaded machine (their memory freed first): it keeps at it
 * for up to 15 s.
 */
async function clearWorker(
  cg: WorkerCgroup | undefined,
  uid: number | undefined,
  bwrap: boolean,
): Promise<boolean> {
  for (const end = Date.now() + 15_000; Date.now() < end;) {
    if (cg) {
      cg.killAll();
      if (cg.remove()) return true;
    } else if (uid !== undefined && !bwrap) {
      if (killUid(uid) === 0) return true;
    } else return true; // bubblewrap: its pid namespace died with it
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** Each process of this machine with its real uid (from /proc; none where there is no /proc). */
function* processUids(): Generator<[pid: number, uid: number]> {
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc');
  } catch {
    return;
  }
  for (const p of pids) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const m = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) yield [Number(p), Number(m[1])];
    } catch {
      /* gone */
    }
  }
}

/** SIGKILLs every process whose real uid is `uid` (a worker's own uid); answers how many there were. */
function killUid(uid: number): number {
  let n = 0;
  for (const [pid, u] of processUids()) {
    if (u !== uid) continue;
    n++;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  return n;
}

/**
 * A worker uid of the range that neither a live worker of this process nor any process on the machine
 * holds now (a random start): another Toolsmith (the app beside a CLI run, a second workspace) draws from
 * the same range, and two workers under one uid could signal each other and would share one process limit.
 */
function takeUid(base: number, count: number): number {
  const start = Math.floor(Math.random() * count);
  const live = new Set<number>();
  for (const [, uid] of processUids()) if (uid >= base && uid < base + count) live.add(uid);
  for (let i = 0; i < count; i++) {
    const uid = base + ((start + i) % count);
    if (!uidsInUse.has(uid) && !live.has(uid)) {
      uidsInUse.add(uid);
      return uid;
    }
  }
  throw new Error(`every uid of ${base}..${base + count - 1} is in use by a worker`);
}

function kernelAtLeast(major: number, minor: number): boolean {
  const [a = 0, b = 0] = release()
    .split('.')
    .map((x) => parseInt(x, 10));
  return a > major || (a === major && b >= minor);
}

/** The files of a python that lives under /usr/local: its binary, standard library and libpython. */
function pythonFiles(python: string): string[] {
  const r = spawnSync(
    python,
    [
      '-c',
      'import sys,sysconfig,os;v=sysconfig.get_config_var;print(os.path.realpath(sys.executable));print(sysconfig.get_paths()["stdlib"]);print(sysconfig.get_paths()["platstdlib"]);print(os.path.join(v("LIBDIR") or "", v("LDLIBRARY") or ""))',
    ],
    { encoding: 'utf8' },
  );
  const paths = new Set<string>();
  for (const line of r.stdout.split('\n')) {
    if (!line.startsWith('/usr/local/') || !existsSync(line)) continue;
    paths.add(realpathSync(line));
  }
  if (python.startsWith('/usr/local/')) paths.add(python);
  return [...paths];
}

/**
 * The temp folder, when every folder on its path lets other users pass (the workers' uids must reach
 * their copy of the workers); else /tmp. A person's own $TMPDIR is often private (libpam-tmpdir makes
 * `/tmp/user/0` mode 0700): the bubblewrap probe then failed, and the process fallback's worker could
 * not open worker.py ("Permission denied").
 */
export function passableTmpdir(): string {
  const base = tmpdir();
  let real: string;
  try {
    // The folders the path really goes through: a $TMPDIR that is a link into a private folder
    // (`~/tmp` -> `/tmp/user/0/t`) passed the check of its own path's folders.
    real = realpathSync(base);
  } catch {
    return '/tmp';
  }
  for (let dir = real; ; dir = dirname(dir)) {
    try {
      if ((statSync(dir).mode & 0o001) === 0) return '/tmp';
    } catch {
      return '/tmp';
    }
    if (dirname(dir) === dir) return real; // (where it really is: a link to it may sit in a private folder)
  }
}
