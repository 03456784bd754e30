/**
 * A live process using a run store, for fault tests (run with the Node 24 the package ships, which
 * strips types): it opens the store at argv[2], then obeys one command per stdin line and answers one
 * JSON line on stdout. `begin`: starts a suite run with one case run and its result, and counts two
 * successes of the template `user-email`; `end`: a second case run and its result, the suite run
 * finished `passed`, one more success counted; `exit`: closes the store and leaves. The store's files
 * are changed by the test between `begin` and `end`.
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
  } else if (line === 'exit') {
    store.close();
    answer({ closed: true });
    break;
  }
}
process.stdin.destroy();
