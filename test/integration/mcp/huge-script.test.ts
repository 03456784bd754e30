/**
 * A script larger than a sandbox worker reads given to the MCP server's `code`, `execute_code` or
 * `validate`: refused before any validation work starts, saying the limit and why, and the server answers
 * its other requests meanwhile. Before, the server validated it first (a 7 MB script: 20 s, the other
 * answers held up behind it), then the worker refused it all the same ("ScriptTooLarge").
 *
 * "Before any validation work" is counted, not timed: every validation in the service goes through
 * `ExecutionService.validateCode` (the MCP tools', a run's and `execute_code`'s alike), and the test
 * counts its calls on the server it talks to (in process, over the SDK's in-memory transport).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { MAX_SCRIPT_CHARS } from '../../../src-main/core/records/vocabulary.ts';
import { MAX_JOB_LINE_BYTES } from '../../../src-main/core/sandbox/job-line.ts';
import { MAX_HOST_LINE } from '../../../src-main/infra/sandbox/connection.ts';
import { createMcpServer } from '../../../src-main/mcp/mcp.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let ws: string;
let svc: ToolsmithService;
let client: Client;
let validations: ReturnType<typeof vi.spyOn>;

beforeAll(async () => {
  ws = tempWorkspace('toolsmith-mcp-huge-script-');
  svc = ToolsmithService.open(ws);
  validations = vi.spyOn(svc.execution, 'validateCode');
  const server = createMcpServer(svc);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  client = new Client({ name: 'huge-script-test', version: '1.0.0' });
  await client.connect(b);
});
afterAll(async () => {
  await client?.close();
  await svc?.close();
  removeWorkspace(ws);
});

const textOf = (r: unknown): string =>
  (r as { content: { text: string }[] }).content.map((c) => c.text).join('\n');

/** Calls `name` with `code` and pings the server while the call is open; both answers. */
async function callWithPing(name: string, args: Record<string, unknown>, code: string) {
  const call = client.callTool({ name, arguments: { ...args, code } });
  const ping = client.ping();
  return { r: await call, pong: await ping };
}

describe('a script above the 1 MB a worker reads', () => {
  it("the limit is the worker's", () => {
    expect(MAX_SCRIPT_CHARS).toBe(MAX_HOST_LINE);
    expect(MAX_JOB_LINE_BYTES).toBe(MAX_HOST_LINE);
  });

  it('the count sees validation work: a small script given to validate is validated', async () => {
    validations.mockClear();
    const r = await client.callTool({ name: 'validate', arguments: { code: 'emit_result(1)\n' } });
    expect((r.structuredContent as { valid: boolean }).valid).toBe(true);
    expect(validations).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['code', { sandbox: 'ecommerce' }],
    ['execute_code', {}],
    ['validate', {}],
  ])(
    '%s refuses it before validating it, naming the limit, and answers a ping meanwhile',
    async (name, args) => {
      validations.mockClear();
      // 1.5 M lines of 4 characters: 6 MB (it took the validator 20 s).
      const { r, pong } = await callWithPing(name, args, 'x=1\n'.repeat(1_500_000) + 'emit_result(x)\n');
      expect(r.isError).toBe(true);
      expect(textOf(r)).toContain(
        `the script is longer than the ${MAX_SCRIPT_CHARS} characters (1 MB) a sandbox worker reads, so it could never run`,
      );
      expect(pong).toEqual({});
      expect(validations).not.toHaveBeenCalled();
      // The server still answers.
      const templates = await client.callTool({ name: 'list_templates', arguments: {} });
      expect(templates.isError).not.toBe(true);
    },
  );

  it.each([
    ['code', { sandbox: 'ecommerce' }],
    ['execute_code', {}],
    ['validate', {}],
  ])(
    '%s refuses a script under 1 M characters whose job takes more, before validating it, naming why',
    async (name, args) => {
      validations.mockClear();
      // 1,000,000 characters, 250,000 line breaks: 1.25 MB once escaped. Before, it was validated for
      // seconds, then refused by the worker's limit ("ScriptTooLarge", a 1.2 MB message).
      const code = 'x=1\n'.repeat(250_000);
      expect(code.length).toBeLessThanOrEqual(MAX_SCRIPT_CHARS);
      const { r, pong } = await callWithPing(name, args, code);
      const text = textOf(r);
      expect(text).toContain('as the one JSON line a sandbox worker reads');
      expect(text).toContain('above the limit of 1,048,576 bytes (1 MB)');
      expect(text.length).toBeLessThan(2_000);
      if (name === 'validate') expect((r.structuredContent as { valid: boolean }).valid).toBe(false);
      else expect(r.isError).toBe(true);
      expect(pong).toEqual({});
      expect(validations).not.toHaveBeenCalled();
    },
  );
});
