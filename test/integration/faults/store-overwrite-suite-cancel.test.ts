/**
 * A suite run cancelled while another store is being copied over `runs.db` (a copy still going on: the
 * store refuses statements, and the suite runner's reads wait for the copy, asking again every 100 ms:
 * app/suites.ts, infra/store/read-through.ts). The real suite runner on a live service, the scripted LLM
 * server (real HTTP), the real store; the case's run ends (no sandbox backend: an infrastructure error)
 * while the copy goes on, so the runner's read of its events waits; then the suite run is cancelled
 * (`suites.cancel`, what the service's close does for each suite run at `serve`'s or `eval`'s stop
 * signal, and the MCP `run_suite` call's cancel). Its reads must stop. And a `run_suite` call cancelled by
 * its client cancels its suite run (the MCP server over the SDK's in-memory transport).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { createMcpServer } from '../../../src-main/mcp/mcp.ts';
import { RunStore, StoreOverwrittenError } from '../../../src-main/infra/store/run-store.ts';
import { SuiteStore } from '../../../src-main/infra/store/suite-store.ts';
import { POLL_MS } from '../../support/budgets.ts';
import { fence, ORACLE, taskOf } from '../../support/suite-oracle.ts';
import { copyGoingOn } from './support/copy-going-on.ts';
import { otherStore } from './support/other-store.ts';
import { useScriptedWorkspace } from './support/scripted-workspace.ts';

const s = useScriptedWorkspace('toolsmith-overwrite-suite-cancel-');

const TASK = 'What is the name of user u1?';
const SUITE = `sandbox = "ecommerce"\nmode = "plan"\nmodels = []\ntemplates = "off"\n\n[[cases]]\nid = "user-name"\ntask = "${TASK}"\n`;

describe('a suite run cancelled while runs.db is being overwritten in place', () => {
  it("stops the runner's reads of the store at once (before: every 100 ms for up to 60 s), and its end is recorded cancelled in the content copied in", async () => {
    writeFileSync(join(s.ws, 'suites', 'one.toml'), SUITE);
    const foreign = otherStore(s.ws);
    const file = join(s.ws, '.toolsmith', 'runs.db');
    const svc = ToolsmithService.open(s.ws);
    let copy: ReturnType<typeof copyGoingOn> | undefined;
    let suiteRun = '';
    try {
      const suites = await svc.suites();
      const store = (await svc.runs()).store;
      // Each read of a run's events the runner makes of the live store, counted (the store's own).
      let reads = 0;
      const events = store.events.bind(store);
      store.events = (id) => {
        reads++;
        return events(id);
      };
      s.llm.responder = (req) => {
        if (taskOf(req) !== TASK) return undefined;
        const answer = { text: fence(ORACLE[TASK] as string), promptTokens: 200, completionTokens: 50 };
        if (copy) return answer;
        // The case's run is recorded (it asks the LLM): another store is copied over the file and kept
        // changing; the LLM answers once the store has seen it (refusing, the overwrite not acted on).
        copy = copyGoingOn(foreign, file);
        return { ...answer, waitFor: copy.copied.then(() => store.checkFiles()) };
      };
      const started = await suites.start({ suite: 'one' });
      suiteRun = started.suiteRun;
      let settled = false;
      const done = started.done.then(
        (v) => ((settled = true), v),
        (e: unknown) => {
          settled = true;
          throw e;
        },
      );
      done.catch(() => undefined);
      // The case's run ended, its events refused and asked again: the runner waits for the copy.
      await vi.waitFor(() => expect(reads).toBeGreaterThanOrEqual(2), { timeout: POLL_MS, interval: 20 });
      expect(() => events(suiteRun)).toThrow(StoreOverwrittenError);
      expect(suites.cancel(suiteRun)).toBe(true);
      const atCancel = reads;
      // Ten retries' time with the copy still going on: before, each asked the store again.
      await new Promise((r) => setTimeout(r, 1000));
      expect(reads - atCancel).toBe(0);
      // The suite run's end, cancelled, is held; its view cannot be read while the copy goes on.
      await vi.waitFor(() => expect(settled).toBe(true), { timeout: POLL_MS, interval: 20 });
      await expect(done).rejects.toThrow(/nothing could be read/);
      expect(() => events(suiteRun)).toThrow(StoreOverwrittenError);
      copy?.done();
      await vi.waitFor(() => expect(s.said.join('')).toMatch(/overwritten in place with another run store/), {
        timeout: POLL_MS,
        interval: 50,
      });
    } finally {
      copy?.kill();
      await svc.close();
    }
    // Another process reads the content copied in: the suite run carried, ended `cancelled` (not
    // `error`), with no result for the case whose record was not read.
    const back = new RunStore(file);
    try {
      expect(new SuiteStore(back).get(suiteRun)).toMatchObject({ status: 'cancelled', done: 0 });
    } finally {
      back.close();
    }
  }, 120_000);
});

describe('a suite run started by the MCP run_suite tool', () => {
  it('is cancelled when its call is cancelled by the client (before: the suite run went on)', async () => {
    writeFileSync(join(s.ws, 'suites', 'one.toml'), SUITE);
    const svc = ToolsmithService.open(s.ws);
    const client = new Client({ name: 'run-suite-cancelled', version: '1.0.0' });
    // The case's LLM answer is held until the test ends: the suite run is in flight when cancelled.
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    let asked = false;
    s.llm.responder = (req) => {
      if (taskOf(req) !== TASK) return undefined;
      asked = true;
      return { text: fence(ORACLE[TASK] as string), waitFor: released };
    };
    try {
      const server = createMcpServer(svc);
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(a);
      await client.connect(b);
      const ask = new AbortController();
      const call = client.callTool({ name: 'run_suite', arguments: { suite: 'one' } }, CallToolResultSchema, {
        signal: ask.signal,
        timeout: 120_000,
      });
      call.catch(() => undefined);
      await vi.waitFor(() => expect(asked).toBe(true), { timeout: POLL_MS, interval: 20 });
      const suites = await svc.suites();
      const [running] = suites.history('one');
      expect(running?.status).toBe('running');
      ask.abort('given up');
      await expect(call).rejects.toThrow();
      await vi.waitFor(
        () => expect(suites.history('one')[0]).toMatchObject({ id: running?.id, status: 'cancelled' }),
        {
          timeout: POLL_MS,
          interval: 50,
        },
      );
    } finally {
      release();
      await client.close();
      await svc.close();
    }
  }, 120_000);
});
