import { fileURLToPath } from 'node:url';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JS_RULES, staticString, validateJs } from '../../../src-main/core/lang/js/validate.ts';

const dir = fileURLToPath(new URL('../../fixtures/corpus/js/', import.meta.url));
const TOOLS = ['get_orders', 'get_user', 'check_inventory'];
const files = (sub: string) => readdirSync(join(dir, sub)).sort();

describe('JS attack corpus', () => {
  const attacks = files('attack');
  it('has at least 88 attacks', () => expect(attacks.length).toBeGreaterThanOrEqual(88));
  it.each(attacks)('%s is refused with the expected rule', (f) => {
    const code = readFileSync(join(dir, 'attack', f), 'utf8');
    const expected = /^\/\/ expect: ([a-z-]+)/.exec(code)?.[1];
    const r = validateJs(code, { tools: TOOLS, typescript: f.endsWith('.ts') });
    expect(r.valid).toBe(false);
    expect(r.violations.map((v) => v.rule)).toContain(expected);
  });
});

describe('JS benign corpus', () => {
  it.each(files('benign'))('%s passes with zero violations', (f) => {
    const r = validateJs(readFileSync(join(dir, 'benign', f), 'utf8'), {
      tools: TOOLS,
      typescript: f.endsWith('.ts'),
    });
    expect(r.violations).toEqual([]);
  });
});

describe('JS validator', () => {
  it('collects all violations with 1-based positions', () => {
    const r = validateJs('const a = eval;\nconst b = process;\n', { tools: [] });
    expect(r.violations.map(({ rule, line, column }) => ({ rule, line, column }))).toEqual([
      { rule: 'forbidden-name', line: 1, column: 11 },
      { rule: 'missing-emit', line: 2, column: 1 },
      { rule: 'forbidden-name', line: 2, column: 11 },
    ]);
  });
  it("a syntax error: one violation at its 1-based position, without the parser's own 0-based one", () => {
    const r = validateJs('emit_result(1))\n', { tools: [] });
    expect(r.violations.map(({ rule, line, column, message }) => ({ rule, line, column, message }))).toEqual([
      { rule: 'syntax', line: 1, column: 15, message: 'syntax error: Unexpected token' },
    ]);
  });
  it('destructures ordinary names that every object has, but never constructor', () => {
    const ok = validateJs(
      'const { toString, valueOf } = { toString: 1, valueOf: 2 };\nemitResult(toString + valueOf);',
      {
        tools: [],
      },
    );
    expect(ok.violations).toEqual([]);
    const bad = validateJs('const { constructor } = {};\nemitResult(constructor);', { tools: [] });
    expect(bad.violations.map((x) => x.rule)).toContain('forbidden-property');
  });
  it('folds static strings', () => {
    expect(staticString(undefined)).toBeUndefined();
    expect(validateJs("emitResult(({})['__pro' + `to__`]);", { tools: [] }).violations[0]?.rule).toBe(
      'forbidden-property',
    );
  });
  it('strict mode: only callbacks as arrow functions, no function declarations', () => {
    const ok =
      'const { data } = await get_orders();\nemitResult(data.filter((o) => o.total > 10).map((o) => o.id));\n';
    expect(validateJs(ok, { tools: TOOLS, strict: true }).violations).toEqual([]);
    expect(
      validateJs('function f() { return 1; }\nemitResult(f());', {
        tools: TOOLS,
        strict: true,
      }).violations.map((v) => v.rule),
    ).toContain('strict-node');
    expect(
      validateJs('const f = () => 1;\nemitResult(f());', { tools: TOOLS, strict: true }).violations.map(
        (v) => v.rule,
      ),
    ).toContain('strict-node');
  });
  it('documents its rules', () => expect(Object.keys(JS_RULES)).toContain('tool-not-awaited'));

  it('refuses a call to a name that is nothing the script can call (it was a ReferenceError at run time)', () => {
    const code = [
      'function double(x) { return x * 2; }',
      'const inc = (y) => y + 1;',
      'const o = await get_orders();',
      'const n = double(inc(later(o.data.length))) + Math.max(1, parseInt("2")) + Number("3");',
      'const u = await getUser("u1");',
      'const b = await totallyBogus();',
      'emit_result(n);',
      'emitResult([n, u, b]);',
      'function later(z) { return z; }',
    ].join('\n');
    const r = validateJs(code, {
      tools: TOOLS,
      excluded: { check_stock: 'tool check_stock has grade (w=2, d=2)' },
    });
    expect(r.violations.map((v) => [v.line, v.rule, v.message])).toEqual([
      [
        5,
        'unknown-function',
        'getUser() is not defined: did you mean the tool get_user? the tools are get_orders, get_user, check_inventory',
      ],
      [
        6,
        'unknown-function',
        'totallyBogus() is not defined: the tools are get_orders, get_user, check_inventory',
      ],
      [7, 'unknown-function', 'emit_result() is not defined: the helper is emitResult() in JavaScript'],
    ]);
    // A tool the workspace keeps from this script says so, as in Python.
    const ex = validateJs('emitResult(await check_stock());', {
      tools: TOOLS,
      excluded: { check_stock: 'tool check_stock has grade (w=2, d=2)' },
    });
    expect(ex.violations.map((v) => v.rule)).toEqual(['tool-excluded']);
    expect(ex.violations[0]?.message).toMatch(
      /check_stock\(\) is a tool of this sandbox but this script may not call it/,
    );
  });
});
