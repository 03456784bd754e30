/**
 * A script near the 1 MB line a sandbox worker reads, given to the MCP server's `execute_code`, `code`
 * and `validate`: what is checked is the whole job line the worker would receive (the script escaped as
 * JSON, the sandbox's tool list, the envelope), before the script is validated. Before, only the
 * script's own JSON was counted: a script just under 1 MB passed, was validated, and then the worker's
 * limit refused its job ("the job is ... as a protocol message"). A job at the limit runs.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JOB_LINE_BYTES } from '../../../src-main/core/sandbox/job-line.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { requireDocker } from '../faults/support/processes.ts';

let ws: string;
let client: Client;

beforeAll(async () => {
  await requireDocker();
  ws = tempWorkspace('toolsmith-mcp-job-size-');
  client = await connectMcp(ws, 'job-size-test');
}, 60_000);
afterAll(async () => {
  await client?.close();
  removeWorkspace(ws);
});

const textOf = (r: unknown): string =>
  (r as { content: { text: string }[] }).content.map((c) => c.text).join('\n');

/** A script of one string literal of `n` ASCII letters (a byte each, escaped or not), emitting its length. */
const script = (n: number): string => `x = "${'a'.repeat(n)}"\nemit_result(len(x))\n`;

/** The job's size the refusal names, in bytes. */
function jobBytes(text: string): number {
  const m = /the script's job is ([\d,]+) bytes as the one JSON line a sandbox worker reads/.exec(text);
  expect(m, text.slice(0, 600)).not.toBeNull();
  return Number(m![1]!.replace(/,/g, ''));
}

describe('a script whose job is near the 1 MB a worker reads', () => {
  it.each([
    ['execute_code', {}],
    ['code', { sandbox: 'ecommerce' }],
  ])(
    '%s refuses one over the limit with its job size, the limit and what to do, and runs one at it',
    async (name, args) => {
      // The script alone is 200 bytes under the limit as JSON (what was counted before); its job is not.
      const n = MAX_JOB_LINE_BYTES - 200 - 30;
      expect(JSON.stringify(script(n)).length).toBeLessThan(MAX_JOB_LINE_BYTES - 190);
      const over = await client.callTool({ name, arguments: { ...args, code: script(n) } });
      expect(over.isError).toBe(true);
      const text = textOf(over);
      expect(text).toContain('above the limit of 1,048,576 bytes (1 MB)');
      expect(text).toContain(
        'a script this large holds data, which belongs in a tool or a file the tools read',
      );
      expect(text).not.toMatch(/as a protocol message/); // the worker's own refusal: nothing reached it
      const extra = jobBytes(text) - MAX_JOB_LINE_BYTES;
      expect(extra).toBeGreaterThan(0);

      // One byte over: refused the same way, naming 1,048,577 bytes.
      const byOne = await client.callTool({ name, arguments: { ...args, code: script(n - extra + 1) } });
      expect(byOne.isError).toBe(true);
      expect(jobBytes(textOf(byOne))).toBe(MAX_JOB_LINE_BYTES + 1);

      // At the limit: validated, sent and run.
      const at = await client.callTool({ name, arguments: { ...args, code: script(n - extra) } });
      expect(at.isError, textOf(at).slice(0, 600)).not.toBe(true);
      expect(textOf(at)).toContain(String(n - extra));
    },
    180_000,
  );

  it('validate says the same of a script whose job is over the limit, without validating it', async () => {
    const r = await client.callTool({
      name: 'validate',
      arguments: { code: script(MAX_JOB_LINE_BYTES - 230) },
    });
    const out = r.structuredContent as { valid: boolean; violations: { rule: string; message: string }[] };
    expect(out.valid).toBe(false);
    expect(out.violations).toHaveLength(1);
    expect(out.violations[0]!.rule).toBe('script-too-large');
    expect(out.violations[0]!.message).toContain('above the limit of 1,048,576 bytes (1 MB)');
  });
});
