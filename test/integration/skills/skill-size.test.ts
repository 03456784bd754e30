/**
 * A skill as large as a script can be: every command parses every skill of the workspace, so one of a
 * megabyte (saved from the CLI, which took it; its tests then failed, the job too large for a worker)
 * made each later command take 14 s instead of 2 here. A skill holds at most 200,000 characters, as the
 * workbench's save already took: a larger one is refused at save, before it is checked, and a larger
 * file written by hand is listed as a problem, unparsed, and never offered.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli.ts';
import { removeWorkspace, tempFiles, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace();
const files = tempFiles('toolsmith-skill-size-');
afterAll(() => {
  removeWorkspace(ws);
  rmSync(files.dir, { recursive: true, force: true });
});

/** A documented Python skill of `lines` additions (~14 characters each). */
const big = (name: string, lines: number) =>
  [
    `def ${name}(user_id: str) -> int:`,
    '    """Adds.',
    '',
    '    Args:',
    '        user_id: The id.',
    '',
    '    Returns:',
    '        The sum.',
    '    """',
    '    n = 0',
    ...Array.from({ length: lines }, (_, i) => `    n = n + ${i}`),
    '    return n',
    '',
  ].join('\n');

describe('a skill larger than a skill may be', () => {
  it('is refused at save naming the bound, and a file written by hand is a problem, not a skill', async () => {
    const source = big('adds', 20_000);
    expect(source.length).toBeGreaterThan(200_000);
    const made = await cli(
      '-w',
      ws,
      'skill',
      'create',
      'adds',
      '--sandbox',
      'ecommerce',
      '--file',
      files.file('adds.py', source),
      '--case',
      '{"args":{"user_id":"u1"},"expect":1}',
    );
    expect(made.code).not.toBe(0);
    expect(made.err.trim()).toBe(
      `toolsmith: skill adds: it is ${source.length.toLocaleString('en-US')} characters, above the 200,000 a skill may hold: a skill is a short function; data this large belongs in a tool or a file the tools read`,
    );

    mkdirSync(join(ws, 'skills/ecommerce'), { recursive: true });
    const file = join(ws, 'skills/ecommerce/adds.py');
    writeFileSync(file, source);
    const listed = await cli('-w', ws, 'skill', 'list', '--sandbox', 'ecommerce');
    expect(listed.out + listed.err).toContain(
      `${file}: it is ${source.length.toLocaleString('en-US')} characters, above the 200,000 a skill may hold`,
    );
    const tools = await cli('-w', ws, 'tools', '--sandbox', 'ecommerce');
    expect(tools.out).not.toContain('name="adds"');
  }, 300_000);
});
