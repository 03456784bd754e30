/**
 * A second live process writing a run store, for fault tests (run with the Node 24 the package ships,
 * which strips types): it opens the store at argv[2], then records a whole run (started, finished)
 * every 10 ms for argv[3] ms, closes the store, and prints the ids of the runs it recorded as one JSON
 * line on stdout. What the store says on stderr is the process's stderr.
 */
import { RunStore } from '../../../../src-main/infra/store/run-store.ts';
import { runStarted } from '../../../support/run-records.ts';

const store = new RunStore(process.argv[2] as string);
const until = Date.now() + Number(process.argv[3] ?? 3000);
const ids: string[] = [];
while (Date.now() < until) {
  const id = store.createRun(runStarted(`churn ${ids.length}`));
  store.append(id, 'run_finished', { status: 'failed', error: 'e' });
  ids.push(id);
  await new Promise((r) => setTimeout(r, 10));
}
store.close();
process.stdout.write(`${JSON.stringify(ids)}\n`);
