/**
 * JS/TS skills against the real node sandbox: saved (a `.js`/`.ts` file per skill, versions kept across
 * languages), validated by the JS validator, tested in the sandbox (a failing skill is not offered),
 * offered to JS/TS scripts only (defined ahead of the body, its tool calls recorded under its name), in
 * the JS/TS manual with its TS declaration, and found by the job's run-time `search_tools`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { ToolsmithError } from '../../../src-main/app/errors.ts';
import type { Response } from '../../../src-main/contract/api.ts';
import { cli } from '../../support/cli.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace();
const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager, oneShot: true });
afterAll(async () => {
  await svc.close();
  removeWorkspace(ws);
});

const ORDER_TOTAL_JS = `/**
 * The total of a customer's orders.
 * @param {string} user_id The customer's id (e.g. "u1").
 * @returns The sum of the totals of the customer's orders.
 */
async function order_total(user_id) {
  const orders = (await get_orders({})).data;
  const user = await get_user({ user_id });
  if (!user.success) throw new Error(user.message);
  return orders.filter((o) => o.user_id === user_id).reduce((a, o) => a + o.total, 0);
}
`;

const USER_NAME_TS = `/**
 * A customer's name, upper case when asked.
 * @param user_id The customer's id.
 * @param upper Whether to upper-case it.
 */
async function user_name(user_id: string, upper: boolean = false): Promise<string> {
  const name: string = (await get_user({ user_id })).data.name;
  return upper ? name.toUpperCase() : name;
}
`;

const names = (language: 'python' | 'js' | 'ts') =>
  (svc.execution.scriptContext('ecommerce', undefined, language).skills ?? []).map((s) => s.name);

describe('JS/TS skills in the real node sandbox', () => {
  it('saves and tests a JS skill; JS and TS scripts call it, its tool calls carry its name', async () => {
    const skills = svc.skills();
    const saved = await skills.save({
      sandbox: 'ecommerce',
      name: 'order_total',
      language: 'js',
      source: ORDER_TOTAL_JS,
      tests: [
        { args: { user_id: 'u1' }, assert: [{ type: 'equals', value: 201 }] },
        // A JS skill's predicate is a JS script with the result bound to `result`.
        {
          args: { user_id: 'u3' },
          assert: [{ type: 'predicate', script: 'emitResult(result > 400 && result < 410);' }],
        },
      ],
    });
    expect(saved.test.failures).toEqual([]);
    expect(saved.test.passed).toBe(true);
    expect(saved.test.cases.map((c) => c.result)).toEqual([201, 409.49]);
    expect(saved.skill).toMatchObject({
      language: 'js',
      status: 'passed',
      version: 1,
      signature: 'order_total(user_id: string)',
      tools: ['get_orders', 'get_user'],
      grade: { w: 1, d: 0 },
    });
    const file = join(ws, 'skills/ecommerce/order_total.js');
    expect(readFileSync(file, 'utf8')).toMatch(/^\/\/ \+\+\+\n\/\/ version = 1\n[\s\S]*\/\/ \+\+\+\n\/\*\*/);
    expect(skills.list('ecommerce').map((s) => [s.name, s.language])).toEqual([['order_total', 'js']]);

    // The test run ran in the node runtime, the calls under the skill's name.
    const testRun = (await svc.runs()).get(saved.test.cases[0]?.runId as string);
    expect(testRun.started.kind).toBe('skill_test');
    expect(testRun.attempts[0]?.script?.language).toBe('js');
    expect(testRun.attempts[0]?.toolCalls.map((t) => [t.name, t.skill])).toEqual([
      ['get_orders', 'order_total'],
      ['get_user', 'order_total'],
    ]);

    // Offered to JS and TS scripts, not to Python ones.
    expect(names('js')).toEqual(['order_total']);
    expect(names('ts')).toEqual(['order_total']);
    expect(names('python')).toEqual([]);

    // The JS manual lists it with its TS declaration (how a script calls it); the Python one does not.
    const prompt = svc.execution.buildPrompt('total of u1', 'ecommerce', { language: 'js' });
    const text = prompt.user + prompt.system;
    expect(text).toMatch(/<tool name="order_total" location="skill">/);
    expect(text).toContain('declare function order_total(user_id: string): Promise&lt;unknown&gt;;');
    const py = svc.execution.buildPrompt('total of u1', 'ecommerce');
    expect(py.user + py.system).not.toContain('order_total');

    const runs = await svc.runs();
    for (const language of ['js', 'ts'] as const) {
      const o = await runs.runScript({
        sandbox: 'ecommerce',
        language,
        body:
          (language === 'ts' ? 'const who: string = "u1";\n' : 'const who = "u1";\n') +
          'const a = await order_total(who);\nconst u = await get_user({ user_id: "u2" });\n' +
          'const found = JSON.stringify(await searchTools("customer orders total"));\n' +
          'emitResult({ a, u: u.data.name, found: found.includes("order_total") });\n',
      });
      expect(o, language).toMatchObject({
        status: 'succeeded',
        result: { a: 201, u: 'Alan Turing', found: true },
      });
      const a = runs.get(o.runId).attempts[0];
      expect(a?.script?.code).toContain('async function order_total(user_id) {');
      expect(a?.script?.body).not.toContain('function order_total');
      expect(a?.toolCalls.map((t) => [t.name, t.skill ?? null])).toEqual([
        ['get_orders', 'order_total'],
        ['get_user', 'order_total'],
        ['get_user', null],
        ['search_tools', null],
      ]);
    }

    // A Python script cannot call it.
    const v = svc.execution.validate({
      code: 'emit_result(order_total(user_id="u1"))\n',
      language: 'python',
      sandbox: 'ecommerce',
    });
    expect(v.violations.map((x) => x.rule)).toContain('skill-not-offered');
    // A JS body may not rebind it, and must await it as a tool.
    const rebind = svc.execution.validate({
      code: 'const order_total = 1;\nemitResult(order_total);\n',
      language: 'js',
      sandbox: 'ecommerce',
    });
    expect(rebind.violations.map((x) => x.rule)).toContain('rebind-framework');
  }, 400_000);

  it('a TS skill is offered to TS scripts only; a failing one is not offered; versions change language', async () => {
    const skills = svc.skills();
    const ts = await skills.save({
      sandbox: 'ecommerce',
      name: 'user_name',
      language: 'ts',
      source: USER_NAME_TS,
      tests: [
        { args: { user_id: 'u2' }, assert: [{ type: 'equals', value: 'Alan Turing' }] },
        { args: { user_id: 'u2', upper: true }, assert: [{ type: 'equals', value: 'ALAN TURING' }] },
      ],
    });
    expect(ts.test.failures).toEqual([]);
    expect(ts.skill).toMatchObject({
      language: 'ts',
      status: 'passed',
      signature: 'user_name(user_id: string, upper?: boolean = false)',
    });
    expect(existsSync(join(ws, 'skills/ecommerce/user_name.ts'))).toBe(true);
    expect(names('ts')).toContain('user_name');
    expect(names('js')).not.toContain('user_name');
    const runs = await svc.runs();
    const o = await runs.runScript({
      sandbox: 'ecommerce',
      language: 'ts',
      body: 'const n: string = await user_name("u2", true);\nemitResult(n);\n',
    });
    expect(o).toMatchObject({ status: 'succeeded', result: 'ALAN TURING' });
    expect(runs.get(o.runId).attempts[0]?.toolCalls.map((t) => [t.name, t.skill])).toEqual([
      ['get_user', 'user_name'],
    ]);

    // A failing JS skill: saved, tests fail in the sandbox, not offered.
    const broken = await skills.save({
      sandbox: 'ecommerce',
      name: 'user_city',
      language: 'js',
      source: `/**
 * A customer's city.
 * @param {string} user_id The customer's id.
 */
async function user_city(user_id) {
  return (await get_user({ user_id })).data.town.toUpperCase();
}
`,
      tests: [{ args: { user_id: 'u1' }, assert: [{ type: 'equals', value: 'London' }] }],
    });
    expect(broken.test.passed).toBe(false);
    expect(broken.test.cases[0]?.error).toMatch(/TypeError/);
    expect(skills.get('ecommerce', 'user_city')).toMatchObject({ status: 'failed', language: 'js' });
    expect(names('js')).not.toContain('user_city');

    // A new version in TS replaces the JS file; the JS version is kept in the history.
    const fixed = await skills.save({
      sandbox: 'ecommerce',
      name: 'user_city',
      language: 'ts',
      source: `/**
 * A customer's city.
 * @param user_id The customer's id.
 */
async function user_city(user_id: string): Promise<string> {
  return (await get_user({ user_id })).data.city;
}
`,
      force: true,
    });
    expect(fixed.test.passed).toBe(true);
    expect(fixed.skill).toMatchObject({ version: 2, versions: [1], language: 'ts' });
    expect(existsSync(join(ws, 'skills/ecommerce/user_city.js'))).toBe(false);
    expect(skills.files.version('ecommerce', 'user_city', 1)).toContain('data.town');
    expect(names('ts')).toContain('user_city');

    skills.delete('ecommerce', 'user_city');
    expect(existsSync(join(ws, 'skills/ecommerce/user_city.ts'))).toBe(false);
    // (the deleted version is kept in the history too, in its language)
    expect(skills.files.versions('ecommerce', 'user_city')).toEqual([1, 2]);
    expect(skills.files.version('ecommerce', 'user_city', 2)).toContain('data.city');
  }, 400_000);

  it('CLI: skill create takes the language from --language or the file, list/show/test/delete', async () => {
    const f = join(ws, 'order_count.js');
    writeFileSync(
      f,
      `/**\n * How many orders a customer has.\n * @param {string} user_id The customer's id.\n */\nasync function order_count(user_id) {\n  return (await get_orders({})).data.filter((o) => o.user_id === user_id).length;\n}\n`,
    );
    const made = await cli(
      '-w',
      ws,
      'skill',
      'create',
      'order_count',
      '--sandbox',
      'ecommerce',
      '--file',
      f,
      '--case',
      '{"args": {"user_id": "u1"}, "expect": 2}',
    );
    expect(made.err).toBe('');
    expect(made.out).toMatch(/saved skill ecommerce\/order_count v1 \(.*order_count\.js\)/);
    expect(made.out).toContain('offered to scripts');
    expect(made.code).toBe(0);
    const list = await cli('-w', ws, 'skill', 'list', '--sandbox', 'ecommerce');
    expect(list.out).toMatch(/ecommerce\/order_count\s+js\s+v1\s+passed/);
    const show = await cli('-w', ws, 'skill', 'show', 'order_count', '--sandbox', 'ecommerce');
    expect(show.out).toContain('order_count v1 (js)  passed');
    expect((await cli('-w', ws, 'skill', 'test', 'order_count', '--sandbox', 'ecommerce')).code).toBe(0);
    // The JS manual lists it; the Python one does not.
    const tools = await cli('-w', ws, 'tools', '--sandbox', 'ecommerce', '--language', 'js');
    expect(tools.out).toContain(
      '<ts_stub>declare function order_count(user_id: string): Promise&lt;unknown&gt;;</ts_stub>',
    );
    expect((await cli('-w', ws, 'tools', '--sandbox', 'ecommerce')).out).not.toContain('order_count');
    // --language wins over the extension: this source is JS, so checked as TS it lacks types.
    const asTs = await cli(
      '-w',
      ws,
      'skill',
      'create',
      'order_count',
      '--sandbox',
      'ecommerce',
      '--file',
      f,
      '--language',
      'ts',
      '--force',
    );
    expect(asTs.code).not.toBe(0);
    expect(asTs.err).toMatch(/parameter user_id needs a type/);
    expect((await cli('-w', ws, 'skill', 'delete', 'order_count', '--sandbox', 'ecommerce')).code).toBe(0);
    expect(existsSync(join(ws, 'skills/ecommerce/order_count.js'))).toBe(false);
  }, 300_000);

  it('makes a JS skill from lines of a JS run, tries it, saves it with the run as its first case (contract)', async () => {
    const runs = await svc.runs();
    const run = await runs.runScript({
      sandbox: 'ecommerce',
      language: 'js',
      task: 'How much did user u2 spend?',
      body:
        'const orders = (await get_orders({})).data;\n' +
        'const mine = orders.filter((o) => o.user_id === "u2");\n' +
        'const spent = mine.reduce((a, o) => a + o.total, 0);\n' +
        'emitResult(spent);\n',
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
      name: 'js_spent_by',
    });
    expect(p).toMatchObject({ language: 'js', sandbox: 'ecommerce', origin: run.runId, returns: ['spent'] });
    expect(p.parameters).toEqual([{ name: 'value1', type: 'str', value: 'u2', from: 'task' }]);
    expect(p.source).toContain('async function js_spent_by(value1) {');
    expect(p.tests).toEqual([{ args: { value1: 'u2' }, assert: [] }]);
    // Its grade is the highest of the tools it calls (get_orders's own).
    const check = await call<Response<'skills.check'>>('skills.check', {
      sandbox: 'ecommerce',
      name: 'js_spent_by',
      source: p.source,
      language: 'js',
    });
    expect(check).toMatchObject({ valid: true, tools: ['get_orders'], grade: { w: 1, d: 0 } });

    const tried = await call<Response<'skills.try'>>('skills.try', {
      sandbox: 'ecommerce',
      name: 'js_spent_by',
      source: p.source,
      language: 'js',
      args: { value1: 'u2' },
    });
    expect(tried).toMatchObject({ passed: true, result: 639.98 });
    const saved = await call<Response<'skills.save'>>('skills.save', {
      sandbox: 'ecommerce',
      name: 'js_spent_by',
      language: 'js',
      source: p.source,
      tests: [{ args: { value1: 'u2' }, assert: [{ type: 'equals', value: tried.result }] }],
      origin: run.runId,
    });
    expect(saved.test.passed).toBe(true);
    expect(saved.skill).toMatchObject({ language: 'js', origin: run.runId, status: 'passed' });
    expect(existsSync(join(ws, 'skills/ecommerce/js_spent_by.js'))).toBe(true);
  }, 300_000);

  it('a JS skill is validated by the script rules: refused at save, and by the node worker', async () => {
    const skills = svc.skills();
    for (const source of [
      `/**\n * Escapes.\n * @param {number} x Anything.\n */\nasync function sneaky(x) {\n  return globalThis.process.pid + x;\n}\n`,
      `/**\n * Escapes.\n * @param {number} x Anything.\n */\nasync function sneaky(x) {\n  return (() => {}).constructor("return process")().pid + x;\n}\n`,
    ]) {
      const c = skills.check({ sandbox: 'ecommerce', name: 'sneaky', source, language: 'js' });
      expect(c.valid).toBe(false);
      expect(c.violations.map((x) => x.rule)).toEqual(
        expect.arrayContaining([expect.stringMatching(/forbidden-(name|property)/)]),
      );
      await expect(
        skills.save({
          sandbox: 'ecommerce',
          name: 'sneaky',
          language: 'js',
          source,
          tests: [{ args: { x: 1 }, assert: [] }],
        }),
      ).rejects.toThrow(ToolsmithError);
    }
    expect(existsSync(join(ws, 'skills/ecommerce/sneaky.js'))).toBe(false);
    // A shape problem: a JS skill is one documented function.
    const shape = skills.check({
      sandbox: 'ecommerce',
      name: 'two',
      source: 'function two() { return 2; }\n',
      language: 'js',
    });
    expect(shape.problems.join(' ')).toMatch(/JSDoc/);

    // The host's check switched off (the skill handed to the run as if offered): the node worker's own
    // check of the exact code refuses it before anything runs, so not even its first tool call is made.
    const escape = `/**\n * Escapes after a tool call.\n * @param {number} x Anything.\n */\nasync function sneaky(x) {\n  await get_user({ user_id: "u1" });\n  return globalThis.process.pid + x;\n}\n`;
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
    for (const language of ['js', 'ts'] as const) {
      const o = await runs.runScript({
        sandbox: 'ecommerce',
        language,
        body: 'emitResult(await sneaky(1));\n',
        skills: [{ name: 'sneaky', language: 'js', source: escape, tool }],
      });
      expect(o.status, language).toBe('failed');
      const exec = runs.get(o.runId).attempts[0]?.execution;
      expect(exec?.error?.type, language).toBe('ValidationError');
      expect(exec?.error?.message, language).toMatch(
        /^skill sneaky:3: globalThis is not available to a skill/,
      );
      expect(exec?.toolCalls, language).toEqual([]);
    }
  }, 300_000);
});
