/**
 * A run whose process died before run_finished reads as interrupted with the reason in words (its pid,
 * the host, when it last wrote an event), in the list, in the summary and in the record: never `null`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

describe('interrupted runs carry their reason', () => {
  it('names the pid, the host and when the run was last seen', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolsmith-store-'));
    dirs.push(dir);
    const file = join(dir, 'runs.db');
    const store = new RunStore(file);
    const id = store.createRun({ task: 't', sandbox: 's', mode: 'plan', language: 'python' } as never);
    store.close();
    const pid = deadPid();
    const db = new DatabaseSync(file);
    db.prepare('UPDATE runs SET owner_pid = ? WHERE id = ?').run(pid, id);
    const seen = (db.prepare('SELECT updated_at FROM runs WHERE id = ?').get(id) as { updated_at: number })
      .updated_at;
    db.close();

    const again = new RunStore(file);
    const want = `its process (pid ${pid} on ${hostname()}) ended before the run finished; last seen ${new Date(seen).toISOString()}`;
    expect(again.summary(id)).toMatchObject({ status: 'interrupted', error: want });
    expect(again.get(id)).toMatchObject({ status: 'interrupted', error: want });
    expect(again.list({ status: 'interrupted' }).runs.map((r) => [r.id, r.error])).toEqual([[id, want]]);
    again.close();
  });
});
