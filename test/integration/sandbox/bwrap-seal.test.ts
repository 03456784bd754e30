/**
 * The process level (bubblewrap): every writable mount of the sandbox is noexec, nosuid and nodev, and
 * the workers hold no capability (seal.py). bubblewrap 0.8 has no noexec option and mounts its /tmp and
 * /dev/shm without it, so with the job namespaces off a job could run a program it wrote there; the
 * worker now remounts both at its start with the two capabilities bubblewrap grants it in the sandbox's
 * user namespace (`--cap-add`), then gives up every capability. Looked at from the host, in each
 * worker's own /proc entries (Python and node), and the failure path on its own: without those
 * capabilities the seal ends the worker with the reason, before anything runs.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { bubblewrapFactory, hostDevpts, runPython, testBackend } from '../../support/sandbox.ts';
import { repoRoot } from '../../support/workspace.ts';

const TOOLS = `
@tool(grade=(0, 0))
def add(a: int, b: int = 1) -> ToolResponse:
    """Add two numbers."""
    return ToolResponse(success=True, data=a + b)
`;

/** The processes below this one (the test's): each with its command name and its ancestors' names. */
function descendants(): { pid: number; comm: string; chain: string[] }[] {
  const procs = new Map<number, { ppid: number; comm: string }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      procs.set(Number(name), { ppid, comm });
    } catch {
      /* gone */
    }
  }
  const out = [];
  for (const [pid, p] of procs) {
    const chain: string[] = [];
    let at = p.ppid;
    while (at !== process.pid && procs.has(at)) {
      chain.push(procs.get(at)?.comm ?? '');
      at = procs.get(at)?.ppid ?? 0;
    }
    if (at === process.pid) out.push({ pid, comm: p.comm, chain });
  }
  return out;
}

/**
 * A worker's capability sets and the per-mount options of its /tmp and /dev/shm, read from the host; its
 * /dev/pts as `type major:minor options super-options`.
 */
function sealed(pid: number): {
  caps: Record<string, string>;
  mounts: Record<string, string[]>;
  pts: string[];
} {
  const caps = Object.fromEntries(
    readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('Cap'))
      .map((l) => l.split(/:\s+/) as [string, string]),
  );
  const mounts: Record<string, string[]> = {};
  const pts: string[] = [];
  for (const line of readFileSync(`/proc/${pid}/mountinfo`, 'utf8').split('\n')) {
    const f = line.split(' ');
    if (f[4] === '/tmp' || f[4] === '/dev/shm') mounts[f[4]] = (f[5] ?? '').split(',').sort();
    if (f[4] === '/dev/pts') {
      const tail = line.split(' - ')[1]?.split(' ') ?? [];
      pts.push(`${tail[0]} ${f[2]} ${f[5]} ${tail[2]}`);
    }
  }
  return { caps, mounts, pts };
}

/** The host's own devpts instances, `major:minor`. */
const hostPts = hostDevpts();

const NONE = { CapInh: '0000000000000000', CapPrm: '0000000000000000', CapEff: '0000000000000000' };
const ALL_NONE = { ...NONE, CapBnd: '0000000000000000', CapAmb: '0000000000000000' };

describe('bubblewrap: writable mounts noexec, no capability left', () => {
  let b: SandboxBackend;
  beforeAll(() => {
    b = testBackend(bubblewrapFactory({ noCgroups: true }), { toolsSource: TOOLS });
  });
  afterAll(async () => {
    await b?.dispose();
  });

  // (read from the host: the tests run as root, as CI does, so the workers' non-dumpable /proc entries open)
  it("the Python and node workers' /tmp and /dev/shm are noexec, nosuid, nodev; every capability set is empty", async () => {
    const py = await runPython(b, 'emit_result(add(a=41).data)\n', {
      sandbox: 's',
      tools: ['add'],
      timeoutMs: 60_000,
    });
    expect(py).toMatchObject({ success: true, data: 42, isolation: 'bubblewrap' });
    expect(py.isolationDetails).toContain('writable mounts noexec');
    const js = await b.execute({
      sandbox: 's',
      language: 'js',
      code: 'emitResult(6 * 7);\n',
      bodyStartLine: 1,
      tools: {},
      timeoutMs: 60_000,
    });
    expect(js).toMatchObject({ success: true, data: 42, isolation: 'bubblewrap' });
    // the workers: the processes right below a bwrap (the Python worker's fork server and the node
    // worker's job processes are below them), by the file each runs
    const byComm: Record<string, number> = {};
    for (const p of descendants().filter((d) => d.chain[0] === 'bwrap')) {
      const argv = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0');
      const file = argv.find((a) => /worker\.(py|mjs)$/.test(a));
      if (file) byComm[file.endsWith('.py') ? 'python' : 'node'] = p.pid;
    }
    expect(Object.keys(byComm).sort(), JSON.stringify(descendants())).toEqual(['node', 'python']);
    for (const [comm, pid] of Object.entries(byComm)) {
      const got = sealed(pid);
      expect([comm, got.caps], JSON.stringify(got)).toEqual([comm, ALL_NONE]);
      for (const m of ['/tmp', '/dev/shm'])
        expect([comm, m, got.mounts[m]]).toEqual([
          comm,
          m,
          expect.arrayContaining(['rw', 'noexec', 'nosuid', 'nodev']),
        ]);
      // a devpts instance of the sandbox's own (never the host's), nosuid and noexec (docs/sandboxes.md,
      // "Pseudo-terminals"); each job mounts its own over it (pty.test.ts)
      expect(got.pts.length, JSON.stringify(got.pts)).toBe(1);
      const [type, dev, opts, sup] = got.pts[0]!.split(' ') as [string, string, string, string];
      expect([comm, type], JSON.stringify(got.pts)).toEqual([comm, 'devpts']);
      expect(hostPts).not.toContain(dev);
      expect(opts.split(','), JSON.stringify(got.pts)).toEqual(
        expect.arrayContaining(['rw', 'noexec', 'nosuid']),
      );
      expect(sup.split(','), JSON.stringify(got.pts)).toContain('ptmxmode=666');
    }
  }, 120_000);
});

describe('bubblewrap: the seal fails closed', () => {
  it('without the capabilities it needs, the seal ends the process with the reason before running anything', () => {
    // seal.py alone under a bubblewrap with no --cap-add (as nobody, as the level's probe runs when the
    // tests run as root): the remount is refused and the program after it never starts.
    const dir = mkdtempSync(join(tmpdir(), 'toolsmith-seal-'));
    try {
      chmodSync(dir, 0o755);
      copyFileSync(join(repoRoot, 'sandbox-images/python/toolsmith_worker/seal.py'), join(dir, 'seal.py'));
      chmodSync(join(dir, 'seal.py'), 0o644);
      const r = spawnSync(
        '/usr/bin/bwrap',
        [
          '--unshare-all',
          '--unshare-user',
          '--die-with-parent',
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
          '--tmpfs',
          '/tmp',
          '--ro-bind',
          dir,
          '/seal',
          '--',
          '/usr/bin/python3',
          '-I',
          '-S',
          '/seal/seal.py',
          '/bin/sh',
          '-c',
          'echo ran',
        ],
        { encoding: 'utf8', ...(process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}) },
      );
      expect(r.stdout).toBe('');
      expect(r.status, r.stderr).toBe(3);
      expect(r.stderr).toContain(
        "could not seal the sandbox's writable mounts: remounting / noexec,nosuid,nodev: Operation not permitted",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
