/**
 * `runs recover` against a process that opens the store between the recovery's last look for another
 * process with it open and its renames (held there by TOOLSMITH_RECOVER_PAUSE_MS, so the window is met
 * every time). Before, nothing was held there: the process opened the damaged file, and a run it made
 * and ended in the window was written to the file moved aside, never to the recovered store. Now the
 * recovery holds the store's marker (`runs.db.recovering`) from that look through the renames, and an
 * open waits for it and opens the recovered file. Two real processes: the recovery (support/store-
 * recover.ts) and this one.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { POLL_MS } from '../../support/budgets.ts';
import { runStarted } from '../../support/run-records.ts';
import { repoRoot } from '../../support/workspace.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-recover-window-'));
  mkdirSync(join(dir, 'ws', '.toolsmith'), { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const file = () => join(dir, 'ws', '.toolsmith', 'runs.db');
const sql = (db: string, q: string) =>
  execFileSync('sqlite3', ['-cmd', '.timeout 5000', db, q]).toString().trim();

/** support/store-recover.ts on the store, paused `pauseMs` before its renames. */
function recovery(pauseMs: number) {
  const child = spawn(
    join(repoRoot, 'node_modules/.bin/node'),
    [join(repoRoot, 'test/integration/faults/support/store-recover.ts'), file()],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TOOLSMITH_RECOVER_PAUSE_MS: String(pauseMs) },
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, out, err })),
  );
}

describe('runs recover and a process opening the store before its renames', () => {
  it('a run made and ended in that window is in the recovered store', async () => {
    const seeded = new RunStore(file());
    const before: string[] = [];
    for (let i = 0; i < 20; i++) {
      const id = seeded.createRun(runStarted(`seeded task ${i}`));
      seeded.append(id, 'run_finished', { status: 'succeeded', result: i });
      before.push(id);
    }
    seeded.recordTemplateUse('user-email', true);
    seeded.close();
    // Damaged where a new run never writes: the template counters' table.
    const page = Number(sql(file(), "SELECT rootpage FROM sqlite_master WHERE name = 'template_stats';"));
    const fd = openSync(file(), 'r+');
    writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, (page - 1) * 4096);
    closeSync(fd);
    expect(() => sql(file(), 'PRAGMA integrity_check;')).toThrow(/malformed/);

    const recovered = recovery(4_000);
    // The recovery has looked for other processes for the last time and stands before its renames.
    await vi.waitFor(() => expect(existsSync(`${file()}.recovering`)).toBe(true), {
      timeout: POLL_MS,
      interval: 20,
    });
    // This process opens the store now, and makes and ends a run.
    const store = new RunStore(file());
    const mine = store.createRun(runStarted('a run made in the window'));
    store.append(mine, 'run_finished', { status: 'succeeded', result: 'kept' });
    store.close();
    const r = await recovered;
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ runs: 20, lost: 0 });

    // Before: the run went to the damaged file moved aside (runs.db.damaged-...), not to the recovered one.
    const after = new RunStore(file());
    try {
      expect(after.get(mine)?.status).toBe('succeeded');
      for (const id of before) expect(after.has(id), id).toBe(true);
    } finally {
      after.close();
    }
    expect(sql(file(), 'PRAGMA integrity_check;')).toBe('ok');
    expect(readdirSync(join(dir, 'ws', '.toolsmith')).filter((f) => f.endsWith('.recovering'))).toEqual([]);
  }, 60_000);
});
