/**
 * A damaged run store, as a user's disk leaves it: a file cut short (a copy interrupted, a disk that
 * lost its tail), pages overwritten with garbage, a file that is not a database at all. Every verb that
 * reads the store says which file is damaged and what to do, in one line, no stack; `toolsmith runs
 * recover` keeps every run SQLite can still read and moves the damaged file aside.
 */
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { SuiteStore } from '../../../src-main/infra/store/suite-store.ts';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { cliProcess } from './support/processes.ts';
import { runStarted, passedCase } from '../../support/run-records.ts';

const fx = useScriptedWorkspace({ dataPerTest: true });
const dir = () => join(fx.ws, '.toolsmith');
const db = () => join(dir(), 'runs.db');

/** A store of `n` finished runs, each with a long script (many pages), closed (WAL checkpointed). */
function seed(n: number): string[] {
  for (const f of readdirSync(dir())) if (f.startsWith('runs.db')) rmSync(join(dir(), f));
  const store = new RunStore(db());
  const ids: string[] = [];
  try {
    for (let i = 0; i < n; i++) {
      // Ids in insertion order: the file's page layout (what a cut keeps) is the same at every run of
      // the test; random ids scattered the events' index pages, and a cut sometimes took them all.
      const id = store.createRun(
        runStarted(`task number ${i}`),
        `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      );
      const body = `print(${i})\n${'# padding\n'.repeat(200)}`;
      store.append(id, 'script', {
        n: 1,
        code: body,
        body,
        bodyStartLine: 1,
        language: 'python',
        source: 'llm',
      });
      store.append(id, 'run_finished', { status: 'succeeded', result: i });
      ids.push(id);
    }
  } finally {
    store.close();
  }
  return ids;
}

const cli = (...args: string[]) => cliProcess(fx.ws, fx.data, args).done;

function expectOneLine(r: { code: number | null; err: string }, pattern: RegExp): void {
  expect(r.code).toBe(3);
  expect(r.err).toMatch(pattern);
  expect(r.err.trim().split('\n')).toHaveLength(1);
  expect(r.err).not.toMatch(/internal error|\n\s+at /);
}

describe('a damaged run store', () => {
  it('cut short: every verb names the file and the way out; runs recover keeps the readable runs', async () => {
    const ids = seed(60);
    truncateSync(db(), Math.floor(statSync(db()).size * 0.6));
    for (const args of [
      ['runs', 'list'],
      ['runs', 'show', ids[0]!],
      ['runs', 'export', ids[59]!],
    ]) {
      const r = await cli(...args);
      expectOneLine(
        r,
        /^toolsmith: the run store .+?runs\.db is damaged \(.*\); `toolsmith runs recover` keeps/,
      );
    }
    const rec = await cli('runs', 'recover', '--json');
    expect(rec.code, rec.err).toBe(0);
    const out = JSON.parse(rec.out) as { runs: number; damaged: string };
    expect(out.runs).toBeGreaterThan(0);
    expect(out.runs).toBeLessThanOrEqual(60);
    expect(existsSync(out.damaged)).toBe(true);
    const list = await cli('runs', 'list', '--json', '--limit', '100');
    expect(list.code, list.err).toBe(0);
    const kept = (JSON.parse(list.out) as { runs: { id: string }[] }).runs.map((r) => r.id);
    expect(kept.length).toBe(out.runs);
    expect(ids).toEqual(expect.arrayContaining(kept));
    // The kept runs read whole.
    const show = await cli('runs', 'show', kept[0]!, '--json');
    expect(show.code, show.err).toBe(0);
    // A new run can be written to the recovered store.
    const store = new RunStore(db());
    try {
      store.createRun(runStarted('after recovery'));
      expect(store.list({ count: true }).total).toBe(out.runs + 1);
    } finally {
      store.close();
    }
  }, 120_000);

  it("the runs table's page overwritten with garbage: named as damaged; every run is recovered from its events, suite runs and template counters with them", async () => {
    const ids = seed(40);
    // A finished suite run over two of the runs (its results and its runs' tags) and a template's counters.
    let suiteRun = '';
    {
      const store = new RunStore(db());
      try {
        const suites = new SuiteStore(store);
        suiteRun = suites.create({
          suite: 'smoke',
          sandbox: 'ecommerce',
          columns: [],
          cases: [{ id: 'c1', task: 'task number 0', threshold: 1, repeat: 2 }],
          concurrency: 1,
          planned: 2,
          toolsHash: 'h',
        });
        for (const [rep, runId] of [ids[0]!, ids[1]!].entries()) {
          suites.tagRun(runId, suiteRun);
          suites.addResult(suiteRun, passedCase(runId, rep));
        }
        suites.finish(suiteRun, 'passed');
        store.recordTemplateUse('user-email', true);
        store.recordTemplateUse('user-email', true);
        store.recordTemplateUse('user-email', false);
      } finally {
        store.close();
      }
    }
    const fd = openSync(db(), 'r+');
    // Page 4 is the runs table's root in every store Toolsmith creates.
    writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, 3 * 4096);
    closeSync(fd);
    const r = await cli('runs', 'list', '--limit', '100', '--count');
    expectOneLine(r, /the run store .+?runs\.db is damaged \(SQLITE_CORRUPT/);
    const rec = await cli('runs', 'recover');
    expect(rec.code, rec.err).toBe(0);
    expect(rec.out).toMatch(
      /^recovered 40 run\(s\) \(120 events\), 1 suite run\(s\), 1 template counter\(s\) into .+?runs\.db; the damaged file is .+?runs\.db\.damaged-/,
    );
    const after = new RunStore(db());
    try {
      const suites = new SuiteStore(after);
      expect(suites.get(suiteRun)).toMatchObject({ suite: 'smoke', status: 'passed', done: 2, passed: 2 });
      expect(suites.results(suiteRun).map((r) => r.runId)).toEqual([ids[0], ids[1]]);
      expect(after.templateStats().get('user-email')).toMatchObject({ successes: 2, failures: 1 });
      const tagged = after.list({ suiteRun }).runs.map((r) => r.id);
      expect(tagged.sort()).toEqual([ids[0], ids[1]].sort());
    } finally {
      after.close();
    }
    const list = await cli('runs', 'list', '--json', '--limit', '100');
    expect(list.code, list.err).toBe(0);
    expect((JSON.parse(list.out) as { runs: { id: string }[] }).runs.map((x) => x.id).sort()).toEqual(
      [...ids].sort(),
    );
    expect(readdirSync(dir()).some((f) => /^runs\.db\.damaged-/.test(f))).toBe(true);
  }, 120_000);

  it('a file that is not a database: named, with the way out', async () => {
    writeFileSync(db(), 'this is a text file, not SQLite\n'.repeat(200));
    const r = await cli('runs', 'list');
    expectOneLine(r, /the run store .+?runs\.db is damaged \(SQLITE_NOTADB: file is not a database\)/);
  }, 60_000);
});
