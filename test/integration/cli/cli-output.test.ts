/**
 * Issue 10, the CLI as people read it (a real process, real containers, the scripted LLM server):
 * `tool call` prints its answer once and never "ok" for a failed tool, `run` prints its status once,
 * `runs show` takes the short id the workbench shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let llm: LlmServer;
const ws = tempWorkspace();

const cli = (args: string[]) => runToolsmith(ws, args);
const count = (text: string, needle: string) => text.split(needle).length - 1;

beforeAll(async () => {
  llm = await startLlmServer();
});
afterAll(async () => {
  await llm.close();
  removeWorkspace(ws);
});

describe('CLI output', () => {
  it('tool call: the data once; a failed tool says FAILED with its message, no "ok"', async () => {
    const good = await cli([
      'tool',
      'call',
      'get_ticket',
      '--sandbox',
      'support',
      '--args',
      '{"ticket_id": 104}',
    ]);
    expect(good.code).toBe(0);
    expect(good.out).toMatch(/^get_ticket: ok\n/);
    expect(count(good.out, 'Monitor arrived scratched')).toBe(1);
    const bad = await cli([
      'tool',
      'call',
      'get_ticket',
      '--sandbox',
      'support',
      '--args',
      '{"ticket_id": 999}',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/^get_ticket: FAILED — no ticket 999\n/);
    expect(bad.out).not.toMatch(/\bok\b/);
    expect(count(bad.out, 'no ticket 999')).toBe(1);
  }, 120_000);

  it('run prints its status once; runs show accepts the 8-character id', async () => {
    llm.push('```python\nr = get_user(user_id="u4")\nemit_result(r.data["tier"])\n```');
    const run = await cli([
      'run',
      'Tier of user u4',
      '--sandbox',
      'ecommerce',
      '--base-url',
      llm.openaiUrl,
      '--model',
      'scripted',
      '--no-templates',
    ]);
    expect(run.code).toBe(0);
    const id = /^run (\S+): succeeded$/m.exec(run.out)?.[1] ?? '';
    expect(id).toHaveLength(36);
    expect(count(run.out + run.err, ': succeeded')).toBe(1);
    const show = await cli(['runs', 'show', id.slice(0, 8)]);
    expect(show.code).toBe(0);
    expect(show.out).toContain(`run ${id}: succeeded`);
    const none = await cli(['runs', 'show', 'ffffffff']);
    expect(none).toMatchObject({ code: 2, err: 'toolsmith: no run ffffffff\n' });
  }, 180_000);
});
