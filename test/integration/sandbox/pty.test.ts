/**
 * Pseudo-terminals in the sandboxes (docs/sandboxes.md, "Pseudo-terminals"): a tool that calls
 * os.openpty() and one that runs a child on a pty, inside a job, on each level; and the walls around
 * them, written as the attack: a pty one job leaves behind (a survivor holding it, a secret typed on it)
 * looked for by the next job, with the sweep and wipe off so the job's own namespaces hold alone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import { bubblewrapFactory, dockerFactory, hostDevpts, oneWorker } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';
import { repoRoot } from '../../support/workspace.ts';

const toolsSource =
  readFileSync(join(repoRoot, 'test/fixtures/sandbox/tools.py'), 'utf8') +
  '\n' +
  readFileSync(join(repoRoot, 'test/fixtures/sandbox/pty_tools.py'), 'utf8');
const TOOLS = ['pty_open', 'pty_child', 'pty_leave', 'pty_reach'];

type Run = (code: string) => Promise<ExecutionResult>;

function suite(name: string, make: () => Promise<TestFactory>, body: (run: Run) => void) {
  describe(name, { concurrent: true }, () => {
    const run = oneWorker(make, toolsSource, TOOLS);
    describe('one case after another', { concurrent: false }, () => body((code) => run(code, 20_000)));
  });
}

const ok = (r: ExecutionResult) => {
  expect(r.success, JSON.stringify(r.error)).toBe(true);
  return r.data as Record<string, unknown>;
};

interface PtsMount {
  mount: { type: string; opts: string; super: string } | null;
  /** /dev/pts's device, `major:minor` */
  dev: string | null;
  /** every mount on /dev/pts the job's mountinfo shows, `type major:minor`, the one beneath first */
  stack: string[];
  ptmx: string;
}

/** The host's own devpts instances (`major:minor`): never one a sandbox or job sees. */
const hostPts = hostDevpts();

/**
 * A devpts of the job's own: on /dev/pts two devpts mounts, the sandbox's beneath (not the host's) and the
 * job's over it (what /dev/pts is), different instances. gVisor: in the job's tree an empty read-only
 * tmpfs where the sandbox's one instance is.
 */
function expectOwnInstance(level: string, m: PtsMount, what: string) {
  type Entry = [string, string, string];
  const stack = m.stack.map((e) => e.split(' ')) as Entry[];
  if (level === 'gvisor') {
    // its tree holds no devpts at all: an empty read-only tmpfs (gVisor shows no nosuid of a mount)
    expect(
      stack.map((e) => e.slice(0, 2)),
      what,
    ).toEqual([['tmpfs', m.dev]]);
    expect(stack[0]![2].split(','), what).toEqual(expect.arrayContaining(['ro', 'noexec']));
    return;
  }
  expect(stack.length, what).toBe(2);
  const [below, top] = stack as [Entry, Entry];
  expect(below[0], what).toBe('devpts');
  expect(hostPts, what).not.toContain(below[1]);
  expect(top.slice(0, 2), what).toEqual(['devpts', m.dev]);
  expect(top[1], what).not.toBe(below[1]);
  // nosuid and noexec, the job's and the sandbox's beneath
  for (const opts of [below[2], top[2]])
    expect(opts.split(','), what).toEqual(expect.arrayContaining(['nosuid', 'noexec']));
}

for (const [level, make] of [
  ['docker', () => dockerFactory()],
  ['gvisor', () => dockerFactory({ runtime: 'runsc' })],
  ['process (bubblewrap)', async () => bubblewrapFactory()],
] as const) {
  suite(`pseudo-terminals: ${level}`, make, (run) => {
    it(
      level === 'gvisor'
        ? 'os.openpty() in a job: refused by name (gVisor mounts no devpts of the job its own), /dev/pts empty'
        : 'os.openpty() in a job: a terminal of a fresh devpts instance, nosuid and noexec',
      async () => {
        const got = ok(await run('emit_result(pty_open().data)\n'));
        const what = JSON.stringify(got);
        const m = got as unknown as PtsMount;
        expect(m.ptmx, what).toBe('pts/ptmx');
        expectOwnInstance(level, m, what);
        if (level === 'gvisor') {
          expect(got['error'], what).toContain('no pseudo-terminals in this job');
          expect(got['error'], what).toContain('gVisor refuses every devpts mount');
          expect(m.mount?.type, what).toBe('tmpfs');
          expect(m.mount?.opts.split(','), what).toEqual(expect.arrayContaining(['ro', 'noexec']));
          return;
        }
        expect(got['error'], what).toBeUndefined();
        expect(got['name'], what).toMatch(/^\/dev\/pts\/\d+$/);
        expect(got['echo'], what).toContain('ping');
        expect(m.mount?.type, what).toBe('devpts');
        expect(m.mount?.opts.split(','), what).toEqual(expect.arrayContaining(['rw', 'nosuid', 'noexec']));
        expect(m.mount?.super.split(','), what).toContain('ptmxmode=666');
      },
    );

    it('a child process on a pty: its stdin a terminal, its own session, a typed line read', async () => {
      const got = ok(await run('emit_result(pty_child().data)\n'));
      if (level === 'gvisor') {
        expect(got['error'], JSON.stringify(got)).toContain('no pseudo-terminals in this job');
        return;
      }
      expect(got['out'], JSON.stringify(got)).toMatch(/child True \/dev\/pts\/\d+ True typed/);
      expect(got['status']).toBe(0);
    });
  });
}

/**
 * The job's own namespaces alone (the sweep and wipe off): job A leaves a survivor holding a pty with a
 * secret typed on it; job B lists /dev/pts, opens every entry and the first 64 numbers, and tries to
 * unmount its /dev/pts to reach the one beneath. B sees a devpts instance of its own (not A's, not the
 * worker's, not the host's): nothing but its ptmx, nothing opens.
 */
for (const [level, make] of [
  ['docker', () => dockerFactory({ wallsOff: ['nosweep', 'nowipe'] })],
  ['gvisor', () => dockerFactory({ runtime: 'runsc', wallsOff: ['nosweep', 'nowipe'] })],
  ['process', async () => bubblewrapFactory({ wallsOff: ['nosweep', 'nowipe'] })],
] as const) {
  suite(`pseudo-terminals across jobs (sweep and wipe off): ${level}`, make, (run) => {
    it('a pty one job leaves behind: the next job cannot list, open or read it', async () => {
      const a = ok(await run('emit_result(pty_leave(seconds=20).data)\n'));
      const b = ok(await run('emit_result(pty_reach().data)\n'));
      const what = JSON.stringify({ a, b });
      expect(b['opened'], what).toEqual([]);
      // (gVisor: no terminals at all, its /dev/pts an empty folder of the job's tree; elsewhere A had one)
      if (level === 'gvisor') expect(a['error'], what).toContain('no pseudo-terminals in this job');
      else expect(a['name'], what).toMatch(/^\/dev\/pts\/\d+$/);
      expect(b['listing'], what).toEqual(level === 'gvisor' ? [] : ['ptmx']);
      // each job saw an instance of its own over the sandbox's (a job's instance ends with its mount
      // namespace, so the kernel may hand A's device number to B's: that is not compared)
      expectOwnInstance(level, a as unknown as PtsMount, what);
      expectOwnInstance(level, b as unknown as PtsMount, what);
      expect(b['umount'], what).toBe(-1);
    }, 60_000);
  });
}

/**
 * The second wall alone (the job's namespaces off: a plain fork on the sandbox's own devpts): the sweep
 * ends the survivor that held job A's pty before job B runs, so B lists and opens nothing of it.
 */
for (const [level, make] of [
  ['docker', () => dockerFactory({ wallsOff: ['nojobns'] })],
  ['gvisor', () => dockerFactory({ runtime: 'runsc', wallsOff: ['nojobns'] })],
  ['process', async () => bubblewrapFactory({ wallsOff: ['nojobns'] })],
] as const) {
  suite(`pseudo-terminals across jobs (namespaces off): ${level}`, make, (run) => {
    it("the survivor holding one job's pty is swept: the next job lists and opens none of it", async () => {
      const a = ok(await run('emit_result(pty_leave(seconds=20).data)\n'));
      const b = ok(await run('emit_result(pty_reach().data)\n'));
      const what = JSON.stringify({ a, b });
      expect(a['name'], what).toMatch(/^\/dev\/pts\/\d+$/);
      expect(b['opened'], what).toEqual([]);
      expect(b['listing'], what).toEqual(['ptmx']);
    }, 60_000);
  });
}
