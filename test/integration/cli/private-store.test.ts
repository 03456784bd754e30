/**
 * Another user of the machine as the attacker (docs/security.md, "Who is trusted": other processes are
 * not trusted with the run store). The store holds every script, prompt, tool result and log of the
 * workspace's runs; with the default umask SQLite made `runs.db` (and its `-wal`, `-shm`) 0644, and the
 * log file was 0644 too, so any user who could reach the folder read every run. Here the workspace
 * folder is reachable by everyone (a 0755 home, as Debian makes them) and uid 65534 tries to read.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { cli } from '../../support/cli.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';

const made: string[] = [];
afterAll(() => {
  for (const d of made) removeWorkspace(d);
});

function reachableWorkspace(): string {
  const ws = tempWorkspace('toolsmith-private-store-');
  made.push(ws);
  chmodSync(ws, 0o755);
  chmodSync(join(ws, '.toolsmith'), 0o755);
  return ws;
}

/** What uid 65534 reads of `file`: its first bytes, or the error. */
function asAnotherUser(file: string): { status: number | null; stderr: string } {
  // (coreutils' messages in English: under a person's LANG=tr_TR.UTF-8 it said "Erişim engellendi")
  const r = spawnSync('head', ['-c', '16', file], {
    uid: 65534,
    gid: 65534,
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C' },
  });
  return { status: r.status, stderr: r.stderr };
}

const storeFiles = (ws: string) =>
  ['runs.db', 'runs.db-wal', 'runs.db-shm', 'logs/toolsmith.jsonl']
    .map((f) => join(ws, '.toolsmith', f))
    .filter((f) => existsSync(f));

describe('the run store and the log, read by another user', () => {
  it('a new store, its WAL and shared memory while open, and the log are readable by their owner only', async () => {
    const ws = reachableWorkspace();
    const svc = ToolsmithService.open(ws);
    try {
      const doc = JSON.parse(
        readFileSync(join(repoRoot, 'test/fixtures/runs/run-v1.json'), 'utf8'),
      ) as unknown;
      (await svc.runs()).import(doc);
      const files = storeFiles(ws);
      expect(files.map((f) => f.slice(ws.length)).sort()).toEqual([
        '/.toolsmith/logs/toolsmith.jsonl',
        '/.toolsmith/runs.db',
        '/.toolsmith/runs.db-shm',
        '/.toolsmith/runs.db-wal',
      ]);
      for (const f of files) {
        expect(statSync(f).mode & 0o077, f).toBe(0);
        const read = asAnotherUser(f);
        expect(read.status, f).not.toBe(0);
        expect(read.stderr, f).toMatch(/Permission denied/);
      }
    } finally {
      await svc.close();
    }
  });

  it('a store made world-readable before (0644) is closed to other users when it is next opened', async () => {
    const ws = reachableWorkspace();
    expect(
      (await cli('-w', ws, 'runs', 'import', join(repoRoot, 'test/fixtures/runs/run-v1.json'))).code,
    ).toBe(0);
    for (const f of storeFiles(ws)) chmodSync(f, 0o644);
    expect(asAnotherUser(join(ws, '.toolsmith/runs.db')).status).toBe(0); // (the attack works on such a file)
    expect((await cli('-w', ws, 'runs', 'list')).code).toBe(0);
    for (const f of storeFiles(ws)) {
      expect(statSync(f).mode & 0o777, f).toBe(0o600);
      expect(asAnotherUser(f).status, f).not.toBe(0);
    }
  });
});
