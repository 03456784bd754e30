/**
 * Recovering a damaged run store: every run whose events can still be read (a copy of the damaged
 * file opened on its own, read row by row, each run checked like an import) is written to a new store;
 * the damaged file (with its `-wal` and `-shm`) is moved aside, never deleted, and the new file takes
 * its place. Suite runs, their results and their runs' tags, and the template counters are carried too,
 * row by row as far as they can be read. Runs whose events cannot be read are not kept.
 */
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { EVENT_VERSION } from '../../core/records/events.ts';
import { recoveryGoingOn, recoveryMarker, RunStoreError } from './connection.ts';
import { openElsewhere } from './file-locks.ts';
import { pidFileAt } from '../workspace/file-lock.ts';
import { testPause } from '../clock.ts';
import { EXPORT_FORMAT } from './run-events.ts';
import type { EventRow } from './run-statements.ts';
import { RunStore } from './run-store.ts';
import { insertRows } from './rows.ts';

export interface Recovered {
  /** The runs (and their events) kept in the recovered store. */
  runs: number;
  events: number;
  /** Runs found but not kept (their events could not be read, or did not make a whole run). */
  lost: number;
  /** Suite runs and template counters carried into the recovered store (as far as they could be read). */
  suiteRuns: number;
  templates: number;
  /** Where the damaged file was moved. */
  damaged: string;
}

const stamp = () => new Date().toISOString().replace(/[:.]/g, '-');

/** Runs written to the recovered store in one transaction (see recoverStore). */
const IMPORT_BATCH = 500;

/** Every value `sql` yields before the damage stops it (a damaged page ends the walk, not the read). */
function readable(db: DatabaseSync, sql: string): string[] {
  const out: string[] = [];
  try {
    for (const row of db.prepare(sql).iterate()) out.push(Object.values(row)[0] as string);
  } catch {
    // The walk stopped at a damaged page: what came before is kept.
  }
  return out;
}

/** Every row `sql` yields before the damage stops it. */
function readableRows(db: DatabaseSync, sql: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  try {
    for (const row of db.prepare(sql).iterate()) out.push({ ...row });
  } catch {
    // The walk stopped at a damaged page: what came before is kept.
  }
  return out;
}

/** The rows of the tables beside the runs: suite runs, their results, their runs' tags, template counters. */
interface Beside {
  suiteRuns: Record<string, unknown>[];
  suiteResults: Record<string, unknown>[];
  tags: Record<string, unknown>[];
  templates: Record<string, unknown>[];
}

function readBeside(old: DatabaseSync): Beside {
  return {
    suiteRuns: readableRows(old, 'SELECT * FROM suite_runs'),
    suiteResults: readableRows(old, 'SELECT * FROM suite_results'),
    tags: readableRows(old, 'SELECT id, suite_run FROM runs WHERE suite_run IS NOT NULL'),
    templates: readableRows(old, 'SELECT * FROM template_stats'),
  };
}

function writeBeside(file: string, b: Beside): { suiteRuns: number; templates: number } {
  const db = new DatabaseSync(file);
  try {
    db.exec('BEGIN');
    const suiteRuns = insertRows(db, 'suite_runs', b.suiteRuns);
    insertRows(db, 'suite_results', b.suiteResults);
    const tag = db.prepare('UPDATE runs SET suite_run = ? WHERE id = ?');
    for (const t of b.tags) tag.run(t['suite_run'] as string, t['id'] as string);
    const templates = insertRows(db, 'template_stats', b.templates);
    db.exec('COMMIT');
    return { suiteRuns, templates };
  } finally {
    db.close();
  }
}

/**
 * Recovers `file` in place (see the module's comment); throws RunStoreError naming the cause. Refused
 * while another process has the store open, and given up (nothing changed) when one opens it while
 * the runs are copied: that process goes on writing to the file this one moves aside, and what it
 * wrote after the copy was lost (a run it finished meanwhile read `interrupted` in the new store for
 * good, its end and last attempts only in the file moved aside).
 */
export function recoverStore(file: string): Recovered {
  if (!existsSync(file)) throw new RunStoreError(`there is no run store at ${file}: nothing to recover`);
  const before = openElsewhere(file);
  if (before.length)
    throw new RunStoreError(
      `the run store ${file} is open in another process (${before.join('; ')}): stop it (serve, mcp, the workbench, a run) and recover again; nothing was changed (what it writes while the runs are copied would not reach the recovered store)`,
    );
  const at = stamp();
  const work = mkdtempSync(join(tmpdir(), 'toolsmith-recover-'));
  const fresh = `${file}.recovered-${at}`;
  let runs = 0;
  let events = 0;
  let lost = 0;
  let carried = { suiteRuns: 0, templates: 0 };
  try {
    copyFileSync(file, join(work, 'runs.db'));
    if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, join(work, 'runs.db-wal'));
    if (undamaged(work))
      throw new RunStoreError(
        `the run store ${file} is not damaged (SQLite's integrity check finds nothing wrong in it): there is nothing to recover, and nothing was changed`,
      );
    const old = readableView(join(work, 'runs.db'), work);
    const into = new RunStore(fresh);
    let beside: Beside;
    try {
      // Run ids from every way in: the table, its indexes, the events (a damaged page stops one walk).
      const ids = new Set([
        ...readable(old, 'SELECT id FROM runs'),
        ...readable(old, 'SELECT id FROM runs ORDER BY created_at DESC, id'),
        ...readable(old, 'SELECT id FROM runs ORDER BY status, created_at, id'),
        ...readable(old, 'SELECT DISTINCT run_id FROM events'),
        ...readable(old, 'SELECT DISTINCT run_id FROM events ORDER BY run_id DESC'),
      ]);
      const eventsOf = old.prepare(
        'SELECT run_id, seq, type, v, ts, data FROM events WHERE run_id = ? ORDER BY seq',
      );
      // The runs are written IMPORT_BATCH to a transaction, each inside a savepoint of its own (a run
      // that fails is rolled back alone). One transaction per run made a recovery of 5,000 runs take
      // ~15-20 s on a loaded 2-core machine: a commit and, every thousand frames, a checkpoint each.
      const all = [...ids];
      for (let from = 0; from < all.length; from += IMPORT_BATCH)
        into.batch(() => {
          for (const id of all.slice(from, from + IMPORT_BATCH)) {
            into.db.exec('SAVEPOINT recovered_run');
            try {
              const rows = eventsOf.all(id) as unknown as EventRow[];
              const evs = rows.map((r) => ({
                v: r.v,
                runId: r.run_id,
                seq: r.seq,
                ts: r.ts,
                type: r.type,
                data: JSON.parse(r.data) as unknown,
              }));
              into.import({
                format: EXPORT_FORMAT,
                version: EVENT_VERSION,
                exportedAt: Date.now(),
                events: evs,
              });
              into.db.exec('RELEASE recovered_run');
              runs++;
              events += evs.length;
            } catch {
              into.db.exec('ROLLBACK TO recovered_run; RELEASE recovered_run');
              lost++;
            }
          }
        });
      // Last: a walk over a damaged table may leave the damaged copy's connection unusable.
      beside = readBeside(old);
    } finally {
      into.close();
      old.close();
    }
    carried = writeBeside(fresh, beside);
  } catch (e) {
    rmSync(fresh, { force: true });
    rmSync(work, { recursive: true, force: true });
    throw e;
  }
  rmSync(work, { recursive: true, force: true });
  const damaged = `${file}.damaged-${at}`;
  // The store's marker is held from the last look for another process through the renames: a process
  // opening the store meanwhile waits for it and opens the recovered file (connection.ts, openStore).
  // Before, the renames came after the last look with nothing held: a process that opened the store
  // in between wrote to the damaged file moved aside, and a run it made and ended then was never in
  // the recovered store.
  const marker = holdRecoveryMarker(file, fresh);
  try {
    const during = openElsewhere(file);
    if (during.length)
      throw new RunStoreError(
        `the run store ${file} was opened by another process while its runs were copied (${during.join('; ')}): stop it (serve, mcp, the workbench, a run) and recover again; nothing was changed`,
      );
    // (a second process opens the store here: test/integration/faults/store-recover-window.test.ts)
    testPause('TOOLSMITH_RECOVER_PAUSE_MS');
    renameSync(file, damaged);
    for (const side of ['-wal', '-shm'])
      if (existsSync(`${file}${side}`)) renameSync(`${file}${side}`, `${damaged}${side}`);
    renameSync(fresh, file);
  } catch (e) {
    rmSync(fresh, { force: true });
    throw e;
  } finally {
    rmSync(marker, { force: true });
  }
  return { runs, events, lost, damaged, ...carried };
}

/**
 * Makes the store's recovery marker (connection.ts, recoveryMarker), whole at once (written under a
 * name of its own, then hard-linked to the marker's name): its path. One left by a recovery that was
 * killed there is replaced; one of a live recovery refuses this one.
 */
function holdRecoveryMarker(file: string, fresh: string): string {
  const marker = recoveryMarker(file);
  for (let i = 0; i < 3; i++) {
    if (pidFileAt(marker) !== undefined) return marker;
    const other = recoveryGoingOn(file);
    if (other !== undefined) {
      rmSync(fresh, { force: true });
      throw new RunStoreError(
        `the run store ${file} is being recovered by another process (pid ${other}); nothing was changed by this one`,
      );
    }
    rmSync(marker, { force: true });
  }
  throw new RunStoreError(`could not make ${marker}: it is made again as fast as it is removed`);
}

/**
 * Whether SQLite's integrity check finds nothing wrong in the copy of the store in `work` (its WAL
 * included). Checked on a copy of its own: closing a connection checkpoints the WAL into the file, which
 * the recovery then reads as the store was.
 */
function undamaged(work: string): boolean {
  const dir = mkdtempSync(join(work, 'check-'));
  for (const f of ['runs.db', 'runs.db-wal'])
    if (existsSync(join(work, f))) copyFileSync(join(work, f), join(dir, f));
  try {
    const db = new DatabaseSync(join(dir, 'runs.db'));
    try {
      const rows = db.prepare('PRAGMA integrity_check').all() as { integrity_check?: unknown }[];
      return rows.length === 1 && rows[0]?.integrity_check === 'ok';
    } finally {
      db.close();
    }
  } catch {
    return false; // (it cannot even be opened or checked: damaged)
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The events table as migration 1 creates it (its root page is 9 in every store Toolsmith made). */
const EVENTS_TABLE = `CREATE TABLE events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL,
  v INTEGER NOT NULL, ts INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (run_id, seq)) WITHOUT ROWID`;
const EVENTS_ROOT = 9;

/**
 * The damaged copy opened for reading. When its schema itself cannot be read (a file cut short loses
 * the schema pages migrations added at its end), a new first page whose schema names only the events
 * table (at its root page) is put in front of the damaged file's other pages, so the events can
 * still be walked.
 */
function readableView(copy: string, work: string): DatabaseSync {
  try {
    const db = new DatabaseSync(copy);
    db.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'events'").get();
    return db;
  } catch {
    // The schema is damaged: the shell below.
  }
  const head = Buffer.alloc(100);
  const fd = openSync(copy, 'r');
  try {
    readSync(fd, head, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  const raw = head.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw >= 512 && (raw & (raw - 1)) === 0 ? raw : 4096;
  const shellFile = join(work, 'shell.db');
  const shell = new DatabaseSync(shellFile);
  try {
    shell.exec(`PRAGMA journal_mode = DELETE; PRAGMA page_size = ${pageSize}; ${EVENTS_TABLE};`);
    shell.enableDefensive(false);
    shell.exec('PRAGMA writable_schema = ON');
    shell.prepare("UPDATE sqlite_schema SET rootpage = ? WHERE name = 'events'").run(EVENTS_ROOT);
  } finally {
    shell.close();
  }
  const first = readFileSync(shellFile).subarray(0, pageSize);
  const rest = readFileSync(copy).subarray(pageSize);
  const pages = 1 + Math.floor(rest.length / pageSize);
  // The page count is the file's; no free list (its pages are the damaged file's).
  first.writeUInt32BE(pages, 28);
  first.writeUInt32BE(0, 32);
  first.writeUInt32BE(0, 36);
  first.writeUInt32BE(first.readUInt32BE(24), 92);
  const spliced = join(work, 'spliced.db');
  writeFileSync(spliced, Buffer.concat([first, rest.subarray(0, (pages - 1) * pageSize)]));
  try {
    return new DatabaseSync(spliced, { readOnly: true });
  } catch (e) {
    throw new RunStoreError(`the run store cannot be read at all: ${(e as Error).message}`);
  }
}
