/**
 * The workspace's log (`.toolsmith/logs/toolsmith.jsonl`) deleted under a live `serve`, as a person
 * clearing it or a cleanup job does: serve's lines went on into the file it had open, which nobody could
 * read any more, and no line said so; a log rotation that moves the file away did the same. Now serve
 * notices at a later line (it looks at most every second), opens a new file at the path and says so once.
 */
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { startServe } from './support/processes.ts';

// No script in the answers: each run fails its attempts at validation, no sandbox is needed.
const fx = useScriptedWorkspace({
  dataPerTest: true,
  eachTest: (llm) => (llm.fallback = { text: 'I will not write code.' }),
});
const log = () => join(fx.ws, '.toolsmith', 'logs', 'toolsmith.jsonl');
const logged = (runId: string) => existsSync(log()) && readFileSync(log(), 'utf8').includes(runId);

describe('the log file under a live serve', () => {
  it('deleted: a new file at the path takes the next runs’ lines, and serve says so once', async () => {
    const a = await startServe(fx.ws, fx.data);
    try {
      const first = await a.runToEnd('a first run');
      expect(logged(first.runId)).toBe(true);
      rmSync(log());
      // Runs after it, until one's lines are in a file at the path (serve looks at most every second).
      await expect
        .poll(async () => logged((await a.runToEnd('a run after the log was deleted')).runId), {
          timeout: 60_000,
          interval: 200,
        })
        .toBe(true);
      expect(statSync(log()).mode & 0o777).toBe(0o600);
      const said = `the log ${log()} was deleted or replaced while this process (pid ${a.child.pid}) wrote to it; its lines go on in a new file at that path`;
      expect(a.err().split(said)).toHaveLength(2);
    } finally {
      await a.stop();
    }
  }, 120_000);
});
