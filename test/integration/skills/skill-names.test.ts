/**
 * A skill's name is defined in the job's namespace whenever a script's body names it, so a skill may not
 * take a name scripts already have: a Python skill `len` replaced the builtin in every script of its
 * sandbox that called `len(...)` (a wrong answer, no error), a JS skill `console` broke every script that
 * logged. Saving such a skill is refused with the reason; a hand-written file of that name is listed as a
 * problem and never offered; scripts keep the builtin (real Docker sandboxes).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

const pySkill = (name: string) => `def ${name}(user_id: str) -> float:
    """What a customer spent.

    Args:
        user_id: The customer's id.
    """
    return sum(o["total"] for o in get_orders().data if o["user_id"] == user_id)
`;
const jsSkill = (name: string) => `/**
 * What a customer spent.
 * @param {string} user_id The customer's id.
 */
async function ${name}(user_id) {
  const orders = (await get_orders({})).data;
  return orders.filter((o) => o.user_id === user_id).reduce((a, o) => a + o.total, 0);
}
`;
const tests = [{ args: { user_id: 'u1' }, assert: [{ type: 'equals' as const, value: 201 }] }];

describe('skill names scripts already have', () => {
  it('a skill named like a builtin, module or global is refused; scripts keep the builtin', async () => {
    const skills = svc.skills();
    for (const name of ['len', 'print', 'json'])
      await expect(skills.save({ sandbox: 'ecommerce', name, source: pySkill(name), tests })).rejects.toThrow(
        `the name "${name}" is a name scripts already have`,
      );
    await expect(
      skills.save({
        sandbox: 'ecommerce',
        name: 'console',
        source: jsSkill('console'),
        language: 'js',
        tests,
      }),
    ).rejects.toThrow('the name "console" is a name scripts already have');
    await expect(
      skills.save({ sandbox: 'ecommerce', name: 'spent_by', source: pySkill('spent_by'), tests }),
    ).resolves.toMatchObject({ test: { passed: true } });

    // A file written by hand under such a name is a problem with the reason, never offered.
    mkdirSync(join(ws, 'skills/ecommerce'), { recursive: true });
    writeFileSync(join(ws, 'skills/ecommerce/len.py'), pySkill('len'));
    expect(skills.problems()).toEqual([
      {
        file: join(ws, 'skills/ecommerce/len.py'),
        error: expect.stringContaining('the name "len" is a name scripts already have') as unknown,
      },
    ]);
    expect(skills.list('ecommerce').map((s) => s.name)).toEqual(['spent_by']);

    const runs = await svc.runs();
    const py = await runs.runScript({
      sandbox: 'ecommerce',
      body: 'print("hi")\nemit_result([len([1, 2, 3]), spent_by(user_id="u1")])\n',
    });
    expect(py.error).toBeUndefined();
    expect(py.result).toEqual([3, 201]);
    const js = await runs.runScript({
      sandbox: 'ecommerce',
      language: 'js',
      body: 'console.log("hi");\nemitResult([1, 2, 3].length);\n',
    });
    expect(js.error).toBeUndefined();
    expect(js.result).toBe(3);
  }, 120_000);
});
