/**
 * A JS/TS script's prompt shows the tools as the script must call them (one object of named arguments,
 * JS types), not Python signatures: `toolsmith prompt --lang js|ts`, `tools --language js`, and what
 * `run --lang js` sends the LLM (recorded at a real OpenAI-compatible server).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let ws: string;
let llm: LlmServer;
const JS_SIG = 'check_inventory({ product_id: string, warehouse?: string = "New York" })';
const PY_SIG = 'check_inventory(product_id: str, warehouse: str = "New York")';

beforeAll(async () => {
  ws = tempWorkspace('toolsmith-js-prompt-');
  llm = await startLlmServer();
});
afterAll(async () => {
  await llm?.close();
  removeWorkspace(ws);
});

describe('the JS/TS prompt shows the JS call', () => {
  it.each(['js', 'ts'])('prompt --lang %s', async (lang) => {
    const r = await runToolsmith(ws, [
      'prompt',
      '--lang',
      lang,
      '--sandbox',
      'ecommerce',
      '--task',
      'stock of p1',
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`<signature>${JS_SIG}</signature>`);
    expect(r.out).toContain('<signature>get_user({ user_id: string })</signature>');
    expect(r.out).not.toContain(PY_SIG);
    expect(r.out).not.toContain('type="str"');
  });

  it('prompt in Python is unchanged', async () => {
    const r = await runToolsmith(ws, ['prompt', '--sandbox', 'ecommerce', '--task', 'stock of p1']);
    expect(r.out).toContain(`<signature>${PY_SIG}</signature>`);
  });

  it('tools --language js', async () => {
    const r = await runToolsmith(ws, ['tools', '--sandbox', 'ecommerce', '--language', 'js']);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`<signature>${JS_SIG}</signature>`);
  });

  it('run --lang js sends the LLM the JS calls, and the script written that way runs', async () => {
    llm.push({
      text: '```javascript\nconst r = await get_user({ user_id: "u1" });\nemitResult(r.data.name);\n```',
    });
    const r = await runToolsmith(ws, [
      'run',
      'What is the name of user u1 (js prompt test)?',
      '--sandbox',
      'ecommerce',
      '--lang',
      'js',
      '--no-templates',
      '--max-retries',
      '0',
      '--base-url',
      llm.openaiUrl,
      '--model',
      'm',
      '--json',
    ]);
    expect(r.code, r.err).toBe(0);
    const sent = JSON.stringify(llm.requests[0]?.body);
    expect(sent).toContain(JS_SIG.replaceAll('"', '\\"'));
    expect(sent).not.toContain(PY_SIG.replaceAll('"', '\\"'));
  }, 180_000);
});
