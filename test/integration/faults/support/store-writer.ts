/**
 * A live process using a run store, for fault tests (run with the Node 24 the package ships, which
 * strips types): it opens the store at argv[2], then obeys one command per stdin line and answers one
 * JSON line on stdout. `begin`: starts a suite run with one case run and its result, and counts two
 * successes of the template `user-email`; `end`: a second case run and its result, the suite run
 * finished `passed`, one more success counted; `exit`: closes the store and leaves. The store's files
 * are changed by the test between `begin` and `end`. Split in two instead of `end`: `case`, the second
 * case run (started and tagged); `result`, its result, the suite run finished `passed` and one more
 * success counted, answering also how many suite writes are held in memory and the error of a write
 * refused (the test copies another store over the file between the two).
 */
import { createInterface } from 'node:readline';
import { RunStore } from '../../../../src-main/infra/store/run-store.ts';
import { SuiteStore } from '../../../../src-main/infra/store/suite-store.ts';
import { runStarted, passedCase } from '../../../support/run-records.ts';

const store = new RunStore(process.argv[2] as string);
const suites = new SuiteStore(store);
let suiteRun = '';
const runs: string[] = [];

function caseRun(rep: number): void {
  const runId = store.createRun(runStarted(`case c1, repeat ${rep}`));
  runs.push(runId);
  suites.tagRun(runId, suiteRun);
  suites.addResult(suiteRun, passedCase(runId, rep));
}

const answer = (x: unknown) => process.stdout.write(`${JSON.stringify(x)}\n`);

for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'begin') {
    suiteRun = suites.create({
      suite: 'smoke',
      sandbox: 'ecommerce',
      columns: [],
      cases: [{ id: 'c1', task: 'case c1', threshold: 1, repeat: 2 }],
      concurrency: 1,
      planned: 2,
      toolsHash: 'h',
    });
    caseRun(0);
    store.recordTemplateUse('user-email', true);
    store.recordTemplateUse('user-email', true);
    answer({ suiteRun, runs });
  } else if (line === 'end') {
    caseRun(1);
    suites.finish(suiteRun, 'passed');
    store.recordTemplateUse('user-email', true);
    answer({ suiteRun, runs });
  } else if (line === 'case') {
    const runId = store.createRun(runStarted('case c1, repeat 1'));
    runs.push(runId);
    suites.tagRun(runId, suiteRun);
    answer({ suiteRun, runs });
  } else if (line === 'result') {
    let error: string | undefined;
    try {
      suites.addResult(suiteRun, passedCase(runs[1] as string, 1));
      suites.finish(suiteRun, 'passed');
      store.recordTemplateUse('user-email', true);
    } catch (e) {
      error = String(e);
    }
    answer({ suiteRun, runs, held: store.pendingSuiteWrites(), ...(error ? { error } : {}) });
  } else if (line === 'exit') {
    store.close();
    answer({ closed: true });
    break;
  }
}
process.stdin.destroy();
