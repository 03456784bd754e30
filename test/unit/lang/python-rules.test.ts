import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PYTHON_MODULE_ATTRIBUTES } from '../../../src-main/core/lang/builtins.ts';
import { formatWalks, PYTHON_RULES, validatePython } from '../../../src-main/core/lang/python/validate.ts';
import { ScriptGenerator } from '../../../src-main/core/script/generator.ts';
import { HEAVY_PARSE_MS } from '../../support/budgets.ts';

const TOOLS = ['get_user', 'get_orders'];
const v = (code: string, strict = false) => validatePython(code, { tools: TOOLS, strict });
const rules = (code: string, strict = false) => v(code, strict).violations.map((x) => x.rule);

describe('Python validator', () => {
  it('collects every violation with exact ranges, sorted by position', () => {
    const r = v('import os\nx = get_user\ny = x.__class__\n');
    expect(r.valid).toBe(false);
    expect(
      r.violations.map(({ rule, line, column, endLine, endColumn }) => ({
        rule,
        line,
        column,
        endLine,
        endColumn,
      })),
    ).toEqual(
      [
        { rule: 'no-import', line: 1, column: 1, endLine: 1, endColumn: 10 },
        { rule: 'tool-not-called', line: 2, column: 5, endLine: 2, endColumn: 13 },
        { rule: 'dunder-attribute', line: 3, column: 7, endLine: 3, endColumn: 16 },
        { rule: 'missing-emit', line: 3, column: 1, endLine: 3, endColumn: 16 },
      ].sort((a, b) => a.line - b.line || a.column - b.column),
    );
  });

  it('names that are properties of every JavaScript object are ordinary Python names', () => {
    const code =
      'constructor = 1\nvalueOf = 2\ntoString = 3\nhasOwnProperty = 4\nemit_result(constructor + valueOf + toString + hasOwnProperty)\n';
    expect(v(code)).toEqual({ valid: true, violations: [] });
    expect(rules('emit_result(eval)')).toEqual(['forbidden-name']);
  });

  it('every message tells what to do instead', () => {
    for (const x of v('import json\ne = exec\nemit_result = 1\n').violations)
      expect(x.message).toMatch(/available|use|rebind|call|write/);
    expect(v('import json\nemit_result(1)').violations[0]?.message).toContain(
      'json is already available by name',
    );
  });

  it(
    'reports syntax errors with positions and never throws',
    () => {
      const r = v('def f(:\n  emit_result(1)\n');
      expect(r.violations[0]).toMatchObject({ rule: 'syntax', line: 1 });
      expect(() => v('\u0000\ufeff)))(((')).not.toThrow();
    },
    HEAVY_PARSE_MS,
  );

  it('a script that does not parse: the first error the parser met, and nothing found after it', () => {
    const one = (code: string) =>
      v(code).violations.map((x) => `${x.line}:${x.column} ${x.rule} ${x.message}`);
    // (the parser's recovery went on to six more errors here, all about the same missing name)
    expect(one('def f(:\n    return 1\nemit_result(f())\n')).toEqual([
      '1:7 syntax syntax error: Expected parameter name',
    ]);
    // The error the parser met first, not the bracket it then found open before it.
    expect(one('emit_result(get_orders(a=))\n')).toEqual(['1:26 syntax syntax error: Expected expression']);
    // A closing bracket nothing opened, as Python says it.
    expect(one('emit_result(1))\n')).toEqual(["1:15 syntax syntax error: unmatched ')'"]);
    expect(one('x = {"a": 1}}\nemit_result(x)\n')).toEqual(["1:13 syntax syntax error: unmatched '}'"]);
    // What other rules found before the error stays; after it, the tree is the parser's guess.
    expect(one('x = eval\nemit_result(1))\ny = exec\n').map((l) => l.split(' ')[1])).toEqual([
      'forbidden-name',
      'syntax',
    ]);
    expect(v('emit_result(1))\n').valid).toBe(false);
  });

  it("an f-string conversion other than !r, !s or !a is a syntax error, as Python's parser says", () => {
    const one = (code: string) =>
      v(code).violations.map((x) => `${x.line}:${x.column} ${x.rule} ${x.message}`);
    expect(one('x = 1\nemit_result(f"{x!z}")\n')).toEqual([
      "2:18 syntax syntax error: f-string: invalid conversion character 'z': expected 's', 'r', or 'a'",
    ]);
    expect(one('x = 1\nemit_result(f"{x!rr}")\n')).toEqual([
      "2:18 syntax syntax error: f-string: invalid conversion character 'rr': expected 's', 'r', or 'a'",
    ]);
    expect(one('x = 1\nemit_result(f"{x!r :>3}")\n')).toEqual([
      "2:19 syntax syntax error: f-string: expecting ':' or '}' right after the conversion '!r'",
    ]);
    expect(one('x = 1\nemit_result(f"{x! r}")\n')).toEqual([
      "2:18 syntax syntax error: f-string: the conversion character must come right after the '!'",
    ]);
    // In a nested format spec too; the valid ones pass.
    expect(one('x = 1\nemit_result(f"{x:{x!R}}")\n')[0]).toContain("invalid conversion character 'R'");
    expect(v('x = 1\nemit_result(f"{x!r} {x!s:>3} {x=!a} {x != 2}")\n')).toEqual({
      valid: true,
      violations: [],
    });
  });

  it('flags references, not only calls', () => {
    expect(rules('f = eval\nemit_result(1)')).toEqual(['forbidden-name']);
    expect(rules('emit_result(list(map(vars, [1])))')).toContain('forbidden-name');
  });

  it('allows keyword and attribute names that equal forbidden builtins', () => {
    expect(rules('r = get_user(user_id="u1")\nemit_result({"input": r.data, "open": 1})')).toEqual([]);
  });

  it('str.format attribute walks are found in templates; item look-ups are not walks', () => {
    expect(formatWalks('{0.__class__} {a[b]} {} {{literal}} {x:>3}')).toEqual(['0.__class__']);
    expect(formatWalks('{0[id]} {row[name][0]!r} {d[k]:>5}')).toEqual([]);
    // A key holding ! or : ends the field early for the scan while Python reads on to the bracket: refused.
    expect(formatWalks('{0[a!b].real} {0[a:b]} {0[x].real} {0[]} {0[x]y}')).toEqual([
      '0[a',
      '0[a',
      '0[x].real',
      '0[]',
      '0[x]y',
    ]);
  });

  it.each([
    ['"{0[id]}".format({"id": 7})'],
    ['"{d[a][0]}".format(d={"a": [1]})'],
    ['str.format("{0[x]}", {"x": 1})'],
    ['"{0[id]}".format_map({"0": 1})'],
  ])('item access in format fields is not an attribute walk: %s passes', (expr) => {
    expect(rules(`emit_result(${expr})`)).toEqual([]);
  });

  it('calls to unknown functions suggest the closest tool', () => {
    const r = v('r = get_usr(user_id="u1")\nemit_result(r)');
    expect(r.violations[0]).toMatchObject({ rule: 'unknown-function' });
    expect(r.violations[0]?.message).toContain('did you mean the tool get_user?');
    expect(rules('def helper():\n    return 1\nemit_result(helper())')).toEqual([]);
  });

  it('requireEmit can be turned off (tools.py previews, fragments)', () => {
    expect(validatePython('x = 1', { tools: [], requireEmit: false }).valid).toBe(true);
  });

  it('documents every rule it can report', () => {
    for (const r of [
      'syntax',
      'no-import',
      'forbidden-name',
      'dunder-string',
      'strict-node',
      'strict-call',
      'unknown-function',
    ])
      expect(PYTHON_RULES[r]).toBeTruthy();
  });
});

describe('strict mode', () => {
  it('accepts the restricted subset', () => {
    const ok =
      'orders = get_orders().data\npending = [o for o in orders if o["status"] == "pending"]\ntop = sorted(pending, key=lambda o: o["total"])\nif top:\n    emit_result({"id": top[0]["id"], "n": len(top), "when": datetime.date(2026, 1, 1).isoformat()})\nelse:\n    emit_result(None)\n';
    expect(v(ok, true).violations).toEqual([]);
  });
  it.each([
    ['def f():\n    return 1\nemit_result(f())', 'strict-node'],
    ['class A:\n    pass\nemit_result(1)', 'strict-node'],
    ['while True:\n    break\nemit_result(1)', 'strict-node'],
    ['try:\n    x = 1\nexcept Exception:\n    x = 2\nemit_result(x)', 'strict-node'],
    ['f = lambda x: x\nemit_result(1)', 'strict-node'],
    ['emit_result(sorted([1], key=lambda x: -x).pop().bit_length())', 'strict-call'],
    ['x = [1]\nx.__len__()\nemit_result(1)', 'strict-call'],
  ])('refuses %j', (code, rule) => {
    expect(rules(code, true)).toContain(rule);
  });
  it('non-strict mode allows def, class, while and try', () => {
    expect(
      rules(
        'def f():\n    return 1\nwhile False:\n    pass\ntry:\n    x = f()\nexcept Exception:\n    x = 0\nemit_result(x)',
      ),
    ).toEqual([]);
  });
});

describe('pre-imported modules: only their allow-listed attributes', () => {
  it.each([
    ['os = statistics.sys.modules["os"]\nemit_result(os.getcwd())', 'statistics.sys'],
    ['emit_result(json.codecs.open("/etc/passwd").read())', 'json.codecs'],
    ['emit_result(str(re.enum.bltns))', 're.enum'],
    ['emit_result(datetime.sys.version)', 'datetime.sys'],
    ['emit_result(json.load)', 'json.load'],
  ])('refuses %j in default and strict mode', (code, what) => {
    for (const strict of [false, true]) {
      const found = v(code, strict).violations.filter((x) => x.rule === 'module-attribute');
      expect(found).toHaveLength(1);
      expect(found[0]?.message).toContain(`${what} is not available`);
    }
  });

  it('the message lists what the module offers', () => {
    const m = v('emit_result(statistics.sys)').violations[0]?.message ?? '';
    expect(m).toContain(`statistics offers only ${PYTHON_MODULE_ATTRIBUTES['statistics']?.join(', ')}`);
  });

  it('the exact range is the attribute name', () => {
    expect(v('x = json.codecs\nemit_result(x)').violations[0]).toMatchObject({
      rule: 'module-attribute',
      line: 1,
      column: 10,
      endLine: 1,
      endColumn: 16,
    });
  });

  it.each([
    'm = statistics\nemit_result(m.sys)',
    'emit_result(getattr(json, "codecs"))',
    'emit_result(hasattr(re, "enum"))',
    'mods = [statistics]\nemit_result(mods[0].sys)',
    'f = lambda m=json: m.codecs\nemit_result(f())',
    'def walk(m):\n    return m.sys\nemit_result(walk(datetime))',
    'emit_result(type(math))',
    'emit_result(json)',
  ])('a module used as a value is refused: %j', (code) => {
    const found = v(code).violations.filter((x) => x.rule === 'module-attribute');
    expect(found.length).toBeGreaterThanOrEqual(1);
    expect(found[0]?.message).toMatch(/can only be used as \w+\.<attribute>/);
  });

  it.each([
    'json = statistics\nemit_result(json.mean([1]))',
    'for time in [1, 2]:\n    pass\nemit_result(1)',
    'def f(re):\n    return re\nemit_result(f(1))',
    'del math\nemit_result(1)',
    'emit_result([random for random in [1]])',
  ])('rebinding a module name is refused: %j', (code) => {
    const found = v(code).violations.filter((x) => x.rule === 'rebind-framework');
    expect(found.length).toBeGreaterThanOrEqual(1);
    expect(found[0]?.message).toMatch(/pre-imported \w+ module/);
  });

  it('module attributes are read-only (no attribute is ever assigned)', () => {
    expect(rules('json.dumps = repr\nemit_result(1)')).toEqual(['attribute-assign']);
    expect(rules('math.pi += 1\nemit_result(1)')).toEqual(['attribute-assign']);
  });

  it('every allow-listed attribute passes, in default and strict mode', () => {
    for (const [m, attrs] of Object.entries(PYTHON_MODULE_ATTRIBUTES)) {
      const code = `x = [${attrs.map((a) => `${m}.${a}`).join(', ')}]\nemit_result(len(x))`;
      expect(v(code).violations).toEqual([]);
      expect(v(code, true).violations).toEqual([]);
    }
  });

  it('names that equal module names as keys, keywords and attributes are fine', () => {
    expect(
      rules('r = get_user(user_id="u1")\nd = dict(time=1, json=2)\nemit_result([d["time"], r.data, r.time])'),
    ).toEqual([]);
  });
});

describe('str.format / format_map: literal templates only', () => {
  it.each([
    'u = "_" * 2\nt = "{0." + u + "class" + u + "." + u + "mro" + u + "}"\nemit_result(t.format(1))',
    'u = "_" * 2\nt = "{0." + u + "init" + u + "." + u + "globals" + u + "[os].environ}"\nemit_result(t.format(ToolResponse))',
    'u = "_" * 2\nemit_result(f"{{0.{u}class{u}}}".format(1))',
    'u = "_" * 2\nemit_result(str.format("{0." + u + "class" + u + "}", 1))',
    't = "{}"\nemit_result(str.format_map(t, {}))',
    'emit_result(str.format(*["{0.real}", 1]))',
    't = "{}"\nf = t.format\nemit_result(f(1))',
    'emit_result(list(map(str.format, ["{0.real}"], [1])))',
    'emit_result(type("").format("{0.real}", 1))',
    't = "{a}"\nemit_result(t.format_map({"a": 1}))',
    'emit_result(getattr("{0.real}", "format")(1))',
    'emit_result("{0.real}".format(1))',
    'emit_result(str.format("{0[x].real}", {"x": 1}))',
    'emit_result("{0[a!b].real}".format({"a!b": 1}))',
  ])('refuses %j in default and strict mode', (code) => {
    expect(rules(code)).toContain('format-attribute-walk');
    expect(rules(code, true)).toContain('format-attribute-walk');
  });

  it('tells the LLM to use an f-string', () => {
    const m = v('t = "{}"\nemit_result(t.format(1))').violations[0]?.message ?? '';
    expect(m).toMatch(/string literal/);
    expect(m).toMatch(/f-string/);
  });

  it.each([
    'emit_result("{:.2f}".format(3.14159))',
    'emit_result("{} and {name}".format(1, name="x"))',
    'emit_result("a" "{}".format(1))',
    'emit_result(str.format("{} {}", 1, 2))',
    'emit_result(list(map("{:>4}".format, [1, 2])))',
    'emit_result(", ".join(["a", "b"]))',
    'x = 2.5\nemit_result(f"{x:.2f}")',
    'emit_result(format(2.5, ".1f"))',
  ])('allows %j', (code) => {
    expect(rules(code)).toEqual([]);
    expect(rules(code, true)).toEqual([]);
  });

  it('format_map on a literal template is fine outside strict mode', () => {
    expect(rules('emit_result("{x}".format_map({"x": 1}))')).toEqual([]);
  });
});

describe('the prompt shows the module allow-lists', () => {
  it('rules-python lists every module with exactly its allowed attributes', () => {
    const dir = new URL('../../../resources/prompts/', import.meta.url);
    const prompts = Object.fromEntries(
      readdirSync(dir)
        .filter((f) => f.endsWith('.md'))
        .map((f) => [f.slice(0, -3), readFileSync(new URL(f, dir), 'utf8')]),
    );
    const rulesText = new ScriptGenerator(prompts).rules('python');
    for (const [m, attrs] of Object.entries(PYTHON_MODULE_ATTRIBUTES))
      expect(rulesText).toContain(`${m} (${attrs.join(', ')})`);
    expect(rulesText).toMatch(/f-strings/);
  });
});
