/**
 * LLM faults as a person running `toolsmith run` meets them (a real CLI process, a real loopback LLM
 * server, real containers): each retry and its wait is printed as it starts and recorded in the run's
 * history; a server asking to wait an hour fails at once saying when to try again; an SDK's own parse
 * complaint never reaches stderr. Continue from an attempt asks the provider that wrote it, not the
 * first configured one that was down.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { POLL_MS } from '../../support/budgets.ts';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { RunRecord } from '../../../src-main/core/records/records.ts';
import { atomicWrite } from '../../../src-main/infra/workspace/files.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { removeWorkspace, replaceProviders, tempWorkspace } from '../../support/workspace.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startMcpHttpProcess } from '../mcp/support/mcp-http-process.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';

let llm: LlmServer;
let ws: string;

const ANSWER = '```python\nr = check_inventory(product_id="p3")\nemit_result(r.data["in_stock"])\n```';

/** The sample workspace with `providers` (TOML tables) instead of its own. */
function withProviders(dir: string, providers: string): void {
  const file = join(dir, '.toolsmith', 'config.toml');
  atomicWrite(file, replaceProviders(readFileSync(file, 'utf8'), providers));
}

beforeAll(async () => {
  llm = await startLlmServer();
  ws = tempWorkspace('toolsmith-llm-faults-');
  withProviders(
    ws,
    `[[providers]]\nid = "scripted"\nkind = "openai"\nbase_url = "${llm.openaiUrl}"\nmodel = "scripted-model"\nidle_timeout_ms = 500\nmax_retry_wait_ms = 5000\n`,
  );
});
afterAll(async () => {
  await llm.close();
  removeWorkspace(ws);
});
beforeEach(() => llm.reset());

const run = (task: string) =>
  runToolsmith(ws, ['run', task, '--sandbox', 'ecommerce', '--no-templates', '--json']);

describe('toolsmith run meets a misbehaving LLM endpoint', () => {
  it('a stalled stream: the retry and its wait are printed live and recorded; the run succeeds', async () => {
    llm.push({ text: ANSWER, stallAfterChunks: 1 }, { text: ANSWER });
    const r = await run('how many p3 are in stock');
    expect(r.err).toMatch(
      /llm retry 1 \(scripted\): timed out: the answer stalled: no data for 500 ms \(idle_timeout_ms\); retrying in \d+(\.\d)? (s|ms)\n/,
    );
    expect(r.code).toBe(0);
    const rec = JSON.parse(r.out) as RunRecord;
    expect(rec.result).toBe(4);
    expect(rec.attempts[0]?.retries).toEqual([
      expect.objectContaining({
        n: 1,
        provider: 'scripted',
        attempt: 1,
        reason: 'timed out: the answer stalled: no data for 500 ms (idle_timeout_ms)',
      }),
    ]);
  }, 120_000);

  it('a Retry-After of an hour: fails at once saying when to try again, one request sent', async () => {
    llm.fallback = { status: 429, retryAfter: '3600' };
    const r = await run('how many p3 are in stock');
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /rate limited \(429\): the server asks to wait 3600 s \(Retry-After\), longer than the 5 s this provider waits \(max_retry_wait_ms\); try again after \d{4}-\d\d-\d\dT/,
    );
    expect(r.err).not.toMatch(/llm retry/);
    expect(llm.requests).toHaveLength(1);
  }, 120_000);

  it('a stream of garbage: a malformed-answer error from Toolsmith, nothing from the SDK on stderr', async () => {
    llm.fallback = { malformed: true };
    const r = await run('how many p3 are in stock');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/llm error: scripted: malformed answer/);
    expect(r.err).not.toMatch(/Could not parse message into JSON|From chunk/);
  }, 120_000);

  it('an answer of prose without code is said as such, to the person and in the correction the LLM gets', async () => {
    llm.push('Sure! I would count the orders by looking at them.', ANSWER);
    const r = await run('how many p3 are in stock');
    expect(r.code).toBe(0);
    const said =
      'the answer held no script, only text ("Sure! I would count the orders by looking at them."): answer with the whole script in one fenced ```python block';
    expect(JSON.stringify((JSON.parse(r.out) as RunRecord).attempts[0]?.rejected)).toContain(
      JSON.stringify(said).slice(1, -1),
    );
    // The correction asked of the LLM names the cause, not "the script is empty".
    expect(llm.requests).toHaveLength(2);
    expect(JSON.stringify(llm.requests[1]?.body)).toContain('the answer held no script, only text');
  }, 120_000);

  it('a cut stream is never validated as a script: retried, then the whole answer runs', async () => {
    llm.push({ text: ANSWER, cutAfterChunks: 2 }, { text: ANSWER });
    const r = await run('how many p3 are in stock');
    expect(r.code).toBe(0);
    const rec = JSON.parse(r.out) as RunRecord;
    expect(rec.attempts).toHaveLength(1);
    expect(rec.attempts[0]?.rejected).toEqual([]);
    expect(rec.attempts[0]?.retries[0]?.reason).toMatch(/^connection failed: the answer stream ended/);
  }, 120_000);
});

describe('MCP delegate tells each LLM retry as progress', () => {
  it('a stalled stream: the client hears the retry and its wait before the result', async () => {
    const server = await startMcpHttpProcess(ws);
    const client = new Client({ name: 'llm-faults', version: '1.0.0' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { authorization: `Bearer ${server.token ?? ''}` } },
        }),
      );
      llm.push({ text: ANSWER, stallAfterChunks: 1 }, { text: ANSWER });
      const heard: string[] = [];
      const r = await client.callTool(
        { name: 'delegate', arguments: { task: 'how many p3 are in stock (mcp)', sandbox: 'ecommerce' } },
        undefined,
        { timeout: 120_000, onprogress: (p) => heard.push(String(p.message)) },
      );
      expect(r.isError).not.toBe(true);
      expect(heard).toContainEqual(
        expect.stringMatching(
          /^attempt 1: scripted retry 1: timed out: the answer stalled: no data for 500 ms \(idle_timeout_ms\); retrying in /,
        ),
      );
    } finally {
      await client.close();
      await server.stop();
    }
  }, 180_000);
});

describe('continue and replay use the providers as the run used them', () => {
  it('the first provider was down: attempts name the one that answered, and Continue asks it (with its model)', async () => {
    const dir = tempWorkspace('toolsmith-continue-');
    try {
      withProviders(
        dir,
        // Port 9 (discard) refuses connections here: the first provider is down.
        `[[providers]]\nid = "down"\nkind = "openai"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "down-model"\n\n` +
          `[[providers]]\nid = "up"\nkind = "openai"\nbase_url = "${llm.openaiUrl}"\nmodel = "up-model"\n`,
      );
      const svc = ToolsmithService.open(dir, { sandboxFactory: createSandboxManager, oneShot: true });
      try {
        llm.push({ text: '```python\nemit_result(missing_name)\n```' }, { text: ANSWER });
        const runs = await svc.runs();
        const first = await runs.start({
          task: 'how many p3 are in stock',
          sandbox: 'ecommerce',
          providers: svc.settings.providersFor(),
          noTemplates: true,
          maxRetries: 1,
        });
        const outcome = await first.done;
        expect(outcome).toMatchObject({ status: 'succeeded', result: 4 });
        const rec = runs.get(outcome.runId);
        // Each with the API it speaks and its endpoint (what a trace's chat spans name).
        expect(rec.started.providers).toEqual([
          {
            id: 'down',
            model: 'down-model',
            kind: 'openai',
            endpoint: 'http://127.0.0.1:9/v1',
            maxTokens: 2048,
            temperature: 0,
          },
          {
            id: 'up',
            model: 'up-model',
            kind: 'openai',
            endpoint: llm.openaiUrl,
            maxTokens: 2048,
            temperature: 0,
          },
        ]);
        expect(rec.attempts.map((a) => [a.n, a.provider, a.model])).toEqual([
          [1, 'up', 'up-model'],
          [2, 'up', 'up-model'],
        ]);

        // Continue from attempt 1 with a script that fails: the retry goes to `up`, never to `down`.
        llm.push({ text: ANSWER });
        const cont = await dispatch(svc, 'runs.continue', {
          runId: outcome.runId,
          attempt: 1,
          body: 'emit_result(still_missing)\n',
        });
        if (!cont.ok) throw new Error(cont.error.message);
        const contRec = await waitForEnd(svc, (cont.value as { runId: string }).runId);
        expect(contRec.status).toBe('succeeded');
        expect(contRec.started.providers).toEqual([
          {
            id: 'up',
            model: 'up-model',
            kind: 'openai',
            endpoint: llm.openaiUrl,
            maxTokens: 2048,
            temperature: 0,
          },
        ]);
        expect(contRec.attempts.flatMap((a) => a.llmErrors)).toEqual([]);
        expect(contRec.attempts[1]).toMatchObject({ provider: 'up', model: 'up-model' });
        expect(llm.requests.at(-1)?.body['model']).toBe('up-model');

        // Replay: no request; each answer names the provider and model that wrote it.
        const n = llm.requests.length;
        const replay = await runs.replay(outcome.runId);
        const replayed = runs.get((await replay.done).runId);
        expect(replayed.status).toBe('succeeded');
        expect(replayed.attempts.map((a) => [a.tier, a.provider, a.model])).toEqual([
          ['replay', 'up', 'up-model'],
          ['replay', 'up', 'up-model'],
        ]);
        expect(llm.requests.length).toBe(n);
      } finally {
        await svc.close();
      }
    } finally {
      removeWorkspace(dir);
    }
  }, 180_000);
});

async function waitForEnd(svc: ToolsmithService, runId: string): Promise<RunRecord> {
  const runs = await svc.runs();
  return vi.waitFor(
    () => {
      const rec = runs.get(runId);
      expect(rec.status).not.toBe('running');
      return rec;
    },
    { timeout: POLL_MS, interval: 100 },
  );
}
