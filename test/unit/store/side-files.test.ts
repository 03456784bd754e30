/**
 * The repair of a store's side files at open (`repairSideFiles`): an index (`-shm`) that still matches its
 * write-ahead log is another process's live store and is left alone; one whose log is gone or replaced
 * is cleared, so SQLite rebuilds it as after a crash.
 */
import { copyFileSync, mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { repairSideFiles } from '../../../src-main/infra/store/connection.ts';

const open: DatabaseSync[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A database with committed frames in its log, held open as a live process holds it. */
function liveStore(): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolsmith-side-files-'));
  dirs.push(dir);
  const file = join(dir, 'runs.db');
  const db = new DatabaseSync(file);
  open.push(db);
  db.exec(
    'PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(x); INSERT INTO t VALUES (1), (2);',
  );
  return file;
}

describe('side files at open', () => {
  it("leaves a live store's index alone when it matches the log", () => {
    const file = liveStore();
    expect(repairSideFiles(file)).toBeUndefined();
    // The live connection still reads its rows from the log.
    const other = new DatabaseSync(file);
    open.push(other);
    expect(other.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2 });
  });

  it('clears an index whose log is gone', () => {
    const file = liveStore();
    unlinkSync(`${file}-wal`);
    expect(repairSideFiles(file)).toMatch(/cleared .*runs\.db-shm/);
  });

  it('clears an index whose log was replaced by another one', () => {
    const file = liveStore();
    const other = liveStore();
    copyFileSync(`${other}-wal`, `${file}-wal`);
    expect(repairSideFiles(file)).toMatch(/cleared/);
  });
});
