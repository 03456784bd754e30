import { describe, expect, it } from 'vitest';
import { jsSkillFileText, jsSkillShape, splitJsSkillFile } from '../../../src-main/core/skills/js-skill.ts';
import { toolsPrompt } from '../../../src-main/core/tools/prompt.ts';

const SPENT_TS = `/**
 * What a customer spent over all their orders.
 *
 * @param user_id The customer's id (e.g. "u1").
 * @returns The sum of the totals of the customer's orders.
 */
async function spent_by(user_id: string, round_to: number = 2) {
  const orders = (await get_orders()).data;
  return orders.filter((o) => o.user_id === user_id).reduce((a, o) => a + o.total, 0);
}
`;

describe('JS/TS skill files', () => {
  it('keep TOML front matter in // comments and give it back', () => {
    const text = jsSkillFileText('version = 2\n\n[[tests]]\nargs = { user_id = "u1" }', SPENT_TS);
    expect(text.startsWith('// +++\n// version = 2\n//\n// [[tests]]\n')).toBe(true);
    const back = splitJsSkillFile(text);
    expect(back.front).toBe('version = 2\n\n[[tests]]\nargs = { user_id = "u1" }');
    expect(back.source).toBe(SPENT_TS);
    expect(() => splitJsSkillFile('// +++\nversion = 1\n')).toThrow(/not closed/);
    expect(() => splitJsSkillFile('// +++\nversion = 1\n// +++\n')).toThrow(/starts with "\/\/"/);
  });

  it('write a bidi control in the front matter as a TOML escape, and refuse one written raw', () => {
    const text = jsSkillFileText('version = 2\n\n[[tests]]\nargs = { user_id = "u1\u202e\u2066" }', SPENT_TS);
    expect(text).toContain('// args = { user_id = "u1\\u202e\\u2066" }');
    expect(text).not.toMatch(/[\u202e\u2066]/);
    expect(splitJsSkillFile(text).front).toBe(
      'version = 2\n\n[[tests]]\nargs = { user_id = "u1\\u202e\\u2066" }',
    );
    const raw = `// +++\n// version = 2\n//\n// [[tests]]\n// args = { user_id = "u1\u200e" }\n// +++\n${SPENT_TS}`;
    expect(() => splitJsSkillFile(raw, 'skills/s/spent_by.ts')).toThrow(
      'skills/s/spent_by.ts: front matter line 5, column 26: U+200E (LEFT-TO-RIGHT MARK), a bidirectional ' +
        "control character, is refused raw in a skill file's front matter",
    );
  });
});

describe('the shape of a JS/TS skill', () => {
  it('derives the manual entry from the JSDoc and the TS annotations, and the names it calls', () => {
    const shape = jsSkillShape('spent_by', SPENT_TS, 'ts');
    expect(shape.problems).toEqual([]);
    expect(shape.calls).toEqual(['get_orders']);
    expect(shape.tool).toMatchObject({
      name: 'spent_by',
      description: 'What a customer spent over all their orders.',
      returns: "The sum of the totals of the customer's orders.",
      location: 'skill',
      parameters: [
        { name: 'user_id', type: 'str', required: true, description: 'The customer\'s id (e.g. "u1").' },
        { name: 'round_to', type: 'float', required: false, default: 2 },
      ],
    });
  });

  it('shows a literal default in the manual (null, negative, arrays, objects) and refuses one that is not a literal', () => {
    const params = (sig: string) =>
      jsSkillShape(
        'f',
        `/**\n * F.\n * @param {number} a A.\n */\nfunction f(${sig}) {\n  return a;\n}\n`,
        'js',
      );
    const ok = params('a = null, b = -1, c = [1, "x"], d = { k: [true] }, e = `t`, g = undefined');
    expect(ok.problems).toEqual([]);
    expect(ok.tool.parameters.map((p) => [p.name, p.required, p.default])).toEqual([
      ['a', false, null],
      ['b', false, -1],
      ['c', false, [1, 'x']],
      ['d', false, { k: [true] }],
      ['e', false, 't'],
      ['g', false, undefined],
    ]);
    // An optional parameter with no default: TS `x?: T`, JSDoc `[x]`, `[x=v]` or `{T=}` (before, each read
    // as required).
    const ts = jsSkillShape(
      'f',
      '/**\n * F.\n */\nfunction f(a: string, b?: number, c?: string[]) {\n  return a;\n}\n',
      'ts',
    );
    expect(ts.problems).toEqual([]);
    expect(ts.tool.parameters.map((p) => [p.name, p.type, p.required])).toEqual([
      ['a', 'str', true],
      ['b', 'float', false],
      ['c', 'list', false],
    ]);
    const js = jsSkillShape(
      'f',
      '/**\n * F.\n * @param {string} a A.\n * @param {number} [b] B.\n * @param {string} [c="x"] C.\n * @param {boolean=} d D.\n */\nfunction f(a, b, c, d) {\n  return a;\n}\n',
      'js',
    );
    expect(js.problems).toEqual([]);
    expect(js.tool.parameters.map((p) => [p.name, p.type, p.required, p.description])).toEqual([
      ['a', 'str', true, 'A.'],
      ['b', 'float', false, 'B.'],
      ['c', 'str', false, 'C.'],
      ['d', 'bool', false, 'D.'],
    ]);
    // It was left out of the manual, which then read as if the parameter had no value when not given.
    for (const sig of ['a = Date.now()', 'a = 2 * 3', 'a = x', 'a = [...y]', 'a = { [k]: 1 }', 'a = `${b}`'])
      expect(params(sig).problems, sig).toEqual([
        'the default of a must be a literal (a number, string, true, false, null, or an array or object of them): the manual shows callers the value they get',
      ]);
  });

  it('shows an optional parameter without a default as optional in the manual, with no default made up', () => {
    const { tool, problems } = jsSkillShape(
      'f',
      '/**\n * F.\n * @param b B.\n */\nfunction f(a: string, b?: number, c: string = "x", d: string | null = null) {\n  return a;\n}\n',
      'ts',
    );
    expect(problems).toEqual([]);
    for (const language of ['ts', 'js'] as const) {
      const manual = toolsPrompt([tool], language);
      const param = (name: string) =>
        manual.match(new RegExp(`<parameter name="${name}"[^]*?</parameter>`))?.[0] ?? '';
      // Before: `<default>null</default>`, a value the skill never gets (a missing argument is undefined).
      expect(param('b'), language).toContain('required="false"');
      expect(param('b'), language).not.toContain('<default>');
      // A default written in the skill is still shown, null included.
      expect(param('c'), language).toContain('<default>"x"</default>');
      expect(param('d'), language).toContain('<default>null</default>');
    }
  });

  it('takes JSDoc types in a JS skill', () => {
    const shape = jsSkillShape(
      'city',
      '/**\n * A city.\n * @param {string} user_id The id.\n */\nfunction city(user_id) {\n  return get_user({ user_id });\n}\n',
      'js',
    );
    expect(shape.problems).toEqual([]);
    expect(shape.tool.parameters[0]).toMatchObject({ name: 'user_id', type: 'str', description: 'The id.' });
  });

  it('refuses what is not one documented function that returns its value', () => {
    const problems = (src: string, lang: 'js' | 'ts' = 'js', name = 'f') =>
      jsSkillShape(name, src, lang).problems;
    expect(problems('function f(x) { return x; }\n')).toEqual([
      'a skill needs a JSDoc comment (/** ... */) saying what it does and what it returns',
    ]);
    expect(problems('/** F. */\nfunction f(x) { return x; }\nconst y = 1;\n')[0]).toMatch(
      /exactly one function/,
    );
    expect(problems('/** F. */\nfunction g(x) { return x; }\n')).toEqual([
      'the function is named g; it must be f',
    ]);
    expect(problems('/** F. */\nfunction f({ a }) { return a; }\n')).toEqual([
      'a skill takes named parameters only (no destructuring or ...rest)',
    ]);
    expect(problems('/** F. */\nfunction f(x) { emitResult(x); }\n')).toEqual([
      'a skill returns its value; emitResult belongs to the script that calls it',
    ]);
    expect(problems('/** F. */\nfunction f(x) { return x; }\n', 'ts')).toEqual([
      'parameter x needs a type (x: string)',
    ]);
    expect(problems('/** F. */\nfunction f(x) { return x; \n')[0]).toMatch(/does not parse/);
    expect(problems('/** F. */\nfunction F() { return 1; }\n', 'js', 'F')[0]).toMatch(/is not a skill name/);
    // A name that is no skill name is said once: not also as a function name to change to it.
    expect(problems('/** F. */\nfunction wrong_skill() { return 1; }\n', 'js', 'Mismatch')).toEqual([
      'the name "Mismatch" is not a skill name (lower case letters, digits, _)',
    ]);
  });
});

describe('JS/TS skill files, calls and stubs', () => {
  it('lists .js/.ts skill files with their language; a new version in another language keeps the old in the history', async () => {
    const { SkillFiles } = await import('../../../src-main/infra/workspace/skill-files.ts');
    const { skillFromParts } = await import('../../../src-main/core/skills/skill.ts');
    const { jsSkillShape } = await import('../../../src-main/core/skills/js-skill.ts');
    const { tempWorkspace, removeWorkspace } = await import('../../support/workspace.ts');
    const ws = tempWorkspace();
    try {
      const files = new SkillFiles(ws);
      const js =
        '/**\n * Twice.\n * @param {number} x A number.\n */\nfunction twice(x) {\n  return x * 2;\n}\n';
      const where = { sandbox: 'ecommerce', name: 'twice' };
      files.write(
        skillFromParts({ tests: [{ args: { x: 2 } }] }, js, where, 'js', (n, s) => jsSkillShape(n, s, 'js')),
      );
      expect(files.list('ecommerce').map((e) => [e.name, e.skill?.language, e.error])).toEqual([
        ['twice', 'js', undefined],
      ]);
      const ts = js.replace('(x)', '(x: number)');
      files.write(skillFromParts({ version: 2 }, ts, where, 'ts', (n, s) => jsSkillShape(n, s, 'ts')));
      expect(files.list('ecommerce').map((e) => [e.file.split('/').pop(), e.skill?.language])).toEqual([
        ['twice.ts', 'ts'],
      ]);
      expect(files.versions('ecommerce', 'twice')).toEqual([1]);
      expect(files.version('ecommerce', 'twice', 1)).toContain('function twice(x) {');
      expect(files.delete('ecommerce', 'twice')).toBe(true);
      expect(files.list('ecommerce')).toEqual([]);
    } finally {
      removeWorkspace(ws);
    }
  });

  it('a test case calls the skill with positional arguments; the stub declares it', async () => {
    const { jsSkillCallScript, jsSkillStub } = await import('../../../src-main/core/skills/js-skill.ts');
    const params = [{ name: 'a' }, { name: 'b' }, { name: 'c' }];
    expect(jsSkillCallScript('f', { c: [1], a: 'x' }, params)).toBe(
      'emitResult(await f("x", undefined, [1]));\n',
    );
    expect(jsSkillCallScript('f', { a: 'x' }, params)).toBe('emitResult(await f("x"));\n');
    expect(
      jsSkillStub({
        name: 'f',
        parameters: [
          { name: 'a', type: 'str', required: true, description: '', source: 'all' },
          { name: 'b', type: 'bool', required: false, description: '', source: 'all' },
        ],
      }),
    ).toBe('declare function f(a: string, b?: boolean): Promise<unknown>;');
  });
});
