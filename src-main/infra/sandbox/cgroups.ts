/**
 * A cgroup per host-process worker, so that its process and memory limits count only its own processes
 * (RLIMIT_NPROC counts every process of a uid on the machine, and Docker's workers share uid 65534).
 *
 * - cgroup v2 (the unified hierarchy has the `pids` and `memory` controllers): `pids.max`, `memory.max`,
 *   `memory.swap.max 0`, OOM kills read from `memory.events`, `cgroup.kill` ends everything in it. The
 *   groups live under `<root>/toolsmith-<pid>/` at the top of the hierarchy (the one place a group with
 *   controllers can be made beside a cgroup that has processes), so this needs root.
 * - cgroup v1 (separate `pids` and `memory` hierarchies, as on hybrid hosts): the same limits with
 *   `pids.max`, `memory.limit_in_bytes` and `memory.memsw.limit_in_bytes` (or `memory.swappiness 0`
 *   without swap accounting), OOM kills from `memory.oom_control`, every task killed in a loop. The groups
 *   live under Toolsmith's own cgroup of each hierarchy (`<own>/toolsmith-<pid>/`), within its limits.
 *
 * `WorkerCgroups.detect()` answers undefined when neither can be made here (not root and no writable
 * hierarchy); the process backend then says which weaker limits apply.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { errorMessage } from '../../core/errors.ts';
import { pidAlive } from './installation.ts';

export type CgroupKind = 'v2' | 'v1';

export interface CgroupLayout {
  kind: CgroupKind;
  /** v2: the one parent folder; v1: the pids parent and the memory parent. */
  parents: string[];
}

export interface CgroupLimits {
  pids: number;
  memoryBytes: number;
}

/** /proc/self/mountinfo and /proc/self/cgroup, parsed into where a worker's group can be made. */
export function cgroupLayout(
  mountinfo: string,
  selfCgroup: string,
  pid = process.pid,
): CgroupLayout | undefined {
  const mounts = mountinfo
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [pre = '', post = ''] = line.split(' - ');
      const f = pre.split(' ');
      const [fstype = '', , superOpts = ''] = post.split(' ');
      return { root: f[3] ?? '', point: unescapeMount(f[4] ?? ''), fstype, opts: superOpts.split(',') };
    });
  const own = new Map<string, string>(); // controller (or '' for v2) -> path
  for (const line of selfCgroup.split('\n').filter(Boolean)) {
    const [, ctrls = '', ...rest] = line.split(':');
    const path = rest.join(':');
    if (ctrls === '') own.set('', path);
    for (const c of ctrls.split(',')) if (c) own.set(c, path);
  }
  const name = `toolsmith-${pid}`;
  // v2: the unified hierarchy, when it carries both controllers.
  const v2 = mounts.find((m) => m.fstype === 'cgroup2');
  if (v2) {
    const controllers = safeRead(join(v2.point, 'cgroup.controllers')).split(/\s+/);
    if (controllers.includes('pids') && controllers.includes('memory'))
      return { kind: 'v2', parents: [join(v2.point, name)] };
  }
  // v1: one hierarchy per controller (co-mounted ones share a folder).
  const v1 = (ctrl: string) => {
    const m = mounts.find((x) => x.fstype === 'cgroup' && x.opts.includes(ctrl));
    const path = own.get(ctrl);
    if (!m || path === undefined) return undefined;
    // The mount's root is a prefix of our path when the hierarchy is mounted from inside (a container).
    const rel = path.startsWith(m.root) ? path.slice(m.root.length) : path;
    return join(m.point, rel, name);
  };
  const pidsDir = v1('pids');
  const memDir = v1('memory');
  if (pidsDir && memDir) return { kind: 'v1', parents: [...new Set([pidsDir, memDir])] };
  return undefined;
}

const unescapeMount = (s: string) =>
  s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/**
 * The live factories' cgroups of this process, by parent folder: every factory of one process shares the
 * parent (`toolsmith-<pid>`), which goes with the last of them. Before, one factory's dispose removed it
 * while another had no worker group in it for a moment (between a worker and its replacement), and that
 * one's next worker failed: "could not make the worker's cgroup: ENOENT".
 */
const parentUsers = new Map<string, number>();

/** The cgroups of one process factory: a parent per hierarchy, a child per worker. */
export class WorkerCgroups {
  readonly kind: CgroupKind;
  private readonly parents: string[];
  /** v1: whether swap can be capped (memsw), else swappiness 0 keeps the group out of swap. */
  private readonly memsw: boolean;
  private n = 0;
  private disposed = false;

  private constructor(layout: CgroupLayout) {
    this.kind = layout.kind;
    this.parents = layout.parents;
    for (const p of this.parents) parentUsers.set(p, (parentUsers.get(p) ?? 0) + 1);
    this.memsw = layout.kind === 'v1' && existsSync(join(this.memoryParent, 'memory.memsw.limit_in_bytes'));
  }

  /**
   * Makes this process's parent group(s) and answers the factory's cgroups, or undefined (with the reason)
   * where none can be made: not root, no writable hierarchy, a controller missing.
   */
  static detect(): { cgroups?: WorkerCgroups; reason?: string } {
    const layout = cgroupLayout(safeRead('/proc/self/mountinfo'), safeRead('/proc/self/cgroup'));
    if (!layout) return { reason: 'no cgroup hierarchy with the pids and memory controllers' };
    removeStaleParents(layout.parents);
    let cg: WorkerCgroups | undefined;
    try {
      for (const p of layout.parents) mkdirSync(p, { recursive: true });
      if (layout.kind === 'v2') {
        // The hierarchy's root must pass the controllers down to our parent, and our parent to workers.
        const root = join(layout.parents[0] as string, '..');
        writeFileSync(join(root, 'cgroup.subtree_control'), '+pids +memory');
        writeFileSync(join(layout.parents[0] as string, 'cgroup.subtree_control'), '+pids +memory');
      }
      cg = new WorkerCgroups(layout);
      // A probe: a worker's group can be made, limited and removed.
      cg.create('probe', { pids: 8, memoryBytes: 64 << 20 }).remove();
      return { cgroups: cg };
    } catch (e) {
      if (cg) cg.dispose();
      else for (const p of layout.parents) if (!parentUsers.get(p)) tryRmdir(p);
      return { reason: `cgroup ${layout.kind} not writable here (${errorMessage(e)})` };
    }
  }

  get description(): string {
    return this.kind === 'v2'
      ? 'cgroup v2 per worker (pids.max, memory.max, memory.swap.max 0)'
      : `cgroup v1 per worker (pids.max, memory.limit_in_bytes${this.memsw ? ', memory.memsw.limit_in_bytes' : ', swappiness 0'})`;
  }

  private get memoryParent(): string {
    return this.parents[this.parents.length - 1] as string;
  }

  /** A new group for one worker, with its limits set (before any process is in it). */
  create(label: string, limits: CgroupLimits): WorkerCgroup {
    const name = `w${++this.n}-${label}`;
    const dirs = this.parents.map((p) => join(p, name));
    for (const d of dirs) mkdirSync(d);
    const g = new WorkerCgroup(this.kind, dirs);
    try {
      g.setLimits(limits, this.memsw);
    } catch (e) {
      g.remove();
      throw e;
    }
    return g;
  }

  /** Removes the parents (after every worker's group is gone), unless another factory of this process uses them. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const p of this.parents) {
      const left = (parentUsers.get(p) ?? 1) - 1;
      if (left > 0) parentUsers.set(p, left);
      else {
        parentUsers.delete(p);
        tryRmdir(p);
      }
    }
  }
}

export class WorkerCgroup {
  private readonly kind: CgroupKind;
  /** v2: [dir]; v1: [pids dir, memory dir] (one when co-mounted). */
  readonly dirs: string[];

  constructor(kind: CgroupKind, dirs: string[]) {
    this.kind = kind;
    this.dirs = dirs;
  }

  private get pidsDir(): string {
    return this.dirs[0] as string;
  }
  private get memDir(): string {
    return this.dirs[this.dirs.length - 1] as string;
  }

  setLimits(l: CgroupLimits, memsw: boolean): void {
    writeFileSync(join(this.pidsDir, 'pids.max'), String(l.pids));
    if (this.kind === 'v2') {
      writeFileSync(join(this.memDir, 'memory.max'), String(l.memoryBytes));
      if (existsSync(join(this.memDir, 'memory.swap.max')))
        writeFileSync(join(this.memDir, 'memory.swap.max'), '0');
    } else {
      writeFileSync(join(this.memDir, 'memory.limit_in_bytes'), String(l.memoryBytes));
      if (memsw) writeFileSync(join(this.memDir, 'memory.memsw.limit_in_bytes'), String(l.memoryBytes));
      else writeFileSync(join(this.memDir, 'memory.swappiness'), '0');
    }
  }

  /** Moves a process (not yet running the worker: see the gate in process.ts) into the group. */
  enter(pid: number): void {
    for (const d of this.dirs) writeFileSync(join(d, 'cgroup.procs'), String(pid));
  }

  /** How many processes of the group the kernel's OOM killer killed. */
  oomKills(): number {
    const text =
      this.kind === 'v2'
        ? safeRead(join(this.memDir, 'memory.events'))
        : safeRead(join(this.memDir, 'memory.oom_control'));
    const m = /^oom_kill (\d+)$/m.exec(text);
    if (m) return Number(m[1]);
    // (v1 before Linux 4.13 has no counter: a group under OOM now is the best sign there is.)
    return /^under_oom 1$/m.test(text) ? 1 : 0;
  }

  /** The pids in the group now. */
  pids(): number[] {
    return safeRead(join(this.pidsDir, 'cgroup.procs')).split('\n').filter(Boolean).map(Number);
  }

  /** SIGKILLs everything in the group; answers whether it is empty (a fork loop may need another round). */
  killAll(): boolean {
    if (this.kind === 'v2' && existsSync(join(this.pidsDir, 'cgroup.kill'))) {
      try {
        writeFileSync(join(this.pidsDir, 'cgroup.kill'), '1');
      } catch {
        /* removed already */
      }
    } else {
      for (let round = 0; round < 50; round++) {
        const pids = this.pids();
        if (!pids.length) break;
        for (const p of pids) {
          try {
            process.kill(p, 'SIGKILL');
          } catch {
            /* gone */
          }
        }
      }
    }
    return this.pids().length === 0;
  }

  /** Removes the group (empty once its processes are reaped); answers whether every folder is gone. */
  remove(): boolean {
    let ok = true;
    for (const d of this.dirs) ok = tryRmdir(d) && ok;
    return ok;
  }
}

/**
 * Parents left by Toolsmith processes that no longer run (a crash): their empty worker groups and the
 * parent are removed. A group that still has processes is left alone.
 */
function removeStaleParents(parents: string[]): void {
  for (const p of parents) {
    const dir = dirname(p);
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const n of names) {
      const pid = /^toolsmith-(\d+)$/.exec(n)?.[1];
      if (!pid || Number(pid) === process.pid || pidAlive(Number(pid))) continue;
      const stale = join(dir, n);
      try {
        for (const w of readdirSync(stale, { withFileTypes: true }))
          if (w.isDirectory() && !safeRead(join(stale, w.name, 'cgroup.procs')).trim())
            tryRmdir(join(stale, w.name));
      } catch {
        /* gone */
      }
      tryRmdir(stale);
    }
  }
}

function tryRmdir(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
