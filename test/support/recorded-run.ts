/**
 * A script run as a recorded run of a service (`runs.startScript`, 120 s at most), with what the run
 * store holds of it: its events, its execution, its record, and `rows`: `SELECT <columns> FROM events`
 * of the run, read from the workspace's SQLite file itself, apart from the store.
 */
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { ToolsmithService } from '../../src-main/app/service.ts';

export async function recordedRun<Rows>(
  svc: ToolsmithService,
  script: { sandbox: string; language: 'python' | 'js'; body: string },
  columns: string,
) {
  const runs = await svc.runs();
  const started = await runs.startScript({ ...script, timeoutMs: 120_000 });
  const outcome = await started.done;
  const events = runs.store.events(started.runId);
  const execution = events.flatMap((e) => (e.type === 'execution' ? [e.data.result] : []))[0];
  const db = new DatabaseSync(join(svc.workspaceDir, '.toolsmith/runs.db'), { readOnly: true });
  const rows = db.prepare(`SELECT ${columns} FROM events WHERE run_id = ?`).get(started.runId) as Rows;
  db.close();
  return { runId: started.runId, outcome, events, execution, rows, record: runs.get(started.runId) };
}
