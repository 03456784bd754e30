/**
 * What is and is not an overwrite of `runs.db` under a live process (StoreConnection.overwritten), and
 * what it carries. A file that shrank is an older copy put back only when no checkpoint ran: a VACUUM
 * shrinks the file through its checkpoint, and taking that for an overwrite emptied the write-ahead log
 * every process shares (the runs another process had committed were lost, silently). A run that ends
 * while an overwrite is waited for (the file must stay the same 300 ms) is carried to the new content;
 * a run deleted or imported here is never written back by it.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { knownSecrets } from '../../../src-main/core/records/redact.ts';
import { POLL_MS } from '../../support/budgets.ts';
import { runStarted } from '../../support/run-records.ts';
import { copyGoingOn } from './support/copy-going-on.ts';
import { otherStore } from './support/other-store.ts';
import { stderrSaid } from './support/stderr-said.ts';
import { repoRoot } from '../../support/workspace.ts';

let dir: string;
let said: string[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-overwrite-'));
  mkdirSync(join(dir, 'ws', '.toolsmith'), { recursive: true });
  said = stderrSaid();
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

const file = () => join(dir, 'ws', '.toolsmith', 'runs.db');

/**
 * The live store looks at its files now (what each look of its watch does): what it sees is what the
 * next look compares with. Called instead of waiting for the watch's timer, which under load may not
 * have run within a fixed wait (and then the case meant was not the one tested).
 */
const looks = (store: RunStore) => store.checkFiles();

/** How long a file that looks overwritten must stay the same before it is acted on (STABLE_MS). */
const STABLE_MS = 300;

/**
 * The live store has looked at its files again and again until a look came after the time an
 * overwrite is waited for: a change it took for one would have been acted on (and said) by then.
 */
async function lookedPastStable(store: RunStore): Promise<void> {
  const from = performance.now();
  await vi.waitFor(
    () => {
      looks(store);
      expect(performance.now() - from).toBeGreaterThan(STABLE_MS + 100);
    },
    { timeout: POLL_MS, interval: 50 },
  );
}

/** Until the store's line on stderr matches `line` (its watch, or a statement's check, acted). */
async function saidSoon(line: RegExp): Promise<void> {
  await vi.waitFor(() => expect(said.join('')).toMatch(line), { timeout: POLL_MS, interval: 50 });
}
const sql = (db: string, q: string) =>
  execFileSync('sqlite3', ['-cmd', '.timeout 5000', db, q]).toString().trim();

/** A whole run of `task` (started, then finished). */
function wholeRun(store: RunStore, task: string): string {
  const id = store.createRun(runStarted(task));
  store.append(id, 'run_finished', { status: 'failed', error: 'e' });
  return id;
}

/**
 * An older copy of the live store, taken after one run ('a run in the older copy'), then 200 runs of
 * 3 KB written after it and checkpointed into the file (which grows past the copy): the copy's path.
 */
function olderCopy(store: RunStore): string {
  wholeRun(store, 'a run in the older copy');
  sql(file(), 'PRAGMA wal_checkpoint(TRUNCATE);');
  const backup = join(dir, 'backup.db');
  sql(file(), `.backup '${backup}'`);
  for (let i = 0; i < 200; i++) wholeRun(store, `${'y'.repeat(3000)} ${i}`);
  sql(file(), 'PRAGMA wal_checkpoint(PASSIVE);');
  return backup;
}

/** support/store-churn.ts on the store: a second process recording a run every 10 ms for `ms`. */
function churn(ms: number) {
  const child = spawn(
    join(repoRoot, 'node_modules/.bin/node'),
    [join(repoRoot, 'test/integration/faults/support/store-churn.ts'), file(), String(ms)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise<{ code: number | null; ids: string[]; err: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, ids: out ? (JSON.parse(out) as string[]) : [], err })),
  );
}

describe('runs.db shrinking or overwritten under a live process', () => {
  it('a VACUUM (the file shrinks through its checkpoint) while two processes have the store open is no overwrite: every run of both is kept', async () => {
    const store = new RunStore(file());
    try {
      // Room for a VACUUM to take back: 300 runs of 3 KB tasks, 280 of them deleted, written into the file.
      const ids = Array.from({ length: 300 }, (_, i) => wholeRun(store, `${'x'.repeat(3000)} ${i}`));
      for (const id of ids.slice(0, 280)) store.delete(id);
      sql(file(), 'PRAGMA wal_checkpoint(TRUNCATE);');
      looks(store); // (the live store has seen this size)
      const before = statSync(file()).size;
      const writer = churn(3_000);
      // (the other process is writing: some of its runs are in the store before the VACUUM)
      await vi.waitFor(() => expect(Number(sql(file(), 'SELECT count(*) FROM runs;'))).toBeGreaterThan(25), {
        timeout: POLL_MS,
        interval: 20,
      });
      sql(file(), 'VACUUM;');
      const mine = wholeRun(store, 'a run of this process after the VACUUM');
      const w = await writer;
      expect(w.code, w.err).toBe(0);
      expect(w.ids.length).toBeGreaterThan(20);
      // The file did shrink (else this tests nothing).
      expect(statSync(file()).size).toBeLessThan(before / 2);
      // Before: both processes said "overwritten in place with an older copy of it (the file shrank
      // ...)", emptied the shared log, and some of the writer's committed runs were gone.
      expect(w.err).not.toMatch(/overwritten/);
      expect(said.join('')).not.toMatch(/overwritten/);
      for (const id of [...w.ids, mine, ...ids.slice(280)]) expect(store.has(id), id).toBe(true);
      expect(Number(sql(file(), 'SELECT count(*) FROM runs;'))).toBe(w.ids.length + 21);
      expect(sql(file(), 'PRAGMA integrity_check;')).toBe('ok');
    } finally {
      store.close();
    }
  }, 60_000);

  it('a VACUUM, then another live process committing more than it took back before this one looks again, is no overwrite: none of its runs is lost', async () => {
    const store = new RunStore(file());
    const done = join(dir, 'grown');
    let grower: ReturnType<typeof spawn> | undefined;
    try {
      const ids = Array.from({ length: 40 }, (_, i) => wholeRun(store, `${'x'.repeat(3000)} ${i}`));
      for (const id of ids.slice(0, 30)) store.delete(id);
      sql(file(), 'PRAGMA wal_checkpoint(TRUNCATE);');
      looks(store); // (the live store has seen this size)
      const before = statSync(file()).size;
      // From here this process's event loop is held (no check runs) until the other process has written:
      // the VACUUM's checkpoint shrinks the file, then 7 runs of 60 KB tasks make the database larger
      // than the file was, all still in the shared log (fewer frames than a checkpoint waits for).
      sql(file(), 'VACUUM; PRAGMA wal_checkpoint(PASSIVE);');
      expect(statSync(file()).size).toBeLessThan(before);
      grower = spawn(
        join(repoRoot, 'node_modules/.bin/node'),
        [join(repoRoot, 'test/integration/faults/support/store-grow.ts'), file(), '7', '60000', done],
        { stdio: ['pipe', 'ignore', 'pipe'] },
      );
      let err = '';
      grower.stderr?.on('data', (d: Buffer) => (err += d.toString()));
      const nap = new Int32Array(new SharedArrayBuffer(4));
      for (let t = 0; !existsSync(done) && t < 1500; t++) Atomics.wait(nap, 0, 0, 20);
      const theirs = JSON.parse(readFileSync(done, 'utf8')) as string[];
      const shm = readFileSync(`${file()}-shm`).subarray(0, 136);
      // The case is the one meant: the file is still smaller, the database already larger than it was.
      expect(statSync(file()).size).toBeLessThan(before);
      expect(shm.readUInt32LE(20) * shm.readUInt16LE(14)).toBeGreaterThan(before);
      await lookedPastStable(store);
      // Before: "overwritten in place with an older copy of it (the file shrank from ... the database
      // being ... bytes)", the shared log emptied, and the other process's 7 committed runs were gone.
      expect(said.join('')).not.toMatch(/overwritten/);
      for (const id of [...theirs, ...ids.slice(30)]) expect(store.has(id), id).toBe(true);
      grower.stdin?.end();
      const code = await new Promise((r) => grower?.on('close', r));
      expect(code, err).toBe(0);
      expect(err).not.toMatch(/overwritten/);
      expect(Number(sql(file(), 'SELECT count(*) FROM runs;'))).toBe(17);
      expect(sql(file(), 'PRAGMA integrity_check;')).toBe('ok');
    } finally {
      grower?.kill();
      store.close();
    }
  }, 60_000);

  it('an older copy of the same store put back with cp (the file shrinks, no checkpoint) is still an overwrite', async () => {
    const store = new RunStore(file());
    try {
      const backup = olderCopy(store);
      looks(store);
      expect(statSync(file()).size).toBeGreaterThan(statSync(backup).size);
      const inFlight = store.createRun(runStarted('a run in flight over the copy'));
      copyFileSync(backup, file());
      await saidSoon(
        /overwritten in place with an older copy of it \(the file shrank from \d+ to \d+ bytes, (with no checkpoint|the database being \d+ bytes)\)/,
      );
      expect(store.has(inFlight)).toBe(true);
    } finally {
      store.close();
    }
  }, 60_000);

  it('an older copy of the same size put back with cp -p (its old times too) is an overwrite: the pages the last checkpoint wrote are compared', async () => {
    const store = new RunStore(file());
    try {
      const ids = Array.from({ length: 20 }, (_, i) => wholeRun(store, `${'x'.repeat(3000)} ${i}`));
      for (const id of ids.slice(0, 12)) store.delete(id);
      sql(file(), 'PRAGMA wal_checkpoint(TRUNCATE);');
      const backup = join(dir, 'backup.db');
      sql(file(), `.backup '${backup}'`);
      const old = statSync(file());
      // New runs fill the pages the deleted ones freed: the file keeps its size.
      for (let i = 0; i < 4; i++) wholeRun(store, `${'y'.repeat(3000)} ${i}`);
      sql(file(), 'PRAGMA wal_checkpoint(PASSIVE);');
      // (its first write starts the log over: a change of the WAL index that writes nothing to the file)
      const inFlight = store.createRun(runStarted('a run in flight over the copy'));
      looks(store); // (the live store has seen the checkpoint and the log started over)
      expect(statSync(file()).size).toBe(statSync(backup).size);
      copyFileSync(backup, file());
      utimesSync(file(), old.atime, old.mtime);
      // Before: nothing was said, and the next checkpoint wrote this process's log into the older copy.
      await saidSoon(
        /overwritten in place with an older copy of it \(the same size, \d+ of \d+ pages compared changed with no checkpoint\)/,
      );
      expect(store.has(inFlight)).toBe(true);
      expect(sql(file(), 'PRAGMA integrity_check;')).toBe('ok');
    } finally {
      store.close();
    }
  }, 60_000);

  it("an older copy of the same size put back, then another process's write (the log starts over) before this one looks again, is an overwrite", async () => {
    const store = new RunStore(file());
    try {
      const ids = Array.from({ length: 20 }, (_, i) => wholeRun(store, `${'x'.repeat(3000)} ${i}`));
      for (const id of ids.slice(0, 12)) store.delete(id);
      sql(file(), 'PRAGMA wal_checkpoint(TRUNCATE);');
      const backup = join(dir, 'backup.db');
      sql(file(), `.backup '${backup}'`);
      // New runs fill the pages the deleted ones freed: the file keeps its size.
      for (let i = 0; i < 4; i++) wholeRun(store, `${'y'.repeat(3000)} ${i}`);
      const inFlight = store.createRun(runStarted('a run in flight over the copy'));
      // Every frame written into the file (the run in flight too), and seen so by the live store.
      sql(file(), 'PRAGMA wal_checkpoint(PASSIVE);');
      looks(store);
      expect(statSync(file()).size).toBe(statSync(backup).size);
      // Put back by another program (`cp`), then another process writes: its first write after the whole
      // log was checkpointed starts the log over, which moves the WAL index's mark with no checkpoint.
      execFileSync('cp', [backup, file()]);
      sql(file(), "INSERT INTO meta (key, value) VALUES ('another process', 'was here');");
      // Before: nothing was said (the mark had moved: the change was taken for a checkpoint's) and this
      // event failed, "no run ...": the copy lacks the run.
      store.append(inFlight, 'run_finished', { status: 'failed', error: 'e' });
      await saidSoon(
        /overwritten in place with an older copy of it \(the same size, \d+ of \d+ pages compared changed with no checkpoint\)/,
      );
      await vi.waitFor(() => expect(store.get(inFlight)?.status).toBe('failed'), {
        timeout: POLL_MS,
        interval: 50,
      });
      expect(sql(file(), 'PRAGMA integrity_check;')).toBe('ok');
    } finally {
      store.close();
    }
  }, 60_000);

  it("the log started over by another process's write, with no copy, is no overwrite", async () => {
    const store = new RunStore(file());
    try {
      const ids = Array.from({ length: 5 }, (_, i) => wholeRun(store, `${'x'.repeat(3000)} ${i}`));
      sql(file(), 'PRAGMA wal_checkpoint(PASSIVE);');
      looks(store);
      sql(file(), "INSERT INTO meta (key, value) VALUES ('another process', 'was here');");
      await lookedPastStable(store);
      ids.push(wholeRun(store, 'after the other write'));
      expect(said.join('')).not.toMatch(/overwritten/);
      for (const id of ids) expect(store.has(id), id).toBe(true);
      expect(sql(file(), "SELECT value FROM meta WHERE key = 'another process'")).toBe('was here');
    } finally {
      store.close();
    }
  }, 60_000);

  it('a copy of the same store that grew with no checkpoint put back is an overwrite', async () => {
    const store = new RunStore(file());
    try {
      wholeRun(store, 'a run in both');
      sql(file(), 'PRAGMA wal_checkpoint(TRUNCATE);');
      looks(store);
      const copy = join(dir, 'copy.db');
      sql(file(), `.backup '${copy}'`);
      sql(
        copy,
        'CREATE TABLE pad(x); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) INSERT INTO pad SELECT randomblob(1000) FROM n;',
      );
      expect(statSync(copy).size).toBeGreaterThan(statSync(file()).size);
      copyFileSync(copy, file());
      await saidSoon(
        /overwritten in place with another copy of it \(the file grew from \d+ to \d+ bytes with no checkpoint\)/,
      );
    } finally {
      store.close();
    }
  }, 60_000);

  it("another process's checkpoint caught between writing its pages and marking them done (a slow fsync, or killed there) is no overwrite", async () => {
    const store = new RunStore(file());
    try {
      const ids = Array.from({ length: 5 }, (_, i) => wholeRun(store, `${'x'.repeat(3000)} ${i}`));
      sql(file(), 'PRAGMA wal_checkpoint(TRUNCATE);');
      // Runs in the log only: pages the file does not hold yet, some past its end.
      for (let i = 0; i < 6; i++) ids.push(wholeRun(store, `${'y'.repeat(3000)} ${i}`));
      looks(store); // (the live store has seen the file and the WAL index)
      const shm = openSync(`${file()}-shm`, 'r+');
      try {
        const hdr = Buffer.alloc(136);
        readSync(shm, hdr, 0, 136, 0);
        const frames = hdr.readUInt32LE(16);
        const page = hdr.readUInt16LE(14);
        const backfilled = hdr.readUInt32LE(96);
        expect(frames).toBeGreaterThan(backfilled);
        // What a checkpoint does first (SQLite's walCheckpoint): nBackfillAttempted set to the frames it
        // will copy, in the WAL index's checkpoint info.
        const mark = Buffer.alloc(4);
        mark.writeUInt32LE(frames);
        writeSync(shm, mark, 0, 4, 128);
        looks(store); // (the live store looks: the mark moved, it reads its sample again)
        // Then it copies the log's frames into the file, then syncs it (which may take seconds), and only
        // then marks them done (nBackfill): it is caught here (or killed here, the mark never set).
        const wal = readFileSync(`${file()}-wal`);
        const db = openSync(file(), 'r+');
        try {
          for (let f = 0; f < frames; f++) {
            const at = 32 + f * (24 + page);
            writeSync(db, wal, at + 24, page, (wal.readUInt32BE(at) - 1) * page);
          }
        } finally {
          closeSync(db);
        }
        await lookedPastStable(store);
        // Before: "overwritten in place with another copy of it (the file grew from ... with no
        // checkpoint)", and this process emptied the log every process shares.
        expect(said.join('')).not.toMatch(/overwritten/);
        // The checkpoint ends.
        writeSync(shm, mark, 0, 4, 96);
      } finally {
        closeSync(shm);
      }
      ids.push(wholeRun(store, 'after the checkpoint'));
      await lookedPastStable(store);
      expect(said.join('')).not.toMatch(/overwritten/);
      for (const id of ids) expect(store.has(id), id).toBe(true);
      expect(sql(file(), 'PRAGMA integrity_check;')).toBe('ok');
      expect(Number(sql(file(), 'SELECT count(*) FROM runs;'))).toBe(12);
    } finally {
      store.close();
    }
  }, 60_000);

  it('a touch of the file (its times changed, not its pages) is no overwrite', async () => {
    const store = new RunStore(file());
    try {
      const ids = Array.from({ length: 5 }, (_, i) => wholeRun(store, `${'x'.repeat(3000)} ${i}`));
      sql(file(), 'PRAGMA wal_checkpoint(TRUNCATE);');
      looks(store);
      const later = new Date(Date.now() + 60_000);
      utimesSync(file(), later, later);
      await lookedPastStable(store);
      ids.push(wholeRun(store, 'after the touch'));
      expect(said.join('')).not.toMatch(/overwritten/);
      for (const id of ids) expect(store.has(id), id).toBe(true);
    } finally {
      store.close();
    }
  }, 60_000);

  it('a run that ends while the overwrite is waited for is carried to the new content', async () => {
    const foreign = otherStore(dir);
    const store = new RunStore(file());
    try {
      const ending = store.createRun(runStarted('ends right after the overwrite'));
      const going = store.createRun(runStarted('still going'));
      looks(store);
      copyFileSync(foreign, file());
      looks(store); // (seen, not yet acted on: the file must stay the same 300 ms)
      store.append(ending, 'run_finished', { status: 'failed', error: 'e' });
      await saidSoon(/overwritten in place with another run store/);
      // Before: the run that ended was dropped from memory (the check before its end moved "last seen
      // whole" past the overwrite) and only the one still going was written there again.
      expect(store.has(going)).toBe(true);
      expect(store.has(ending)).toBe(true);
      expect(store.get(ending)?.status).toBe('failed');
    } finally {
      store.close();
    }
  }, 60_000);

  it('a run that ends in the same millisecond as the last look at the files is carried too (its end held, never forgotten)', async () => {
    const foreign = otherStore(dir);
    const store = new RunStore(file());
    try {
      // The clock held still: the look before the copy, the copy, and the run's end all in one
      // millisecond (as on a fast machine). Before: the end was held but the run, "ended" no later than
      // the files were last seen whole, was forgotten at that end and not carried; the close then
      // failed, its held end refused with "no run".
      vi.useFakeTimers({ toFake: ['Date', 'performance'] });
      const ending = store.createRun(runStarted('ends in the millisecond of the last look'));
      looks(store);
      copyFileSync(foreign, file());
      looks(store);
      store.append(ending, 'run_finished', { status: 'failed', error: 'e' });
      vi.useRealTimers();
      await saidSoon(/overwritten in place with another run store/);
      expect(store.has(ending)).toBe(true);
      expect(store.get(ending)?.status).toBe('failed');
    } finally {
      vi.useRealTimers();
      store.close();
    }
  }, 60_000);

  it("writes made while the overwrite is waited for are held (a run's events, template counts) or refused naming why, never put in the log the reopen empties", async () => {
    const foreign = otherStore(dir);
    const source = new RunStore(join(dir, 'source.db'));
    const doc = source.export(wholeRun(source, 'an imported run'));
    source.close();
    const store = new RunStore(file());
    try {
      looks(store);
      copyFileSync(foreign, file());
      looks(store); // (seen, not yet acted on: the file must stay the same 300 ms)
      // Before (and before the wait): both went to the old content's write-ahead log, which the reopen
      // emptied: lost, unsaid.
      store.recordTemplateUse('stock-in', true);
      expect(() => store.import(doc)).toThrow(
        /the run store .*runs\.db is being overwritten in place with another run store .* nothing was written/,
      );
      await saidSoon(/overwritten in place with another run store/);
      await vi.waitFor(
        () => expect(store.templateStats().get('stock-in')).toMatchObject({ successes: 1, failures: 0 }),
        { timeout: POLL_MS, interval: 50 },
      );
      // Once acted on, it is taken as before.
      expect(store.has(store.import(doc))).toBe(true);
    } finally {
      store.close();
    }
    // On disk, beside the copy's own run.
    expect(sql(file(), 'SELECT task FROM runs ORDER BY task').split('\n')).toEqual([
      'a run of the other store',
      'an imported run',
    ]);
    expect(sql(file(), "SELECT successes FROM template_stats WHERE name = 'stock-in'")).toBe('1');
  }, 60_000);

  it('a statement while a copy is still going on is answered at once: the process answers other requests meanwhile, and what it held is written once the copy is done', async () => {
    const foreign = otherStore(dir);
    const store = new RunStore(file());
    // Another request to this process: a real HTTP server on the loopback, answered by its event loop.
    const server = createServer((_, res) => res.end('pong'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const copier = copyGoingOn(foreign, file());
    try {
      const run = store.createRun(runStarted('a run in flight over the copy'));
      looks(store);
      await copier.copied;
      looks(store); // (seen, not acted on: the file keeps changing)
      // Before: this waited, its process answering nothing, for as long as the file kept changing (up
      // to 10 s), and then threw.
      store.append(run, 'run_finished', { status: 'failed', error: 'e' });
      store.recordTemplateUse('stock-in', true);
      expect(() => store.resetTemplateStats('other')).toThrow(
        /is being overwritten in place with another run store .* \(a copy still going on\?\): nothing was written/,
      );
      const answer = await (await fetch(`http://127.0.0.1:${port}/`)).text();
      expect(answer).toBe('pong');
      // (answered while the overwrite was still waited for)
      expect(said.join('')).not.toMatch(/overwritten in place/);
      copier.done();
      await saidSoon(/overwritten in place with another run store/);
      await vi.waitFor(() => expect(store.templateStats().get('stock-in')).toMatchObject({ successes: 1 }), {
        timeout: POLL_MS,
        interval: 50,
      });
      expect(store.get(run)?.status).toBe('failed');
    } finally {
      copier.kill();
      server.close();
      store.close();
    }
    expect(sql(file(), 'SELECT task FROM runs ORDER BY task').split('\n')).toEqual([
      'a run in flight over the copy',
      'a run of the other store',
    ]);
    expect(sql(file(), "SELECT status FROM runs WHERE task = 'a run in flight over the copy'")).toBe(
      'failed',
    );
    // Its events once each: before, the event held while the copy went on was written twice (the run
    // written again from its copy in memory went through its held events' queue, then that queue too).
    expect(
      sql(
        file(),
        "SELECT group_concat(type, ' ') FROM (SELECT e.type FROM events e JOIN runs r ON r.id = e.run_id WHERE r.task = 'a run in flight over the copy' ORDER BY e.seq)",
      ),
    ).toBe('run_started run_finished');
    expect(sql(file(), "SELECT successes FROM template_stats WHERE name = 'stock-in'")).toBe('1');
  }, 60_000);

  it('a write within 50 ms of a check that did not see the overwrite looks at the file first: held or refused, never lost', async () => {
    const foreign = otherStore(dir);
    const source = new RunStore(join(dir, 'source.db'));
    const doc = source.export(wholeRun(source, 'an imported run'));
    source.close();
    const store = new RunStore(file());
    try {
      looks(store);
      copyFileSync(foreign, file());
      // (no look since the copy: within CHECK_MS of the last one, a statement skipped the check)
      store.recordTemplateUse('stock-in', true);
      // Before: the import went to the old content's log and was emptied with it, its id handed back.
      expect(() => store.import(doc)).toThrow(/is being overwritten in place with another run store/);
      await saidSoon(/overwritten in place with another run store/);
      await vi.waitFor(() => expect(store.templateStats().get('stock-in')).toMatchObject({ successes: 1 }), {
        timeout: POLL_MS,
        interval: 50,
      });
    } finally {
      store.close();
    }
    expect(sql(file(), "SELECT successes FROM template_stats WHERE name = 'stock-in'")).toBe('1');
    expect(sql(file(), 'SELECT task FROM runs')).toBe('a run of the other store');
  }, 60_000);

  it("another store copied over with its own -wal (its runs only in that log) keeps the copy's runs: its log is read, not emptied", async () => {
    // A store still open elsewhere (its runs in its log only, not yet checkpointed into its file), copied
    // with its log: `cp other/.toolsmith/runs.db* ws/.toolsmith/` over the live store's files, in place.
    mkdirSync(join(dir, 'other', '.toolsmith'), { recursive: true });
    mkdirSync(join(dir, 'copy'));
    const from = join(dir, 'other', '.toolsmith', 'runs.db');
    const other = new RunStore(from);
    const theirs = Array.from({ length: 5 }, (_, i) => wholeRun(other, `a run of the other store ${i}`));
    copyFileSync(from, join(dir, 'copy', 'runs.db'));
    copyFileSync(`${from}-wal`, join(dir, 'copy', 'runs.db-wal'));
    other.close();
    // (its runs are in its log only: its file alone holds not even their table)
    mkdirSync(join(dir, 'file-alone'));
    copyFileSync(join(dir, 'copy', 'runs.db'), join(dir, 'file-alone', 'runs.db'));
    expect(
      sql(join(dir, 'file-alone', 'runs.db'), "SELECT count(*) FROM sqlite_master WHERE name = 'runs';"),
    ).toBe('0');
    const store = new RunStore(file());
    try {
      const going = store.createRun(runStarted('still going'));
      looks(store);
      copyFileSync(join(dir, 'copy', 'runs.db'), file());
      copyFileSync(join(dir, 'copy', 'runs.db-wal'), `${file()}-wal`);
      await saidSoon(/overwritten in place with another run store/);
      // Before: the copy's log was emptied as this process's ("was emptied so it is never read into the
      // new content"): none of its 5 runs was left.
      for (const id of [...theirs, going]) expect(store.has(id), id).toBe(true);
      expect(said.join('')).toMatch(/the write-ahead log there \(.*-wal\) is the copy's own/);
    } finally {
      store.close();
    }
    expect(Number(sql(file(), 'SELECT count(*) FROM runs;'))).toBe(6);
    expect(sql(file(), 'PRAGMA integrity_check;')).toBe('ok');
  }, 60_000);

  it('a run that ended before an older copy of the same store was put back, its end only in the log the reopen empties, is written there again', async () => {
    const store = new RunStore(file());
    try {
      // (the 200 runs after the copy in the file: lost with the content the copy replaces, as the line says)
      const backup = olderCopy(store);
      const ended = wholeRun(store, 'ended before the copy, its end only in the log');
      looks(store); // (seen whole after its end)
      // Another event of this process after that look: before, it forgot the run that ended.
      const inFlight = store.createRun(runStarted('a run in flight over the copy'));
      copyFileSync(backup, file());
      await saidSoon(/overwritten in place with an older copy of it/);
      // (in the same line)
      expect(said.join('')).toMatch(
        /1 run\(s\) that ended before the copy, their end only in the emptied log \(not yet checkpointed\), written there again/,
      );
      expect(store.has(inFlight)).toBe(true);
      // Before: gone, and nothing said.
      expect(store.get(ended)?.status).toBe('failed');
    } finally {
      store.close();
    }
    expect(sql(file(), 'SELECT task FROM runs ORDER BY task').split('\n')).toEqual([
      'a run in flight over the copy',
      'a run in the older copy',
      'ended before the copy, its end only in the log',
    ]);
  }, 60_000);

  it("a run that ended before another store was copied over, its end only in the log the reopen empties, is kept aside as an export, not put in the other store's content", async () => {
    const foreign = otherStore(dir);
    const store = new RunStore(file());
    let ended = '';
    try {
      ended = wholeRun(store, 'ended before the copy, its end only in the log');
      looks(store);
      const going = store.createRun(runStarted('still going'));
      copyFileSync(foreign, file());
      await saidSoon(/overwritten in place with another run store/);
      // (in the same line)
      expect(said.join('')).toMatch(
        /1 run\(s\) that ended before the copy, .* are kept in \S+runs\.db\.log-\S+ \(one export per run/,
      );
      expect(store.has(going)).toBe(true);
      expect(store.has(ended)).toBe(false);
    } finally {
      store.close();
    }
    const aside = /are kept in (\S+runs\.db\.log-\S+) \(/.exec(said.join(''))?.[1] ?? '';
    const exported = join(aside, `${ended}.json`);
    expect(statSync(exported).mode & 0o777).toBe(0o600);
    // What `toolsmith runs import` reads: the run whole, as it ended.
    const back = new RunStore(join(dir, 'back.db'));
    try {
      const id = back.import(JSON.parse(readFileSync(exported, 'utf8')));
      expect(back.get(id)).toMatchObject({ status: 'failed', error: 'e' });
      expect(back.summary(id)?.task).toBe('ended before the copy, its end only in the log');
    } finally {
      back.close();
    }
  }, 60_000);

  it('runs kept aside are redacted as an export is, in a folder of their own even when one of the same time is there', async () => {
    // (a key learnt after the run was recorded: `runs export` leaves it out, and so must a keep aside)
    const secret = 'sk-learnt-after-the-run-0123456789';
    const foreign = otherStore(dir);
    // (the clock held: an earlier keep aside, of this process or another, made its folder at this time)
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-02T03:04:05.678Z') });
    const before = `${file()}.log-2026-01-02T03-04-05-678Z`;
    mkdirSync(before, { mode: 0o700 });
    const store = new RunStore(file());
    let ended = '';
    try {
      ended = wholeRun(store, `ended before the copy, its task naming ${secret}`);
      knownSecrets.add(secret);
      looks(store);
      store.createRun(runStarted('still going'));
      copyFileSync(foreign, file());
      // (not vi.waitFor: with a fake clock it moves the clock on at each try)
      for (let t = performance.now(); !/overwritten in place with another/.test(said.join(''));) {
        expect(performance.now() - t).toBeLessThan(POLL_MS);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(Date.now()).toBe(Date.parse('2026-01-02T03:04:05.678Z')); // (the clock held throughout)
    } finally {
      store.close();
      vi.useRealTimers();
    }
    // Before: the folder's name was taken, and the run was said lost.
    const aside = /are kept in (\S+runs\.db\.log-\S+) \(/.exec(said.join(''))?.[1] ?? '';
    expect(said.join('')).not.toMatch(/could not be kept aside/);
    expect(aside).not.toBe(before);
    expect(statSync(aside).mode & 0o777).toBe(0o700);
    const text = readFileSync(join(aside, `${ended}.json`), 'utf8');
    // Before: the key in the clear.
    expect(text).not.toContain(secret);
    expect(text).toContain('its task naming [redacted]');
  }, 60_000);

  it('a close while a copy still goes on over the store keeps the runs in flight and those whose end was only in the log it empties beside the store, as exports', async () => {
    const foreign = otherStore(dir);
    const store = new RunStore(file());
    const copier = copyGoingOn(foreign, file());
    let ended = '';
    let going = '';
    try {
      ended = wholeRun(store, 'ended before the copy, its end only in the log');
      looks(store);
      going = store.createRun(runStarted('in flight as the process closes'));
      await copier.copied;
      looks(store); // (seen, not acted on: the file keeps changing until after the close)
      store.append(going, 'tier', { n: 1, tier: 'llm', provider: 'p' });
      expect(store.pendingEvents()).toBe(1);
      // Nothing lost: the held event is kept aside with its run (before, the close threw naming it lost).
      store.close();
    } finally {
      copier.kill();
    }
    const line = said.join('');
    expect(line).toMatch(
      /was still being overwritten in place as this process \(pid \d+\) closed it: 2 run\(s\)/,
    );
    const aside = /are kept in (\S+runs\.db\.log-\S+) \(one export per run/.exec(line)?.[1] ?? '';
    const back = new RunStore(join(dir, 'back.db'));
    try {
      const a = back.import(JSON.parse(readFileSync(join(aside, `${ended}.json`), 'utf8')));
      expect(back.get(a)?.status).toBe('failed');
      const b = back.import(JSON.parse(readFileSync(join(aside, `${going}.json`), 'utf8')));
      expect(back.events(b).map((e) => e.type)).toEqual(['run_started', 'tier']);
    } finally {
      back.close();
    }
  }, 60_000);

  it('a run deleted here, or imported here, is never written back by an overwrite', async () => {
    const foreign = otherStore(dir);
    const store = new RunStore(file());
    try {
      const doc = JSON.parse(readFileSync(join(repoRoot, 'test/fixtures/runs/run-v1.json'), 'utf8')) as {
        events: { type: string }[];
      };
      doc.events = doc.events.filter((e) => e.type !== 'run_finished');
      const imported = store.import(doc);
      const deleted = store.createRun(runStarted('a run deleted while in flight'));
      expect(store.delete(deleted)).toBe(true);
      const going = store.createRun(runStarted('still going'));
      looks(store);
      copyFileSync(foreign, file());
      await saidSoon(/overwritten in place with another run store/);
      expect(store.has(going)).toBe(true);
      // Before: both came back ("3 run(s) of this process written there again").
      expect(store.has(deleted)).toBe(false);
      expect(store.has(imported)).toBe(false);
      expect(said.join('')).toMatch(/\(1 run\(s\) of this process written there again\)/);
    } finally {
      store.close();
    }
  }, 60_000);

  it("the overwrite's line says whose commits the emptied log held: this process's kept, another live process's its own to write again, an ended one's lost", async () => {
    const foreign = otherStore(dir);
    const store = new RunStore(file());
    // Another live process with the store open (its watch off: it never acts on the copy itself).
    const holder = join(dir, 'holder.mjs');
    writeFileSync(
      holder,
      `const { RunStore } = await import(${JSON.stringify(join(repoRoot, 'src-main/infra/store/run-store.ts'))});
const store = new RunStore(process.argv[2]);
process.stdout.write('open\\n');
process.stdin.on('end', () => { try { store.close(); } catch {} }).resume();
`,
    );
    const other = spawn(join(repoRoot, 'node_modules/.bin/node'), [holder, file()], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { ...process.env, TOOLSMITH_STORE_WATCH_MS: '0' },
    });
    try {
      await new Promise<void>((r) => other.stdout.once('data', () => r()));
      wholeRun(store, 'ended before the copy, its end only in the log');
      store.createRun(runStarted('still going'));
      looks(store);
      copyFileSync(foreign, file());
      await saidSoon(/overwritten in place with another run store/);
      const line = said.join('');
      // Before: only "the runs that were only in the overwritten content are not in it".
      expect(line).toMatch(
        /that log held \d+ frame\(s\) not yet checkpointed, the commits since the last checkpoint of every process on this store: this process's runs among them are kept as said, 1 other process\(es\) with the store open \(pid (\d+): node holder\.mjs runs\.db\) write their own again once they see the overwrite .*, and the runs that a process that has ended since \(a one-shot `toolsmith run`, `runs import`\) committed since that checkpoint are lost with the content before/,
      );
      expect(/with the store open \(pid (\d+):/.exec(line)?.[1]).toBe(String(other.pid));
    } finally {
      other.stdin.end();
      await new Promise((r) => other.once('close', r));
      store.close();
    }
  }, 60_000);
});
