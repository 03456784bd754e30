/**
 * `run --base-url ... --timeout-ms MS --retries N`: a slow OpenAI-compatible server (a real HTTP server
 * that answers late) is usable with a longer timeout, and a short one fails naming the URL and the limit
 * after exactly the retries asked for.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tuneProvider } from '../../../src-main/app/providers.ts';
import { PROVIDER_DEFAULTS } from '../../../src-main/app/config.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let ws: string;
let llm: LlmServer;
const SCRIPT = '```python\nemit_result(len(get_orders().data))\n```';

beforeAll(async () => {
  ws = tempWorkspace('toolsmith-llm-timeout-');
  llm = await startLlmServer();
});
afterAll(async () => {
  await llm?.close();
  removeWorkspace(ws);
});
beforeEach(() => llm.reset());

const run = (task: string, extra: string[]) =>
  runToolsmith(ws, [
    'run',
    task,
    '--sandbox',
    'ecommerce',
    '--no-templates',
    '--max-retries',
    '0',
    '--base-url',
    llm.openaiUrl,
    '--model',
    'm',
    ...extra,
  ]);

describe('--timeout-ms and --retries for LLM requests', () => {
  it('a short timeout fails naming the URL and the limit, after exactly --retries retries', async () => {
    llm.fallback = { text: SCRIPT, delayMs: 2_500 };
    const r = await run('How many orders (short timeout)?', ['--timeout-ms', '400', '--retries', '1']);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`no response within 400 ms (timeout_ms) (after 1 retry) from ${llm.openaiUrl}`);
    expect(llm.requests).toHaveLength(2);
    const none = await run('How many orders (no retry)?', ['--timeout-ms', '400', '--retries', '0']);
    expect(none.code).toBe(1);
    expect(none.out).toMatch(/no response within 400 ms \(timeout_ms\) from /);
    expect(llm.requests).toHaveLength(3);
  }, 120_000);

  it('a longer timeout waits for the slow server', async () => {
    llm.fallback = { text: SCRIPT, delayMs: 1_500 };
    const r = await run('How many orders (long timeout)?', ['--timeout-ms', '8000', '--retries', '0']);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain('result: 6');
    expect(llm.requests).toHaveLength(1);
  }, 120_000);

  it('bad values are usage errors naming the range', async () => {
    const t = await run('x', ['--timeout-ms', '0']);
    expect(t.code).toBe(2);
    expect(t.err).toMatch(/--timeout-ms must be an integer from 1 to 600000/);
    const n = await run('x', ['--retries', '11']);
    expect(n.code).toBe(2);
    expect(n.err).toMatch(/--retries must be an integer from 0 to 10/);
    expect(llm.requests).toHaveLength(0);
  });

  it('a longer timeout raises the idle and total deadlines with it, never lowers them', () => {
    const base = { id: 'x', kind: 'openai' as const, model: 'm', ...PROVIDER_DEFAULTS };
    const slow = tuneProvider(base, { timeoutMs: 300_000, maxRetries: 1 });
    expect(slow).toMatchObject({ timeout_ms: 300_000, max_retries: 1, idle_timeout_ms: 300_000 });
    expect(slow.total_timeout_ms).toBeGreaterThanOrEqual(2 * 300_000);
    const quick = tuneProvider(base, { timeoutMs: 500 });
    expect(quick).toMatchObject({ timeout_ms: 500, idle_timeout_ms: 60_000, total_timeout_ms: 180_000 });
    expect(tuneProvider(base, {})).toBe(base);
  });
});
