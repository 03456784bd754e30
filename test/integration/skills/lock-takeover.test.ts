/**
 * A dead holder's skills lock (`.toolsmith/skills.lock`, left by a process killed inside its section)
 * taken over by several processes at the same moment: one at a time holds it. Before, each removed the
 * lock file at the path once it had read the dead pid, and one that read it before another had removed
 * it and made its own removed that live lock: two (or three) processes were inside at once. Real
 * processes (support/lock-contender.ts, the real withFileLock), all starting in the same millisecond and
 * pausing between noticing the dead holder and taking over (TOOLSMITH_LOCK_TAKEOVER_PAUSE_MS), so they
 * all stand in that window at once; each makes a marker file with O_EXCL inside its section, so two
 * inside at once is seen.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { POLL_MS } from '../../support/budgets.ts';
import { repoRoot } from '../../support/workspace.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-lock-takeover-'));
  mkdirSync(join(dir, '.toolsmith'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const lock = () => join(dir, '.toolsmith', 'skills.lock');

/** support/lock-contender.ts as a process: its exit code, stdout and stderr. */
function contender(args: string[], env: Record<string, string> = {}) {
  const child = spawn(
    join(repoRoot, 'node_modules/.bin/node'),
    [join(repoRoot, 'test/integration/skills/support/lock-contender.ts'), ...args],
    // Each stands between noticing the dead holder and taking its lock over for 150 ms: every
    // contender is in that window at once, whatever the machine's load.
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TOOLSMITH_LOCK_TAKEOVER_PAUSE_MS: '150', ...env },
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, out, err })),
  );
  return Object.assign(done, { child });
}

describe("a dead holder's skills lock taken over by several processes at once", () => {
  it('one process at a time is inside, round after round (before: two or three were)', async () => {
    const rounds = 6;
    const contenders = 4;
    const overlaps: number[] = [];
    for (let r = 0; r < rounds; r++) {
      // A holder killed inside its section: its lock, naming its pid (now dead), stays.
      const died = await contender(['die', lock()]);
      expect(died.code, died.err).toBe(0);
      const dead = Number(readFileSync(lock(), 'utf8').trim());
      expect(dead).toBeGreaterThan(0);
      // Every contender has started by then (each waits for it): they try in the same millisecond.
      const at = Date.now() + 1_500;
      const inside = join(dir, `inside-${r}`);
      const all = await Promise.all(
        Array.from({ length: contenders }, () => contender(['take', lock(), inside, String(at)])),
      );
      for (const c of all) expect(c.code, c.err).toBe(0);
      const n = all.filter((c) => c.out.includes('OVERLAP')).length;
      if (n) overlaps.push(r);
      // Every section ended and removed its lock; no claim of a takeover is left.
      expect(existsSync(lock())).toBe(false);
      expect(readdirSync(join(dir, '.toolsmith'))).toEqual([]);
    }
    expect(overlaps, `rounds where two processes were inside at once`).toEqual([]);
  }, 300_000);

  it('a claimant stopped inside its takeover for longer than 5 s keeps its claim: the process that would have taken over meanwhile waits, never both are inside', async () => {
    const died = await contender(['die', lock()]);
    expect(died.code, died.err).toBe(0);
    const at = Date.now() + 1_500;
    const inside = join(dir, 'inside');
    // The first claims the dead holder's lock and stops 7 s between its claim and removing that lock.
    const slow = contender(['take', lock(), inside, String(at)], { TOOLSMITH_LOCK_CLAIM_PAUSE_MS: '7000' });
    // The second comes 0.5 s later, and once inside stays there 6 s.
    const other = contender(['take', lock(), inside, String(at + 500), '6000']);
    const [a, b] = await Promise.all([slow, other]);
    expect(a.code, a.err).toBe(0);
    expect(b.code, b.err).toBe(0);
    // Before: the second removed the first's claim as stale after 5 s and took the lock over; the first
    // then removed the second's live lock and went in beside it ("OVERLAP").
    expect(a.out + b.out).not.toContain('OVERLAP');
    expect(existsSync(lock())).toBe(false);
    expect(readdirSync(join(dir, '.toolsmith'))).toEqual([]);
  }, 120_000);

  it('a claim left by a claimant killed inside its takeover is removed, and one process at a time is inside', async () => {
    const died = await contender(['die', lock()]);
    expect(died.code, died.err).toBe(0);
    const ino = statSync(lock()).ino;
    const killed = contender(['take', lock(), join(dir, 'never'), String(Date.now())], {
      TOOLSMITH_LOCK_CLAIM_PAUSE_MS: '60000',
    });
    await vi.waitFor(() => expect(existsSync(`${lock()}.dead-${ino}`)).toBe(true), {
      timeout: POLL_MS,
      interval: 20,
    });
    killed.child.kill('SIGKILL');
    await killed;
    const at = Date.now() + 1_500;
    const inside = join(dir, 'inside');
    const all = await Promise.all(
      Array.from({ length: 4 }, () => contender(['take', lock(), inside, String(at)])),
    );
    for (const c of all) expect(c.code, c.err).toBe(0);
    expect(all.filter((c) => c.out.includes('OVERLAP'))).toEqual([]);
    expect(existsSync(lock())).toBe(false);
    expect(readdirSync(join(dir, '.toolsmith'))).toEqual([]);
  }, 120_000);
});
