/**
 * A skill that recurses without end, in a real sandbox: the run's error names the skill and how deep it
 * went ("skill 'deep' called itself 986 deep: recursion limit reached"), a RecursionError in Python (a
 * RangeError in JS), instead of Python's "cannot set the recursion limit to 1000 at the recursion depth
 * 1000: the limit is too low" (the worker's headroom for recording a tool call failing to set itself
 * back) or a bare "maximum recursion depth exceeded" / "Maximum call stack size exceeded".
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace();
const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager, oneShot: true });
afterAll(async () => {
  await svc.close();
  removeWorkspace(ws);
});

const py = (name: string, body: string) => `def ${name}(n: int) -> int:
    """Goes one deeper each call.

    Args:
        n: How deep it is.

    Returns:
        Never.
    """
${body}`;

const js = (name: string, body: string) => `/**
 * Goes one deeper each call.
 * @param {number} n How deep it is.
 * @returns Never.
 */
async function ${name}(n) {
${body}}
`;

const RECURSION = /^skill '(\w+)' called itself (\d+) deep: recursion limit reached$/;

/**
 * Saves `skill`, whose one test case recurses without end: the test fails, and the error of that case's
 * run is a `type` naming the skill; how deep it went and how many frames the error kept.
 */
async function recursionDepth(
  skill: { name: string; language?: 'js'; source: string },
  type: string,
): Promise<{ depth: number; frames: number | undefined }> {
  const saved = await svc.skills().save({
    sandbox: 'ecommerce',
    ...skill,
    tests: [{ args: { n: 1 }, assert: [{ type: 'equals', value: 1 }] }],
  });
  expect(saved.test.passed).toBe(false);
  const runId = saved.test.cases[0]?.runId as string;
  const error = (await svc.runs()).get(runId).attempts[0]?.execution?.error;
  expect(error?.type, JSON.stringify(error)).toBe(type);
  const m = RECURSION.exec(error?.message ?? '');
  expect(m, error?.message).not.toBeNull();
  expect(m?.[1]).toBe(skill.name);
  return { depth: Number(m?.[2]), frames: error?.frames.length };
}

describe('a skill that recurses without end', () => {
  it('Python: names the skill and its depth, with or without a tool call at each level', async () => {
    for (const [name, body] of [
      ['deep_tool', '    get_orders()\n    return deep_tool(n + 1)\n'],
      ['deep_plain', '    return deep_plain(n + 1)\n'],
    ] as const) {
      const { depth } = await recursionDepth({ name, source: py(name, body) }, 'RecursionError');
      // The default limit is 1000: the skill's own frames are nearly all of them.
      expect(depth).toBeGreaterThan(900);
      expect(depth).toBeLessThanOrEqual(1000);
    }
  }, 180_000);

  it('Python: a tool call at the edge leaves the limit as it was (the next recursion stops as deep)', async () => {
    // Each round recurses until the limit, catches the error and goes again: a limit left raised by the
    // worker's headroom for recording the edge call would let each round go deeper.
    const runs = await svc.runs();
    const o = await runs.runScript({
      sandbox: 'ecommerce',
      body: [
        'def down(n, seen):',
        '    seen.append(n)',
        '    get_orders()',
        '    return down(n + 1, seen)',
        'depths = []',
        'for _ in range(4):',
        '    seen = []',
        '    try:',
        '        down(0, seen)',
        '    except RuntimeError as e:',
        '        depths.append([len(seen), str(e)])',
        'emit_result(depths)',
        '',
      ].join('\n'),
    });
    expect(o.status, JSON.stringify(o.error)).toBe('succeeded');
    const depths = o.result as [number, string][];
    expect(new Set(depths.map((d) => d[0])).size, JSON.stringify(depths)).toBe(1);
    for (const [, message] of depths) expect(message).toBe('maximum recursion depth exceeded');
  }, 120_000);

  it('JS: names the skill and its depth', async () => {
    const { depth, frames } = await recursionDepth(
      { name: 'deep_js', language: 'js', source: js('deep_js', '  return await deep_js(n + 1);\n') },
      'RangeError',
    );
    expect(depth).toBeGreaterThan(100);
    // The frames sent are the innermost ones, as many as a stack overflow's stack had before.
    expect(frames).toBeLessThanOrEqual(10);
  }, 180_000);
});
