/**
 * One case per Python rule module (src-main/core/lang/python/rules/*.ts): the violations of a small script
 * that exercises the module, as `rule@line:column`, through the validator (the driver merges the modules).
 */
import { describe, expect, it } from 'vitest';
import {
  kindOf,
  parsePythonTree,
  PY_KIND_ID,
  PyTreeNodeSet,
  textOf,
  walkTree,
} from '../../../src-main/core/lang/python/pyright.ts';
import { PyRuleContext } from '../../../src-main/core/lang/python/rules/context.ts';
import { PYTHON_RULE_MODULES } from '../../../src-main/core/lang/python/rules/index.ts';
import { scopeRules } from '../../../src-main/core/lang/python/rules/scopes.ts';
import { validatePython } from '../../../src-main/core/lang/python/validate.ts';

const found = (code: string, strict = false) =>
  validatePython(code, { tools: ['get_orders'], strict }).violations.map(
    (v) => `${v.rule}@${v.line}:${v.column}`,
  );

describe('Python rule modules', () => {
  it('every handler is keyed by a pyright node kind (or * for every kind)', () => {
    for (const m of PYTHON_RULE_MODULES)
      for (const kind of Object.keys(m)) expect(kind === '*' || kind in PY_KIND_ID, kind).toBe(true);
  });

  it('scopes: collects the names each binding construct stores to', () => {
    const parsed = parsePythonTree(
      'a, (b, *c) = x\nfor i in y: pass\ndef f(p, *q): pass\nwith w as v: pass\nt: int = 1\n(n := 2)\n',
    );
    const ctx = new PyRuleContext(parsed, 0, new Set(), new PyTreeNodeSet(parsed));
    walkTree(parsed.root, (n) => {
      scopeRules[kindOf(n)]?.(n, ctx);
    });
    expect(ctx.stores.nodes.map((s) => textOf(s))).toEqual([
      'a',
      'b',
      'c',
      'i',
      'f',
      'p',
      'q',
      'v',
      't',
      'n',
    ]);
  });

  it('scopes: a rebound framework name, module or tool is reported wherever it is bound', () => {
    expect(
      found(
        'get_orders = 1\nfor emit_x, (json, b) in z:\n    pass\ndef f(credential, *collected):\n    getattr = 2\nwith a as get_orders:\n    pass\nemit_result(1)',
      ),
    ).toEqual([
      'rebind-framework@1:1',
      'rebind-framework@2:5',
      'rebind-framework@2:14',
      'rebind-framework@4:7',
      'rebind-framework@4:20',
      'rebind-framework@6:11',
    ]);
  });

  it('imports: one violation per statement, none for the names in it, even in strict mode', () => {
    expect(found('import json, os.path\nfrom math import floor\nemit_result(1)')).toEqual([
      'no-import@1:1',
      'no-import@2:1',
    ]);
    expect(found('import os\nemit_result(1)', true)).toEqual(['no-import@1:1']);
  });

  it('names: forbidden and dunder names (not a method defined in a class), rebinding', () => {
    expect(
      found(
        'eval\nx = __dict__\nclass A:\n    def __init__(self):\n        pass\ndef __f__():\n    pass\nemit_result = 1\njson = 2\nemit_result(1)',
      ),
    ).toEqual([
      'forbidden-name@1:1',
      'dunder-name@2:5',
      'no-class@3:7',
      'dunder-name@6:5',
      'rebind-framework@8:1',
      'rebind-framework@9:1',
    ]);
  });

  it('modules: a module only as the receiver of an allowed, read-only attribute', () => {
    expect(
      found('m = json\njson.dumps(1)\njson.codecs\njson.dumps = 2\nf(x=json)\nx.json\nemit_result(1)'),
    ).toEqual([
      'module-attribute@1:5',
      'module-attribute@3:6',
      'attribute-assign@4:1',
      'unknown-function@5:1',
      'module-attribute@5:5',
    ]);
  });

  it('tools: a tool is called, never referenced (attribute and keyword names are not references)', () => {
    expect(
      found('a = get_orders\nget_orders(1)\nf(get_orders)\nx.get_orders\nf(get_orders=1)\nemit_result(1)'),
    ).toEqual(['tool-not-called@1:5', 'unknown-function@3:1', 'tool-not-called@3:3', 'unknown-function@5:1']);
  });

  it('calls: emit calls count, unknown names are reported, dunder and forbidden names are not unknown', () => {
    expect(
      found('emit_result(1)\nemit_intermediate(2)\nhelper(1)\nget_ordrs(2)\nlen(x)\n__import__("x")'),
    ).toEqual(['unknown-function@3:1', 'unknown-function@4:1', 'forbidden-name@6:1']);
    expect(found('x = 1')).toEqual(['missing-emit@1:1']);
  });

  it('guarded builtins: getattr/hasattr with a literal public name only, type() with one argument', () => {
    expect(
      found(
        'g = getattr\ngetattr(x, "a")\ngetattr(x, name)\nhasattr(x, "_p")\ngetattr(x, "f_globals")\ngetattr(x, "format_map")\ntype(a, b, c)\ntype(a)\nemit_result(1)',
      ),
    ).toEqual([
      'guarded-getattr@1:5',
      'guarded-getattr@3:1',
      'guarded-getattr@4:12',
      'guarded-getattr@5:12',
      'format-attribute-walk@6:12',
      'guarded-type@7:1',
    ]);
  });

  it('attributes: underscores and interpreter internals; match class patterns', () => {
    expect(
      found(
        'x._p\nx.__class__\nx.gi_frame\nx.ok\nmatch y:\n    case P(_q=1, r=2):\n        pass\nemit_result(1)',
      ),
    ).toEqual([
      'dunder-attribute@1:3',
      'dunder-attribute@2:3',
      'forbidden-attribute@3:3',
      'match-dunder@6:12',
    ]);
  });

  it('format: only on a literal template whose fields walk nothing', () => {
    expect(
      found(
        '"{}".format(1)\n"{0.x}".format(a)\nt.format(1)\nstr.format(t)\nstr.format("{a[0]}", a=1)\nf = "{}".format\n"{a[0].x}".format(a=1)\nemit_result(1)',
      ),
    ).toEqual([
      'format-attribute-walk@2:1',
      'format-attribute-walk@3:1',
      'format-attribute-walk@4:1',
      'format-attribute-walk@7:1',
    ]);
  });

  it('strings: dunder names after escapes and implicit concatenation', () => {
    expect(
      found('a = "__class__"\nb = "__cl" "ass__"\nc = "\\x5f_dict__"\nd = "_x_"\nemit_result(1)'),
    ).toEqual(['dunder-string@1:5', 'dunder-string@2:5', 'dunder-string@3:5']);
  });

  it('constructs: async (by the node, whatever the decorators), await, global/nonlocal, generators, classes', () => {
    expect(
      found(
        'd = e = len\n@d(\n    1)\n# note\n@e\nasync def f():\n    return [x async for x in y]\nemit_result(1)',
      ),
    ).toEqual(['no-async@6:11', 'no-async@7:15']);
    expect(
      found(
        'async def f():\n    await g()\n    async for x in y:\n        pass\n    async with z:\n        pass\ndef h():\n    global a\n    nonlocal b\n    yield 1\n    yield from c\nclass K(metaclass=M):\n    pass\nemit_result(1)',
      ),
    ).toEqual([
      'no-async@1:11',
      'no-async@2:5',
      'unknown-function@2:11',
      'no-async@3:5',
      'no-async@5:5',
      'no-global@8:5',
      'no-global@9:5',
      'no-yield@10:5',
      'no-yield@11:5',
      'no-class@12:7',
    ]);
  });

  it('strict: the subset of node kinds, lambda as key= only, listed calls only', () => {
    expect(
      found(
        'x = [1]\nx.append(2)\nx.bit_length()\ny = sorted(x, key=lambda v: -v)\nz = lambda: 1\nq = foo(1)\nr = (x)(1)\ndef f():\n    pass\nemit_result(json.dumps(y))',
        true,
      ),
    ).toEqual([
      'strict-call@3:3',
      'strict-node@5:5',
      'strict-call@6:5',
      'unknown-function@6:5',
      'strict-call@7:5',
      'strict-node@8:1',
    ]);
  });
});
