/**
 * A config edit retires the sandbox backend (new jobs go to a new one, the old one is disposed once its
 * jobs end) while a job waits for that backend to start: the job is handed the backend it waited for and
 * runs on it. Before, the retire ran in the same turn as the job's wait ended, a few promise steps
 * before the job counted itself as the backend's, saw no job and disposed it: the job failed "the
 * sandbox backend is shutting down" (a CI run at load ~20 failed so: faults/workspace-files.test.ts).
 * The backend's start is held by the test until the retire is asked, so the order is the same at any load.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let svc: ToolsmithService | undefined;
let ws: string | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
  if (ws) removeWorkspace(ws);
});

it('a job waiting for the backend a retire replaces runs on it, never told "shutting down"', async () => {
  ws = tempWorkspace('toolsmith-retire-starting-');
  let open!: () => void;
  const held = new Promise<void>((r) => (open = r));
  let started = 0;
  svc = ToolsmithService.open(ws, {
    oneShot: true,
    sandboxFactory: async (s) => {
      started++;
      if (started === 1) await held;
      return createSandboxManager(s);
    },
  });
  const job = svc.execution.executeScript({
    sandbox: 'ecommerce',
    language: 'python',
    body: 'emit_result(1)\n',
  });
  // The job asked for the backend (only a job starts it here) and waits for its start.
  await vi.waitFor(() => expect(started).toBe(1), { timeout: 60_000 });
  svc.execution.retireSandbox();
  open();
  const r = await job;
  expect(r, JSON.stringify(r.error)).toMatchObject({ success: true, data: 1 });
}, 180_000);
