/**
 * A sandbox or tool name typed with a slip names the one meant, as MCP's unknown tool does: `tools
 * --sandbox ecomerce`, `tool call get_usr` and `run --sandbox` listed the valid names but suggested none.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

// (the workspace's path is any path: a person's $TMPDIR may have a space in it)
describe('a name with a slip', { timeout: STARTS_PROCESSES_MS }, () => {
  const ws = tempWorkspace();
  afterAll(() => removeWorkspace(ws));

  it('a sandbox: did you mean, then the names there are', async () => {
    const r = await runToolsmith(ws, ['tools', '--sandbox', 'ecomerce']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no sandbox ecomerce in .+; did you mean ecommerce\? available: .*ecommerce/);
  });

  it('a tool: did you mean, then the tools there are', async () => {
    const r = await runToolsmith(ws, [
      'tool',
      'call',
      'get_usr',
      '--sandbox',
      'ecommerce',
      '--args',
      '{"user_id": "u1"}',
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /no tool get_usr in sandbox ecommerce; did you mean get_user\? available: .*get_user/,
    );
  });

  it('a name far from every one: no guess', async () => {
    const r = await runToolsmith(ws, ['tools', '--sandbox', 'zzzzzzzzzz']);
    expect(r.code).toBe(2);
    expect(r.err).not.toMatch(/did you mean/);
    expect(r.err).toMatch(/no sandbox zzzzzzzzzz in .+; available: /);
  });
});
