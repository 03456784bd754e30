/**
 * `toolsmith runs replay` says what a user needs: the replayed run's id and task, the new run's id, the
 * tokens the replayed run's LLM answers cost, and no misleading "0 tokens" (nor "replay (replay)") for
 * the replay itself, which sends no LLM request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let ws: string;
let llm: LlmServer;

beforeAll(async () => {
  ws = tempWorkspace('toolsmith-replay-output-');
  llm = await startLlmServer();
});
afterAll(async () => {
  await llm?.close();
  removeWorkspace(ws);
});

describe('runs replay output', () => {
  it('names the replayed run and its task, the new run, and the tokens where an LLM answered', async () => {
    llm.push({
      text: '```python\nr = get_user(user_id="u1")\nemit_result(r.data["name"])\n```',
      promptTokens: 321,
      completionTokens: 17,
    });
    const task = 'What is the name of user u1 (replay output)?';
    const run = await runToolsmith(ws, [
      'run',
      task,
      '--sandbox',
      'ecommerce',
      '--no-templates',
      '--base-url',
      llm.openaiUrl,
      '--model',
      'm',
      '--json',
    ]);
    expect(run.code, run.err).toBe(0);
    const id = (JSON.parse(run.out) as { id: string }).id;
    const before = llm.requests.length;
    const r = await runToolsmith(ws, ['runs', 'replay', id.slice(0, 8)]);
    expect(r.code, r.err).toBe(0);
    expect(llm.requests.length).toBe(before);
    expect(r.err.split('\n')[0]).toBe(`replaying run ${id}: ${task}`);
    expect(r.err).toMatch(/^attempt 1: replay \(the recorded LLM answer\)$/m);
    expect(r.err).toMatch(/^ {2}llm: recorded answer of cli\/m \(no request sent\)$/m);
    expect(r.err).not.toContain('replay (replay)');
    expect(r.err).not.toMatch(/0\+0 tokens/);
    expect(r.out.split('\n')[0]).toBe(
      `replay of run ${id} (its LLM answers: 321 prompt + 17 completion = 338 tokens, model m)`,
    );
    const newId = /^run (\S+): succeeded$/m.exec(r.out)?.[1];
    expect(newId).toBeDefined();
    expect(newId).not.toBe(id);
    expect(r.out).toContain(`task: ${task}`);
    expect(r.out).toMatch(/^tokens: — \(no LLM request: a replay answers from the recorded run\)$/m);
    expect(r.out).not.toMatch(/tokens: 0 prompt/);
    // The original run still shows its own tokens.
    const show = await runToolsmith(ws, ['runs', 'show', id]);
    expect(show.out).toContain('tokens: 321 prompt + 17 completion = 338');
  }, 180_000);
});
