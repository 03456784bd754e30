/**
 * A second live process writing a run store, for fault tests (run with the Node 24 the package ships):
 * it opens the store at argv[2], records argv[3] whole runs whose tasks are argv[4] characters long,
 * writes their ids as one JSON line to the file argv[5] (so that a test whose event loop is held can
 * wait for it), and keeps the store open until its stdin ends. What the store says on stderr is the
 * process's stderr.
 */
import { writeFileSync } from 'node:fs';
import { RunStore } from '../../../../src-main/infra/store/run-store.ts';
import { runStarted } from '../../../support/run-records.ts';

const [, , file, count, chars, done] = process.argv;
const store = new RunStore(file as string);
const ids: string[] = [];
for (let i = 0; i < Number(count); i++) {
  const id = store.createRun(runStarted(`${'g'.repeat(Number(chars))} ${i}`));
  store.append(id, 'run_finished', { status: 'failed', error: 'e' });
  ids.push(id);
}
writeFileSync(done as string, `${JSON.stringify(ids)}\n`);
process.stdin.resume();
process.stdin.on('end', () => store.close());
