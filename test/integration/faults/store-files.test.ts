/**
 * The run store's files changed under live processes, as a user's machine meets it: the WAL or the
 * database deleted by hand while `serve` runs, other processes (`serve`, CLI verbs) using the store
 * meanwhile. Every process goes on opening the store (stale side files are repaired), the live
 * process notices at its next write that its files are gone, stops writing there with a line on
 * stderr, and writes its runs to the file now at the path; no run any process wrote is lost, and no
 * orphaned WAL is written back over the newer file when the process exits.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockHolders } from '../../../src-main/infra/store/file-locks.ts';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { scriptedConfig } from '../../support/suite-oracle.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { cliProcess, startServe } from './support/processes.ts';

// No script in the answers: each run fails its attempts at validation, no sandbox is needed.
const fx = useScriptedWorkspace({
  dataPerTest: true,
  eachTest: (llm) => (llm.fallback = { text: 'I will not write code.' }),
});
const db = () => join(fx.ws, '.toolsmith', 'runs.db');

/** The runs of the store as `runs list --json` (another process) reads them. */
async function listed(): Promise<{ code: number | null; err: string; ids: string[] }> {
  const r = await cliProcess(fx.ws, fx.data, ['runs', 'list', '--json', '--limit', '100']).done;
  const ids = r.code === 0 ? (JSON.parse(r.out) as { runs: { id: string }[] }).runs.map((x) => x.id) : [];
  return { code: r.code, err: r.err, ids };
}

const integrity = () => execFileSync('sqlite3', [db(), 'PRAGMA integrity_check;']).toString().trim();

/** Another workspace whose store holds one run (its serve stopped): the store that is put at this path. */
async function otherStoreWithOneRun(): Promise<{ other: string; runId: string }> {
  const other = tempWorkspace('toolsmith-other-ws-');
  scriptedConfig(other, fx.llm.openaiUrl);
  const b = await startServe(other, fx.data);
  const o1 = await b.runToEnd('a run of the other workspace');
  await b.stop();
  return { other, runId: o1.runId };
}

type Serve = Awaited<ReturnType<typeof startServe>>;

/** Starts a run on serve whose LLM answer comes `delayMs` later, and returns once the LLM was asked. */
async function runInFlight(a: Serve, task: string, delayMs: number): Promise<string> {
  const asked = fx.llm.requests.length;
  fx.llm.push({ text: 'I will not write code.', delayMs });
  const { runId } = await a.call<{ runId: string }>('runs.start', { task, sandbox: 'ecommerce' });
  await expect.poll(() => fx.llm.requests.length).toBeGreaterThan(asked);
  return runId;
}

/** The status of a run once it is no longer running. */
async function settled(a: Serve, runId: string): Promise<string> {
  let status = 'running';
  while (status === 'running') {
    status = (await a.call<{ status: string }>('runs.get', { runId })).status;
    await new Promise((r) => setTimeout(r, 50));
  }
  return status;
}

describe('the store files changed under a live process', () => {
  it('WAL deleted under serve: every process keeps opening the store and no run is lost', async () => {
    rmSync(db(), { force: true });
    const a = await startServe(fx.ws, fx.data);
    try {
      const r1 = await a.runToEnd('first run');
      expect(r1.status).toBe('failed');
      rmSync(`${db()}-wal`);
      // Another process opens the store: no disk I/O error, no stack.
      const l1 = await listed();
      expect(l1.code, l1.err).toBe(0);
      expect(l1.err).not.toMatch(/internal error|disk I\/O/);
      // A second serve writes a run meanwhile.
      const b = await startServe(fx.ws, fx.data);
      const r2 = await b.runToEnd('second run, by another serve');
      await b.stop();
      // The first serve's next run: it notices, says so, and writes its runs to the file at the path.
      const r3 = await a.runToEnd('third run');
      expect(r3.status).toBe('failed');
      expect(a.err()).toMatch(
        /the run store .+?runs\.db (lost|had) its write-ahead log .* goes on in .+? \(\d run\(s\) of this process written there again\)/,
      );
      // The store opened again still holds SQLite's locks on runs.db and its -shm: reading its own view
      // (a copy through /proc/self/fd/N) and making the file private (open and close) closed other
      // descriptors of them, which dropped the process's locks, so the next process to close the store
      // took itself for the last one and checkpointed and deleted the WAL under serve.
      expect(lockHolders(db())).toContain(a.child.pid);
      expect(lockHolders(`${db()}-shm`)).toContain(a.child.pid);
      await a.stop();
      const all = await listed();
      expect(all.code, all.err).toBe(0);
      expect(all.ids).toEqual(expect.arrayContaining([r1.runId, r2.runId, r3.runId]));
      expect(integrity()).toBe('ok');
    } finally {
      if (a.child.exitCode === null) await a.stop();
    }
  }, 120_000);

  it('-shm deleted under serve while another serve writes: every run of both is kept and the store is whole', async () => {
    rmSync(db(), { force: true });
    const a = await startServe(fx.ws, fx.data);
    try {
      const ids = [(await a.runToEnd('a first run')).runId];
      rmSync(`${db()}-shm`);
      // Another process opens the store: it builds a new index of the same WAL.
      const l1 = await listed();
      expect(l1.code, l1.err).toBe(0);
      const b = await startServe(fx.ws, fx.data);
      for (let i = 0; i < 3; i++) {
        ids.push((await a.runToEnd(`run ${i} of the first serve`)).runId);
        ids.push((await b.runToEnd(`run ${i} of the second serve`)).runId);
      }
      // Before: serve went on with the index it had mapped (the deleted one), and the two servers
      // wrote over each other's frames of the WAL: "runs.get: the run store … is damaged
      // (SQLITE_CORRUPT: database disk image is malformed)", or runs of one serve missing.
      expect(a.err()).toMatch(
        /the run store .+?runs\.db lost its WAL index \(.+?runs\.db-shm was deleted or replaced\) while this process \(pid \d+\) had it open; it closed its connection and goes on with the index at the path/,
      );
      const l2 = await listed();
      expect(l2.ids.sort()).toEqual([...ids].sort());
      await b.stop();
      await a.stop();
      const all = await listed();
      expect(all.code, all.err).toBe(0);
      expect(all.ids.sort()).toEqual([...ids].sort());
      expect(integrity()).toBe('ok');
    } finally {
      if (a.child.exitCode === null) await a.stop();
    }
  }, 120_000);

  it('runs.db deleted under serve: other verbs get a new store, serve goes on in it, nothing broken is left', async () => {
    rmSync(db(), { force: true });
    const a = await startServe(fx.ws, fx.data);
    try {
      const r1 = await a.runToEnd('first run');
      expect(r1.status).toBe('failed');
      rmSync(db());
      const l1 = await listed();
      expect(l1.code, l1.err).toBe(0);
      expect(l1.ids).toEqual([]);
      const r2 = await a.runToEnd('a run after the store was deleted');
      expect(a.err()).toMatch(
        /the run store .+?runs\.db was (deleted|replaced by another file) while this process .* goes on in/,
      );
      const l2 = await listed();
      expect(l2.code, l2.err).toBe(0);
      expect(l2.ids).toEqual([r2.runId]);
      await a.stop();
      // The exit wrote nothing back: the store holds the new run, whole.
      const l3 = await listed();
      expect(l3.ids).toEqual([r2.runId]);
      expect(existsSync(db())).toBe(true);
      expect(integrity()).toBe('ok');
    } finally {
      if (a.child.exitCode === null) await a.stop();
    }
  }, 120_000);

  it("runs.db replaced by another workspace's store under serve: other processes read that store, never serve's old WAL, and none of its runs is lost", async () => {
    rmSync(db(), { force: true });
    const { other, runId: o1 } = await otherStoreWithOneRun();
    const a = await startServe(fx.ws, fx.data);
    try {
      const r1 = await a.runToEnd('a run in the store that is replaced');
      expect(r1.status).toBe('failed');
      // serve keeps SQLite's lock on the -shm past its first writes. Before, its WAL check opened and
      // closed the -shm every 16 writes, which drops every POSIX lock of the process on that file: the
      // next process took itself for the first user of the WAL index and rebuilt it under serve.
      expect(lockHolders(`${db()}-shm`)).toContain(a.child.pid);
      // A run in flight when the file is replaced: its LLM answer comes after.
      const runId = await runInFlight(a, 'a run the replacement happens under', 5_000);
      renameSync(join(other, '.toolsmith', 'runs.db'), db());
      // Another process reads the store now at the path. Before, it read serve's old WAL into it
      // (SQLite cannot tell a WAL's database), listed serve's runs instead of o1, and wrote that WAL
      // over the file when it closed: the other workspace's runs were gone.
      const l1 = await listed();
      expect(l1.code, l1.err).toBe(0);
      expect(l1.ids).toEqual([o1]);
      expect(l1.err).toMatch(
        /the run store .+?runs\.db was repaired: removed .+?runs\.db-wal and .+?runs\.db-shm: they are the write-ahead log of the database that was at this path before it was replaced, still open in process \d+/,
      );
      expect(await settled(a, runId)).toBe('failed');
      const r3 = await a.runToEnd('a run after the replacement');
      // serve read its run in flight from its own (old) files and wrote it to the new store. Before:
      // "could not read this process's runs from the replaced store: no such table: runs".
      expect(a.err()).not.toMatch(/could not read/);
      expect(a.err()).toMatch(
        /the run store .+?runs\.db was replaced by another file while this process \(pid \d+\) had it open; .* \(1 run\(s\) of this process written there again\)/,
      );
      await a.stop();
      const all = await listed();
      expect(all.code, all.err).toBe(0);
      // r1 was in the file the person replaced; the runs in flight and after are in the new one.
      expect(all.ids.sort()).toEqual([o1, runId, r3.runId].sort());
      expect(integrity()).toBe('ok');
    } finally {
      if (a.child.exitCode === null) await a.stop();
      removeWorkspace(other);
    }
  }, 120_000);

  it("runs.db overwritten in place with another workspace's store (cp onto it: the same file) under serve, a run in flight: serve says so and keeps every run it records afterwards", async () => {
    rmSync(db(), { force: true });
    const { other, runId: o1 } = await otherStoreWithOneRun();
    const a = await startServe(fx.ws, fx.data);
    try {
      const r1 = await a.runToEnd('a run in the content that is overwritten');
      expect(r1.status).toBe('failed');
      const inode = statSync(db()).ino;
      const runId = await runInFlight(a, 'a run the overwrite happens under', 2_000);
      // `cp other.db runs.db`: the same file (inode) with the other store's bytes.
      copyFileSync(join(other, '.toolsmith', 'runs.db'), db());
      expect(statSync(db()).ino).toBe(inode);
      // serve notices while idle (no statement of its own), and says what happened and what to do.
      // Before: nothing was said, and serve's write-ahead log was read over the new content.
      await expect
        .poll(() => a.err(), { timeout: 5_000 })
        .toMatch(
          /the run store .+?runs\.db was overwritten in place with another run store \(its id -?\d+ is not this store's, -?\d+\) while this process \(pid \d+\) had it open; its write-ahead log \(.+?runs\.db-wal\) held this process's writes to the content before, and was emptied so it is never read into the new content; it goes on in .+?runs\.db \(1 run\(s\) of this process written there again(; 1 run\(s\) that ended before the copy, their end only in the emptied log \(not yet checkpointed\), belong to the store before, not to what is there now, and are kept in .+?runs\.db\.log-\S+ \(one export per run: `toolsmith runs import FILE` takes one into a store\): [0-9a-f-]{36})?\); the runs that were only in the overwritten content are not in it: to keep them, stop every Toolsmith process on this workspace and put back a copy of the file from before/,
        );
      // (the run that ended just before is kept aside when its end was only in serve's log, which
      // depends on whether serve's checkpoint at 1000 frames came after it: faults/store-overwrite.test.ts
      // holds that state and checks it)
      // Another process reads the content now there, whole, with serve's run in flight carried.
      const l1 = await listed();
      expect(l1.code, l1.err).toBe(0);
      expect(l1.ids.sort()).toEqual([o1, runId].sort());
      expect(await settled(a, runId)).toBe('failed');
      const r3 = await a.runToEnd('a run after the overwrite');
      const shown = await cliProcess(fx.ws, fx.data, ['runs', 'show', runId]).done;
      expect(shown.code, shown.err).toBe(0);
      expect(shown.out).toMatch(/a run the overwrite happens under/);
      await a.stop();
      const all = await listed();
      expect(all.code, all.err).toBe(0);
      // The in-flight run is whole: its events from its start, its end recorded after the overwrite.
      expect(all.ids.sort()).toEqual([o1, runId, r3.runId].sort());
      const events = execFileSync('sqlite3', [
        db(),
        `SELECT seq, type FROM events WHERE run_id = '${runId}' ORDER BY seq;`,
      ])
        .toString()
        .trim()
        .split('\n');
      expect(events[0]).toBe('0|run_started');
      expect(events.at(-1)).toMatch(/\|run_finished$/);
      expect(integrity()).toBe('ok');
    } finally {
      if (a.child.exitCode === null) await a.stop();
      removeWorkspace(other);
    }
  }, 120_000);

  it('runs.db overwritten in place with junk under serve: the junk is moved aside, a new store made, and later runs are kept', async () => {
    rmSync(db(), { force: true });
    const a = await startServe(fx.ws, fx.data);
    try {
      await a.runToEnd('a run before the junk');
      writeFileSync(db(), 'not a database at all '.repeat(400));
      await expect
        .poll(() => a.err(), { timeout: 5_000 })
        .toMatch(
          /the run store .+?runs\.db was overwritten in place with something that is not an SQLite database .* that file was moved aside to .+?runs\.db\.overwritten-.+? and a new store made; it goes on in/,
        );
      const r2 = await a.runToEnd('a run after the junk');
      await a.stop();
      const all = await listed();
      expect(all.code, all.err).toBe(0);
      expect(all.ids).toEqual([r2.runId]);
      expect(integrity()).toBe('ok');
    } finally {
      if (a.child.exitCode === null) await a.stop();
    }
  }, 120_000);

  it('the .toolsmith folder deleted under serve (the workspace still there): the folder is made again and later runs are stored', async () => {
    rmSync(db(), { force: true });
    const config = join(fx.ws, '.toolsmith', 'config.toml');
    const before = readFileSync(config, 'utf8');
    const a = await startServe(fx.ws, fx.data);
    try {
      const r1 = await a.runToEnd('a run before the folder is deleted');
      expect(r1.status).toBe('failed');
      rmSync(join(fx.ws, '.toolsmith'), { recursive: true });
      const r2 = await a.runToEnd('a run after the folder is deleted');
      expect(r2.status).toBe('failed');
      // Before: "the workspace was deleted: the runs this process records from now on cannot be kept
      // on disk" (it was not), and r2 went to the deleted file.
      expect(a.err()).not.toMatch(/the workspace was deleted/);
      expect(a.err()).toMatch(
        /the run store's folder .+?\.toolsmith was deleted or renamed while this process \(pid \d+\) had it open; the workspace .+? is still there, so the folder is made again/,
      );
      // The config in use is written back by a save (faults/workspace-files.test.ts); then another
      // process reads the runs recorded since.
      await a.call('providers.save', {
        id: 'p9',
        kind: 'openai',
        baseUrl: 'http://127.0.0.1:9/v1',
        model: 'm',
      });
      const r3 = await a.runToEnd('a third run');
      await a.stop();
      const all = await listed();
      expect(all.code, all.err).toBe(0);
      expect(all.ids).toEqual(expect.arrayContaining([r2.runId, r3.runId]));
      expect(integrity()).toBe('ok');
    } finally {
      if (a.child.exitCode === null) await a.stop();
      writeFileSync(config, before);
    }
  }, 120_000);

  it('the workspace folder moved away under serve: its runs follow the folder, no ghost store is made at the old path', async () => {
    rmSync(db(), { force: true });
    const moved = `${fx.ws}-moved`;
    const a = await startServe(fx.ws, fx.data);
    try {
      const r1 = await a.runToEnd('a run before the move');
      expect(r1.status).toBe('failed');
      // A run in flight when the folder moves: its LLM answer comes after the move, and its later
      // events are the writes that made the ghost.
      fx.llm.push({ text: 'I will not write code.', delayMs: 1_500 });
      const { runId } = await a.call<{ runId: string }>('runs.start', {
        task: 'a run the move happens under',
        sandbox: 'ecommerce',
      });
      await expect.poll(() => fx.llm.requests.length).toBeGreaterThan(0);
      renameSync(fx.ws, moved);
      const r2 = { runId, status: 'running' };
      while (r2.status === 'running') {
        r2.status = (await a.call<{ status: string }>('runs.get', { runId })).status;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(r2.status).toBe('failed');
      // Before: the store was "deleted" and made again at the old path: a ghost .toolsmith/runs.db.
      expect(existsSync(fx.ws)).toBe(false);
      expect(a.err()).toMatch(
        /the run store's folder .+?\.toolsmith is gone while this process \(pid \d+\) had it open; the workspace was moved: it goes on writing to the run store it opened, now .+?-moved\/\.toolsmith\/runs\.db; no new store is made at the old path/,
      );
      // Another process at the new place reads both runs.
      const there = await cliProcess(moved, fx.data, ['runs', 'list', '--json']).done;
      expect(there.code, there.err).toBe(0);
      expect((JSON.parse(there.out) as { runs: { id: string }[] }).runs.map((x) => x.id)).toEqual(
        expect.arrayContaining([r1.runId, r2.runId]),
      );
      // Moved back (a plain rename: no folder in the way), serve goes on in the same file.
      renameSync(moved, fx.ws);
      const r3 = await a.runToEnd('a run after the move back');
      await a.stop();
      const all = await listed();
      expect(all.code, all.err).toBe(0);
      expect(all.ids).toEqual(expect.arrayContaining([r1.runId, r2.runId, r3.runId]));
      expect(a.err()).not.toMatch(/was deleted while/);
      expect(integrity()).toBe('ok');
    } finally {
      if (a.child.exitCode === null) await a.stop();
      if (existsSync(moved) && !existsSync(fx.ws)) renameSync(moved, fx.ws);
      rmSync(moved, { recursive: true, force: true });
    }
  }, 120_000);
});
