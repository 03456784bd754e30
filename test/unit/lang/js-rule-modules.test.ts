/**
 * One case per JS rule module (src-main/core/lang/js/rules/*.ts): the violations of a small script that
 * exercises the module, as `rule@line:column`, through the validator (the driver merges the modules).
 */
import * as t from '@babel/types';
import { describe, expect, it } from 'vitest';
import { isLabel } from '../../../src-main/core/lang/js/rules/context.ts';
import { JS_RULE_MODULES } from '../../../src-main/core/lang/js/rules/index.ts';
import { strictRules } from '../../../src-main/core/lang/js/rules/strict.ts';
import { validateJs } from '../../../src-main/core/lang/js/validate.ts';

const found = (code: string, strict = false) =>
  validateJs(code, { tools: ['get_orders'], strict }).violations.map(
    (v) => `${v.rule}@${v.line}:${v.column}`,
  );

describe('JS rule modules', () => {
  it('every handler is keyed by a Babel node type (or * for every type)', () => {
    for (const m of [...JS_RULE_MODULES, strictRules])
      for (const type of Object.keys(m)) expect(type === '*' || t.TYPES.includes(type), type).toBe(true);
  });

  it('isLabel: property names, keys and labels are not references; type positions are not either', () => {
    const id = t.identifier('x');
    expect(isLabel(t.memberExpression(id, t.identifier('p')), 'property')).toBe(true);
    expect(isLabel(t.memberExpression(id, t.identifier('p'), true), 'property')).toBe(false);
    expect(isLabel(t.objectProperty(t.identifier('k'), id), 'key')).toBe(true);
    expect(isLabel(t.breakStatement(t.identifier('l')), 'label')).toBe(true);
    expect(isLabel(t.tsTypeReference(t.identifier('T')), 'typeName')).toBe(true);
    expect(isLabel(t.tsNonNullExpression(id), 'expression')).toBe(false);
    expect(isLabel(undefined, '')).toBe(false);
  });

  it('TypeScript wrappers of a value do not hide a forbidden name (<T>x, f<T>, enum initializers)', () => {
    const ts = (code: string) =>
      validateJs(code, { tools: [], typescript: true }).violations.map(
        (v) => `${v.rule}@${v.line}:${v.column}`,
      );
    expect(ts('const e = <any>eval;\nemitResult(e("1"));')).toEqual(['forbidden-name@1:16']);
    expect(ts('const e = eval<string>;\nemitResult(1);')).toEqual(['forbidden-name@1:11']);
    expect(ts('enum E { A = eval }\nemitResult(1);')).toEqual(['forbidden-name@1:14']);
    expect(ts('const f = <any>globalThis;\nemitResult(1);')).toEqual(['forbidden-name@1:16']);
    // The names of types, enum members and type arguments stay names, not references.
    expect(ts('enum eval2 { eval = 1 }\ntype T = Array<string>;\nemitResult(<number>1);')).toEqual([]);
  });

  it('scopes: a rebound framework name or tool is reported wherever it is bound', () => {
    expect(
      found(
        'let emitResult = 1;\nconst { a: get_orders, ...credential } = x;\n[collected] = y;\nfunction f(emitLog, get_orders = 1) {}\nfor (get_orders of z) {}\ntry {} catch (emitIntermediate) {}\nget_orders++;\nemitResult(1);',
      ),
    ).toEqual([
      'rebind-framework@1:5',
      'rebind-framework@2:12',
      'rebind-framework@2:27',
      'rebind-framework@3:2',
      'rebind-framework@4:12',
      'rebind-framework@4:21',
      'rebind-framework@5:6',
      'rebind-framework@6:15',
      'rebind-framework@7:1',
    ]);
  });

  it('imports: declarations, dynamic import(), import.meta (new.target is forbidden syntax)', () => {
    expect(
      found(
        'import x from "y";\nexport const z = 1;\nconst m = import("m");\nconst u = import.meta.url;\nfunction f() { return new.target; }\nemitResult(1);',
      ),
    ).toEqual([
      'no-import@1:1',
      'syntax@1:1',
      'no-import@2:1',
      'syntax@2:1',
      'no-import@3:11',
      'no-import@4:11',
      'syntax@4:11',
      'forbidden-syntax@5:23',
    ]);
  });

  it('syntax: with, debugger, generators, getters and setters, tagged templates', () => {
    expect(
      found(
        'with (a) {}\ndebugger;\nfunction* g() {}\nconst o = { get x() { return 1; }, set x(v) {} };\nclass C { get y() { return 1; } }\ntag`t`;\nemitResult(1);',
      ),
    ).toEqual([
      'forbidden-syntax@1:1',
      'forbidden-syntax@2:1',
      'forbidden-syntax@3:1',
      'forbidden-syntax@4:13',
      'forbidden-syntax@4:36',
      'forbidden-syntax@5:11',
      'forbidden-syntax@6:1',
    ]);
  });

  it('properties: read, folded, optional, destructured, __proto__ in a literal', () => {
    expect(
      found(
        'x.constructor;\nx["proto" + "type"];\nx.__foo__;\nx?.__proto__;\nconst { constructor: c } = x;\nconst o = { __proto__: null, constructor: 1 };\nemitResult(1);',
      ),
    ).toEqual([
      'forbidden-property@1:3',
      'forbidden-property@2:3',
      'forbidden-property@3:3',
      'forbidden-property@4:4',
      'forbidden-property@5:9',
      'forbidden-property@6:13',
    ]);
  });

  it('names: forbidden globals as references only (not property names or keys); rebinding', () => {
    expect(
      found(
        'eval("1");\nconst p = process;\nx.eval;\nconst o = { require: 1 };\nlet emitResult = 1;\nemitResult(1);',
      ),
    ).toEqual(['forbidden-name@1:1', 'forbidden-name@2:11', 'rebind-framework@5:5']);
  });

  it('tools: called and awaited (directly or in Promise.all); emit calls count', () => {
    expect(
      found(
        'const a = get_orders;\nget_orders();\nconst r = await get_orders();\nconst rs = await Promise.all([get_orders()]);\nnew get_orders();\nx.get_orders;\nemitResult(r);',
      ),
    ).toEqual(['tool-not-called@1:11', 'tool-not-awaited@2:1', 'tool-not-called@5:5']);
    expect(found('const x = 1;')).toEqual(['missing-emit@1:1']);
  });

  it('strict: the subset of node types, arrow callbacks of array methods, listed calls and new', () => {
    expect(
      found(
        'const xs = [2, 1].map((x) => x * 2);\nconst f = (x) => x;\nxs.sort().reverse();\nfoo(1);\n(xs)(1);\nnew Map();\nnew WeakMap();\nwhile (true) {}\nemitResult(xs);',
        true,
      ),
    ).toEqual([
      'strict-node@2:11',
      'strict-call@3:11',
      'strict-call@4:1',
      'strict-call@5:2',
      'strict-call@7:1',
      'strict-node@8:1',
    ]);
  });
});
