/** Issue 10, CLI: `validate` without --sandbox checks against the workspace's default sandbox. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { cli } from '../../support/cli.ts';

const file = (text: string) => {
  const f = join(mkdtempSync(join(tmpdir(), 'toolsmith-cli-bugs-')), 'script.py');
  writeFileSync(f, text);
  return f;
};

// The default workspace is the run's own copy of the sample (test/support/isolated-home.ts), never the
// person's; the first validate loads the validators (seconds on a loaded machine).
describe('validate without --sandbox', { timeout: STARTS_PROCESSES_MS }, () => {
  it("accepts a script calling the default sandbox's tools (ecommerce in the sample workspace)", async () => {
    const r = await cli('validate', file('r = get_user(user_id="u1")\nemit_result(r.data)\n'));
    expect(r).toMatchObject({ code: 0, out: expect.stringMatching(/: valid \(python\)\n$/) });
  });

  it('refuses a tool of another sandbox; --tools still names the tools exactly', async () => {
    const other = file('r = get_ticket(ticket_id=1)\nemit_result(r.data)\n');
    expect((await cli('validate', other)).code).toBe(1);
    expect((await cli('validate', other, '--tools', 'get_ticket')).code).toBe(0);
    expect((await cli('validate', other, '--sandbox', 'support')).code).toBe(0);
  });
});
