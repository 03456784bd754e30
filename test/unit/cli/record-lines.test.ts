/**
 * A run recorded elsewhere (an MCP client's task, an imported run): `runs show` printed its task and an
 * INTERACTIVE step's summary raw, so an OSC title set or a line erase in them acted on the terminal
 * (`runs list` already showed the task through visible()). Both show control characters as escapes now,
 * and a task's lines continue indented (the CLI in process).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace('toolsmith-record-lines-');
afterAll(() => removeWorkspace(ws));

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('runs show of a run whose task and step summary hold escape sequences', () => {
  it('shows them as escapes', async () => {
    const exported = JSON.parse(readFileSync(join(repoRoot, 'test/fixtures/runs/run-v1.json'), 'utf8')) as {
      events: { type: string; data: Record<string, unknown> }[];
    };
    for (const e of exported.events) {
      if (e.type === 'run_started') e.data['task'] = 'top 3\u001b]0;owned\u0007\nsecond line\u001b[2K';
      if (e.type === 'step') e.data['summary'] = 'summary\u001b]52;c;ZWNobyBwd25lZA==\u0007';
    }
    const file = join(ws, 'hostile-run.json');
    writeFileSync(file, JSON.stringify(exported));
    const imported = await cli('--workspace', ws, 'runs', 'import', file);
    expect(imported.code, imported.err).toBe(0);
    const shown = await cli('--workspace', ws, 'runs', 'show', '6f1c2a9e');
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toContain('task: top 3\\x1b]0;owned\\x07\n      second line\\x1b[2K');
    expect(shown.out).toContain('summary\\x1b]52;c;ZWNobyBwd25lZA==\\x07');
    expect(shown.out).not.toMatch(CONTROL);
  });
});
