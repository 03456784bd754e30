import { describe, expect, it } from 'vitest';
import { formatWalks, PYTHON_RULES, validatePython } from '../../../src-main/core/lang/python/validate.ts';

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

  it('every message tells what to do instead', () => {
    for (const x of v('import json\ne = exec\nemit_result = 1\n').violations)
      expect(x.message).toMatch(/available|use|rebind|call|write/);
    expect(v('import json\nemit_result(1)').violations[0]?.message).toContain(
      'json is already available by name',
    );
  });

  it('reports syntax errors with positions and never throws', () => {
    const r = v('def f(:\n  emit_result(1)\n');
    expect(r.violations[0]).toMatchObject({ rule: 'syntax', line: 1 });
    expect(() => v('\u0000\ufeff)))(((')).not.toThrow();
  });

  it('flags references, not only calls', () => {
    expect(rules('f = eval\nemit_result(1)')).toEqual(['forbidden-name']);
    expect(rules('emit_result(list(map(vars, [1])))')).toContain('forbidden-name');
  });

  it('allows keyword and attribute names that equal forbidden builtins', () => {
    expect(rules('r = get_user(user_id="u1")\nemit_result({"input": r.data, "open": 1})')).toEqual([]);
  });

  it('str.format attribute walks are found in templates', () => {
    expect(formatWalks('{0.__class__} {a[b]} {} {{literal}} {x:>3}')).toEqual(['0.__class__', 'a[b]']);
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
