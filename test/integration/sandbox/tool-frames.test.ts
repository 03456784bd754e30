/**
 * Issue 10: a tool that raises shows the lines inside tools.py in the traceback (marked `file: tools.py`,
 * with their source text), after the script's own frame in body lines.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace();
const tools = join(ws, 'sandboxes/ecommerce/tools.py');
appendFileSync(
  tools,
  `

def _lookup(table, key):
    return table[key]


@tool(grade=(0, 0))
def broken(key: str) -> ToolResponse:
    """A tool that raises.

    Args:
        key: Any key.
    """
    return ToolResponse(success=True, data=_lookup({}, key))
`,
);
const lines = readFileSync(tools, 'utf8').split('\n');
const lineOf = (text: string) => lines.findIndex((l) => l.includes(text)) + 1;
const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager, oneShot: true });
afterAll(async () => {
  await svc.close();
  removeWorkspace(ws);
});

describe('tracebacks through tools.py', () => {
  it('name the tool frames in tools.py with their lines and text', async () => {
    const r = await svc.execution.executeScript({
      sandbox: 'ecommerce',
      language: 'python',
      body: 'x = 1\nr = broken(key="nope")\nemit_result(r.data)\n',
    });
    expect(r).toMatchObject({ success: false, exitReason: 'error', error: { type: 'KeyError' } });
    const frames = r.error?.frames ?? [];
    expect(frames[0]).toMatchObject({ line: 2, name: '<script>', text: 'r = broken(key="nope")' });
    expect(frames.filter((f) => f.file === 'tools.py')).toEqual([
      {
        file: 'tools.py',
        line: lineOf('data=_lookup({}, key)'),
        name: 'broken',
        text: 'return ToolResponse(success=True, data=_lookup({}, key))',
      },
      { file: 'tools.py', line: lineOf('return table[key]'), name: '_lookup', text: 'return table[key]' },
    ]);
  }, 300_000);

  it("a call with an argument its tool does not take names that argument and the tool's parameters", async () => {
    // (validation refuses these calls first: tool-arguments; here the worker's own binding is tested)
    const r = await svc.execution.executeScript({
      sandbox: 'ecommerce',
      language: 'python',
      body: 'r = broken(wrong=1)\nemit_result(r.data)\n',
      validate: false,
    });
    expect(r.error?.type).toBe('TypeError');
    // (Python's own bind said only "missing a required argument: 'key'")
    expect(r.error?.message).toBe(
      "broken() got an unexpected keyword argument 'wrong' (its parameters: key)",
    );
    // Missing alone: Python's words, as before.
    const missing = await svc.execution.executeScript({
      sandbox: 'ecommerce',
      language: 'python',
      body: 'r = broken()\nemit_result(r.data)\n',
      validate: false,
    });
    expect(missing.error?.message).toBe("broken() missing a required argument: 'key'");
  }, 300_000);

  it('validation refuses the same calls before anything runs, naming the argument and the signature', async () => {
    const r = await svc.execution.executeScript({
      sandbox: 'ecommerce',
      language: 'python',
      body: 'r = broken(wrong=1)\nemit_result(r.data)\n',
    });
    expect(r).toMatchObject({ success: false, exitReason: 'rejected', toolCalls: [] });
    expect(r.error?.message).toContain(
      "broken() got an unexpected keyword argument 'wrong' (broken(key: str))",
    );
    expect(r.error?.message).toContain("broken() missing required argument 'key' (broken(key: str))");
  }, 300_000);

  it('a call that does not bind is traced with its arguments as the script gave them, not their repr', async () => {
    const run = (body: string) =>
      svc.execution.executeScript({ sandbox: 'ecommerce', language: 'python', body, validate: false });
    // Too few: named by the parameters they fill.
    const few = await run('r = check_inventory()\nemit_result(1)\n');
    expect(few.toolCalls).toMatchObject([{ name: 'check_inventory', args: {} }]);
    const partial = await run('r = get_user(user_id=7, extra=[1, None])\nemit_result(1)\n');
    // (a bind that cannot be made even partially: the keywords as given, values kept as JSON)
    expect(partial.toolCalls).toMatchObject([{ name: 'get_user', args: { user_id: 7, extra: [1, null] } }]);
    // Too many positional ones: all of them under "*args", numbers still numbers.
    const many = await run('r = get_user(1, 2.5, True)\nemit_result(1)\n');
    expect(many.toolCalls).toMatchObject([{ name: 'get_user', args: { '*args': [1, 2.5, true] } }]);
    expect(many.toolCalls[0]?.error).toContain('get_user() too many positional arguments');
    // Fewer than the tool needs, by position: the parameter they fill.
    const one = await run('r = check_inventory(12)\nemit_result(1)\n');
    expect(one.toolCalls).toMatchObject([{ name: 'check_inventory', args: { product_id: 12 } }]);
  }, 300_000);
});
