/**
 * The README's jobs as a new user walks them (a real CLI process, real containers, the scripted LLM
 * server): what a retry is told about a tool that failed, and what the live progress says when an
 * INTERACTIVE run stops as a loop.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let llm: LlmServer;
const ws = tempWorkspace();

const cli = (args: string[]) => runToolsmith(ws, args);
const fence = (s: string) => '```python\n' + s + '\n```';
/** The text of the user message of the LLM request `i`. */
const userText = (i: number): string => {
  const messages = (llm.requests[i]?.body['messages'] ?? []) as { role: string; content: unknown }[];
  return messages
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
};
const run = (task: string, extra: string[] = []) =>
  cli([
    'run',
    task,
    '--sandbox',
    'ecommerce',
    '--base-url',
    llm.openaiUrl,
    '--model',
    'scripted',
    '--no-templates',
    ...extra,
  ]);

beforeAll(async () => {
  llm = await startLlmServer();
});
beforeEach(() => llm.reset());
afterAll(async () => {
  await llm.close();
  removeWorkspace(ws);
});

// The sample's get_user answers an unknown id with ToolResponse(success=False, message="no user with id
// 'u9'; known ids: [...]"); a script reading `.data` of it fails with a TypeError that says none of that.
const failing = 'r = get_user(user_id="u9")\nemit_intermediate(r.data["name"])';

describe('a new user runs tasks', () => {
  it('a PLAN retry is told why the tool call failed (the tool message), not only the traceback', async () => {
    llm.push(
      fence('r = get_user(user_id="u9")\nemit_result(r.data["name"])'),
      fence('r = get_user(user_id="u1")\nemit_result(r.data["name"])'),
    );
    const r = await run('Name of user u9');
    expect(r.code, r.err).toBe(0);
    expect(llm.requests).toHaveLength(2);
    const retry = userText(1);
    expect(retry).toContain("TypeError: 'NoneType' object is not subscriptable");
    expect(retry).toContain(`get_user(user_id="u9") failed: no user with id 'u9'; known ids:`);
  }, 180_000);

  it('INTERACTIVE: the step history keeps the failed call; a repeated failure reads as a loop, not a forced final step', async () => {
    llm.push(fence(failing), fence(failing));
    const r = await run('Name of user u9, step by step', ['--mode', 'interactive']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('stopped as a loop');
    // The progress line of step 2 says what happened: the run stopped, no final step follows.
    expect(r.err).toMatch(/step 2: failed with TypeError \(the same failure as the step before: stopped as a loop\)/);
    expect(r.err).not.toContain('forcing a final step');
    expect(llm.requests).toHaveLength(2);
    const step2 = userText(1);
    expect(step2).toContain("<message>no user with id 'u9'; known ids:");
    expect(step2).toContain(`get_user(user_id="u9") failed: no user with id 'u9'`);
  }, 180_000);

  it('INTERACTIVE: the same data twice still forces a final step, and says so', async () => {
    const step = 'emit_intermediate(get_user(user_id="u1").data["city"])';
    llm.push(fence(step), fence(step), fence('emit_result(collected[0])'));
    const r = await run('City of user u1, step by step', ['--mode', 'interactive']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('step 2: reported the same data as the step before (stagnant: forcing a final step)');
    expect(r.out).toContain('London');
  }, 180_000);
});
