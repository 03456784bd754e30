import { describe, expect, it } from 'vitest';
import { parsePython, walk } from '../../../src-main/core/lang/python/pyright.ts';
import { directCallRule } from '../../../src-main/core/inference/rules.ts';
import { splitTemplateFile, templateFromParts } from '../../../src-main/core/templates/file.ts';
import { templateSource } from '../../../src-main/core/templates/source.ts';
import {
  checkTemplate,
  instantiate,
  slotLiteral as literal,
  templateBody,
} from '../../../src-main/core/templates/slots.ts';
import { matchTemplate, proposePattern, TemplateError } from '../../../src-main/core/templates/template.ts';
import type { Template } from '../../../src-main/core/templates/template.ts';
import type { Tool } from '../../../src-main/core/tools/model.ts';

const t: Template = {
  name: 'user-name',
  pattern: 'name of user {user_id}',
  slots: { user_id: 'str' },
  sandbox: 'ecommerce',
  language: 'python',
  body: 'r = get_user(user_id={{user_id}})\nemit_result(r.data["name"] if r.success else r.message)\n',
  examples: [{ intent: 'name of user u1', expect: 'Ada Lovelace' }],
};

const calls = (code: string) => {
  const names: string[] = [];
  walk(parsePython(code).module, (n) => {
    if (n.kind === 'Call') names.push(n.children[0]?.value ?? '?');
  });
  return names;
};

describe('templates', () => {
  it('matches intents case- and whitespace-insensitively and types slots', () => {
    expect(matchTemplate(t, 'Name of  user u3')).toEqual({ user_id: 'u3' });
    expect(matchTemplate(t, 'name of user "u 4"')).toEqual({ user_id: 'u 4' });
    expect(matchTemplate(t, 'name of the user u3')).toBeUndefined();
    const n: Template = {
      ...t,
      pattern: 'ticket {id} at {p}',
      slots: { id: 'int', p: 'float' },
      body: 'emit_result([{{id}}, {{p}}])',
    };
    expect(matchTemplate(n, 'ticket 104 at 2.5')).toEqual({ id: 104, p: 2.5 });
    expect(matchTemplate(n, 'ticket abc at 2.5')).toBeUndefined();
  });

  it('a task that says more than the pattern is not served: a bare str slot is one word', () => {
    // Near misses that share the pattern's words: each was served with the extra words as user_id.
    for (const task of [
      'name of user u1 and u2',
      'name of user u2 please',
      'name of user whose email is ada@example.com',
      'name of user u1 or delete all orders',
    ])
      expect(matchTemplate(t, task), task).toBeUndefined();
    // One word, or a quoted text of any kind, still is a value; a slot before a literal stops at it.
    expect(matchTemplate(t, 'name of user #104')).toEqual({ user_id: '#104' });
    expect(matchTemplate(t, "name of user 'Ada L'")).toEqual({ user_id: 'Ada L' });
    expect(matchTemplate(t, 'name of user `u 1`')).toEqual({ user_id: 'u 1' });
    const two: Template = { ...t, pattern: 'orders of {a}, then {b}.', slots: { a: 'str', b: 'str' } };
    expect(matchTemplate(two, 'orders of u1, then "u 2".')).toEqual({ a: 'u1', b: 'u 2' });
    expect(matchTemplate(two, 'orders of u1 u3, then u2')).toBeUndefined();
  });

  it.each([
    ["x');write_file('pwn','1');('"],
    ['x")\nimport os\n("'],
    ['x"); emit_result(1); ("'],
    ['\\"); exec("1'],
    ["u1' + open('/etc/passwd').read() + '"],
    ['{{user_id}}'],
  ])('a slot value enters as a literal and never adds a call: %j', (evil) => {
    // A value with spaces is a slot's only when quoted (here in backticks, which none of them holds).
    if (/\s/.test(evil)) expect(matchTemplate(t, `name of user ${evil}`)).toBeUndefined();
    const values = matchTemplate(t, /\s/.test(evil) ? `name of user \`${evil}\`` : `name of user ${evil}`);
    expect(values).toBeDefined();
    const script = instantiate(t, values ?? {});
    expect(calls(script)).toEqual(calls(instantiate(t, { user_id: 'u1' })));
    expect(parsePython(script).syntaxErrors).toEqual([]);
    // The literal decodes back to exactly the value.
    const lit = parsePython(`x = ${literal(values?.['user_id'] ?? '', 'python')}`);
    let decoded: string | undefined;
    walk(lit.module, (n) => {
      if (n.kind === 'StringList') decoded = n.value;
    });
    expect(decoded).toBe(values?.['user_id']);
  });

  it('checks consistency: slots, placeholders, names', () => {
    expect(checkTemplate(t)).toEqual([]);
    expect(checkTemplate({ ...t, slots: {} })).toContain('slot {user_id} has no type (add it to slots)');
    expect(checkTemplate({ ...t, body: 'emit_result({{other}})' }).join()).toMatch(
      /\{\{other\}\}, which is not a slot/,
    );
    expect(checkTemplate({ ...t, name: '../x' }).join()).toMatch(/invalid template name/);
  });

  it('a brace of the pattern that is not part of a slot is a problem, naming where and what a slot is', () => {
    for (const [pattern, at] of [
      ['name of user {user_id', 14],
      ['name of user { user_id }', 14],
      ['name of user {1st}', 14],
      ['name of user user_id}', 21],
    ] as const) {
      const problems = checkTemplate({ ...t, pattern, slots: {} }).join('; ');
      expect(problems).toContain(
        `the pattern's "${pattern[at - 1]}" at character ${at} (${JSON.stringify(pattern)}) is not part of a slot: a slot is {name}`,
      );
    }
    expect(checkTemplate(t)).toEqual([]);
  });

  it('proposes slots from a task and turns the script into a body', () => {
    const p = proposePattern('Total spend of user u1 over 2 orders "last week"');
    expect(p.pattern).toBe('Total spend of user {slot1} over {slot2} orders {slot3}');
    expect(p.slots).toEqual({ slot1: 'str', slot2: 'int', slot3: 'str' });
    expect(
      templateBody('r = get_user(user_id="u1")\nx = 2\nemit_result("last week")', p.values, 'python'),
    ).toBe('r = get_user(user_id={{slot1}})\nx = {{slot2}}\nemit_result({{slot3}})');
  });

  it('reads the .tmpl front matter shape and reports every problem', () => {
    const { front, body } = splitTemplateFile('+++\nname = "a"\n+++\nemit_result(1)\n');
    expect(front).toBe('name = "a"');
    expect(body).toBe('emit_result(1)\n');
    expect(() => splitTemplateFile('no front matter')).toThrow(TemplateError);
    expect(() => templateFromParts({ name: 'a', slots: { x: 'date' } }, 'emit_result(1)')).toThrow(
      /slot x has type "date"; use str, int or float; pattern is required; sandbox is required/,
    );
  });

  it('the template source serves only matching sandbox, kit and language', () => {
    const src = templateSource([t]);
    const tools: Tool[] = [];
    expect(
      src.propose('name of user u2', { sandbox: 'ecommerce', language: 'python', tools })?.body,
    ).toContain('user_id="u2"');
    expect(src.propose('name of user u2', { sandbox: 'support', language: 'python', tools })).toBeUndefined();
    expect(
      src.propose('name of user u2', { sandbox: 'ecommerce', kit: 'orders', language: 'python', tools }),
    ).toBeUndefined();
  });
});

describe('direct-call rule', () => {
  const tools: Tool[] = [{ name: 'get_user', description: '', parameters: [], location: 'sandbox' }];
  const ctx = { sandbox: 's', language: 'python' as const, tools };
  it('serves a task that is a tool call with literal arguments, re-rendering the arguments', () => {
    expect(directCallRule.propose('get_user(user_id="u1")', ctx)?.body).toBe(
      'r = get_user(user_id="u1")\nif r.success:\n    emit_result(r.data)\nelse:\n    emit_result({"error": r.message})\n',
    );
    expect(directCallRule.propose("get_user('u\\x31')", ctx)?.body).toContain('get_user("u1")');
  });
  it.each([
    'get_user(user_id=x)',
    'get_user("u1"); emit_result(1)',
    'other("u1")',
    'what is get_user("u1")',
    'get_user(**{"a": 1})',
    'get_user("a")\nimport os',
  ])('ignores %j', (task) => {
    expect(directCallRule.propose(task, ctx)).toBeUndefined();
  });
});
