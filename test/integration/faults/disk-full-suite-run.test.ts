/**
 * A suite run on a disk that fills up, as a user meets it: the workspace lives on a small tmpfs that
 * fills while a case's model answers. The suite's verdicts reach the user whatever the disk does; its
 * writes (a case run's tag, a result, its end) are held in memory in order with the run events, said once
 * naming the file, and written once space returns; a process that exits while the disk is still full says
 * what could not be written; a new suite run on a full disk is refused at once, naming the file. Through
 * the real CLI process (`toolsmith eval`), the real service (the app's and `run_suite`'s path), a real
 * sandbox container and the scripted LLM server; the store's own rules directly. Needs root (mount).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { dispatch } from '../../../src-main/app/handlers.ts';
import type { SuiteProgress, SuiteRunFull } from '../../../src-main/core/suites/run.ts';
import { DiskFullError, MAX_PENDING_BYTES, RunStore } from '../../../src-main/infra/store/run-store.ts';
import { SuiteStore } from '../../../src-main/infra/store/suite-store.ts';
import type { SuiteRunSpec } from '../../../src-main/infra/store/suite-store.ts';
import { POLL_MS } from '../../support/budgets.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer, RecordedRequest } from '../../support/llm-server.ts';
import { passedCase, runStarted } from '../../support/run-records.ts';
import { requireDocker } from '../../support/sandbox.ts';
import { fence, ORACLE, scriptedConfig, taskOf } from '../../support/suite-oracle.ts';
import { outputOf, toolsmithArgv } from '../../support/toolsmith-process.ts';
import type { ToolsmithOutput } from '../../support/toolsmith-process.ts';
import { copyWorkspace, sampleWorkspace } from '../../support/workspace.ts';
import { mountSmallDisk } from './support/small-disk.ts';
import type { SmallDisk } from './support/small-disk.ts';
import { stderrSaid } from './support/stderr-said.ts';

const U1 = 'What is the name of user u1?';
const U3 = 'What is the name of user u3?';

let disk: SmallDisk;
let llm: LlmServer;

beforeAll(async () => {
  disk = mountSmallDisk('toolsmith-diskfull-suite-');
  llm = await startLlmServer();
}, 120_000);

afterAll(async () => {
  disk?.free();
  await llm?.close();
  disk?.remove();
});

/** A fresh copy of the sample workspace on the small disk, its provider the scripted server. */
function workspace(name: string): string {
  const ws = join(disk.root, name);
  copyWorkspace(sampleWorkspace, ws);
  scriptedConfig(ws, llm.openaiUrl);
  // Two cases of one column, run at once: each case's run is recorded before either model answers.
  writeFileSync(
    join(ws, 'suites', 'two.toml'),
    `sandbox = "ecommerce"\nmode = "plan"\nmodels = ["local:good"]\ntemplates = "off"\nconcurrency = 2\n\n` +
      `[[cases]]\nid = "user-name"\ntask = "What is the name of user {user}?"\n` +
      `vars = [{ user = "u1", name = "Ada Lovelace" }, { user = "u3", name = "Grace Hopper" }]\n\n` +
      `[[cases.assert]]\ntype = "equals"\nvalue = "{name}"\n`,
  );
  writeFileSync(
    join(ws, 'suites', 'one.toml'),
    `sandbox = "ecommerce"\nmode = "plan"\nmodels = ["local:good"]\ntemplates = "off"\n\n` +
      `[[cases]]\nid = "user-name"\ntask = "${U1}"\n\n[[cases.assert]]\ntype = "equals"\nvalue = "Ada Lovelace"\n`,
  );
  return ws;
}

const answer = (req: RecordedRequest) => fence(ORACLE[taskOf(req)] as string);

/** `toolsmith --workspace WS ARGS` as a process; `onErr` is given its stderr so far at each piece. */
function cli(ws: string, args: string[], onErr?: (err: string) => void): Promise<ToolsmithOutput> {
  const child = spawn(...toolsmithArgv(ws, args), { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => onErr?.((err += d.toString())));
  return outputOf(child);
}

/** Another process's view of the store (a fresh connection), closed after `read`. */
function readStore<T>(ws: string, read: (store: RunStore, suites: SuiteStore) => T): T {
  const store = new RunStore(join(ws, '.toolsmith', 'runs.db'));
  try {
    return read(store, new SuiteStore(store));
  } finally {
    store.close();
  }
}

const runsDb = (ws: string) => join(ws, '.toolsmith', 'runs.db');
const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The line said once when the store's writes start being held (the file named). */
const heldLine = (ws: string) =>
  new RegExp(
    `disk full: .+ could not be written to ${escaped(runsDb(ws))} \\(.+\\); free space on that disk; until then this process holds`,
    'g',
  );

describe('toolsmith eval on a disk that fills while a case runs', () => {
  beforeAll(() => requireDocker(), 120_000);

  it('space returns while it runs: the verdicts are printed (exit 0), the held writes said once, then written in order: the suite run is stored whole', async () => {
    const ws = workspace('cli-returns');
    let u3Asked: () => void = () => {};
    const asked = new Promise<void>((r) => (u3Asked = r));
    // Case u1 has ended: its progress line (printed once the runner stored its result, or held it).
    let u1Ended: () => void = () => {};
    const u1Done = new Promise<void>((r) => (u1Ended = r));
    llm.responder = (req) => {
      const task = taskOf(req);
      // Both cases' runs are recorded (both asked), then the disk fills while u1's model answers.
      if (task === U1) return { text: answer(req), waitFor: asked.then(() => disk.fill()) };
      if (task === U3) {
        u3Asked();
        // u3 answers once u1 has ended with the disk full: space returns first.
        return { text: answer(req), waitFor: u1Done.then(() => disk.free()) };
      }
      return undefined;
    };
    try {
      const r = await cli(ws, ['eval', 'two', '--timeout-ms', '240000'], (err) => {
        if (/user-name\[0\] @ local:good#0: pass/.test(err)) u1Ended();
      });
      // Before: "toolsmith: disk full: a suite result could not be written to .../runs.db", exit 3, no matrix.
      expect(r.err).not.toMatch(/\n\s+at /);
      expect(r.out).toMatch(/· passed · 2\/2 cells met/);
      expect(r.code, r.err).toBe(0);
      expect(r.err.match(heldLine(ws)), r.err).toHaveLength(1);
      expect(r.err).not.toMatch(/never written|are lost/);
      const suiteRun = /suite run ([0-9a-f-]{36})/.exec(r.err)?.[1] ?? '';
      readStore(ws, (store, suites) => {
        expect(suites.get(suiteRun)).toMatchObject({ status: 'passed', done: 2, passed: 2 });
        expect(suites.results(suiteRun).map((x) => [x.caseId, x.passed])).toEqual([
          ['user-name[0]', true],
          ['user-name[1]', true],
        ]);
        const runs = store.list({ suiteRun }).runs;
        expect(runs.map((x) => x.status)).toEqual(['succeeded', 'succeeded']);
        expect(runs.map((x) => x.task).sort()).toEqual([U1, U3]);
      });
    } finally {
      disk.free();
      llm.responder = undefined;
    }
  }, 300_000);

  it('the disk stays full until it exits: the verdicts are printed whole, then what could not be written is said (exit 3)', async () => {
    const ws = workspace('cli-stays-full');
    llm.responder = (req) => {
      if (taskOf(req) !== U1) return undefined;
      disk.fill();
      return answer(req);
    };
    try {
      const r = await cli(ws, ['eval', 'one', '--json', '--timeout-ms', '240000']);
      expect(r.err).not.toMatch(/\n\s+at /);
      // One JSON document: the suite run as it ran, its case judged.
      const view = JSON.parse(r.out) as {
        id: string;
        status: string;
        results: { caseId: string; passed: boolean }[];
      };
      expect(view).toMatchObject({ status: 'passed', results: [{ caseId: 'user-name', passed: true }] });
      expect(r.err.match(heldLine(ws)), r.err).toHaveLength(1);
      // What is lost, by its runs and its suite run.
      expect(r.err).toMatch(
        new RegExp(
          `toolsmith: disk full: .*${escaped(runsDb(ws))}.*event\\(s\\) of run\\(s\\) [0-9a-f-]{36} and 2 write\\(s\\) of suite run\\(s\\) ${view.id} \\(1 case result\\(s\\), 1 end\\(s\\)\\) were never written .*are lost`,
        ),
      );
      expect(r.code).toBe(3);
      disk.free();
      // What was written before the disk filled stays: the suite run, whose process is gone.
      readStore(ws, (_store, suites) =>
        expect(suites.get(view.id)).toMatchObject({ status: 'interrupted', done: 0 }),
      );
    } finally {
      disk.free();
      llm.responder = undefined;
    }
  }, 300_000);

  it('a new suite run on a full disk is refused at once, naming the file (exit 3), before any model is asked', async () => {
    const ws = workspace('cli-new');
    // The store exists (a suite run before), then the disk fills.
    llm.responder = answer;
    const before = await cli(ws, ['eval', 'one']);
    expect(before.code, before.err).toBe(0);
    const asked = llm.requests.length;
    disk.fill();
    try {
      const r = await cli(ws, ['eval', 'one']);
      expect(r.err).toMatch(
        new RegExp(
          `(^|\\n)toolsmith: the suite run could not be recorded: disk full: a new suite run could not be written to ${escaped(runsDb(ws))} \\(.+\\); free space on that disk\\n`,
        ),
      );
      expect(r.err).not.toMatch(/\n\s+at /);
      expect(r.out).toBe('');
      expect(r.code).toBe(3);
      expect(llm.requests.length).toBe(asked);
    } finally {
      disk.free();
      llm.responder = undefined;
    }
  }, 300_000);
});

/** The workbench's Start of the suite `one` on `svc`: its id, and its suite_progress pushes as they come. */
async function startSuite(svc: ToolsmithService): Promise<{ suiteRun: string; progress: SuiteProgress[] }> {
  const progress: SuiteProgress[] = [];
  svc.onPush((e) => {
    if (e.type === 'suite_progress') progress.push(e.progress);
  });
  const started = (await dispatch(svc, 'suites.start', { name: 'one' })) as
    { ok: true; value: { suiteRun: string } } | { ok: false; error: { code: string; message: string } };
  if (!started.ok) throw new Error(started.error.message);
  return { suiteRun: started.value.suiteRun, progress };
}

/** A run store of its own on the small disk (in the folder `name`) and its suite store. */
function stores(name: string): { file: string; store: RunStore; suites: SuiteStore } {
  const file = join(disk.root, name, 'runs.db');
  mkdirSync(join(disk.root, name));
  const store = new RunStore(file);
  return { file, store, suites: new SuiteStore(store) };
}

describe("the service's suite run (the workbench, run_suite) on a disk that fills", () => {
  beforeAll(() => requireDocker(), 120_000);

  it('ends with its verdicts while the disk is full (the view reads the held writes); they are written once space returns; a new suite run is refused as infra naming the file', async () => {
    const ws = workspace('service');
    const said = stderrSaid();
    llm.responder = (req) => {
      if (taskOf(req) !== U1) return undefined;
      disk.fill();
      return answer(req);
    };
    const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
    try {
      // The workbench's Start: the outcome comes by suite_progress, the view by suites.get.
      const { suiteRun, progress } = await startSuite(svc);
      // Before: the progress never left `running` (the result could not be written, nor the end).
      await vi.waitFor(() => expect(progress.at(-1)?.status).toBe('passed'), {
        timeout: 240_000,
        interval: 100,
      });
      const got = (await dispatch(svc, 'suites.get', { suiteRun })) as
        { ok: true; value: SuiteRunFull } | { ok: false; error: { code: string; message: string } };
      if (!got.ok) throw new Error(got.error.message);
      expect(got.value).toMatchObject({ status: 'passed', done: 1, passed: 1 });
      expect(got.value.matrix.overall).toMatchObject({ met: 1, cells: 1 });
      const store = (await svc.runs()).store;
      expect(store.pendingSuiteWrites()).toBeGreaterThan(0);
      expect(said.join('').match(heldLine(ws))).toHaveLength(1);

      // A new suite run now: refused at once, in words naming the file, as an infrastructure error.
      const refused = await dispatch(svc, 'suites.start', { name: 'one' });
      expect(refused.ok).toBe(false);
      if (!refused.ok) {
        expect(refused.error.code).toBe('infra');
        expect(refused.error.message).toMatch(
          new RegExp(
            `^the suite run could not be recorded: disk full: a new suite run could not be written to ${escaped(runsDb(ws))} \\(`,
          ),
        );
      }

      // Space returns: the held writes are written (the flush timer), and another process reads them.
      disk.free();
      await vi.waitFor(() => expect(store.pendingSuiteWrites() + store.pendingEvents()).toBe(0), {
        timeout: POLL_MS,
        interval: 100,
      });
      readStore(ws, (runs, suites) => {
        expect(suites.get(suiteRun)).toMatchObject({ status: 'passed', done: 1, passed: 1 });
        expect(runs.list({ suiteRun }).runs.map((r) => [r.task, r.status])).toEqual([[U1, 'succeeded']]);
      });
    } finally {
      disk.free();
      llm.responder = undefined;
      await svc.close();
      vi.restoreAllMocks();
    }
  }, 300_000);
});

const spec: SuiteRunSpec = {
  suite: 's',
  sandbox: 'ecommerce',
  columns: [{ id: 'm', provider: 'p', model: 'm', templates: false }],
  cases: [{ id: 'c1', task: 't', threshold: 1, repeat: 2 }],
  concurrency: 1,
  planned: 2,
  toolsHash: 'h',
};

describe("the service's suite run past the 32 MB bound of what is held", () => {
  beforeAll(() => requireDocker(), 120_000);

  it('ends with its verdicts: the case whose run events are refused past the bound is judged with that error, naming the disk and the bound', async () => {
    const ws = workspace('past-bound');
    const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
    const store = (await svc.runs()).store;
    // Another run of this process, whose held event brings what is held up to just under the bound.
    const big = store.createRun(runStarted('big'));
    llm.responder = (req) => {
      if (taskOf(req) !== U1) return undefined;
      disk.fill();
      store.append(big, 'run_finished', {
        status: 'succeeded',
        result: 'x'.repeat(MAX_PENDING_BYTES - 100),
      });
      return answer(req);
    };
    try {
      const { suiteRun, progress } = await startSuite(svc);
      // Before: the result past the bound was refused, the runner failed, the progress stayed `running`.
      await vi.waitFor(() => expect(progress.at(-1)?.status).not.toBe('running'), {
        timeout: 240_000,
        interval: 100,
      });
      const got = (await dispatch(svc, 'suites.get', { suiteRun })) as
        { ok: true; value: SuiteRunFull } | { ok: false; error: { code: string; message: string } };
      if (!got.ok) throw new Error(got.error.message);
      expect(got.value.done).toBe(1);
      // Judged as an infrastructure error naming the disk and the bound (before: "the run was
      // interrupted: its process ended", which it was not).
      expect(got.value.results[0]).toMatchObject({ passed: false, status: 'failed' });
      expect(got.value.results[0]?.infra).toMatch(
        new RegExp(
          `^the run's record could not be kept: disk full: run events could not be written to ${escaped(runsDb(ws))} \\(\\d+ event\\(s\\) and \\d+ suite write\\(s\\) already held in memory, up to the limit of 32 MB\\); free space on that disk$`,
        ),
      );
      expect(got.value.matrix.overall.errors).toBe(1);
      expect(store.pendingSuiteWrites()).toBeGreaterThan(0);
      // Space returns (the huge held event dropped with its run): the suite run is written whole.
      disk.free();
      store.delete(big);
      await vi.waitFor(() => expect(store.pendingSuiteWrites()).toBe(0), { timeout: POLL_MS, interval: 100 });
      readStore(ws, (_runs, suites) => {
        expect(suites.get(suiteRun)).toMatchObject({ status: got.value.status, done: 1 });
      });
    } finally {
      disk.free();
      llm.responder = undefined;
      await svc.close().catch(() => {});
    }
  }, 300_000);
});

describe("the workbench's runs of a suite run while a case run's tag is held", () => {
  it('runs.list by suite run and the run view (runs.get) include the case run whose tag this process holds', async () => {
    const ws = workspace('api');
    const svc = ToolsmithService.open(ws);
    try {
      const store = (await svc.runs()).store;
      const suites = new SuiteStore(store);
      const suiteRun = suites.create(spec);
      const runId = store.createRun(runStarted('t'));
      disk.fill();
      suites.tagRun(runId, suiteRun);
      expect(store.pendingSuiteWrites()).toBe(1);
      // The workbench's "Runs of this suite run" (the runs view filtered by it). Before: 0 runs.
      const listed = (await dispatch(svc, 'runs.list', { suiteRun })) as
        | { ok: true; value: { runs: { id: string; suiteRun: string | null }[]; total: number } }
        | { ok: false; error: { message: string } };
      if (!listed.ok) throw new Error(listed.error.message);
      expect(listed.value.runs.map((r) => [r.id, r.suiteRun])).toEqual([[runId, suiteRun]]);
      expect(listed.value.total).toBe(1);
      // The run view links the case run back to its suite run.
      const got = (await dispatch(svc, 'runs.get', { runId })) as
        | { ok: true; value: { suite?: { id: string; name: string } } }
        | { ok: false; error: { message: string } };
      if (!got.ok) throw new Error(got.error.message);
      expect(got.value.suite).toEqual({ id: suiteRun, name: 's' });
      disk.free();
      expect(store.flush()).toBe(true);
    } finally {
      disk.free();
      await svc.close();
    }
  }, 120_000);
});

describe('the suite store on a full disk', () => {
  it("holds a case run's tag, its results and the suite run's end in order with the run events, reads them, and writes them once space returns", () => {
    const said = stderrSaid();
    const { file, store, suites } = stores('direct');
    let suiteRun = '';
    let runId = '';
    try {
      suiteRun = suites.create(spec);
      runId = store.createRun(runStarted('t'));
      disk.fill();
      suites.tagRun(runId, suiteRun);
      store.append(runId, 'tier', { n: 1, tier: 'llm', provider: 'p' });
      store.append(runId, 'run_finished', { status: 'succeeded', result: 'x'.repeat(20_000) });
      suites.addResult(suiteRun, passedCase(runId, 0));
      suites.addResult(suiteRun, passedCase(runId, 1));
      suites.finish(suiteRun, 'passed');
      expect(store.pendingSuiteWrites()).toBe(4);
      // The process's reads include what it holds.
      expect(suites.get(suiteRun)).toMatchObject({ status: 'passed', done: 2, passed: 2 });
      expect(suites.results(suiteRun).map((r) => r.rep)).toEqual([0, 1]);
      expect(suites.list('s')[0]).toMatchObject({ id: suiteRun, status: 'passed', done: 2 });
      // The runs of the suite run include the case run whose tag is held (before: none until written).
      expect(store.list({ suiteRun }).runs.map((r) => [r.id, r.suiteRun])).toEqual([[runId, suiteRun]]);
      expect(store.list({ suiteRun, count: true })).toMatchObject({ total: 1, totalExact: true });
      expect(store.summary(runId)?.suiteRun).toBe(suiteRun);
      // A new suite run is refused, naming the file.
      expect(() => suites.create(spec)).toThrow(DiskFullError);
      expect(() => suites.create(spec)).toThrow(
        new RegExp(`^disk full: a new suite run could not be written to ${escaped(file)} \\(`),
      );
      // Said once, naming the file.
      expect(said.join('').match(/until then this process holds/g)).toHaveLength(1);
      expect(said.join('')).toContain(file);
      expect(store.flush()).toBe(false);
      disk.free();
      expect(store.flush()).toBe(true);
      expect(store.pendingSuiteWrites()).toBe(0);
    } finally {
      disk.free();
      store.close();
      vi.restoreAllMocks();
    }
    const again = new RunStore(file);
    try {
      expect(new SuiteStore(again).get(suiteRun)).toMatchObject({ status: 'passed', done: 2, passed: 2 });
      expect(again.list({ suiteRun }).runs.map((r) => [r.id, r.status])).toEqual([[runId, 'succeeded']]);
    } finally {
      again.close();
    }
  });

  it('closing while the disk is still full names the suite run whose writes are lost', () => {
    const { store, suites } = stores('lost');
    const suiteRun = suites.create(spec);
    disk.fill();
    try {
      suites.addResult(suiteRun, passedCase('r1', 0));
      suites.finish(suiteRun, 'passed');
      expect(() => store.close()).toThrow(
        new RegExp(
          `2 write\\(s\\) of suite run\\(s\\) ${suiteRun} \\(1 case result\\(s\\), 1 end\\(s\\)\\) were never written .*are lost`,
        ),
      );
    } finally {
      disk.free();
    }
  });

  it("past the 32 MB bound a run event is refused naming the limit, while the suite run's writes are still held, read and written once space returns", () => {
    const { file, store, suites } = stores('bound');
    const suiteRun = suites.create(spec);
    const big = store.createRun(runStarted('big'));
    const runId = store.createRun(runStarted('t'));
    disk.fill();
    try {
      // Held events up to just under the bound.
      store.append(big, 'run_finished', {
        status: 'succeeded',
        result: 'x'.repeat(MAX_PENDING_BYTES - 300),
      });
      // A run event past it: refused, naming the disk and the bound (the run ends with that error).
      expect(() =>
        store.append(runId, 'run_finished', { status: 'succeeded', result: 'y'.repeat(1000) }),
      ).toThrow(/disk full: .*runs\.db .*up to the limit of 32 MB/);
      // The suite run's writes past it are held (before: refused, and the runner's whole suite run failed).
      suites.tagRun(runId, suiteRun);
      suites.addResult(suiteRun, passedCase(runId, 0));
      suites.addResult(suiteRun, passedCase(runId, 1));
      suites.finish(suiteRun, 'passed');
      expect(store.pendingSuiteWrites()).toBe(4);
      expect(suites.get(suiteRun)).toMatchObject({ status: 'passed', done: 2, passed: 2 });
      expect(store.list({ suiteRun }).runs.map((r) => r.id)).toEqual([runId]);
    } finally {
      disk.free();
      // (its held event is larger than the whole disk: dropped with the run)
      store.delete(big);
    }
    expect(store.flush()).toBe(true);
    store.close();
    const again = new RunStore(file);
    try {
      expect(new SuiteStore(again).get(suiteRun)).toMatchObject({ status: 'passed', done: 2, passed: 2 });
      expect(again.list({ suiteRun }).runs.map((r) => r.id)).toEqual([runId]);
    } finally {
      again.close();
    }
  });

  it('a held run event the store refuses for another reason (its run deleted by another process) blocks nothing held after it, and is named with its cause', () => {
    const said = stderrSaid();
    const { file, store, suites } = stores('refused');
    const suiteRun = suites.create(spec);
    const gone = store.createRun(runStarted('deleted meanwhile'));
    const kept = store.createRun(runStarted('kept'));
    try {
      disk.fill();
      store.append(gone, 'tier', { n: 1, tier: 'llm', provider: 'p' });
      store.append(kept, 'tier', { n: 1, tier: 'llm', provider: 'p' });
      store.append(kept, 'run_finished', { status: 'succeeded', result: 'ok' });
      suites.tagRun(kept, suiteRun);
      suites.addResult(suiteRun, passedCase(kept, 0));
      store.recordTemplateUse('t1', true);
      disk.free();
      // Another process deletes the run whose events this one holds (space back, before its next flush).
      const other = new RunStore(file);
      try {
        expect(other.delete(gone)).toBe(true);
      } finally {
        other.close();
      }
      // Before: flush threw "no run ..." each time; nothing held after it was ever written.
      expect(store.flush()).toBe(false);
      expect(store.pendingEvents()).toBe(1);
      expect(store.pendingSuiteWrites()).toBe(0);
      const line = said
        .join('')
        .match(
          new RegExp(
            `refused 1 held event\\(s\\) of run ${gone} for a reason other than a full disk \\(no run ${gone}\\)`,
            'g',
          ),
        );
      expect(line, said.join('')).toHaveLength(1);
      // Said once, however many flushes meet it.
      store.flush();
      expect(said.join('').match(/for a reason other than a full disk/g)).toHaveLength(1);
    } finally {
      disk.free();
      vi.restoreAllMocks();
    }
    // The close names what is lost and why (not a full disk).
    let closed: unknown;
    try {
      store.close();
    } catch (e) {
      closed = e;
    }
    expect(closed).toBeInstanceOf(Error);
    expect(closed).not.toBeInstanceOf(DiskFullError);
    expect(String((closed as Error).message)).toMatch(
      new RegExp(
        `^what this process held could not be written to ${escaped(file)}: 1 event\\(s\\) of run\\(s\\) ${gone} were never written \\(refused: no run ${gone}\\) and are lost$`,
      ),
    );
    const again = new RunStore(file);
    try {
      expect(again.get(kept)?.status).toBe('succeeded');
      expect(again.list({ suiteRun }).runs.map((r) => r.id)).toEqual([kept]);
      expect(new SuiteStore(again).results(suiteRun).map((r) => r.runId)).toEqual([kept]);
      expect(again.templateStats().get('t1')).toMatchObject({ successes: 1 });
    } finally {
      again.close();
    }
  });
});
