import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { annotationType, extractTools, parseDocstring } from '../../../src-main/core/tools/extract.ts';
import { parsePython } from '../../../src-main/core/lang/python/pyright.ts';
import { ToolRegistry } from '../../../src-main/core/tools/registry.ts';

const ecommerce = readFileSync(
  new URL('../../../resources/workspace/sandboxes/ecommerce/tools.py', import.meta.url),
  'utf8',
);

describe('extractTools on the sample ecommerce sandbox', () => {
  const { tools, problems } = extractTools(ecommerce);
  it('finds the required tools without problems', () => {
    expect(problems).toEqual([]);
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['get_orders', 'get_user', 'check_inventory']),
    );
  });
  it('derives parameters from signature, hints, defaults, docstring and decorator', () => {
    const inv = tools.find((t) => t.name === 'check_inventory');
    expect(inv?.description).toBe('Check how many units of a product a warehouse holds.');
    expect(inv?.parameters).toEqual([
      {
        name: 'product_id',
        type: 'str',
        description: 'The product\'s id as it appears in orders (e.g. "p1").',
        required: true,
        source: 'all',
        examples: ['p1', 'p3'],
        displayName: 'Product ID',
      },
      {
        name: 'warehouse',
        type: 'str',
        description: 'Which warehouse to look in.',
        required: false,
        default: 'New York',
        source: 'all',
        options: ['New York', 'Berlin', 'Tokyo'],
        displayName: 'Warehouse',
      },
    ]);
    expect(inv?.grade).toEqual({ w: 1, d: 0 });
    expect(inv?.returns).toContain('in_stock');
    const user = tools.find((t) => t.name === 'get_user');
    expect(user?.parameters[0]?.source).toBe('history');
  });
});

describe('extractTools edge cases', () => {
  it('reads type hints, Literal options, Optional and literal defaults', () => {
    const src = `
@tool(name="renamed", description="Overrides the docstring")
def f(a: int, b: float = -1.5, c: bool = True, d: list[str] = [], e: Optional[str] = None, g: Literal["x", "y"] = "x", h: dict = {"k": 1}, i = None, *args, **kw):
    """Ignored."""
`;
    const [t] = extractTools(src).tools;
    expect(t?.name).toBe('renamed');
    expect(t?.description).toBe('Overrides the docstring');
    expect(t?.parameters.map((p) => [p.name, p.type, p.required, p.default, p.options])).toEqual([
      ['a', 'int', true, undefined, undefined],
      ['b', 'float', false, -1.5, undefined],
      ['c', 'bool', false, true, undefined],
      ['d', 'list', false, [], undefined],
      ['e', 'str', false, null, undefined],
      ['g', 'str', false, 'x', ['x', 'y']],
      ['h', 'dict', false, { k: 1 }, undefined],
      ['i', 'any', false, null, undefined],
    ]);
    expect(t?.grade).toEqual({ w: 2, d: 2 });
  });

  it('ignores functions without @tool and reports non-literal decorator arguments with positions', () => {
    const src = 'def helper():\n    pass\n\n@tool(options=make())\ndef t(x: str):\n    pass\n';
    const r = extractTools(src);
    expect(r.tools.map((t) => t.name)).toEqual(['t']);
    expect(r.problems).toEqual([expect.objectContaining({ rule: 'tool-decorator', line: 4, column: 7 })]);
  });

  it('reports unknown parameter names in decorator maps, bad sources and grades', () => {
    const src =
      '@tool(examples={"nope": [1]}, source={"x": "everywhere"}, grade=(3, 0))\ndef t(x: str):\n    pass\n';
    const rules = extractTools(src).problems.map((p) => p.message);
    expect(rules.some((m) => m.includes('names nope, which is not a parameter'))).toBe(true);
    expect(rules.some((m) => m.includes('source for x must be one of'))).toBe(true);
    expect(rules.some((m) => m.includes('grade must be a pair'))).toBe(true);
  });

  it('never throws on broken source and reports syntax errors', () => {
    const r = extractTools('@tool\ndef broken(:\n');
    expect(r.problems.some((p) => p.rule === 'syntax')).toBe(true);
  });

  it('lists its problems in position order (the parser tells some syntax errors after later ones)', () => {
    // Pyright reports `def f(:`'s "Expected parameter name" (1:7) before the "(" not closed (1:6), and
    // `{a: }`'s "Expected expression" (1:9) before the "{" not closed (1:5).
    for (const source of ['def f(:\n    pass\n', 'x = {a: }\n']) {
      const at = extractTools(source).problems.map((p) => [p.line, p.column]);
      expect(at.length).toBeGreaterThan(1);
      expect(at).toEqual([...at].sort(([l1 = 0, c1 = 0], [l2 = 0, c2 = 0]) => l1 - l2 || c1 - c2));
    }
    expect(extractTools('x = {a: }\n').problems[0]).toMatchObject({ line: 1, column: 5 });
  });

  it('maps unions with None', () => {
    const ann = (s: string) =>
      annotationType(parsePython(`x: ${s}`).module.children[0]?.children[0]?.children[1] ?? undefined);
    expect(ann('str | None')).toEqual({ type: 'str', optional: true });
    expect(ann('Union[int, None]').type).toBe('int');
  });
});

describe('parseDocstring', () => {
  it('reads description, Args (multi-line, typed) and Returns', () => {
    const d = parseDocstring(
      'Do a thing.\n\nMore detail.\n\nArgs:\n    a (int): First\n        continued.\n    b: Second\n\nReturns:\n    A dict.\n',
    );
    expect(d).toEqual({
      description: 'Do a thing.',
      params: { a: 'First continued.', b: 'Second' },
      returns: 'A dict.',
    });
  });
});

describe('ToolRegistry', () => {
  it('caches the tools prompt and invalidates it when tools.py changes', () => {
    const r = new ToolRegistry('ecommerce', ecommerce);
    const p1 = r.prompt();
    expect(r.prompt()).toBe(p1);
    const v = r.version;
    r.update(ecommerce);
    expect(r.version).toBe(v);
    r.update(ecommerce.replace('List every order in the store.', 'All orders.'));
    expect(r.version).toBe(v + 1);
    expect(r.prompt()).toContain('All orders.');
    expect(r.prompt()).not.toBe(p1);
  });
  it('never lets a host tool shadow a sandbox tool', () => {
    const r = new ToolRegistry('s', '@tool\ndef a():\n    pass\n');
    r.setHostTools([
      { name: 'a', description: 'host a', parameters: [], location: 'host', grade: { w: 0, d: 0 } },
      { name: 'b', description: 'host b', parameters: [], location: 'host', grade: { w: 0, d: 0 } },
    ]);
    expect(r.tools.map((t) => `${t.name}:${t.location}`)).toEqual(['a:sandbox', 'b:host']);
  });
});
