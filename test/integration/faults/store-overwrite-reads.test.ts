/**
 * Reads of the run store by a live service while `runs.db` is being overwritten in place (a copy still
 * going on: StoreConnection refuses statements until the file stays the same). The workbench's reads
 * (`runs.list`, `runs.get`, through the same dispatch as its IPC and HTTP front ends) wait for the copy
 * and answer the content copied in, as the suite runner's own reads do; a read refused says it is a
 * read. Before, each was refused at once as an `internal` error saying "nothing was written".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { runContextText } from '../../../src-main/mcp/mcp-runs.ts';
import type { ApiResult } from '../../../src-main/contract/api.ts';
import type { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { StoreOverwrittenError } from '../../../src-main/infra/store/run-store.ts';
import { POLL_MS } from '../../support/budgets.ts';
import { runStarted } from '../../support/run-records.ts';
import { copyGoingOn } from './support/copy-going-on.ts';
import { otherStore } from './support/other-store.ts';
import { stderrSaid } from './support/stderr-said.ts';
import { copyWorkspace, sampleWorkspace } from '../../support/workspace.ts';
import { startWebServer } from '../../../src-main/web/server.ts';

let dir: string;
let said: string[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-overwrite-reads-'));
  said = stderrSaid();
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** Whether `p` has settled by the time the event loop has turned for `ms`. */
async function settledWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  void p.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((r) => setTimeout(r, ms));
  return settled;
}

/**
 * A live service on a copy of the sample workspace, one run of it in flight, and another store being
 * copied over its `runs.db` (copied in, its time still changing until `c.done()`), seen by the store
 * and not acted on; `t` runs then, and the copy and the service end after it.
 */
async function underCopy(
  t: (parts: {
    svc: ToolsmithService;
    store: RunStore;
    going: string;
    c: ReturnType<typeof copyGoingOn>;
  }) => Promise<void>,
): Promise<void> {
  const foreign = otherStore(dir);
  const ws = join(dir, 'ws');
  copyWorkspace(sampleWorkspace, ws);
  const svc = ToolsmithService.open(ws);
  let c: ReturnType<typeof copyGoingOn> | undefined;
  try {
    const store = (await svc.runs()).store;
    const going = store.createRun(runStarted('a run in flight over the copy'));
    store.checkFiles();
    c = copyGoingOn(foreign, store.file);
    await c.copied;
    store.checkFiles(); // (seen, not acted on: the file keeps changing until told to stop)
    await t({ svc, store, going, c });
  } finally {
    c?.kill();
    await svc.close();
  }
}

describe("the workbench's reads of the run store while a copy goes on over it", () => {
  it('runs.list and runs.get wait for the copy and answer the content copied in; a read refused meanwhile says it is a read', async () => {
    await underCopy(async ({ svc, store, going, c }) => {
      // The store's own read is refused while the copy goes on, in a read's words.
      const refused = (() => {
        try {
          store.list();
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(refused).toBeInstanceOf(StoreOverwrittenError);
      expect((refused as Error).message).toMatch(
        /is being overwritten in place with another run store .*\(a copy still going on\?\): nothing could be read/,
      );
      expect((refused as Error).message).not.toMatch(/nothing was written/);
      // The workbench's reads wait (before: answered at once, `internal`, "nothing was written").
      const listed = dispatch(svc, 'runs.list', {}) as Promise<ApiResult<'runs.list'>>;
      const got = dispatch(svc, 'runs.get', { runId: going }) as Promise<ApiResult<'runs.get'>>;
      expect(await settledWithin(Promise.all([listed, got]), 300)).toBe(false);
      // (still going on: nothing acted on yet)
      expect(said.join('')).not.toMatch(/overwritten in place/);
      c.done();
      const page = await listed;
      if (!page.ok) throw new Error(page.error.message);
      expect(page.value.runs.map((r) => r.task).sort()).toEqual([
        'a run in flight over the copy',
        'a run of the other store',
      ]);
      const run = await got;
      if (!run.ok) throw new Error(run.error.message);
      expect(run.value.status).toBe('running');
      await vi.waitFor(() => expect(said.join('')).toMatch(/overwritten in place with another run store/), {
        timeout: POLL_MS,
        interval: 50,
      });
    });
  }, 60_000);

  it("the MCP server's read of one run (its resource, a run tool's answer) waits for the copy as its list does", async () => {
    await underCopy(async ({ svc, store, going, c }) => {
      expect(() => store.list()).toThrow(StoreOverwrittenError);
      // Before: refused at once (a run tool's answer failed after its run had ended, the resource
      // read answered -32603 in a copy's words).
      const read = runContextText(svc, going);
      const early = await Promise.race([
        read.then(
          () => 'answered',
          (e: unknown) => `refused: ${String(e)}`,
        ),
        new Promise<string>((r) => setTimeout(() => r('waiting'), 300)),
      ]);
      expect(early).toBe('waiting');
      c.done();
      expect(await read).toContain('a run in flight over the copy');
    });
  }, 60_000);

  it('a read whose HTTP client went away during the copy stops: the store is asked no more (before: every 100 ms for 30 s)', async () => {
    await underCopy(async ({ svc, store }) => {
      // Each read the run list makes of the live store, counted (the store's own list, unchanged).
      let reads = 0;
      const list = store.list.bind(store);
      store.list = (f) => {
        reads++;
        return list(f);
      };
      const web = await startWebServer(svc);
      try {
        // The server's side of the request's connection: closed once it has seen the client go.
        let serverSide: Promise<void> | undefined;
        web.server.once('connection', (s: Socket) => {
          serverSide = new Promise<void>((r) => s.once('close', () => r()));
        });
        const { port } = web;
        const req = request({
          host: '127.0.0.1',
          port,
          path: '/api/runs.list',
          method: 'POST',
          headers: {
            origin: `http://127.0.0.1:${port}`,
            authorization: `Bearer ${web.token}`,
            'content-type': 'application/json',
          },
        });
        req.on('error', () => undefined);
        req.end('{}');
        // Refused (the copy goes on until this test ends) and asked again: the read is waiting.
        await vi.waitFor(() => expect(reads).toBeGreaterThanOrEqual(2), { timeout: POLL_MS, interval: 20 });
        req.destroy();
        await serverSide;
        const atClose = reads;
        // Ten retries' time with the copy still going on: before, each asked the store again.
        await new Promise((r) => setTimeout(r, 1000));
        expect(reads - atClose).toBe(0);
        // (the copy still going on: a read would still be refused and asked again)
        expect(() => list()).toThrow(StoreOverwrittenError);
      } finally {
        await web.close();
      }
    });
  }, 60_000);
});
