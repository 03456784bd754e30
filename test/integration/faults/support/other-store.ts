/**
 * Another workspace's run store (its own id), closed, with one ended run ("a run of the other store",
 * failed): what a test copies over the live one. Made at `dir`/other/.toolsmith/runs.db; its path.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { RunStore } from '../../../../src-main/infra/store/run-store.ts';
import { runStarted } from '../../../support/run-records.ts';

export const OTHER_STORE_RUN = 'a run of the other store';

export function otherStore(dir: string): string {
  mkdirSync(join(dir, 'other', '.toolsmith'), { recursive: true });
  const path = join(dir, 'other', '.toolsmith', 'runs.db');
  const other = new RunStore(path);
  const id = other.createRun(runStarted(OTHER_STORE_RUN));
  other.append(id, 'run_finished', { status: 'failed', error: 'e' });
  other.close();
  return path;
}
