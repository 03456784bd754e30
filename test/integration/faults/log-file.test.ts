/**
 * The workspace's log (`.toolsmith/logs/toolsmith.jsonl`) deleted under a live `serve`, as a person
 * clearing it or a cleanup job does: serve's lines went on into the file it had open, which nobody could
 * read any more, and no line said so; a log rotation that moves the file away did the same. Now serve
 * notices at a later line (it looks at most every second), opens a new file at the path and says so once.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { cliProcess, startServe } from './support/processes.ts';

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

  it('a new file that cannot be made for a while (a file where logs/ belongs): made once it can, and serve lives on', async () => {
    // (before: the failed reopen's error was thrown again on the next tick, "Unhandled 'error' event",
    // and serve ended with the first line after the log was deleted)
    const logs = join(fx.ws, '.toolsmith', 'logs');
    const a = await startServe(fx.ws, fx.data);
    try {
      await a.runToEnd('a first run');
      rmSync(logs, { recursive: true });
      writeFileSync(logs, 'not a folder\n');
      // Several runs' lines, each more than a second after the one before: each looks, and fails to
      // make a new file.
      for (let i = 0; i < 3; i++) {
        const seen = Date.now();
        await a.runToEnd(`a run while the log cannot be made ${i}`);
        await expect.poll(() => Date.now() - seen > 1100, { timeout: 10_000, interval: 100 }).toBe(true);
      }
      rmSync(logs);
      await expect
        .poll(async () => logged((await a.runToEnd('a run after logs/ can be made again')).runId), {
          timeout: 60_000,
          interval: 200,
        })
        .toBe(true);
      // Serve goes on, into that file: the descriptor it replaced was closed once, not once per try.
      await new Promise((r) => setTimeout(r, 1100));
      const later = await a.runToEnd('a later run');
      expect(logged(later.runId), a.err()).toBe(true);
      expect(a.child.exitCode, a.err()).toBeNull();
      expect(a.err()).not.toMatch(/EBADF|EEXIST|MaxListenersExceeded|Unhandled/);
      expect(a.err().split('was deleted or replaced while this process')).toHaveLength(2);
    } finally {
      await a.stop();
      if (statSync(logs, { throwIfNoEntry: false })?.isFile()) rmSync(logs);
    }
  }, 180_000);

  it('replaced by a rotation with a file readable by all: written to, and readable by its owner only', async () => {
    const a = await startServe(fx.ws, fx.data);
    try {
      await a.runToEnd('a first run');
      // logrotate's `create 0644`: the file moved away, an empty one made in its place.
      renameSync(log(), `${log()}.1`);
      writeFileSync(log(), '', { mode: 0o644 });
      chmodSync(log(), 0o644);
      await expect
        .poll(async () => logged((await a.runToEnd('a run after the rotation')).runId), {
          timeout: 60_000,
          interval: 200,
        })
        .toBe(true);
      expect(statSync(log()).mode & 0o777).toBe(0o600);
    } finally {
      await a.stop();
    }
  }, 120_000);

  it('a named pipe put at the path is not opened (it would wait for a reader, and serve with it)', async () => {
    const a = await startServe(fx.ws, fx.data);
    try {
      await a.runToEnd('a first run');
      rmSync(log());
      execFileSync('mkfifo', ['-m', '600', log()]);
      // Runs still end, their lines looked at more than a second apart.
      for (let i = 0; i < 2; i++) {
        const seen = Date.now();
        const r = await a.runToEnd(`a run beside the pipe ${i}`);
        expect(r.status).toBe('failed');
        await expect.poll(() => Date.now() - seen > 1100, { timeout: 10_000, interval: 100 }).toBe(true);
      }
      rmSync(log());
      await expect
        .poll(async () => logged((await a.runToEnd('a run after the pipe is gone')).runId), {
          timeout: 60_000,
          interval: 200,
        })
        .toBe(true);
    } finally {
      // (a serve stuck opening the pipe is let go: a reader opens it)
      if (existsSync(log()) && !statSync(log()).isFile()) {
        const fd = openSync(log(), constants.O_RDONLY | constants.O_NONBLOCK);
        closeSync(fd);
      }
      await a.stop();
    }
  }, 120_000);
  it('a named pipe at the path as a process starts: not opened (every verb and serve waited there for a reader); said once, and a file put there later takes the lines', async () => {
    const first = await startServe(fx.ws, fx.data);
    const made = await first.runToEnd('a run that makes the log');
    await first.stop();
    expect(logged(made.runId)).toBe(true);
    rmSync(log());
    execFileSync('mkfifo', ['-m', '600', log()]);
    const said = `toolsmith: the log ${log()} is a named pipe, not a file (opening it would wait for a reader); this process goes on without writing its log lines until a file is at that path; remove it to keep them\n`;
    let a: Awaited<ReturnType<typeof startServe>> | undefined;
    const list = cliProcess(fx.ws, fx.data, ['runs', 'list', '--json']);
    try {
      const ended = await Promise.race([
        list.done,
        new Promise((r) => setTimeout(() => r(undefined), 60_000)),
      ]);
      expect(ended, `runs list did not end with a named pipe at the log's path: ${list.err()}`).toBeDefined();
      const { code, out, err } = ended as Awaited<typeof list.done>;
      expect(code, err).toBe(0);
      expect(err).toBe(said);
      expect((JSON.parse(out) as { runs: { id: string }[] }).runs.map((r) => r.id)).toContain(made.runId);
      a = await startServe(fx.ws, fx.data);
      const beside = await a.runToEnd('a run beside the pipe');
      expect(beside.status).toBe('failed');
      expect(a.err().split(said)).toHaveLength(2);
      rmSync(log());
      await expect
        .poll(async () => logged((await a!.runToEnd('a run after the pipe is gone')).runId), {
          timeout: 60_000,
          interval: 200,
        })
        .toBe(true);
      expect(a.err()).toContain(`toolsmith: the log ${log()} is a file now; this process (pid `);
    } finally {
      list.child.kill('SIGKILL');
      if (existsSync(log()) && !statSync(log()).isFile()) {
        const fd = openSync(log(), constants.O_RDONLY | constants.O_NONBLOCK);
        closeSync(fd);
      }
      await a?.stop();
    }
  }, 180_000);
});
