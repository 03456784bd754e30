/**
 * The MCP server's reads of the run store while another store is being copied over `runs.db` (a copy
 * still going on: the store refuses statements, and a read waits for the copy, asking again every
 * 100 ms: infra/store/read-through.ts), when their request is given up: a real `toolsmith mcp` child
 * (stdio, and `mcp --http`) and the MCP SDK's client. A read whose request was cancelled
 * (`notifications/cancelled`), or whose HTTP client went away, asks the store no more. Counted in the
 * child by a probe (`--import`, NODE_OPTIONS) around the run service's `list` and `get`, each call a
 * line in a file: the child runs the sources (the clone's launcher), so the probe's module is the
 * child's own.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { POLL_MS } from '../../support/budgets.ts';
import { sourceBin } from '../../support/cli-bin.ts';
import { runStarted } from '../../support/run-records.ts';
import { toolsmithArgv } from '../../support/toolsmith-process.ts';
import { copyWorkspace, repoRoot, sampleWorkspace } from '../../support/workspace.ts';
import { connectMcpHttp, startMcpHttpProcess } from '../mcp/support/mcp-http-process.ts';
import { copyGoingOn } from './support/copy-going-on.ts';
import { otherStore } from './support/other-store.ts';

let dir: string;
let ws: string;
let log: string;
let runId: string;
let env: Record<string, string>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-overwrite-mcp-reads-'));
  ws = join(dir, 'ws');
  copyWorkspace(sampleWorkspace, ws);
  // The store the child opens, with one ended run of its own.
  mkdirSync(join(ws, '.toolsmith'), { recursive: true });
  const store = new RunStore(join(ws, '.toolsmith', 'runs.db'));
  runId = store.createRun(runStarted('a run of this workspace'));
  store.append(runId, 'run_finished', { status: 'failed', error: 'e' });
  store.close();
  log = join(dir, 'reads.log');
  writeFileSync(log, '');
  const probe = join(dir, 'probe.mjs');
  writeFileSync(
    probe,
    `import { appendFileSync } from 'node:fs';
const { RunService } = await import(process.env.READS_MODULE);
for (const m of ['list', 'get']) {
  const f = RunService.prototype[m];
  RunService.prototype[m] = function (...a) {
    appendFileSync(process.env.READS_LOG, m + '\\n');
    return f.apply(this, a);
  };
}
`,
  );
  env = {
    ...(process.env as Record<string, string>),
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${probe}`.trim(),
    READS_LOG: log,
    READS_MODULE: pathToFileURL(join(repoRoot, 'src-main/app/runs.ts')).href,
  };
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** How many reads of the run store (the run service's list and get) the child has made. */
const reads = (): number => readFileSync(log, 'utf8').split('\n').filter(Boolean).length;

/**
 * `client` connected to the child; its store opened (a first list answered), then another store
 * copied over it and kept changing until the test ends; `t` runs then.
 */
async function underCopy(client: Client, t: () => Promise<void>): Promise<void> {
  expect((await client.listResources()).resources.map((r) => r.title)).toEqual([
    'failed: a run of this workspace',
  ]);
  expect(reads()).toBeGreaterThanOrEqual(1);
  const c = copyGoingOn(otherStore(dir), join(ws, '.toolsmith', 'runs.db'));
  try {
    await c.copied;
    await t();
  } finally {
    c.kill();
  }
}

/** Until the read is refused and asked again (waiting through the copy): at least two more reads. */
async function waiting(before: number): Promise<void> {
  await vi.waitFor(() => expect(reads() - before).toBeGreaterThanOrEqual(2), {
    timeout: POLL_MS,
    interval: 20,
  });
}

/** Ten retries' time (the copy still going on): before, each asked the store again. */
async function noMoreReadsAfter(atCancel: number): Promise<void> {
  await new Promise((r) => setTimeout(r, 1000));
  expect(reads() - atCancel).toBe(0);
}

/**
 * A resource list asked of `client`, seen waiting through the copy, then cancelled by the client
 * (`notifications/cancelled`); `taken` resolves once the server has taken the cancel. No read after it.
 */
async function listCancelled(client: Client, taken: () => Promise<unknown>): Promise<void> {
  const before = reads();
  const ask = new AbortController();
  const listed = client.listResources(undefined, { signal: ask.signal, timeout: 120_000 });
  listed.catch(() => undefined);
  await waiting(before);
  ask.abort('given up');
  await taken();
  const atCancel = reads();
  await expect(listed).rejects.toThrow();
  await noMoreReadsAfter(atCancel);
}

describe("the MCP server's reads of the run store, given up during a copy over it", () => {
  it('stdio: a resource list cancelled by the client (notifications/cancelled) asks the store no more', async () => {
    const [command, args] = toolsmithArgv(ws, ['mcp'], sourceBin);
    const client = new Client({ name: 'cancelled-read', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command, args, env, stderr: 'pipe' }));
    try {
      await underCopy(client, async () => {
        // The cancel went first on the same pipe: once a ping is answered, the server has taken it.
        await listCancelled(client, () => client.ping());
      });
    } finally {
      await client.close();
    }
  }, 120_000);

  it('mcp --http: a resource read whose HTTP client went away (no cancel sent) asks the store no more', async () => {
    const server = await startMcpHttpProcess(ws, [], env, sourceBin);
    try {
      const token = server.token ?? '';
      const client = await connectMcpHttp(server.url, token, 'client-gone');
      await underCopy(client, async () => {
        const before = reads();
        const read = client.readResource({ uri: `toolsmith://runs/${runId}` }, { timeout: 120_000 });
        read.catch(() => undefined);
        await waiting(before);
        // The client's connection closed, its session left open (no DELETE, no cancel).
        await client.close();
        // Its close came before another client's request: once that is answered, the server has seen it.
        const other = await connectMcpHttp(server.url, token, 'after');
        await other.ping();
        await other.close();
        await noMoreReadsAfter(reads());
      });
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('mcp --http: a resource list cancelled by the client (notifications/cancelled) asks the store no more', async () => {
    const server = await startMcpHttpProcess(ws, [], env, sourceBin);
    try {
      const transport = new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${server.token ?? ''}` } },
      });
      // The cancel is a POST of its own: its answer (202) comes once the server has taken it.
      let cancelSent: Promise<void> | undefined;
      const send = transport.send.bind(transport);
      transport.send = (m, o) => {
        const sent = send(m, o);
        if ('method' in m && m.method === 'notifications/cancelled') cancelSent = sent;
        return sent;
      };
      const client = new Client({ name: 'cancelled-read', version: '1.0.0' });
      await client.connect(transport);
      try {
        await underCopy(client, async () => {
          await listCancelled(client, async () => {
            await vi.waitFor(() => expect(cancelSent).toBeDefined(), { timeout: POLL_MS, interval: 20 });
            await cancelSent;
          });
        });
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  }, 120_000);
});
