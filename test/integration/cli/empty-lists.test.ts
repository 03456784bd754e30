/**
 * `template list` and `skill list` with nothing to list: a line on stderr says so and how to make one (they
 * printed nothing at all, and a new user could not tell an empty list from a wrong workspace); stdout
 * stays empty for a pipe, and `--json` gives the empty list.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

describe('empty lists', { timeout: STARTS_PROCESSES_MS }, () => {
  const ws = tempWorkspace(); // (the sample's copy: no templates/ or skills/ folder)
  afterAll(() => removeWorkspace(ws));
  it('template list says there are none and how to make one', async () => {
    const r = await runToolsmith(ws, ['template', 'list']);
    expect(r).toMatchObject({ code: 0, out: '' });
    expect(r.err).toBe(
      "no templates in this workspace: promote a run's working script with `toolsmith template create NAME --from-run RUN_ID`\n",
    );
    expect(JSON.parse((await runToolsmith(ws, ['template', 'list', '--json'])).out)).toEqual({
      templates: [],
      problems: [],
    });
  });
  it('skill list says there are none, in the workspace or the sandbox asked for', async () => {
    const all = await runToolsmith(ws, ['skill', 'list']);
    expect(all).toMatchObject({ code: 0, out: '' });
    expect(all.err).toMatch(
      /^no skills in this workspace: save a function as one with `toolsmith skill create/,
    );
    const one = await runToolsmith(ws, ['skill', 'list', '--sandbox', 'ecommerce']);
    expect(one.err).toMatch(/^no skills in sandbox ecommerce: /);
  });
});
