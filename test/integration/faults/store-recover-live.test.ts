/**
 * `toolsmith runs recover` while another process has the store open: a serve left running when it said
 * "the run store ... is damaged; `toolsmith runs recover` ...", or one started while the recovery
 * copies the runs. The recovery copies the file, writes every run into a new one and moves the old file
 * aside; a live process goes on writing to the file it has open, and when it notices the file at the
 * path was replaced it writes there again only the runs still going. A run it finished while the runs
 * were copied read `interrupted` in the recovered store for good (its end, and the attempts after the
 * copy, were only in the file moved aside), said nowhere. Now the recovery is refused while another
 * process has the store open (SQLite's lock on it, from the kernel's lock table), naming the process,
 * and given up with nothing changed when one opened it meanwhile.
 */
import { closeSync, openSync, readdirSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { runStarted } from '../../support/run-records.ts';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { cliProcess, startServe } from './support/processes.ts';
import type { CliProcess, ServeProcess } from './support/processes.ts';

// No script in the answers: each run fails its attempts at validation, no sandbox is needed.
const fx = useScriptedWorkspace({
  dataPerTest: true,
  eachTest: (llm) => (llm.fallback = { text: 'I will not write code.' }),
});
const dir = () => join(fx.ws, '.toolsmith');
const db = () => join(dir(), 'runs.db');
const besideStore = () => readdirSync(dir()).filter((f) => /^runs\.db\.(recovered|damaged)-/.test(f));

/**
 * A store of `n` finished runs, written in one transaction (one commit: a commit per event made 2,000
 * runs take 8-12 s of the test's own process on a loaded 2-core machine, its largest part).
 */
function seed(n: number): void {
  const store = new RunStore(db());
  try {
    store.batch(() => {
      for (let i = 0; i < n; i++) {
        const id = store.createRun(runStarted(`seeded task ${i}`));
        store.append(id, 'run_finished', { status: 'succeeded', result: i });
      }
    });
  } finally {
    store.close();
  }
}

/**
 * Waits until the recovery `p` has ended, or has begun writing its new file (the runs are being copied:
 * past its first look for other processes, before its last); then, if it is still going, stops it there
 * (SIGSTOP) until the returned function lets it go on (SIGCONT). What the test does meanwhile happens
 * while the runs are copied however long the copy takes on a loaded machine. Before, the copy of 2,000
 * runs had to outlast a serve's start or a run's end, and the store was made large for it (most of the
 * test's time: seeding it and recovering it twice).
 */
async function stopWhileCopying(p: CliProcess): Promise<{ stopped: boolean; resume: () => void }> {
  const ended = () => p.child.exitCode !== null || p.child.signalCode !== null;
  while (!ended() && !besideStore().some((f) => f.includes('.recovered-')))
    await new Promise((r) => setTimeout(r, 5));
  if (ended()) return { stopped: false, resume: () => {} };
  p.child.kill('SIGSTOP');
  let resumed = false;
  return {
    stopped: true,
    resume: () => {
      if (!resumed && !ended()) p.child.kill('SIGCONT');
      resumed = true;
    },
  };
}

/** Each run's status as another process reads the store. */
async function statuses(): Promise<Map<string, string>> {
  const r = await cliProcess(fx.ws, fx.data, ['runs', 'list', '--json', '--limit', '100']).done;
  expect(r.code, r.err).toBe(0);
  return new Map(
    (JSON.parse(r.out) as { runs: { id: string; status: string }[] }).runs.map((x) => [x.id, x.status]),
  );
}

describe('runs recover while another process has the store open', () => {
  it('refused naming serve; a run serve finishes meanwhile keeps its end; once serve stops, the recovery runs', async () => {
    seed(500);
    const a = await startServe(fx.ws, fx.data);
    try {
      // A run in flight on serve whose answer comes once the recovery has begun writing its new file
      // (or has ended): without the refusal, the run ends between the copy and the file's replacement
      // (the recovery is held there until the run has ended).
      let release = () => {};
      const gate = new Promise<void>((r) => (release = r));
      const asked = fx.llm.requests.length;
      fx.llm.push({ text: 'I will not write code.', waitFor: gate });
      const { runId } = await a.call<{ runId: string }>('runs.start', {
        task: 'a run in flight',
        sandbox: 'ecommerce',
      });
      await expect.poll(() => fx.llm.requests.length).toBeGreaterThan(asked);

      const recover = cliProcess(fx.ws, fx.data, ['runs', 'recover']);
      const copying = await stopWhileCopying(recover);
      try {
        release();
        await expect
          .poll(async () => (await a.call<{ status: string }>('runs.get', { runId })).status, {
            timeout: 30_000,
          })
          .not.toBe('running');
      } finally {
        copying.resume();
      }
      const rec = await recover.done;

      // Serve goes on writing; every process reads the run as it ended.
      await expect.poll(async () => (await statuses()).get(runId), { timeout: 30_000 }).toBe('failed');
      expect(rec.code, rec.out + rec.err).toBe(3);
      expect(rec.err).toContain(
        `the run store ${db()} is open in another process (pid ${a.child.pid}: node `,
      );
      expect(rec.err).toContain(' serve --port 0 ');
      expect(rec.err).toContain(
        'stop it (serve, mcp, the workbench, a run) and recover again; nothing was changed',
      );
      expect(besideStore()).toEqual([]);

      await a.stop();
      // The store damaged now (page 4 is the runs table's root in every store Toolsmith makes): a store
      // that is not damaged is not recovered at all.
      const fd = openSync(db(), 'r+');
      writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, 3 * 4096);
      closeSync(fd);

      // A serve that opens the store while the runs are copied: the recovery is given up, nothing changed.
      const started = cliProcess(fx.ws, fx.data, ['runs', 'recover']);
      const copying2 = await stopWhileCopying(started);
      expect(copying2.stopped, started.err()).toBe(true);
      let b: ServeProcess | undefined;
      try {
        b = await startServe(fx.ws, fx.data);
        // (its answer says the store is damaged; what matters is that serve has the file open)
        await b.call('runs.list', {}).catch(() => undefined);
        copying2.resume();
        const late = await started.done;
        expect(late.code, late.out + late.err).toBe(3);
        expect(late.err).toContain(
          `the run store ${db()} was opened by another process while its runs were copied (pid ${b.child.pid}: node `,
        );
        expect(besideStore()).toEqual([]);
      } finally {
        copying2.resume();
        await b?.stop();
      }

      const after = await cliProcess(fx.ws, fx.data, ['runs', 'recover']).done;
      expect(after.code, after.err).toBe(0);
      expect(after.out).toMatch(/^recovered 501 run\(s\)/);
      expect((await statuses()).get(runId)).toBe('failed');
    } finally {
      if (a.child.exitCode === null) await a.stop();
    }
  }, 300_000);
});
