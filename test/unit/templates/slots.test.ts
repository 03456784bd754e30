/**
 * Template slots as the attacker writes them: a placeholder inside a string literal of either quote kind,
 * triple quotes, f-strings, JS template literals, comments; values carrying quotes, backslashes,
 * newlines, U+2028, NUL. A slot value must land as one literal equal to the value, or be refused — never
 * as code. Both walls are tested: placement at creation and at load, and the structure after substitution.
 */
import { describe, expect, it } from 'vitest';
import { parse } from '@babel/parser';
import { parsePython, walk } from '../../../src-main/core/lang/python/pyright.ts';
import { splitTemplateFile, templateFromParts } from '../../../src-main/core/templates/file.ts';
import {
  checkTemplate,
  instantiate,
  slotPlacementProblems,
  substituteSlots,
} from '../../../src-main/core/templates/slots.ts';
import type { ScriptLanguage } from '../../../src-main/core/lang/violation.ts';
import { matchTemplate, TemplateError } from '../../../src-main/core/templates/template.ts';
import type { Template } from '../../../src-main/core/templates/template.ts';

const EVIL = [
  "greet ' + str(get_user(user_id='u2').data) + '",
  'greet " + str(get_user(user_id="u2").data) + "',
  "x''' + str(get_user(user_id='u2')) + '''",
  'x""" + str(get_user(user_id="u2")) + """',
  '{get_user(user_id="u2")}',
  '${get_user("u2")}',
  '` + getUser("u2") + `',
  'back\\slash\\',
  '\\" + get_user("u2") + \\"',
  'new\nline; get_user("u2")',
  'sep\u2028get_user("u2")\u2029',
  'nul\u0000get_user("u2")',
  'emoji 😀 é',
  '\ud800 lone surrogate',
];

/** Calls in a Python script, by callee name. */
function pyCalls(src: string): string[] {
  const out: string[] = [];
  walk(parsePython(src).module, (n) => {
    if (n.kind === 'Call') out.push(n.children[0]?.value ?? '?');
  });
  return out;
}

/** Calls in a JS/TS script, by callee name. */
function jsCalls(src: string, ts = false): string[] {
  const out: string[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!v || typeof v !== 'object') return;
    const n = v as { type?: string; callee?: { name?: string } };
    if (n.type === 'CallExpression') out.push(n.callee?.name ?? '?');
    for (const [k, x] of Object.entries(v)) if (k !== 'loc') visit(x);
  };
  visit(parse(src, { sourceType: 'script', plugins: ts ? ['typescript'] : [] }).program);
  return out;
}

const tmpl = (language: ScriptLanguage, body: string): Template => ({
  name: 'greet',
  pattern: 'greet {who}',
  slots: { who: 'str' },
  sandbox: 's',
  language,
  body,
  examples: [],
});

describe('placeholders inside strings are refused at creation and at load', () => {
  const py = [
    "get_user(user_id='{{who}}')",
    'get_user(user_id="{{who}}")',
    "get_user(user_id='''{{who}}''')",
    'get_user(user_id="""{{who}}""")',
    'get_user(user_id=f"{{who}}")',
    'get_user(user_id=f"{ {{who}} }")',
    'get_user(user_id=f"x{{{who}}}y")',
    "get_user(user_id='a' '{{who}}')",
    "get_user(user_id=r'{{who}}')",
    "get_user(user_id=b'{{who}}')",
    '# {{who}}\nget_user(user_id="u1")',
    'get_user(user_id=x{{who}})',
    'get_user(user_id={{who}}x)',
  ];
  it.each(py)('python: %j', (body) => {
    const problems = checkTemplate(tmpl('python', body));
    expect(problems.join()).toMatch(/slot \{\{who\}\}|does not parse|changed the script's structure/);
  });
  const js = [
    "getUser('{{who}}')",
    'getUser("{{who}}")',
    'getUser(`{{who}}`)',
    'getUser(`${ {{who}} }`)',
    'getUser(tag`${ {{who}} }`)',
    '// {{who}}\ngetUser("u1")',
    'getUser(/{{who}}/)',
    'getUser(x{{who}})',
    'getUser(obj.{{who}})',
  ];
  it.each(js)('js: %j', (body) => {
    expect(checkTemplate(tmpl('js', body)).join()).toMatch(
      /slot \{\{who\}\}|does not parse|changed the script's structure/,
    );
    expect(checkTemplate(tmpl('ts', body)).join()).toMatch(
      /slot \{\{who\}\}|does not parse|changed the script's structure/,
    );
  });
  it('a hand-written .tmpl file with a placeholder in a string does not load', () => {
    const text = `+++\nname = "greet"\npattern = "greet {who}"\nsandbox = "s"\n[slots]\nwho = "str"\n+++\nr = get_user(user_id='{{who}}')\nemit_result(r.data)\n`;
    const { front, body } = splitTemplateFile(text);
    const parsed = {
      name: 'greet',
      pattern: 'greet {who}',
      sandbox: 's',
      slots: { who: 'str' },
    };
    expect(front).toContain('greet');
    expect(() => templateFromParts(parsed, body, 'greet.tmpl')).toThrow(/inside a string/);
  });
  it('a placeholder as an attribute name or keyword name is refused (not a value position)', () => {
    expect(checkTemplate(tmpl('python', 'x = obj.{{who}}'))).not.toEqual([]);
    expect(checkTemplate(tmpl('python', 'get_user({{who}}=1)'))).not.toEqual([]);
    expect(checkTemplate(tmpl('js', 'let {{who}} = 1'))).not.toEqual([]);
  });
});

describe('slot values land as one literal equal to the value', () => {
  const pyT = tmpl('python', 'r = get_user(user_id={{who}})\nemit_result(r.data)\n');
  const jsT = tmpl('js', 'const r = getUser({{who}});\nemitResult(r.data);\n');
  const tsT = tmpl('ts', 'const r: unknown = getUser({{who}});\nemitResult(r);\n');
  it('the templates themselves are fine', () => {
    for (const t of [pyT, jsT, tsT]) expect(checkTemplate(t)).toEqual([]);
  });
  it.each(EVIL)('python: %j', (evil) => {
    const values = matchTemplate(pyT, `greet ${evil}`) ?? { who: evil };
    const script = instantiate(pyT, values);
    expect(pyCalls(script)).toEqual(['get_user', 'emit_result']);
    expect(parsePython(script).syntaxErrors).toEqual([]);
    let decoded: string | undefined;
    walk(parsePython(script).module, (n) => {
      if (n.kind === 'StringList') decoded = n.value;
    });
    expect(decoded).toBe(values['who']);
    // Printable ASCII only: no raw newline, separator or NUL reaches the script text.
    expect(script.split('\n').length).toBe(3);
    expect(/[^\x20-\x7e\n]/.test(script)).toBe(false);
  });
  it.each(EVIL)('js and ts: %j', (evil) => {
    for (const [t, ts] of [
      [jsT, false],
      [tsT, true],
    ] as const) {
      const script = instantiate(t, { who: evil });
      expect(jsCalls(script, ts)).toEqual(['getUser', 'emitResult']);
      expect(script).not.toMatch(/[\u2028\u2029\u0000]/);
    }
  });
  it('numbers, negative numbers in any position', () => {
    const t: Template = { ...pyT, slots: { who: 'int' }, body: 'x = {{who}} ** 2\nemit_result(x)\n' };
    expect(checkTemplate(t)).toEqual([]);
    expect(instantiate(t, { who: -3 })).toContain('(-3) ** 2');
    const j: Template = { ...jsT, slots: { who: 'int' }, body: 'const x = {{who}} ** 2;\nemitResult(x);\n' };
    expect(checkTemplate(j)).toEqual([]);
    expect(jsCalls(instantiate(j, { who: -3 }))).toEqual(['emitResult']);
  });
});

describe('wall 2: the structure after substitution is checked even when wall 1 is bypassed', () => {
  it('a value that is not a string or number is refused', () => {
    expect(() => substituteSlots('x = {{who}}', 'python', { who: ['a'] })).toThrow(/string or a number/);
  });
  it('a template whose body was not checked still refuses a string-breaking value', () => {
    // A template object made by hand (not through checkTemplate or a file): instantiate still refuses.
    const t = tmpl('python', "r = get_user(user_id='{{who}}')");
    expect(() => instantiate(t, { who: "' + str(get_user(user_id='u2')) + '" })).toThrow(TemplateError);
    expect(() => instantiate(tmpl('js', 'getUser(`${ {{who}} }`)'), { who: 'x' })).toThrow(TemplateError);
  });
  it('slotPlacementProblems is empty for a clean body and names the slot otherwise', () => {
    expect(slotPlacementProblems('emit_result({{who}})', 'python', { who: 'str' })).toEqual([]);
    expect(slotPlacementProblems('emit_result("{{who}}")', 'python', { who: 'str' }).join()).toMatch(
      /\{\{who\}\} \(line 1\) is inside a string/,
    );
  });
});
