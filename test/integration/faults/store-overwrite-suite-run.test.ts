/**
 * A suite run going on while another store is copied over `runs.db` in place, through the real suite
 * runner: the scripted LLM server (real HTTP), a real sandbox container, the real run store. The copy
 * starts once the case's run is recorded (when the LLM is asked) and keeps the file changing until that
 * run has ended, so the run's last events, and the runner's first read of them, come while the store
 * refuses statements (StoreOverwrittenError). The suite run must still pass, whole, in the content copied
 * in.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { SuiteStore } from '../../../src-main/infra/store/suite-store.ts';
import { POLL_MS } from '../../support/budgets.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { runStarted } from '../../support/run-records.ts';
import { requireDocker } from '../../support/sandbox.ts';
import { fence, ORACLE, scriptedConfig, taskOf } from '../../support/suite-oracle.ts';
import { repoRoot, tempWorkspace } from '../../support/workspace.ts';
import { stderrSaid } from './support/stderr-said.ts';

let llm: LlmServer;
let ws: string;

beforeAll(async () => {
  await requireDocker();
  llm = await startLlmServer();
  ws = tempWorkspace('toolsmith-overwrite-suite-');
  scriptedConfig(ws, llm.openaiUrl);
}, 120_000);
afterAll(async () => {
  await llm?.close();
  if (ws) rmSync(ws, { recursive: true, force: true });
});

const TASK = 'What is the name of user u1?';

describe('a suite run while runs.db is being overwritten in place', () => {
  it('passes, whole, in the content copied in, its case run having ended while the copy went on', async () => {
    writeFileSync(
      join(ws, 'suites', 'one.toml'),
      `sandbox = "ecommerce"\nmode = "plan"\nmodels = []\ntemplates = "off"\n\n[[cases]]\nid = "user-name"\ntask = "${TASK}"\n\n[[cases.assert]]\ntype = "equals"\nvalue = "Ada Lovelace"\n`,
    );
    // Another workspace's store (its own id), with one run of its own: what is copied over the live one.
    const other = join(ws, 'other.db');
    const theirs = new RunStore(other);
    const theirRun = theirs.createRun(runStarted('a run of the other store'));
    theirs.append(theirRun, 'run_finished', { status: 'failed', error: 'e' });
    theirs.close();
    const file = join(ws, '.toolsmith', 'runs.db');

    const said = stderrSaid();
    const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
    let copier: ChildProcess | undefined;
    let suiteRun = '';
    try {
      const suites = await svc.suites();
      // The case's run has ended (its end is held while the copy goes on: its push comes all the same).
      let ended = false;
      svc.onPush((e) => {
        if (copier && e.type === 'run_event' && e.event.type === 'run_finished') ended = true;
      });
      llm.responder = (req) => {
        if (taskOf(req) !== TASK) return undefined;
        // The case's run is recorded (it asks the LLM): another program copies a store over the file, then
        // keeps changing it (a copy still going on) until told to stop.
        if (!copier) {
          execFileSync('cp', [other, file]);
          copier = spawn(
            join(repoRoot, 'node_modules/.bin/node'),
            [
              '-e',
              `const fs = require('node:fs');
             const t = setInterval(() => { const now = new Date(); fs.utimesSync(process.argv[1], now, now); }, 50);
             process.stdin.on('end', () => clearInterval(t)).resume();`,
              file,
            ],
            { stdio: ['pipe', 'ignore', 'inherit'] },
          );
        }
        return { text: fence(ORACLE[TASK] as string), promptTokens: 200, completionTokens: 50 };
      };
      const started = await suites.start({ suite: 'one' });
      suiteRun = started.suiteRun;
      await vi.waitFor(() => expect(ended).toBe(true), { timeout: POLL_MS, interval: 50 });
      copier?.stdin?.end();
      // Before: the case's events could not be read ("the case could not start: the run store ... is
      // being overwritten in place"), and its result and the suite run's end were refused: an error.
      const view = await started.done;
      expect(view.status).toBe('passed');
      expect(view.results.map((r) => [r.caseId, r.passed, r.infra])).toEqual([
        ['user-name', true, undefined],
      ]);
      expect(said.join('')).toMatch(/overwritten in place with another run store/);
    } finally {
      copier?.kill();
      await svc.close();
      vi.restoreAllMocks();
    }
    // Another process reads the content copied in: the other store's run, and the suite run whole.
    const store = new RunStore(file);
    try {
      expect(store.has(theirRun)).toBe(true);
      expect(new SuiteStore(store).get(suiteRun)).toMatchObject({ status: 'passed', done: 1, passed: 1 });
      const runs = store.list({ suiteRun }).runs;
      expect(runs.map((r) => [r.task, r.status])).toEqual([[TASK, 'succeeded']]);
    } finally {
      store.close();
    }
  }, 300_000);
});
