/**
 * The fallback for machines without a Docker engine: the same worker as a host process, inside
 * bubblewrap when it is installed (no network, read-only binds, its own /tmp), else a plain subprocess;
 * always as uid/gid 65534 when Toolsmith runs as root, with rlimits (address space, files, core) set by
 * prlimit. The isolation level (`bubblewrap` | `process`) is recorded in every result.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialEnv, SHM_MB } from './docker.ts';
import { WorkerConnection } from './connection.ts';
import { copyPythonWorker } from './images.ts';
import type { SandboxSpec, WorkerFactory } from './pool.ts';

const has = (cmd: string) => spawnSync('which', [cmd]).status === 0;

export interface ProcessOptions {
  imagesDir: string;
  /** Node binary for JS workers. */
  nodeBinary: string;
  memoryMb: number;
  pids: number;
  tmpfsMb: number;
  /** Force plain subprocesses even where bubblewrap exists (tests of both levels). */
  noBubblewrap?: boolean;
}

export class ProcessWorkerFactory implements WorkerFactory {
  readonly isolation: 'bubblewrap' | 'process';
  private readonly opts: ProcessOptions;
  private readonly dir: string;
  private readonly python: string;

  constructor(opts: ProcessOptions) {
    this.opts = opts;
    this.isolation = !opts.noBubblewrap && has('bwrap') && bwrapWorks() ? 'bubblewrap' : 'process';
    // A world-readable copy of the workers: the repository may live where uid 65534 cannot read.
    this.dir = mkdtempSync(join(tmpdir(), 'toolsmith-worker-'));
    chmodSync(this.dir, 0o755);
    mkdirSync(join(this.dir, 'bin'), { recursive: true });
    copyPythonWorker(opts.imagesDir, this.dir); // worker.py and its package folder
    try {
      copyFileSync(join(opts.imagesDir, 'node', 'worker.mjs'), join(this.dir, 'worker.mjs'));
    } catch {
      /* the node worker is optional for this backend */
    }
    copyFileSync(opts.nodeBinary, join(this.dir, 'bin', 'node'));
    // Execute-only: a process started from a binary it cannot read is not dumpable (the kernel's rule),
    // so no job reads the node worker's or another job's memory (docs/sandboxes.md, "Between jobs").
    chmodSync(join(this.dir, 'bin', 'node'), 0o111);
    this.python =
      ['/usr/bin/python3', '/usr/local/bin/python3'].find(
        (p) => spawnSync(p, ['-c', 'import sys;sys.exit(sys.version_info<(3,11))']).status === 0,
      ) ?? 'python3';
  }

  async spawn(spec: SandboxSpec): Promise<{ conn: WorkerConnection; id: string }> {
    const worker =
      spec.runtime === 'python'
        ? [this.python, '-I', '-u', join(this.dir, 'worker.py')]
        : [
            join(this.dir, 'bin', 'node'),
            '--disallow-code-generation-from-strings',
            join(this.dir, 'worker.mjs'),
          ];
    // Address space (memory bombs fail with MemoryError), processes (fork bombs), files and core dumps.
    const limits = [
      'prlimit',
      `--as=${this.opts.memoryMb * 4 * 1024 * 1024}`,
      `--nproc=${this.opts.pids}`,
      '--nofile=256',
      '--core=0',
      '--',
    ];
    const root = process.getuid?.() === 0;
    let argv: string[];
    if (this.isolation === 'bubblewrap') {
      argv = [
        ...limits,
        'bwrap',
        '--unshare-all',
        '--die-with-parent',
        '--new-session',
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
        '--dev',
        '/dev',
        // Between jobs (docs/sandboxes.md): a small private /dev/shm, then /dev and / read-only, so /tmp
        // and /dev/shm are the only writable places (the worker empties both after every job).
        '--perms',
        '1777',
        '--size',
        String(SHM_MB * 1024 * 1024),
        '--tmpfs',
        '/dev/shm',
        '--remount-ro',
        '/dev',
        '--size',
        String(this.opts.tmpfsMb * 1024 * 1024),
        '--tmpfs',
        '/tmp',
        // The worker folder lives under /tmp: bind it after the fresh tmpfs so it stays visible.
        '--ro-bind',
        this.dir,
        this.dir,
        '--remount-ro',
        '/',
        '--chdir',
        '/tmp',
        ...worker,
      ];
    } else {
      argv = [...limits, ...worker];
    }
    const env: Record<string, string> = {
      PATH: '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      PYTHONDONTWRITEBYTECODE: '1',
    };
    // Under bubblewrap /tmp is a private tmpfs that the worker empties after every job; a plain process
    // shares the host's /tmp, which the worker must never touch.
    if (this.isolation === 'bubblewrap') env['TOOLSMITH_PRIVATE_TMP'] = '1';
    for (const [k, v] of Object.entries(spec.credentials)) env[credentialEnv(k)] = v;
    const child = spawn(argv[0] as string, argv.slice(1), {
      stdio: ['pipe', 'pipe', 'pipe'],
      env,
      cwd: this.dir,
      detached: true,
      // Never root: bubblewrap itself runs unprivileged as nobody (user namespaces), and so does the worker.
      ...(root ? { uid: 65534, gid: 65534 } : {}),
    });
    child.stderr.resume();
    const kill = async () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const conn = new WorkerConnection(child.stdin, child.stdout, this.isolation, kill);
    child.on('exit', (code, sig) => conn.markClosed(`worker process exited (${sig ?? code})`));
    child.on('error', (e) => conn.markClosed(`worker process failed to start: ${e.message}`));
    return { conn, id: String(child.pid ?? '') };
  }

  async dispose(): Promise<void> {}
}

function bwrapWorks(): boolean {
  const root = process.getuid?.() === 0;
  return (
    spawnSync(
      'bwrap',
      [
        '--unshare-all',
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
        '--dev',
        '/dev',
        '/usr/bin/true',
      ],
      root ? { uid: 65534, gid: 65534 } : {},
    ).status === 0
  );
}
