/**
 * `toolsmith mcp --http` as a real process: bearer token, Host and Origin checks, the official SDK client
 * over Streamable HTTP calling `validate` and `code` (real containers), runs recorded in the run store.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MCP_TOOL_NAMES } from '../../../src-main/mcp/mcp-tool-names.ts';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { waitSpinning } from '../../support/spinning.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { installationContainers } from '../faults/support/processes.ts';
import { connectMcpHttp, startMcpHttpProcess } from './support/mcp-http-process.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import type { McpHttpProcess } from './support/mcp-http-process.ts';

let ws: string;
let server: McpHttpProcess;
let client: Client;

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

/** A raw POST (node:http, so Host can be set) of an initialize request. */
function post(
  headers: Record<string, string>,
  path = '/mcp',
  method = 'POST',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        method,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? INIT : undefined);
  });
}

const textOf = (r: unknown): string => (r as { content: { text: string }[] }).content[0]?.text ?? '';

const connect = (url: string, token: string): Promise<Client> =>
  connectMcpHttp(url, token, 'toolsmith-http-test');

function storedRun(runId: string) {
  const store = new RunStore(join(ws, '.toolsmith', 'runs.db'));
  try {
    return store.get(runId);
  } finally {
    store.close();
  }
}

// The project's hook budget: the server's start is waited on, however loaded the machine.
beforeAll(async () => {
  ws = tempWorkspace('toolsmith-mcp-http-');
  server = await startMcpHttpProcess(ws);
  client = await connect(server.url, server.token ?? '');
});

afterAll(async () => {
  await client?.close();
  await server?.stop();
  if (ws) removeWorkspace(ws);
});

describe('toolsmith mcp --http: the gates', () => {
  it('listens on 127.0.0.1 and prints a generated token once on stderr', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(server.stderr().split(server.token ?? '').length).toBe(2);
  });

  it('401 without a token or with a wrong one, asking for a bearer token', async () => {
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(JSON.parse(none.body)).toMatchObject({ error: { message: 'missing or wrong bearer token' } });
    const wrong = await post({ authorization: `Bearer ${'x'.repeat(43)}` });
    expect(wrong.status).toBe(401);
    const basic = await post({ authorization: `Basic ${server.token}` });
    expect(basic.status).toBe(401);
  });

  it('403 for a foreign Origin or a foreign Host (DNS rebinding), even with the right token', async () => {
    const auth = { authorization: `Bearer ${server.token}` };
    const origin = await post({ ...auth, origin: 'http://evil.example' });
    expect(origin.status).toBe(403);
    expect(JSON.parse(origin.body)).toMatchObject({
      error: { message: 'origin "http://evil.example" not allowed', data: { code: 'refused' } },
    });
    const otherPort = await post({ ...auth, origin: 'http://127.0.0.1:1' });
    expect(otherPort.status).toBe(403);
    const host = await post({ ...auth, host: `evil.example:${server.port}` });
    expect(host.status).toBe(403);
    expect(host.body).toContain('not allowed');
    // The server's own origin, under any of its loopback names, is let through.
    const own = await post({
      ...auth,
      origin: `http://localhost:${server.port}`,
      host: `localhost:${server.port}`,
    });
    expect(own.status).toBe(200);
    expect(own.headers['mcp-session-id']).toEqual(expect.any(String));
  });

  it('404 for another path', async () => {
    const r = await post({ authorization: `Bearer ${server.token}` }, '/other');
    expect(r.status).toBe(404);
  });

  it('DELETE ends a session; its id is then unknown (404)', async () => {
    const auth = { authorization: `Bearer ${server.token}` };
    const init = await post(auth);
    const sid = String(init.headers['mcp-session-id']);
    const session = { ...auth, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
    expect((await post(session, '/mcp', 'DELETE')).status).toBe(200);
    const after = await post(session);
    expect(after.status).toBe(404);
    expect(JSON.parse(after.body)).toMatchObject({
      error: { message: 'session not found; initialize a new one' },
    });
  });
});

describe('toolsmith mcp --http: the tools through the SDK client', () => {
  it('lists the same tools as stdio plus code, whose description carries the rules and the manual', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'code',
      'delegate',
      'describe_tool',
      'execute_code',
      'kit_info',
      'list_templates',
      'list_tools',
      'run_suite',
      'save_skill',
      'search_tools',
      'validate',
    ]);
    const code = tools.find((t) => t.name === 'code');
    expect(code?.description).toContain('check_inventory(product_id: str, warehouse: str = "New York")');
    expect(code?.description).toContain('Tools of the sandbox `support`');
    expect(code?.description).toMatch(/kits: .*orders \(ecommerce\)/);
    expect(code?.description).toMatch(/No import statements/);
    expect(code?.description).toMatch(/No import, require or dynamic import/);
    expect(Object.keys(code?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['code', 'language', 'sandbox', 'kit']),
    );
  });

  it('validate answers the violations', async () => {
    const v = JSON.parse(
      textOf(await client.callTool({ name: 'validate', arguments: { code: 'import os\nemit_result(1)' } })),
    ) as { valid: boolean; violations: { rule: string }[] };
    expect(v.valid).toBe(false);
    expect(v.violations.map((x) => x.rule)).toContain('no-import');
  });

  it('code runs a Python script over the sandbox tools; its run id is in the run store', async () => {
    const progress: { progress: number; message?: string }[] = [];
    const r = await client.callTool(
      {
        name: 'code',
        arguments: {
          code:
            'total = 0\nfor w in ["Berlin", "New York"]:\n' +
            '    r = check_inventory(product_id="p1", warehouse=w)\n' +
            '    total += r.data["in_stock"]\nemit_log("summed")\nemit_result(total)',
          task: 'units of p1 in all warehouses',
        },
      },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    expect(r.isError).toBeFalsy();
    // Each tool call and log line was reported while the script ran.
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(progress.map((p) => p.message)).toEqual([
      expect.stringMatching(/^check_inventory: ok \(\d+\.\d ms\)$/),
      expect.stringMatching(/^check_inventory: ok/),
      'log: summed',
    ]);
    const answer = JSON.parse(textOf(r)) as { runId: string; status: string; result: number; logs: string[] };
    expect(answer).toMatchObject({ status: 'succeeded', logs: ['summed'] });
    expect(answer.result).toBeGreaterThan(3);
    const rec = storedRun(answer.runId);
    expect(rec).toMatchObject({
      id: answer.runId,
      status: 'succeeded',
      result: answer.result,
      started: { task: 'units of p1 in all warehouses', sandbox: 'ecommerce' },
    });
    expect(rec?.attempts[0]?.toolCalls.map((c) => c.name)).toEqual(['check_inventory', 'check_inventory']);
  });

  it('a client that cancels a code call cancels its run: the job stops, the run reads cancelled', async () => {
    const ac = new AbortController();
    const task = `spin until cancelled ${Date.now()}`;
    const call = client.callTool(
      {
        name: 'code',
        // Minutes of pure Python: only a cancel ends it before the 300 s limit. The intermediate, recorded
        // as it is emitted, says the script is running.
        arguments: {
          code: 'emit_intermediate("spinning")\nn = 0\nwhile n < 10 ** 10:\n    n += 1\nemit_result(n)',
          task,
        },
      },
      undefined,
      { signal: ac.signal, timeout: 120_000 },
    );
    const runOf = () => {
      const store = new RunStore(join(ws, '.toolsmith', 'runs.db'));
      try {
        const id = store.list({ text: task, limit: 1 }).runs[0]?.id;
        return id ? store.get(id) : undefined;
      } finally {
        store.close();
      }
    };
    const wait = { timeout: 60_000, interval: 100 };
    // The script is executing in its container (its intermediate is recorded) before the client cancels.
    await vi.waitFor(() => {
      const run = runOf();
      expect(run?.status).toBe('running');
      expect(run?.attempts[0]?.emits.length ?? 0).toBeGreaterThan(0);
    }, wait);
    ac.abort();
    await expect(call).rejects.toThrow();
    await vi.waitFor(() => expect(runOf()?.status).toBe('cancelled'), wait);
    // The pool is free again: the next call runs at once.
    const next = await client.callTool({ name: 'code', arguments: { code: 'emit_result(1 + 1)' } });
    expect(JSON.parse(textOf(next))).toMatchObject({ status: 'succeeded', result: 2 });
  });

  it('a cancelled execute_code call stops its job: the pool serves the next call at once', async () => {
    // Both workers of the pool (max_size 2) get a job of minutes; both calls are cancelled.
    const calls = [new AbortController(), new AbortController()].map((ac) => ({
      ac,
      call: client.callTool(
        {
          name: 'execute_code',
          arguments: { code: 'n = 0\nwhile n < 10 ** 10:\n    n += 1\nemit_result(n)', timeout: 600 },
        },
        undefined,
        { signal: ac.signal, timeout: 120_000 },
      ),
    }));
    // Both scripts spin in their containers (of this run's installation) before the calls are cancelled.
    await waitSpinning(
      new Docker(),
      () => installationContainers(process.env['TOOLSMITH_DATA_DIR'] ?? ''),
      2,
    );
    for (const c of calls) c.ac.abort();
    for (const c of calls) await expect(c.call).rejects.toThrow();
    // Were the jobs still running (they loop for minutes), this call would fail at the queue timeout.
    const next = await client.callTool({ name: 'execute_code', arguments: { code: 'emit_result(3)' } });
    expect(JSON.parse(textOf(next))).toMatchObject({ success: true, data: 3 });
  });

  it('code runs a TypeScript script', async () => {
    const r = await client.callTool({
      name: 'code',
      arguments: {
        language: 'ts',
        code:
          'const r = await check_inventory({ product_id: "p1", warehouse: "Berlin" });\n' +
          'const n: number = r.data.in_stock;\nemitResult({ n, ok: r.success });',
      },
    });
    const answer = JSON.parse(textOf(r)) as { runId: string; result: unknown };
    expect(r.isError).toBeFalsy();
    expect(answer.result).toEqual({ n: 3, ok: true });
    expect(storedRun(answer.runId)?.started.language).toBe('ts');
  });

  it('a script that breaks the rules comes back as a tool error listing the violations, not run', async () => {
    const r = await client.callTool({
      name: 'code',
      arguments: { code: 'import os\nx = get_orders\nemit_result(os.getcwd())' },
    });
    expect(r.isError).toBe(true);
    const answer = JSON.parse(textOf(r)) as {
      runId: string;
      status: string;
      violations: { rule: string; line: number }[];
    };
    expect(answer.status).toBe('rejected');
    expect(answer.violations.map((v) => v.rule)).toEqual(
      expect.arrayContaining(['no-import', 'tool-not-called']),
    );
    const rec = storedRun(answer.runId);
    expect(rec?.status).toBe('failed');
    expect(rec?.attempts[0]?.execution).toBeUndefined();
  });

  it('a script that fails at run time is a tool error with the traceback', async () => {
    const r = await client.callTool({
      name: 'code',
      arguments: { code: 'r = get_user(user_id="u1")\nemit_result(r.data["no_such_key"])' },
    });
    expect(r.isError).toBe(true);
    const answer = JSON.parse(textOf(r)) as { runId: string; status: string; error: string };
    expect(answer.status).toBe('failed');
    expect(answer.error).toMatch(/KeyError/);
    expect(storedRun(answer.runId)?.status).toBe('failed');
  });

  it("with a kit, the script calls the kit's aliases (and only those)", async () => {
    const r = await client.callTool({
      name: 'code',
      arguments: { kit: 'orders', code: 'emit_result(user(user_id=orders().data[0]["user_id"]).data["id"])' },
    });
    expect(JSON.parse(textOf(r))).toMatchObject({ status: 'succeeded', result: 'u1' });
    const outside = await client.callTool({
      name: 'code',
      arguments: { kit: 'orders', code: 'emit_result(check_inventory(product_id="p1").data)' },
    });
    expect(outside.isError).toBe(true);
    expect(JSON.parse(textOf(outside))).toMatchObject({ status: 'rejected' });
  });

  it('an unknown sandbox is a clear tool error', async () => {
    const r = await client.callTool({ name: 'code', arguments: { code: 'emit_result(1)', sandbox: 'nope' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/no sandbox nope/);
  });
});

describe('toolsmith mcp --http: options and errors', () => {
  it('--token-env: the token comes from the variable and is not printed', async () => {
    const token = 'a-declared-token-0123456789';
    const s = await startMcpHttpProcess(ws, ['--token-env', 'TS_MCP_TOKEN'], { TS_MCP_TOKEN: token });
    try {
      expect(s.token).toBeUndefined();
      expect(s.stderr()).not.toContain(token);
      expect(s.stderr()).toContain('bearer token: from $TS_MCP_TOKEN');
      const c = await connect(s.url, token);
      expect((await c.listTools()).tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES].sort());
      await c.close();
      // The port is now taken: a second server on it says so (exit 2).
      const busy = await runToolsmith(ws, ['mcp', '--http', '--port', String(s.port)]);
      expect(busy.code).toBe(2);
      expect(busy.err).toContain(`port ${s.port} on 127.0.0.1 is in use`);
      // `serve` on it too: the same one-line reason, before any build of the workbench.
      const serve = await runToolsmith(ws, ['serve', '--port', String(s.port)]);
      expect(serve.code).toBe(2);
      expect(serve.err).toBe(
        `toolsmith: port ${s.port} on 127.0.0.1 is in use; pick another with --port, or leave --port out for a free one\n`,
      );
    } finally {
      await s.stop();
    }
  });

  it('usage errors: unset token variable, short token, non-loopback host, --port without --http', async () => {
    // Four processes at once: each fails before it opens anything.
    const [unset, short, host, port] = await Promise.all([
      runToolsmith(ws, ['mcp', '--http', '--token-env', 'TS_MCP_UNSET_VARIABLE']),
      runToolsmith(ws, ['mcp', '--http', '--token-env', 'T'], { T: 'short' }),
      runToolsmith(ws, ['mcp', '--http', '--host', '0.0.0.0']),
      runToolsmith(ws, ['mcp', '--port', '9999']),
    ]);
    expect(unset).toMatchObject({ code: 2 });
    expect(unset.err).toContain('--token-env TS_MCP_UNSET_VARIABLE: the variable is not set or empty');
    expect(short.code).toBe(2);
    expect(short.err).toContain('at least 16 characters');
    expect(host.code).toBe(2);
    expect(host.err).toContain('--host must be one of 127.0.0.1, localhost, ::1');
    expect(port.code).toBe(2);
    expect(port.err).toContain('--port needs --http');
  });
});
