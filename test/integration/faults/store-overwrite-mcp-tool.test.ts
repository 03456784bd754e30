/**
 * A run tool's answer (MCP `delegate`: the run's record, its failed calls and its agent context) when
 * the run ends while another store is being copied over `runs.db` (a copy still going on: the store
 * refuses statements). The MCP server (createMcpServer, the SDK's client over its in-memory transport)
 * on a live service, the scripted LLM server (real HTTP), the real store; the LLM answers with no script
 * once the store has seen the copy, so the run fails at once, with no sandbox. The answer waits for the
 * copy and reads the run in the content copied in; a call cancelled meanwhile stops asking the store.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { createMcpServer } from '../../../src-main/mcp/mcp.ts';
import { POLL_MS } from '../../support/budgets.ts';
import { taskOf } from '../../support/suite-oracle.ts';
import { copyGoingOn } from './support/copy-going-on.ts';
import { otherStore } from './support/other-store.ts';
import { useScriptedWorkspace } from './support/scripted-workspace.ts';

const s = useScriptedWorkspace('toolsmith-overwrite-mcp-tool-');

const TASK = 'What is the name of user u1?';

/**
 * The service and an MCP client of it; the LLM's answer to TASK (no script: the run fails) held until
 * another store is copied over the file and seen by the store (kept changing until `copy.done()`);
 * `gets` counts the store's reads of one run (its record, its id looked up). `t` runs then.
 */
async function delegateUnderCopy(
  t: (parts: {
    client: Client;
    store: RunStore;
    gets: () => number;
    copy: () => ReturnType<typeof copyGoingOn> | undefined;
  }) => Promise<void>,
): Promise<void> {
  const foreign = otherStore(s.ws);
  const file = join(s.ws, '.toolsmith', 'runs.db');
  const svc = ToolsmithService.open(s.ws);
  const client = new Client({ name: 'delegate-under-copy', version: '1.0.0' });
  let copy: ReturnType<typeof copyGoingOn> | undefined;
  try {
    const store = (await svc.runs()).store;
    let gets = 0;
    const get = store.get.bind(store);
    const has = store.has.bind(store);
    store.get = (id) => {
      gets++;
      return get(id);
    };
    // (a run's id is looked up first: RunService.get)
    store.has = (id) => {
      gets++;
      return has(id);
    };
    s.llm.responder = (req) => {
      if (taskOf(req) !== TASK) return undefined;
      // (asked again after an answer with no script: answered at once)
      if (copy) return { text: 'No script from me.' };
      copy = copyGoingOn(foreign, file);
      return { text: 'No script from me.', waitFor: copy.copied.then(() => store.checkFiles()) };
    };
    const server = createMcpServer(svc);
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    await client.connect(b);
    await t({ client, store, gets: () => gets, copy: () => copy });
  } finally {
    copy?.kill();
    await client.close();
    await svc.close();
  }
}

describe('a run tool whose run ends while runs.db is being overwritten in place', () => {
  it('answers the run, read in the content copied in (before: the read was refused at once and the tool answered the copy as an error)', async () => {
    await delegateUnderCopy(async ({ client, gets, copy }) => {
      const answer = client.callTool(
        { name: 'delegate', arguments: { task: TASK, max_retries: 0 } },
        CallToolResultSchema,
        { timeout: 120_000 },
      );
      // The run ended; its record refused and asked again: the answer waits for the copy.
      await vi.waitFor(() => expect(gets()).toBeGreaterThanOrEqual(2), { timeout: POLL_MS, interval: 20 });
      copy()?.done();
      const r = await answer;
      const text = JSON.stringify(r.content);
      expect(text).not.toMatch(/overwritten/);
      expect(r.structuredContent).toMatchObject({ status: 'failed' });
      expect(text).toContain(TASK);
      await vi.waitFor(() => expect(s.said.join('')).toMatch(/overwritten in place with another run store/), {
        timeout: POLL_MS,
        interval: 50,
      });
    });
  }, 120_000);

  it('a call cancelled while its answer waits for the copy asks the store no more', async () => {
    await delegateUnderCopy(async ({ client, gets }) => {
      const ask = new AbortController();
      const answer = client.callTool(
        { name: 'delegate', arguments: { task: TASK, max_retries: 0 } },
        CallToolResultSchema,
        { signal: ask.signal, timeout: 120_000 },
      );
      answer.catch(() => undefined);
      await vi.waitFor(() => expect(gets()).toBeGreaterThanOrEqual(2), { timeout: POLL_MS, interval: 20 });
      ask.abort('given up');
      // The cancel went first on the same transport: once the ping is answered, the server has taken it.
      await client.ping();
      const atCancel = gets();
      await expect(answer).rejects.toThrow();
      // Ten retries' time with the copy still going on: before, each asked the store again.
      await new Promise((r) => setTimeout(r, 1000));
      expect(gets() - atCancel).toBe(0);
    });
  }, 120_000);
});
