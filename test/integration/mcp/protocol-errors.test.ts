/**
 * What the stdio server answers to input that is no valid request, line by line as a client writes it
 * (the SDK client cannot send a bad line): JSON-RPC's parse error for a line that is not JSON, an
 * invalid request for a batch (MCP 2025-06-18 removed batching), invalid params (one line) for a
 * `tools/call` without params, MCP's resource-not-found for an unknown run, and execute_code's
 * `{error, code}` for an unknown runtime; the server keeps answering after each, before and after the
 * SDK's server takes the stream over (stdio-early.ts).
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolsmithArgv } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

type Reply = {
  jsonrpc: string;
  id?: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

let ws: string;
let server: ChildProcessWithoutNullStreams;
let stderr = '';
const replies: Reply[] = [];
const waiters: (() => void)[] = [];
let exited: Promise<void>;

/** Writes one line to the server's input, as is. */
const sendLine = (line: string) => server.stdin.write(line + '\n');

/** The first reply (not yet taken) that `match` accepts, once it has come; taken from the list. */
async function reply(match: (r: Reply) => boolean): Promise<Reply> {
  for (;;) {
    const i = replies.findIndex(match);
    if (i >= 0) return replies.splice(i, 1)[0]!;
    // Waits on the outcome: the next line of the server, or its exit (the test's budget ends a hang).
    const next = new Promise<void>((resolve) => waiters.push(resolve));
    await Promise.race([
      next,
      exited.then(() => {
        throw new Error(`the server exited: ${stderr}`);
      }),
    ]);
  }
}

let nextId = 1;
/** Sends a request and waits for its answer. */
async function request(method: string, params?: Record<string, unknown>): Promise<Reply> {
  const id = nextId++;
  sendLine(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }));
  return reply((r) => r.id === id);
}

/** Sends a line that is no request and waits for the answer it gets (id null). */
async function refused(line: string): Promise<Reply> {
  sendLine(line);
  return reply((r) => r.id === null);
}

beforeAll(() => {
  ws = tempWorkspace('toolsmith-mcp-protocol-');
  server = spawn(...toolsmithArgv(ws, ['mcp']));
  server.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  exited = new Promise((resolve) => server.once('exit', () => resolve()));
  createInterface({ input: server.stdout }).on('line', (line) => {
    replies.push(JSON.parse(line) as Reply);
    for (const wake of waiters.splice(0)) wake();
  });
});
afterAll(async () => {
  // Closing the input stops the server (as a client does).
  server?.stdin.end();
  await exited;
  removeWorkspace(ws);
});

const PARSE_ERROR = /^Parse error: .*JSON/;

describe('the stdio server answers input that is no valid request', () => {
  it('a line that is not JSON and a batch, before and after the hand-over; the next request is answered', async () => {
    // Right after the start, while the early server holds the stream (and a line before initialize too).
    expect(await refused('{not json at all')).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.stringMatching(PARSE_ERROR) },
    });
    const init = await request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'protocol-errors-test', version: '1.0.0' },
    });
    expect(init.result).toMatchObject({ serverInfo: { name: 'toolsmith' } });
    sendLine(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    expect((await refused('["batch"]')).error).toEqual({
      code: -32600,
      message: expect.stringMatching(/^Invalid Request: JSON-RPC batches are not supported/),
    });
    // tools/list is answered by the SDK's server only: from here on it has the stream.
    const list = await request('tools/list');
    expect((list.result?.['tools'] as { name: string }[]).map((t) => t.name)).toContain('execute_code');
    expect(await refused('{not json at all')).toMatchObject({
      id: null,
      error: { code: -32700, message: expect.stringMatching(PARSE_ERROR) },
    });
    expect(await refused(JSON.stringify([{ jsonrpc: '2.0', id: 99, method: 'ping' }]))).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringMatching(/batches are not supported/) },
    });
    expect(await refused('null')).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await request('ping')).toMatchObject({ result: {} });
    // Each refusal is told on stderr too (a client may drop an answer whose id is null).
    expect(stderr).toMatch(/a line of the input was refused: Parse error/);
  });

  it('tools/call without params is invalid params, on one line naming the tool name', async () => {
    const r = await request('tools/call');
    expect(r.error).toEqual({
      code: -32602,
      message: 'Invalid params for tools/call: missing params.name (the name of the tool to call)',
    });
    expect((await request('tools/call', {})).error?.code).toBe(-32602);
    // An unknown tool is a tool result with isError, naming the tools there are (unknown-tool.test.ts).
    const unknown = await request('tools/call', { name: 'no_such_tool', arguments: {} });
    expect(unknown.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringMatching(/^Unknown tool: "no_such_tool"/) }],
    });
  });

  it('reading an unknown run is resource-not-found (-32002) with the message as before', async () => {
    expect((await request('resources/read', { uri: 'toolsmith://runs/nope' })).error).toEqual({
      code: -32002,
      message: 'no run nope (toolsmith://runs/nope)',
    });
  });

  it('execute_code with an unknown runtime answers {error, code} like its other errors', async () => {
    const r = await request('tools/call', {
      name: 'execute_code',
      arguments: { code: 'puts 1', runtime: 'ruby' },
    });
    expect(r.result?.['isError']).toBe(true);
    const content = r.result?.['content'] as { text: string }[];
    expect(JSON.parse(content[0]!.text)).toEqual({
      error: "unknown runtime 'ruby'; available: python, node",
      code: 'invalid_argument',
    });
  });
});
