/**
 * Skills against real sandboxes: saved, tested in the sandbox (a failing skill is not offered), offered
 * to scripts (defined ahead of the body, re-checked by the worker), each tool call recorded under the
 * skill's name, versions kept; the walls hold for skill code as for any script.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { ToolsmithError } from '../../../src-main/app/errors.ts';
import type { Response } from '../../../src-main/contract/api.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace();
const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager, oneShot: true });
afterAll(async () => {
  await svc.close();
  removeWorkspace(ws);
});

const ORDER_TOTAL = `def order_total(user_id: str) -> float:
    """The total of a customer's orders.

    Args:
        user_id: The customer's id (e.g. "u1").

    Returns:
        The sum of the totals of the customer's orders.
    """
    orders = get_orders().data
    user = get_user(user_id=user_id)
    if not user.success:
        raise ValueError(user.message)
    return sum(o["total"] for o in orders if o["user_id"] == user_id)
`;

describe('skills in a real sandbox', () => {
  it('saves, tests, offers a skill; a script calls it and its tool calls carry the skill name', async () => {
    const skills = svc.skills();
    const saved = await skills.save({
      sandbox: 'ecommerce',
      name: 'order_total',
      source: ORDER_TOTAL,
      tests: [
        { args: { user_id: 'u1' }, assert: [{ type: 'equals', value: 201 }] },
        {
          args: { user_id: 'u3' },
          assert: [{ type: 'predicate', script: 'emit_result(result > 400 and result < 410)\n' }],
        },
      ],
    });
    expect(saved.test.passed).toBe(true);
    expect(saved.test.cases.map((c) => c.result)).toEqual([201, 409.49]);
    expect(saved.skill).toMatchObject({
      status: 'passed',
      version: 1,
      signature: 'order_total(user_id: str)',
      tools: ['get_orders', 'get_user'],
      grade: { w: 1, d: 0 },
    });
    const file = join(ws, 'skills/ecommerce/order_total.py');
    expect(readFileSync(file, 'utf8')).toMatch(/^# \+\+\+\n# version = 1\n[\s\S]*# \+\+\+\ndef order_total/);

    // A test run is recorded, its own kind, with the tool calls under the skill's name.
    const testRun = (await svc.runs()).get(saved.test.cases[0]?.runId as string);
    expect(testRun.started.kind).toBe('skill_test');
    expect(testRun.attempts[0]?.toolCalls.map((t) => [t.name, t.skill])).toEqual([
      ['get_orders', 'order_total'],
      ['get_user', 'order_total'],
    ]);

    // Offered: in the prompt's manual, and a script that calls it runs with the skill defined.
    const prompt = svc.execution.buildPrompt('total of u1', 'ecommerce');
    expect(prompt.user + prompt.system).toMatch(/<tool name="order_total" location="skill">/);
    const runs = await svc.runs();
    const o = await runs.runScript({
      sandbox: 'ecommerce',
      body: 'a = order_total(user_id="u1")\nu = get_user(user_id="u2")\nemit_result({"a": a, "u": u.data["name"]})\n',
    });
    expect(o).toMatchObject({ status: 'succeeded', result: { a: 201, u: 'Alan Turing' } });
    const rec = runs.get(o.runId);
    const a = rec.attempts[0];
    expect(a?.script?.code).toContain('def order_total(user_id: str) -> float:');
    expect(a?.script?.body).not.toContain('def order_total');
    expect(a?.toolCalls.map((t) => [t.name, t.skill ?? null])).toEqual([
      ['get_orders', 'order_total'],
      ['get_user', 'order_total'],
      ['get_user', null],
    ]);

    // A script that does not name the skill gets no skill source.
    const plain = await runs.runScript({ sandbox: 'ecommerce', body: 'emit_result(1)\n' });
    expect(runs.get(plain.runId).attempts[0]?.script?.code).not.toContain('def order_total');
  }, 300_000);

  it('a failing skill is not offered; a body may not rebind a skill; a new version keeps the old one', async () => {
    const skills = svc.skills();
    const broken = await skills.save({
      sandbox: 'ecommerce',
      name: 'user_city',
      source: `def user_city(user_id: str) -> str:
    """A customer's city.

    Args:
        user_id: The customer's id.
    """
    return get_user(user_id=user_id).data["town"]
`,
      tests: [{ args: { user_id: 'u1' }, assert: [{ type: 'equals', value: 'London' }] }],
    });
    expect(broken.test.passed).toBe(false);
    expect(broken.test.cases[0]?.error).toMatch(/KeyError/);
    expect(skills.get('ecommerce', 'user_city')).toMatchObject({ status: 'failed' });
    expect(svc.execution.scriptContext('ecommerce', undefined, 'python').skills?.map((s) => s.name)).toEqual([
      'order_total',
    ]);
    // Not offered: a script calling it is refused before it runs, saying why.
    const v = svc.execution.validate({
      code: 'emit_result(user_city(user_id="u1"))\n',
      language: 'python',
      sandbox: 'ecommerce',
    });
    expect(v.violations.map((x) => x.rule)).toContain('skill-not-offered');
    expect(v.violations.find((x) => x.rule === 'skill-not-offered')?.message).toMatch(
      /^user_city\(\) is a skill this script is not offered: skill user_city belongs to sandbox ecommerce but failed its tests/,
    );

    // Fixed: a new version, the old one in the history; now offered.
    const fixed = await skills.save({
      sandbox: 'ecommerce',
      name: 'user_city',
      source: `def user_city(user_id: str) -> str:
    """A customer's city.

    Args:
        user_id: The customer's id.
    """
    return get_user(user_id=user_id).data["city"]
`,
      force: true,
    });
    expect(fixed.test.passed).toBe(true);
    expect(fixed.skill).toMatchObject({ version: 2, versions: [1], status: 'passed' });
    expect(skills.files.version('ecommerce', 'user_city', 1)).toContain('data["town"]');

    // A skill name cannot be rebound by the body that calls skills.
    const rebind = svc.execution.validate({
      code: 'user_city = 1\nemit_result(user_city)\n',
      language: 'python',
      sandbox: 'ecommerce',
    });
    expect(rebind.violations.map((x) => x.rule)).toContain('rebind-framework');

    // A hand edit makes the skill untested (not offered) until it is tested again.
    const file = join(ws, 'skills/ecommerce/user_city.py');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"city"]', '"city"].upper()'));
    expect(skills.get('ecommerce', 'user_city').status).toBe('untested');
    expect(svc.execution.scriptContext('ecommerce', undefined, 'python').skills?.map((s) => s.name)).toEqual([
      'order_total',
    ]);
    const retest = await skills.test('ecommerce', 'user_city');
    expect(retest.passed).toBe(false);
    expect(retest.cases[0]?.verdicts[0]?.message).toMatch(/expected "London", got "LONDON"/);

    skills.delete('ecommerce', 'user_city');
    expect(existsSync(file)).toBe(false);
    // The deleted version is kept with the earlier ones (it was lost, and the next save took its number).
    expect(skills.files.versions('ecommerce', 'user_city')).toEqual([1, 2]);
  }, 300_000);

  it('makes a skill from lines of a run, tries it, saves it with the run as its first case (contract)', async () => {
    const runs = await svc.runs();
    const run = await runs.runScript({
      sandbox: 'ecommerce',
      task: 'How much did user u2 spend?',
      body: 'orders = get_orders().data\nmine = [o for o in orders if o["user_id"] == "u2"]\nspent = sum(o["total"] for o in mine)\nemit_result(spent)\n',
    });
    expect(run.status).toBe('succeeded');
    const { dispatch } = await import('../../../src-main/app/handlers.ts');
    const call = async <T>(method: string, req: unknown): Promise<T> => {
      const r = await dispatch(svc, method, req);
      if (!r.ok) throw new Error(`${method}: ${r.error.message}`);
      return r.value as T;
    };
    const p = await call<Response<'skills.propose'>>('skills.propose', {
      runId: run.runId,
      start: 1,
      end: 3,
      name: 'spent_by',
    });
    expect(p).toMatchObject({ sandbox: 'ecommerce', origin: run.runId, returns: ['spent'] });
    // "u2" came from the task: a parameter; the run's value is the first case.
    expect(p.parameters).toEqual([{ name: 'value1', type: 'str', value: 'u2', from: 'task' }]);
    expect(p.source).toContain('def spent_by(value1: str):');
    expect(p.source).toContain('o["user_id"] == value1');
    expect(p.tests).toEqual([{ args: { value1: 'u2' }, assert: [] }]);

    const tried = await call<Response<'skills.try'>>('skills.try', {
      sandbox: 'ecommerce',
      name: 'spent_by',
      source: p.source,
      args: { value1: 'u2' },
    });
    expect(tried).toMatchObject({ passed: true, result: 639.98 });
    const saved = await call<Response<'skills.save'>>('skills.save', {
      sandbox: 'ecommerce',
      name: 'spent_by',
      source: p.source,
      tests: [{ args: { value1: 'u2' }, assert: [{ type: 'equals', value: tried.result }] }],
      origin: run.runId,
    });
    expect(saved.test.passed).toBe(true);
    expect(saved.skill).toMatchObject({ origin: run.runId, status: 'passed' });
    const list = await call<Response<'skills.list'>>('skills.list', { sandbox: 'ecommerce' });
    expect(list.skills.map((s) => s.name)).toContain('spent_by');
    expect(
      (
        await call<Response<'skills.check'>>('skills.check', {
          sandbox: 'ecommerce',
          name: 'x',
          source: 'def x(:\n',
        })
      ).valid,
    ).toBe(false);
  }, 300_000);

  it('skill code gets no privileges: a skill that escapes is refused at save, and by the worker', async () => {
    const skills = svc.skills();
    const escape = `def sneaky(x: int) -> int:
    """Tries to reach the interpreter.

    Args:
        x: Anything.
    """
    return len.__self__.__import__("os").getpid()
`;
    await expect(
      skills.save({
        sandbox: 'ecommerce',
        name: 'sneaky',
        source: escape,
        tests: [{ args: { x: 1 }, assert: [] }],
      }),
    ).rejects.toThrow(ToolsmithError);
    expect(existsSync(join(ws, 'skills/ecommerce/sneaky.py'))).toBe(false);

    // Written by hand: its test refuses to run it, and it is not offered.
    const file = join(ws, 'skills/ecommerce/sneaky.py');
    writeFileSync(file, `# +++\n# version = 1\n# [[tests]]\n# args = { x = 1 }\n# +++\n${escape}`);
    const r = await skills.test('ecommerce', 'sneaky');
    expect(r).toMatchObject({ passed: false, cases: [] });
    // Each violation with what it means, as a refused save says it (not the rule's id alone).
    expect(r.failures[0]).toMatch(
      /does not validate: line 7:16 dunder-attribute: \.__self__: attributes starting with an underscore are not available/,
    );
    expect(
      svc.execution.scriptContext('ecommerce', undefined, 'python').skills?.map((s) => s.name),
    ).not.toContain('sneaky');

    // The host's check switched off (the skill handed to the run as if offered): the worker's own
    // check of the exact code refuses it before anything runs.
    const runs = await svc.runs();
    // (its manual entry as the skill's signature has it: the host checks the call's arguments against it)
    const tool = {
      name: 'sneaky',
      description: '',
      parameters: [
        { name: 'x', type: 'int' as const, description: '', required: true, source: 'all' as const },
      ],
      location: 'skill' as const,
      grade: { w: 0, d: 0 },
    };
    const o = await runs.runScript({
      sandbox: 'ecommerce',
      body: 'emit_result(sneaky(x=1))\n',
      skills: [{ name: 'sneaky', source: escape, tool }],
    });
    expect(o.status).toBe('failed');
    const exec = runs.get(o.runId).attempts[0]?.execution;
    expect(exec?.error?.type).toBe('ValidationError');
    expect(exec?.toolCalls).toEqual([]);
  }, 300_000);
});
