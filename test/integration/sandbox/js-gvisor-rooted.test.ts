/**
 * A rooted bun job on gVisor, attacked from inside (docs/security.md, "A tree of its own (gVisor)"): the
 * script has escaped the language (TOOLSMITH_TEST_WALLS=jsescape hands it its process's powers, and the
 * programs it may run include bun itself, whose `bun:ffi` calls libc: any system call the job's filter
 * lets through), and the sweep and the wipe are off (`nosweep`, `nowipe`), so the launcher's walls
 * (jobns-launch.c `--rooted`: pid and IPC namespaces, the chroot into a tree of its own, a uid of its own,
 * no capability, the job filter) hold alone:
 * - no way out of its tree: no descriptor of the job's process or of a program it runs names a folder
 *   (none to fchdir or open `..` from), `/..` is its own root, `/mnt` is empty (no other tree), chroot,
 *   unshare, mount, umount, setuid/setgid to root and ptrace are refused, no capability in any set, no
 *   set-id file anywhere in the tree, the worker's folder, `/`, `/etc`, `/dev` and `/sys` unwritable; the
 *   launcher run by the job refuses (`--rooted` needs root, the filter refuses the namespaces);
 * - nothing of a job outlives it for the next: a daemon it left (listening on loopback TCP in the job's
 *   own network namespace, where abstract unix sockets are refused), its SysV IPC objects and POSIX message
 *   queue, its files in `/tmp` and `/dev/shm` are gone or out of reach for the next job, and no process
 *   of a job uid is left in the sandbox. Each attack first shows it works inside the job that made it (the next job's refusal
 *   is not an attack that never worked).
 * - the next job's process, made ahead in a tree of its own (only after a job's end: never beside one),
 *   and a second one set beside a job on purpose from outside: the job finds, signals, reads and writes
 *   nothing of it or its tree (its own describe block and sandbox);
 * - a fork bomb ends the sandbox (gVisor's ptrace platform runs out of the container's host pids, runsc
 *   exits): the job fails, the pool replaces the sandbox and the next job runs (docs/security.md, "Known
 *   limits").
 */
import { spawnSync } from 'node:child_process';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { gvisorBun } from './support/gvisor-bun.ts';

const SYS = `const sys = (op, ...args) => { const r = JSON.parse(escaped(op, ...args)); if ('error' in r) throw new Error(r.error); return r.ok; };
const t = (f) => { try { return f(); } catch (e) { return 'error: ' + e.message; } };
const bun = (code, ...args) => { const r = sys('run', '/usr/local/bin/bun', '-e', code, ...args); if (r.status !== 0) throw new Error('bun -e: ' + r.status + ' ' + r.signal + ' ' + r.stderr); return JSON.parse(r.stdout); };
`;

/** A program the job runs (same uid, same namespaces, same tree): libc through bun:ffi. */
const FFI = `const { dlopen, FFIType: F, ptr } = require('bun:ffi');
const fs = require('fs');
const libc = dlopen('libc.so.6', {
  chroot: { args: [F.cstring], returns: F.i32 }, unshare: { args: [F.i32], returns: F.i32 },
  mount: { args: [F.cstring, F.cstring, F.cstring, F.u64, F.ptr], returns: F.i32 },
  umount2: { args: [F.cstring, F.i32], returns: F.i32 }, setuid: { args: [F.u32], returns: F.i32 },
  setgid: { args: [F.u32], returns: F.i32 }, ptrace: { args: [F.i64, F.i32, F.ptr, F.ptr], returns: F.i64 },
  shmget: { args: [F.i32, F.u64, F.i32], returns: F.i32 }, msgget: { args: [F.i32, F.i32], returns: F.i32 },
  semget: { args: [F.i32, F.i32, F.i32], returns: F.i32 },
  mq_open: { args: [F.cstring, F.i32, F.u32, F.ptr], returns: F.i32 },
}).symbols;
const c = (s) => Buffer.from(s + '\\0');
const t = (f) => { try { return f(); } catch (e) { return 'error: ' + (e.code || e.message); } };
`;

/** Helpers beside the worker of the gVisor sandbox named `sandbox` (docker exec, as root with its capabilities). */
function besideWorker(sandbox: string) {
  const docker = new Docker();
  /** The sandbox's container. */
  const sandboxId = async () => {
    const [c] = await docker.listContainers({
      filters: { label: [`toolsmith.owner=${process.pid}`, `toolsmith.sandbox=${sandbox}`] },
    });
    expect(c).toBeDefined();
    return c!.Id;
  };
  /** A bun program run beside the worker (docker exec: root with the container's capabilities). */
  const beside = async (code: string): Promise<unknown> => {
    const r = spawnSync('docker', ['exec', await sandboxId(), '/usr/local/bin/bun', '-e', code], {
      encoding: 'utf8',
      timeout: 60_000, // (an exec that never returns fails here, with the status below, not the whole file)
    });
    if (r.status !== 0)
      throw new Error(
        `docker exec: ${r.status ?? r.signal} ${r.error?.message ?? ''} ${r.stderr} ${r.stdout}`,
      );
    return JSON.parse(r.stdout);
  };
  interface JobProc {
    pid: number;
    ppid: number;
    uid: number;
    ahead: boolean;
  }
  /**
   * The sandbox's processes of job uids (their launcher's pid names their tree; `ahead`: made before
   * its job) and its job trees, read beside the worker.
   */
  const leftInSandbox = async () =>
    (await beside(`const fs = require('fs'); const jobs = [];
for (const p of fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n))) {
  try { const st = fs.readFileSync('/proc/' + p + '/status', 'latin1'); const uid = Number(/^Uid:\\s+(\\d+)/m.exec(st)[1]);
    if (uid >= 100000) jobs.push({ pid: Number(p), ppid: Number(/^PPid:\\s+(\\d+)/m.exec(st)[1]), uid, ahead: fs.readFileSync('/proc/' + p + '/cmdline', 'latin1').split('\\0').includes('--ahead') }); } catch {}
}
console.log(JSON.stringify({ jobs, trees: fs.readdirSync('/mnt') }));`)) as {
      jobs: JobProc[];
      trees: string[];
    };
  /**
   * The process waiting for the next job, once it is the only job process and its tree the only tree (it
   * is made after the last job's end, sweep and wipe: 2026-12-05, docs/scaling.md).
   */
  const waitingProcess = async (): Promise<JobProc> => {
    for (let i = 0; ; i++) {
      const left = await leftInSandbox();
      const [w] = left.jobs;
      if (left.jobs.length === 1 && w!.ahead && left.trees.length === 1 && left.trees[0] === String(w!.ppid))
        return w!;
      if (i >= 100) throw new Error(`no lone waiting process: ${JSON.stringify(left)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { sandboxId, beside, leftInSandbox, waitingProcess };
}

describe('rooted bun jobs on gVisor, attacked from inside (sweep and wipe off)', () => {
  const { run } = gvisorBun('jsgvisorrooted', ['jsescape', 'nosweep', 'nowipe', 'noipcfilter']);
  const { waitingProcess } = besideWorker('jsgvisorrooted');

  it('no way out of its tree: no folder descriptor, no chroot, mount, namespace, uid, ptrace or capability, nothing of the sandbox writable', async () => {
    const probe = `${FFI}
// (the listing's own descriptor is closed once listed: ENOENT, left out)
const fds = (pid) => fs.readdirSync('/proc/' + pid + '/fd').map((n) => {
  const link = t(() => fs.readlinkSync('/proc/' + pid + '/fd/' + n));
  // a folder descriptor would lead out of the chroot (fchdir, or its magic link's ..)
  return { pid: String(pid), n, link, up: t(() => fs.readdirSync('/proc/' + pid + '/fd/' + n + '/..').join(' ')) };
}).filter((f) => f.link !== 'error: ENOENT');
const setid = [];
const walk = (d, depth) => { if (depth > 8) return; let es; try { es = fs.readdirSync(d, { withFileTypes: true }); } catch { return; }
  for (const e of es) { const p = (d === '/' ? '' : d) + '/' + e.name; if (p === '/proc' || p === '/sys') continue;
    try { const s = fs.lstatSync(p); if (!e.isDirectory() && (s.mode & 0o6000)) setid.push(p); if (e.isDirectory() && !e.isSymbolicLink()) walk(p, depth + 1); } catch {} } };
const walked = t(() => walk('/', 0));
const status = fs.readFileSync('/proc/self/status', 'latin1');
const field = (k) => (new RegExp('^' + k + ':\\\\s+(.*)$', 'm').exec(status) || [])[1];
console.log(JSON.stringify({
  fds: [...fds(1), ...fds('self')],
  root: t(() => fs.readdirSync('/').sort()), up: t(() => fs.readdirSync('/../..').sort()), mnt: t(() => fs.readdirSync('/mnt')),
  procs: fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n)).length,
  chroot: libc.chroot(c('/tmp')), unshare: libc.unshare(0x00020000 | 0x10000000), mount: libc.mount(c('none'), c('/tmp'), c('tmpfs'), 0, null),
  umount: libc.umount2(c('/proc'), 2), setuid: libc.setuid(0), setgid: libc.setgid(0), ptrace: Number(libc.ptrace(16, 1, null, null)),
  caps: ['CapInh', 'CapPrm', 'CapEff', 'CapAmb'].map(field), seccomp: field('Seccomp'), uid: field('Uid'),
  setid: walked === undefined ? setid : walked,
  writes: ['/opt/toolsmith/worker.mjs', '/opt/toolsmith/x', '/x', '/etc/passwd', '/dev/x', '/mnt/x', '/sys/kernel/x'].map((p) => [p, t(() => (fs.writeFileSync(p, 'x'), 'written'))]),
}));`;
    // (and the launcher itself, run by the job: rooted, or making namespaces as on runc)
    const launch = (...args: string[]) =>
      `sys('run', '/opt/toolsmith/jobns-launch', ${args.map((a) => `'${a}'`).join(', ')}, '--', '/usr/local/bin/bun', '-e', 'console.log(process.getuid())')`;
    const r = await run(
      `${SYS}emitResult({ uid: sys('uid'), probe: bun(${JSON.stringify(probe)}), launched: [${launch('--rooted', '--uid', '100999')}, ${launch('--probe')}] });\n`,
    );
    expect(r.error).toBeUndefined();
    const d = r.data as {
      uid: number;
      launched: { status: number; stdout: string; stderr: string }[];
      probe: {
        fds: { pid: string; n: string; link: string; up: string }[];
        root: string[];
        up: string[];
        mnt: string[];
        procs: number;
        chroot: number;
        unshare: number;
        mount: number;
        umount: number;
        setuid: number;
        setgid: number;
        ptrace: number;
        caps: string[];
        seccomp: string;
        uid: string;
        setid: string[];
        writes: [string, string][];
      };
    };
    const p = d.probe;
    expect(d.uid).toBeGreaterThanOrEqual(100000);
    expect(d.launched.map((l) => [l.status, l.stdout])).toEqual([
      [70, ''],
      [70, ''],
    ]);
    expect(d.launched[0]!.stderr).toMatch(/--rooted needs the worker to be root/);
    expect(d.launched[1]!.stderr).toMatch(/the kernel refused the job's namespaces/);
    expect(p.up).toEqual(p.root);
    expect(p.root).toContain('opt');
    expect(p.mnt).toEqual([]);
    // the job's process (pid 1) and the program: sockets, pipes, anonymous inodes and /dev/null only
    expect(p.fds.filter((f) => f.pid === '1').length).toBeGreaterThanOrEqual(4);
    expect(p.fds.filter((f) => !/^(socket:|pipe:|anon_inode:|\/dev\/null$)/.test(f.link))).toEqual([]);
    expect(p.fds.filter((f) => !f.up.startsWith('error: '))).toEqual([]);
    expect(p.procs).toBeLessThanOrEqual(3); // the job, the program (and its thread group's own entries)
    expect({
      chroot: p.chroot,
      unshare: p.unshare,
      mount: p.mount,
      umount: p.umount,
      setuid: p.setuid,
      setgid: p.setgid,
      ptrace: p.ptrace,
    }).toEqual({ chroot: -1, unshare: -1, mount: -1, umount: -1, setuid: -1, setgid: -1, ptrace: -1 });
    expect(p.caps.slice(0, 3)).toEqual(['0000000000000000', '0000000000000000', '0000000000000000']);
    expect(p.seccomp).toBe('2');
    expect(p.uid.split(/\s+/).map(Number)).toEqual([d.uid, d.uid, d.uid, d.uid]);
    expect(p.setid).toEqual([]);
    expect(p.writes.filter(([, w]) => w === 'written')).toEqual([]);
  }, 300_000);

  it("nothing of a job outlives it for the next: its daemon's sockets (abstract and loopback), SysV IPC, files, processes", async () => {
    // (each listener alone: the job's own network namespace refuses abstract names, below)
    const server = `const net = require('net'); for (const a of [String.fromCharCode(0) + 'toolsmith-qa-abstract', 4567]) net.createServer((s) => s.end('from ' + process.getuid())).on('error', () => {}).listen(a); setInterval(() => {}, 1000);`;
    const client = (tries: number) =>
      `const net = require('net'); const res = {}; let left = 2;
const go = (name, a, n) => { const c = net.connect(a); c.on('data', (d) => { res[name] = 'reached ' + d; if (!--left) done(); }); c.on('error', (e) => { if (n > 0 && e.code !== 'EINVAL') return setTimeout(() => go(name, a, n - 1), 250); res[name] = 'error: ' + e.code; if (!--left) done(); }); };
const done = () => { console.log(JSON.stringify(res)); process.exit(0); };
go('abstract', String.fromCharCode(0) + 'toolsmith-qa-abstract', ${tries}); go('tcp', { port: 4567, host: '127.0.0.1' }, ${tries});`;
    const ipc = (make: boolean) =>
      `${FFI}const k = 0x7153; console.log(JSON.stringify(${make} ? { shm: libc.shmget(k, 4096, 0o1000 | 0o666), msg: libc.msgget(k, 0o1000 | 0o666), sem: libc.semget(k, 1, 0o1000 | 0o666), mq: libc.mq_open(c('/toolsmith-qa'), 0o100 | 2, 0o666, null) } : { shm: libc.shmget(k, 0, 0), msg: libc.msgget(k, 0), sem: libc.semget(k, 0, 0), mq: libc.mq_open(c('/toolsmith-qa'), 2, 0, null) }));`;
    const a = await run(`${SYS}sys('leave', '/usr/local/bin/bun', '-e', ${JSON.stringify(server)});
sys('write', '/tmp/left-by-a', 'a'); sys('write', '/dev/shm/left-by-a', 'a');
emitResult({ uid: sys('uid'), reach: bun(${JSON.stringify(client(40))}), ipc: bun(${JSON.stringify(ipc(true))}), found: bun(${JSON.stringify(ipc(false))}) });\n`);
    expect(a.error).toBeUndefined();
    const da = a.data as {
      uid: number;
      reach: Record<string, string>;
      ipc: Record<string, number>;
      found: Record<string, number>;
    };
    // the attack works within the job that made it: loopback TCP, and an abstract unix socket where the
    // sandbox kernel allows one in the job's own network namespace (runsc 20240729, Debian 13's); 20221219
    // (Debian 12's) allows abstract names in the sandbox's first network namespace only (EINVAL to bind
    // and connect), so there it can be neither left nor reached (before the job's netns: reached)
    const abstractRefused = da.reach['abstract'] === 'error: EINVAL';
    expect(da.reach).toEqual({
      abstract: abstractRefused ? 'error: EINVAL' : `reached from ${da.uid}`,
      tcp: `reached from ${da.uid}`,
    });
    // (SysV shared memory, message queue and semaphore set, a POSIX message queue: made, and found there)
    for (const k of ['shm', 'msg', 'sem', 'mq']) {
      expect(da.ipc[k], k).toBeGreaterThanOrEqual(0);
      expect(da.found[k], k).toBeGreaterThanOrEqual(0);
    }
    // no process of a job uid is left in the sandbox (its pid namespace died with its pid 1), nor its
    // tree: only the next job's process, waiting in a tree of its own, under another uid
    const waiting = await waitingProcess();
    expect(waiting.uid).not.toBe(da.uid);
    const b = await run(
      `${SYS}emitResult({ uid: sys('uid'), reach: bun(${JSON.stringify(client(3))}), found: bun(${JSON.stringify(ipc(false))}), tmp: sys('list', '/tmp'), shm: sys('list', '/dev/shm') });\n`,
    );
    expect(b.error).toBeUndefined();
    const db = b.data as {
      uid: number;
      reach: Record<string, string>;
      found: Record<string, number>;
      tmp: string[];
      shm: string[];
    };
    expect(db.uid).not.toBe(da.uid);
    expect(db.uid).toBe(waiting.uid); // (it ran in the process that waited)
    expect(db.reach).toEqual({
      abstract: abstractRefused ? 'error: EINVAL' : 'error: ECONNREFUSED',
      tcp: 'error: ECONNREFUSED',
    });
    expect(db.found).toEqual({ shm: -1, msg: -1, sem: -1, mq: -1 });
    expect(db.tmp).not.toContain('left-by-a');
    expect(db.shm).not.toContain('left-by-a');
  }, 300_000);

  it('a fork bomb ends the sandbox, not the next job: the job fails and the next one runs', async () => {
    const bomb = `const { dlopen, FFIType: F } = require('bun:ffi');
const l = dlopen('libc.so.6', { fork: { args: [], returns: F.i32 }, pause: { args: [], returns: F.i32 } }).symbols;
let n = 0; for (let i = 0; i < 2000; i++) { const r = l.fork(); if (r === 0) for (;;) l.pause(); if (r < 0) break; n++; }
console.log(JSON.stringify({ n }));`;
    const r = await run(`${SYS}emitResult(bun(${JSON.stringify(bomb)}));\n`);
    expect(r.success).toBe(false);
    expect(['crashed', 'error', 'oom']).toContain(r.exitReason);
    expect(r.error?.message).toBeTruthy();
    const next = await run(`${SYS}emitResult({ uid: sys('uid'), pid: sys('pid') });\n`);
    expect(next.error).toBeUndefined();
    expect(next.data).toMatchObject({ pid: 1 });
    expect((next.data as { uid: number }).uid).toBeGreaterThanOrEqual(100000);
  }, 300_000);
});

/**
 * The next job's process, made ahead (docs/scaling.md, "JS jobs: the next job's process made ahead"), and
 * a job set on a waiting process (sweep and wipe off; a sandbox of its own).
 */
describe("rooted bun jobs on gVisor: the next job's process waiting in its tree (sweep and wipe off)", () => {
  const { run } = gvisorBun('jsgvisorbeside', ['jsescape', 'nosweep', 'nowipe', 'noipcfilter']);
  const { sandboxId, beside, leftInSandbox, waitingProcess } = besideWorker('jsgvisorbeside');

  it("the next job's process waiting in its tree: the job before it neither finds, signals nor writes it", async () => {
    // The worker makes it only after a job's end, sweep and wipe: a job never runs beside it. So that the
    // job can be set on it, a second one is made beside the worker's own here, from outside (a launcher
    // run as root, `docker exec`: a waiting process the order never lets a job meet), holding a secret
    // in its tree's /tmp.
    expect((await run(`emitResult(1);\n`)).data).toBe(1);
    const id = await sandboxId();
    const spare = await waitingProcess();
    const planted = spawnSync(
      'docker',
      [
        'exec',
        '-d',
        id,
        '/opt/toolsmith/jobns-launch',
        '--keep',
        '/opt/toolsmith',
        '--rooted',
        '--uid',
        '100777',
        '--',
        '/usr/local/bin/bun',
        '-e',
        "require('fs').writeFileSync('/tmp/secret', 'planted'); setInterval(() => {}, 1000);",
      ],
      { encoding: 'utf8' },
    );
    expect(planted.status, planted.stderr).toBe(0);
    const found = async () => {
      for (let i = 0; ; i++) {
        const p = (await leftInSandbox()).jobs.find((j) => j.uid === 100777);
        const secret = p
          ? ((await beside(
              `const fs = require('fs'); let s = null; try { s = fs.readFileSync('/mnt/${p.ppid}/tmp/secret', 'latin1'); } catch {} console.log(JSON.stringify(s));`,
            )) as string | null)
          : null;
        if (p && secret === 'planted') return p;
        if (i >= 100) throw new Error('the planted process did not start');
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const other = await found();
    const trees = [spare.ppid, other.ppid];
    // (the job runs in the worker's waiting process; the other, made later, waits beside it)
    const attack = `${SYS}const me = sys('pid');
const own = new Set(sys('list', '/proc/self/task').map(Number));
const signalled = [];
for (let p = 1; p <= 400; p++) if (p !== me && !own.has(p) && t(() => sys('kill', p)) === true) signalled.push(p);
const trees = ${JSON.stringify(trees)};
const pids = [...trees, ${other.pid}, ${spare.pid}];
const paths = [...trees.flatMap((l) => ['/mnt/' + l, '/mnt/' + l + '/tmp/secret', '/mnt/' + l + '/tmp/x']), ...pids.flatMap((p) => ['/proc/' + p + '/root/tmp/secret', '/proc/' + p + '/environ'])];
emitResult({
  uid: sys('uid'), procs: sys('list', '/proc').filter((n) => /^\\d+$/.test(n)), signalled, mnt: t(() => sys('list', '/mnt')),
  read: paths.map((p) => [p, t(() => sys('read', p))]).filter(([, r]) => !String(r).startsWith('error: ')),
  written: paths.map((p) => [p, t(() => sys('write', p, 'x'))]).filter(([, r]) => r === true),
  mountinfo: sys('read', '/proc/self/mountinfo').split('\\n').filter((l) => trees.some((n) => l.includes('/mnt/' + n))),
  // (bun:ffi: as root would, into the other tree by its path; its pid from outside the job's namespace)
  ffi: bun(${JSON.stringify(`${FFI}console.log(JSON.stringify({ chroot: libc.chroot(c('/mnt/${other.ppid}')), kill: t(() => process.kill(${other.pid}, 'SIGKILL')), ptrace: Number(libc.ptrace(16, ${other.pid}, null, null)) }));`)}),
});
`;
    const a = await run(attack);
    expect(a.error, JSON.stringify(a.error)).toBeUndefined();
    const d = a.data as {
      uid: number;
      procs: string[];
      signalled: number[];
      mnt: string[];
      read: [string, string][];
      written: [string, unknown][];
      mountinfo: string[];
      ffi: { chroot: number; kill: unknown; ptrace: number };
    };
    expect(d.uid).toBe(spare.uid);
    expect(d.uid).not.toBe(other.uid);
    expect(d.procs).toEqual(['1']);
    expect(d.signalled).toEqual([]);
    expect(d.mnt).toEqual([]);
    expect(d.read).toEqual([]);
    expect(d.written).toEqual([]);
    expect(d.mountinfo).toEqual([]);
    expect(d.ffi).toEqual({ chroot: -1, kill: 'error: ESRCH', ptrace: -1 });
    // the other waiting process is whole: alive, its secret as it wrote it, nothing written into its tree
    const after = await beside(
      `const fs = require('fs'); const r = (p) => { try { return fs.readFileSync(p, 'latin1'); } catch (e) { return 'error: ' + e.code; } };
const modes = ['/mnt', ...fs.readdirSync('/mnt').map((l) => '/mnt/' + l)].map((p) => { const s = fs.statSync(p); return [p, (s.mode & 0o7777).toString(8), s.uid]; });
console.log(JSON.stringify({ alive: fs.existsSync('/proc/${other.pid}'), secret: r('/mnt/${other.ppid}/tmp/secret'), x: r('/mnt/${other.ppid}/tmp/x'), tmp: fs.readdirSync('/mnt/${other.ppid}/tmp'), modes }));`,
    );
    const modes = (after as { modes: [string, string, number][] }).modes;
    expect(after).toEqual({
      alive: true,
      secret: 'planted',
      x: 'error: ENOENT',
      tmp: ['secret'],
      modes,
    });
    // The trees' folder is root's alone (no job uid enters it; each tree is the sandbox's root bound
    // there, its mode the root's): the planted tree's and the next job's.
    expect(modes[0]).toEqual(['/mnt', '700', 0]);
    expect(modes.map(([p]) => p)).toEqual(expect.arrayContaining([`/mnt/${other.ppid}`]));
    expect(modes).toHaveLength(3);
    // (ended: its launcher kills it and releases its tree)
    await beside(`process.kill(${other.ppid}, 'SIGTERM'); console.log('1');`);
    for (let i = 0; (await leftInSandbox()).trees.includes(String(other.ppid)); i++) {
      if (i >= 100) throw new Error('the planted tree was not released');
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 300_000);
});

describe('rooted bun jobs on gVisor: SysV IPC and POSIX message queues refused (the IPC filter)', () => {
  const { run } = gvisorBun('jsgvisoripc', ['jsescape']);

  it('shmget, msgget, semget and mq_open fail in a program the job runs (before the filter: made in its IPC namespace)', async () => {
    const make = `${FFI}const k = 0x7154; console.log(JSON.stringify({ shm: libc.shmget(k, 4096, 0o1000 | 0o666), msg: libc.msgget(k, 0o1000 | 0o666), sem: libc.semget(k, 1, 0o1000 | 0o666), mq: libc.mq_open(c('/toolsmith-qa-ipc'), 0o100 | 2, 0o666, null) }));`;
    const r = await run(`${SYS}emitResult(bun(${JSON.stringify(make)}));\n`);
    expect(r.error, JSON.stringify(r.error)).toBeUndefined();
    expect(r.data).toEqual({ shm: -1, msg: -1, sem: -1, mq: -1 });
  }, 300_000);
});
