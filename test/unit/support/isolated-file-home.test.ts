/**
 * Each test file's own folder (`test/support/isolated-file-home.ts`): it is also the file's current
 * folder, so a workspace of the person's in the folder the tests were started in (`toolsmith init .` in
 * the clone) is never what the CLI opens when a test names none.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../../support/cli.ts';
import { repoRoot } from '../../support/workspace.ts';

describe('a test file’s current folder', () => {
  it('is the file’s own (inside the run’s folder, no workspace in it), not the folder the tests were started in', async () => {
    const fileDir = dirname(process.env['TOOLSMITH_HOME']!);
    expect(process.cwd()).toBe(join(fileDir, 'cwd'));
    expect(process.cwd().startsWith(process.env['TOOLSMITH_TEST_ROOT']!)).toBe(true);
    expect(process.cwd()).not.toBe(repoRoot);
    expect(existsSync(join(process.cwd(), '.toolsmith'))).toBe(false);
    // The CLI with no workspace named opens the file's copy of the sample.
    const r = await cli('sandboxes');
    expect(r.err).toBe('');
    expect(r.out).toContain(`workspace ${join(process.env['TOOLSMITH_HOME']!, 'sample-workspace')}\n`);
  });
});
