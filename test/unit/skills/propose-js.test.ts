/**
 * "Make a skill" from lines of a JS/TS run: task literals become parameters, names read but not defined
 * become the rest of the signature, names the rest of the script reads become the return value, and the
 * proposal is a skill the JS/TS shape check accepts, with the run's values as its first case.
 */
import { describe, expect, it } from 'vitest';
import { jsSkillShape } from '../../../src-main/core/skills/js-skill.ts';
import { proposeJsSkill } from '../../../src-main/core/skills/propose-js.ts';

const TOOLS = ['get_orders', 'get_user'];

const BODY = [
  'const limit = 3;',
  'const orders = (await get_orders({})).data;',
  'const mine = orders.filter((o) => o.user_id === "u2").slice(0, limit);',
  'let spent = 0;',
  'for (const o of mine) spent += o.total;',
  'const user = await get_user({ user_id: "u2" });',
  'emitResult({ name: user.data.name, spent });',
].join('\n');

describe('proposing a JS/TS skill from lines of a run', () => {
  it('JS: task literals as parameters (named by their key), used names as the signature, the run as a case', () => {
    const p = proposeJsSkill({
      body: BODY,
      start: 2,
      end: 5,
      task: 'what did customer "u2" spend',
      tools: TOOLS,
      language: 'js',
      name: 'spent_by',
    });
    expect(p.language).toBe('js');
    // "u2" came from the task (no property key there: value1); `limit` is read before the lines
    // define it, its value known from the earlier `const limit = 3`.
    expect(p.parameters).toEqual([
      { name: 'value1', type: 'str', value: 'u2', from: 'task' },
      { name: 'limit', type: 'int', value: 3, from: 'script' },
    ]);
    // `spent` is read after the lines; `orders`, `mine`, `o` are not.
    expect(p.returns).toEqual(['spent']);
    expect(p.tests).toEqual([{ args: { value1: 'u2', limit: 3 }, assert: [] }]);
    expect(p.source).toContain('async function spent_by(value1, limit) {');
    expect(p.source).toContain('o.user_id === value1');
    expect(p.source).toContain(' * @param {string} value1 From the task.');
    expect(p.source).toContain(' * @param {number} limit Used by the steps.');
    expect(p.source.trimEnd().endsWith('  return spent;\n}')).toBe(true);
    // What it proposes is a skill: one documented function, the tools it calls known.
    const shape = jsSkillShape('spent_by', p.source, 'js');
    expect(shape.problems).toEqual([]);
    expect(shape.calls).toEqual(expect.arrayContaining(['get_orders']));
    expect(shape.tool.parameters.map((x) => [x.name, x.type])).toEqual([
      ['value1', 'str'],
      ['limit', 'float'],
    ]);
  });

  it('TS: a property key names the parameter, emitResult becomes return, the parameters are typed', () => {
    const body = [
      'const who: string = "x";',
      'const user = await get_user({ user_id: "u3" });',
      'emitResult(user.data.email as string);',
    ].join('\n');
    const p = proposeJsSkill({
      body,
      start: 2,
      end: 3,
      task: 'email of u3',
      tools: TOOLS,
      language: 'ts',
      name: 'email_of',
    });
    expect(p.parameters).toEqual([{ name: 'user_id', type: 'str', value: 'u3', from: 'task' }]);
    expect(p.returns).toEqual([]);
    // What the function returns is what the script emitted (the Skills view said "nothing").
    expect(p.emitted).toEqual(['user.data.email as string']);
    expect(p.source).toContain(' * @returns What the script emitted: user.data.email as string.');
    expect(p.source).toContain('async function email_of(user_id: string) {');
    expect(p.source).toContain('await get_user({ user_id: user_id });');
    expect(p.source).toContain('  return user.data.email as string;\n}');
    expect(p.source).not.toContain('emitResult');
    expect(jsSkillShape('email_of', p.source, 'ts').problems).toEqual([]);
    expect(p.tests).toEqual([{ args: { user_id: 'u3' }, assert: [] }]);
  });

  it('a name with no known value is a parameter of unknown type, left out of the first case', () => {
    const body = 'const orders = (await get_orders({})).data;\nconst n = orders.length;\nemitResult(n);\n';
    const p = proposeJsSkill({ body, start: 2, end: 2, task: 'count orders', tools: TOOLS, language: 'ts' });
    expect(p.name).toBe('new_skill');
    expect(p.parameters).toEqual([{ name: 'orders', type: 'any', from: 'script' }]);
    expect(p.returns).toEqual(['n']);
    expect(p.source).toContain('async function new_skill(orders: any) {');
    expect(p.tests).toEqual([{ args: {}, assert: [] }]);
  });

  it('refuses lines that are not whole statements, saying which', () => {
    const body = 'for (const o of [1, 2]) {\n  emitIntermediate(o);\n}\nemitResult(1);\n';
    expect(() => proposeJsSkill({ body, start: 1, end: 2, task: 't', tools: TOOLS, language: 'js' })).toThrow(
      /^lines 1-2 are not whole statements: /,
    );
  });
});

describe('what is emitted, quoted in the doc comment', () => {
  it("a string holding the comment's end, or an object over several lines: the comment ends where it should and the skill parses", () => {
    const body = [
      'const u = (await get_user({ user_id: "u2" })).data;',
      'emitResult({',
      '  label: "<!-- */ -->",',
      '  name: u.name,',
      '});',
    ].join('\n');
    const p = proposeJsSkill({ body, start: 1, end: 5, task: 'label u2', tools: TOOLS, language: 'js' });
    expect(p.emitted).toEqual(['{\n  label: "<!-- */ -->",\n  name: u.name,\n}']);
    // Before: the comment closed inside the emitted string and the proposal did not parse.
    expect(jsSkillShape(p.name, p.source, 'js').problems).toEqual([]);
    expect(p.source).toContain(
      ' * @returns What the script emitted: { label: "<!-- *\\/ -->", name: u.name, }.\n',
    );
  });
});
