/**
 * The run store's files deleted or replaced under a live process in the middle of a suite run, as a
 * user's machine meets it (runs.db and its WAL deleted by hand, only the WAL deleted, runs.db put back
 * from an older copy). The process then finishes the suite run and counts one more template use: the
 * suite run, every result and its runs' tags, and the template's counters are all in the file now at
 * the path, as another process reads it afterwards. An overwrite in place (`cp other/runs.db runs.db`:
 * the same file, another store's content) carries the suite run and the template's counters too, as it
 * carries the runs in flight.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { SuiteStore } from '../../../src-main/infra/store/suite-store.ts';
import { POLL_MS } from '../../support/budgets.ts';
import { runStarted } from '../../support/run-records.ts';
import { repoRoot } from '../../support/workspace.ts';
import { copyGoingOn } from './support/copy-going-on.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The writer process (support/store-writer.ts) on `file`; `send` waits for its one-line answer. */
function writer(file: string) {
  const child = spawn(
    join(repoRoot, 'node_modules/.bin/node'),
    [join(repoRoot, 'test/integration/faults/support/store-writer.ts'), file],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    err: () => err,
    exited,
    send: async (
      cmd: string,
    ): Promise<{ suiteRun: string; runs: string[]; held?: number; error?: string }> => {
      child.stdin.write(`${cmd}\n`);
      const next = await lines.next();
      if (next.done) throw new Error(`the writer ended before answering ${cmd}: ${err}`);
      return JSON.parse(next.value) as { suiteRun: string; runs: string[]; held?: number; error?: string };
    },
  };
}

const faults: [string, (file: string, older: string) => void][] = [
  [
    'runs.db and its WAL deleted',
    (file) => {
      for (const side of ['', '-wal', '-shm']) rmSync(`${file}${side}`, { force: true });
    },
  ],
  ['the WAL deleted', (file) => rmSync(`${file}-wal`)],
  [
    'runs.db replaced by an older copy',
    (file, older) => {
      renameSync(older, file);
      for (const side of ['-wal', '-shm']) rmSync(`${file}${side}`, { force: true });
    },
  ],
];

/** The writer's suite run in the store another process reads: passed, its results and its case runs. */
function expectSuiteRunWhole(store: RunStore, ended: { suiteRun: string; runs: string[] }) {
  const suites = new SuiteStore(store);
  expect(suites.get(ended.suiteRun)).toMatchObject({ suite: 'smoke', status: 'passed', done: 2, passed: 2 });
  expect(suites.results(ended.suiteRun).map((r) => r.runId)).toEqual(ended.runs);
  expect(
    store
      .list({ suiteRun: ended.suiteRun })
      .runs.map((r) => r.id)
      .sort(),
  ).toEqual([...ended.runs].sort());
}

describe('a suite run and template counters when the store is replaced under a live process', () => {
  it.each(faults)('%s: the suite run finishes in the new file with all it wrote', async (_, fault) => {
    const dir = mkdtempSync(join(tmpdir(), 'toolsmith-replaced-'));
    dirs.push(dir);
    const file = join(dir, 'runs.db');
    const older = join(dir, 'older.db');
    new RunStore(file).close();
    copyFileSync(file, older);
    const w = writer(file);
    const begun = await w.send('begin');
    fault(file, older);
    const ended = await w.send('end');
    expect(ended.suiteRun).toBe(begun.suiteRun);
    await w.send('exit');
    expect(await w.exited).toBe(0);
    expect(w.err()).toMatch(
      /the run store .+?runs\.db .* goes on in .+? \(.*1 suite run\(s\), 1 template counter\(s\) of this process written there again\)/,
    );

    // Another process reads the store afterwards.
    const store = new RunStore(file);
    try {
      expectSuiteRunWhole(store, ended);
      expect(store.templateStats().get('user-email')).toMatchObject({ successes: 3, failures: 0 });
    } finally {
      store.close();
    }
  });
});

/** Another workspace's store (its own id) at `dir`/other.db, with one run of its own: copied over the live one. */
function otherStore(dir: string): { other: string; theirRun: string } {
  const other = join(dir, 'other.db');
  const theirs = new RunStore(other);
  const theirRun = theirs.createRun(runStarted('a run of the other store'));
  theirs.append(theirRun, 'run_finished', { status: 'failed', error: 'e' });
  theirs.close();
  return { other, theirRun };
}

describe('a suite run when the store is overwritten in place under a live process', () => {
  it("a suite result and the suite run's end made while the copy is still being written are held and written once it is whole", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolsmith-overwriting-'));
    dirs.push(dir);
    const file = join(dir, 'ws', 'runs.db');
    mkdirSync(join(dir, 'ws'));
    new RunStore(file).close();
    const { other, theirRun } = otherStore(dir);
    const w = writer(file);
    await w.send('begin');
    await w.send('case');
    // A copy still going on: the file copied over, then its time changed every 50 ms until told to stop.
    const copier = copyGoingOn(other, file);
    let during: Awaited<ReturnType<typeof w.send>>;
    try {
      await copier.copied;
      // Before: "StoreOverwrittenError: the run store ... is being overwritten in place ...: nothing was
      // written" at the result, and the suite run's end was refused the same way.
      during = await w.send('result');
      expect(during.error).toBeUndefined();
      // (held: the file is seen overwritten, not yet acted on while it keeps changing)
      expect(during.held).toBeGreaterThan(0);
      copier.done();
      await vi.waitFor(() => expect(w.err()).toMatch(/overwritten in place/), {
        timeout: POLL_MS,
        interval: 50,
      });
      await w.send('exit');
      expect(await w.exited).toBe(0);
    } finally {
      copier.kill();
    }
    expect(w.err()).toMatch(/1 suite run\(s\)/);
    const store = new RunStore(file);
    try {
      expectSuiteRunWhole(store, during);
      expect(store.has(theirRun)).toBe(true);
      expect(store.templateStats().get('user-email')).toMatchObject({ successes: 3, failures: 0 });
    } finally {
      store.close();
    }
  }, 60_000);

  it("the suite run, its results and its case runs' tags are written to the new content, as its runs are", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolsmith-overwritten-'));
    dirs.push(dir);
    const file = join(dir, 'ws', 'runs.db');
    mkdirSync(join(dir, 'ws'));
    new RunStore(file).close();
    const { other, theirRun } = otherStore(dir);
    const w = writer(file);
    const begun = await w.send('begin');
    copyFileSync(other, file);
    // (acted on by the writer's watch once the file stayed the same: a write before that is refused)
    await vi.waitFor(() => expect(w.err()).toMatch(/overwritten in place/), {
      timeout: POLL_MS,
      interval: 50,
    });
    const ended = await w.send('end');
    expect(ended.suiteRun).toBe(begun.suiteRun);
    await w.send('exit');
    expect(await w.exited).toBe(0);
    // Before: "(1 run(s) of this process written there again)": the case run was carried, its suite run
    // was not; then "(1 run(s), 1 suite run(s) ...)": the template's counter was not.
    expect(w.err()).toMatch(
      /overwritten in place with another run store .* \(1 run\(s\), 1 suite run\(s\), 1 template counter\(s\) of this process written there again\)/,
    );

    const store = new RunStore(file);
    try {
      expectSuiteRunWhole(store, ended);
      expect(store.has(theirRun)).toBe(true);
      // The two uses counted before the overwrite, and the one after (before: 1, the two were lost).
      expect(store.templateStats().get('user-email')).toMatchObject({ successes: 3, failures: 0 });
    } finally {
      store.close();
    }
  });
});
