/**
 * `tool-arguments` / `tool-argument-type`: a call of a tool or skill whose arguments cannot bind to its
 * signature is refused before anything runs (core/lang/signature.ts, python/rules/arguments.ts,
 * js/rules/arguments.ts), from the signatures the tool manual extracts (core/tools/call-shape.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { validateJs } from '../../../src-main/core/lang/js/validate.ts';
import { validatePython } from '../../../src-main/core/lang/python/validate.ts';
import { describeViolations } from '../../../src-main/core/lang/violation.ts';
import { scriptCallShapes, scriptToolNames } from '../../../src-main/core/script/context.ts';
import { skillShape } from '../../../src-main/core/skills/skill.ts';
import { jsSkillShape } from '../../../src-main/core/skills/js-skill.ts';
import { callShapes } from '../../../src-main/core/tools/call-shape.ts';
import { extractTools } from '../../../src-main/core/tools/extract.ts';
import type { Tool } from '../../../src-main/core/tools/model.ts';
import { toolSignature } from '../../../src-main/core/tools/prompt.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const TOOLS_PY = `
@tool
def add_numbers(a: int, b: int) -> ToolResponse:
    """Adds."""
    return ToolResponse(success=True, data=a + b)

@tool
def po(x: int, /, y: str = "a", *, z: bool = False) -> ToolResponse:
    """Positional-only x, keyword-only z."""
    return ToolResponse(success=True)

@tool
def many(first: str, *rest, **options) -> ToolResponse:
    """Takes anything after first."""
    return ToolResponse(success=True)

@tool
def kwonly(*, key: str, limit: int = 3) -> ToolResponse:
    """Keyword-only."""
    return ToolResponse(success=True)

@tool
def typed(n: float, flag: bool = True, name: Optional[str] = None, tags: list[str] = [], meta: dict = {}, raw=None, anything: Any = 1) -> ToolResponse:
    """Typed."""
    return ToolResponse(success=True)
`;

const tools: Tool[] = extractTools(TOOLS_PY).tools;
const mcp: Tool = {
  name: 'search_issues',
  description: '',
  parameters: [
    { name: 'query', type: 'str', description: '', required: true, source: 'all' },
    { name: 'from', type: 'int', description: '', required: false, source: 'all' },
  ],
  location: 'mcp',
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string' }, from: { type: 'integer' } },
    required: ['query'],
    additionalProperties: false,
  },
};
const openMcp: Tool = {
  ...mcp,
  name: 'open_search',
  inputSchema: { ...mcp.inputSchema, additionalProperties: true },
};
const skill = skillShape(
  'order_total',
  'def order_total(user_id: str, currency: str = "EUR") -> float:\n    """Sums a user\'s orders."""\n    return 1.0\n',
).tool;
const all = [...tools, mcp, openMcp, skill];
const names = all.map((t) => t.name);

/** `rule@line:column message` of each violation (emit_result added so missing-emit stays out). */
const py = (body: string): string[] =>
  validatePython(`${body}\nemit_result(1)\n`, {
    tools: names,
    shapes: callShapes(all, 'python'),
  }).violations.map((v) => `${v.rule}@${v.line}:${v.column} ${v.message}`);

const SIG = '(add_numbers(a: int, b: int))';
/** The same tool as a JS/TS script calls it: one object of named arguments. */
const JS_SIG = '(add_numbers({ a: number, b: number }))';

describe('Python: calls that cannot bind', () => {
  it.each([
    ['add_numbers(1)', [`tool-arguments@1:1 add_numbers() missing required argument 'b' ${SIG}`]],
    [
      'add_numbers()',
      [
        `tool-arguments@1:1 add_numbers() missing required argument 'a' ${SIG}`,
        `tool-arguments@1:1 add_numbers() missing required argument 'b' ${SIG}`,
      ],
    ],
    [
      'add_numbers(1, 2, 3)',
      [`tool-arguments@1:19 add_numbers() takes 2 positional arguments but 3 were given ${SIG}`],
    ],
    [
      'add_numbers(1, 2, c=3)',
      [`tool-arguments@1:19 add_numbers() got an unexpected keyword argument 'c' ${SIG}`],
    ],
    ['add_numbers(a=1, a=2, b=3)', [`tool-arguments@1:18 add_numbers() got the argument 'a' twice ${SIG}`]],
    [
      'add_numbers(1, a=2, b=3)',
      [`tool-arguments@1:16 add_numbers() got multiple values for argument 'a' ${SIG}`],
    ],
  ])('%s', (call, expected) => {
    expect(py(call)).toEqual(expected);
  });

  it('calls that bind are valid, by position, by name or mixed', () => {
    expect(
      py('add_numbers(1, 2)\nadd_numbers(b=2, a=1)\nadd_numbers(1, b=2)\nr = add_numbers(1, 2).data'),
    ).toEqual([]);
  });

  it('positional-only and keyword-only parameters', () => {
    const sig = '(po(x: int, /, y: str = "a", *, z: bool = False))';
    expect(py('po(1)\npo(1, "b", z=True)\npo(1, y="b")')).toEqual([]);
    expect(py('po(x=1)')).toEqual([
      `tool-arguments@1:1 po() missing required argument 'x' ${sig}`,
      `tool-arguments@1:4 po() argument 'x' is positional-only: pass it by position, not as x= ${sig}`,
    ]);
    expect(py('po(1, "b", True)')).toEqual([
      `tool-arguments@1:12 po() takes 2 positional arguments but 3 were given ${sig}`,
    ]);
    expect(py('kwonly("k")')).toEqual([
      "tool-arguments@1:1 kwonly() missing required argument 'key' (kwonly(*, key: str, limit: int = 3))",
      'tool-arguments@1:8 kwonly() takes 0 positional arguments but 1 was given (kwonly(*, key: str, limit: int = 3))',
    ]);
    expect(py('kwonly(key="k", limit=1)')).toEqual([]);
  });

  it('*args and **kwargs in the signature take what is left', () => {
    expect(py('many("a", 1, 2, 3, anything=4, more="x")')).toEqual([]);
    expect(py('many()')).toEqual([
      "tool-arguments@1:1 many() missing required argument 'first' (many(first: str, *args, **kwargs))",
    ]);
  });

  it('a call that unpacks is not statically certain and is left alone', () => {
    expect(
      py('xs = [1]\nkw = {"c": 1}\nadd_numbers(*xs)\nadd_numbers(**kw)\nadd_numbers(1, *xs, c=2)'),
    ).toEqual([]);
  });

  it('names that are not tools, and tools without a known shape, are not checked', () => {
    expect(py('def f(a, b):\n    return a\nf(1)\nlen()')).toEqual([]);
    const v = validatePython('add_numbers(1)\nemit_result(1)\n', { tools: ['add_numbers'] });
    expect(v.violations).toEqual([]);
  });

  it('MCP tools: keyword arguments only, Python names, unknown names only when the schema is closed', () => {
    const sig = '(search_issues(*, query: str, from_: int = None))';
    expect(py('search_issues(query="x", from_=2)\nopen_search(query="x", extra=1)')).toEqual([]);
    expect(py('search_issues("x")')).toEqual([
      `tool-arguments@1:15 search_issues() takes keyword arguments only ${sig}`,
    ]);
    expect(py('search_issues(query="x", page=2)')).toEqual([
      `tool-arguments@1:26 search_issues() got an unexpected keyword argument 'page' ${sig}`,
    ]);
    expect(py('open_search(from_=1)')).toEqual([
      "tool-arguments@1:1 open_search() missing required argument 'query' (open_search(*, query: str, from_: int = None, **kwargs))",
    ]);
  });

  it('skills: their signature, like a tool', () => {
    const sig = '(order_total(user_id: str, currency: str = "EUR"))';
    expect(py('t = order_total("u1")\nt2 = order_total(user_id="u1", currency="USD")')).toEqual([]);
    expect(py('t = order_total(currency="USD")')).toEqual([
      `tool-arguments@1:5 order_total() missing required argument 'user_id' ${sig}`,
    ]);
    expect(py('t = order_total("u1", "USD", 3)')).toEqual([
      `tool-arguments@1:30 order_total() takes 2 positional arguments but 3 were given ${sig}`,
    ]);
  });

  it('every problem of one call is reported, each at its argument', () => {
    expect(py('x = 1\nr = add_numbers(1, 2, 3, c=4)')).toEqual([
      `tool-arguments@2:23 add_numbers() takes 2 positional arguments but 3 were given ${SIG}`,
      `tool-arguments@2:26 add_numbers() got an unexpected keyword argument 'c' ${SIG}`,
    ]);
  });

  it('a long script validated in pieces reports the same calls', () => {
    const filler = Array.from({ length: 900 }, (_, i) => `v${i} = ${i} + 1`).join('\n');
    const out = py(`${filler}\nadd_numbers(1)\n${filler}\nadd_numbers(1, 2, 3)`);
    expect(out).toEqual([
      `tool-arguments@901:1 add_numbers() missing required argument 'b' ${SIG}`,
      `tool-arguments@1802:19 add_numbers() takes 2 positional arguments but 3 were given ${SIG}`,
    ]);
  });
});

describe('Python: literal arguments of the wrong type', () => {
  const sig =
    '(typed(n: float, flag: bool = True, name: str | None = None, tags: list[str] = [], meta: dict = {}, raw: any = None, anything: any = 1))';
  it('a literal that cannot be the parameter is refused, naming both types', () => {
    expect(py('typed("1.5")')).toEqual([
      `tool-argument-type@1:7 typed() argument 'n' must be float, not a string ${sig}`,
    ]);
    expect(py('typed(1, flag="yes", tags="a", meta=[1])')).toEqual([
      `tool-argument-type@1:10 typed() argument 'flag' must be bool, not a string ${sig}`,
      `tool-argument-type@1:22 typed() argument 'tags' must be list, not a string ${sig}`,
      `tool-argument-type@1:32 typed() argument 'meta' must be dict, not a list ${sig}`,
    ]);
    expect(py('add_numbers(1.5, None)')).toEqual([
      `tool-argument-type@1:13 add_numbers() argument 'a' must be int, not a float ${SIG}`,
      `tool-argument-type@1:18 add_numbers() argument 'b' must be int, not None ${SIG}`,
    ]);
    expect(py('add_numbers(f"{1}", 2)')).toEqual([
      `tool-argument-type@1:13 add_numbers() argument 'a' must be int, not a string ${SIG}`,
    ]);
  });

  it('what Python takes is valid: ints for floats, bools for ints, None where None is taken, any for any', () => {
    expect(
      py(
        'typed(1)\ntyped(-2, flag=False)\nadd_numbers(True, -3)\ntyped(1.5, name=None, raw=None, anything="x")\ntyped(2.5, tags=["a"], meta={"k": 1})\ntyped(1, tags=("a", "b"))',
      ),
    ).toEqual([]);
  });

  it('only literals are judged: variables and expressions are not', () => {
    expect(
      py('s = "1"\nadd_numbers(s, int("2"))\nadd_numbers(1 + 1, len("ab"))\nadd_numbers(b"1", 2j)'),
    ).toEqual([]);
  });
});

describe('kit aliases: the tool under its alias, with its signature', () => {
  const ws = tempWorkspace();
  const svc = ToolsmithService.open(ws, { oneShot: true });
  afterAll(async () => {
    await svc.close();
    removeWorkspace(ws);
  });

  it('a call of an alias is checked and named by the alias', () => {
    const ctx = svc.execution.scriptContext('ecommerce', 'orders', 'python');
    const v = validatePython('r = user()\nemit_result(r.data)\n', {
      tools: scriptToolNames(ctx),
      shapes: scriptCallShapes(ctx),
    });
    expect(v.violations.map((x) => x.message)).toEqual([
      "user() missing required argument 'user_id' (user(user_id: str))",
    ]);
  });

  it("a skill's own tool calls are checked when it is checked", () => {
    const c = svc.skills().check({
      sandbox: 'ecommerce',
      name: 'user_name',
      source:
        'def user_name(user_id: str) -> str:\n    """The user\'s name."""\n    return get_user(id=user_id).data["name"]\n',
    });
    expect(c.valid).toBe(false);
    expect(c.violations.map((x) => `${x.rule}@${x.line}:${x.column} ${x.message}`)).toEqual([
      "tool-arguments@3:12 get_user() missing required argument 'user_id' (get_user(user_id: str))",
      "tool-arguments@3:21 get_user() got an unexpected keyword argument 'id' (get_user(user_id: str))",
    ]);
  });

  it('the service validates against the sandbox (and kit) it is given', () => {
    const plain = svc.execution.validate({
      code: 'r = get_user("u1", "extra")\nemit_result(r.data)\n',
      language: 'python',
      sandbox: 'ecommerce',
    });
    expect(plain.violations.map((x) => `${x.rule} ${x.message}`)).toEqual([
      'tool-arguments get_user() takes 1 positional argument but 2 were given (get_user(user_id: str))',
    ]);
    const kit = svc.execution.validate({
      code: 'r = product(product_id="p1", warehouse="Berlin")\nemit_result(r.data)\n',
      language: 'python',
      sandbox: 'ecommerce',
      kit: 'orders',
    });
    expect(kit.violations.map((x) => x.message)).toEqual([
      "product() got an unexpected keyword argument 'warehouse' (product(product_id: str))",
    ]);
    const ts = svc.execution.validate({
      code: 'const r = await get_user({userId: "u1"});\nemitResult(r.data);\n',
      language: 'ts',
      sandbox: 'ecommerce',
    });
    expect(ts.violations.map((x) => x.message)).toEqual([
      "get_user() missing required argument 'user_id' (get_user({ user_id: string }))",
      "get_user() got an unexpected argument 'userId' (get_user({ user_id: string }))",
    ]);
  });
});

describe('JS/TS: one object of named arguments; skills take positional ones', () => {
  const jsSkill = jsSkillShape(
    'order_total',
    '/** Sums a user\'s orders. */\nasync function order_total(userId, currency = "EUR") {\n  return 1;\n}\n',
    'js',
  ).tool;
  const jsTools = [...tools, mcp, jsSkill];
  const js = (body: string): string[] =>
    validateJs(`${body}\nemitResult(1);\n`, {
      tools: jsTools.map((t) => t.name),
      shapes: callShapes(jsTools, 'js'),
    }).violations.map((v) => `${v.rule}@${v.line}:${v.column} ${v.message}`);

  it('object keys are checked against the parameters', () => {
    expect(js('await add_numbers({a: 1, b: 2});\nawait add_numbers({"a": 1, b: 2});')).toEqual([]);
    expect(js('await add_numbers({a: 1});')).toEqual([
      `tool-arguments@1:7 add_numbers() missing required argument 'b' ${JS_SIG}`,
    ]);
    expect(js('await add_numbers({a: 1, b: 2, c: 3});')).toEqual([
      `tool-arguments@1:32 add_numbers() got an unexpected argument 'c' ${JS_SIG}`,
    ]);
    expect(js('await add_numbers({a: "1", b: null});')).toEqual([
      `tool-argument-type@1:20 add_numbers() argument 'a' must be an integer number, not a string ${JS_SIG}`,
      `tool-argument-type@1:28 add_numbers() argument 'b' must be an integer number, not null ${JS_SIG}`,
    ]);
    expect(js('await search_issues({query: "x", from: 2});\nawait search_issues({q: "x"});')).toEqual([
      "tool-arguments@2:7 search_issues() missing required argument 'query' (search_issues({ query: string, from?: number }))",
      "tool-arguments@2:22 search_issues() got an unexpected argument 'q' (search_issues({ query: string, from?: number }))",
    ]);
  });

  it("a literal of the wrong type is told in JS's words (string, number, boolean, array, object), never Python's", () => {
    const sig =
      '(typed({ n: number, flag?: boolean = true, name?: string | null = null, tags?: string[] = [], meta?: object = {}, raw?: unknown = null, anything?: unknown = 1 }))';
    expect(js('await typed({n: "1.5", flag: 1, tags: {}, meta: [1], name: false});')).toEqual([
      `tool-argument-type@1:14 typed() argument 'n' must be number, not a string ${sig}`,
      `tool-argument-type@1:24 typed() argument 'flag' must be boolean, not a number ${sig}`,
      `tool-argument-type@1:33 typed() argument 'tags' must be array, not an object ${sig}`,
      `tool-argument-type@1:43 typed() argument 'meta' must be object, not an array ${sig}`,
      `tool-argument-type@1:54 typed() argument 'name' must be string or null, not a boolean ${sig}`,
    ]);
    expect(js('await add_numbers({a: 1.5, b: 2});')).toEqual([
      `tool-argument-type@1:20 add_numbers() argument 'a' must be an integer number, not a number with a fraction ${JS_SIG}`,
    ]);
    // A JS skill's parameters too (positional): its JSDoc types, in JS words.
    const skill = jsSkillShape(
      'pick',
      '/**\n * Picks.\n * @param {string} id\n * @param {number} n\n */\nfunction pick(id, n) {\n  return 1;\n}\n',
      'js',
    ).tool;
    const v = validateJs('await pick(3, "x");\nemitResult(1);\n', {
      tools: ['pick'],
      shapes: callShapes([skill], 'js'),
    }).violations.map((x) => x.message);
    expect(v).toEqual([
      "pick() argument 'id' must be string, not a number (pick(id: string, n: number))",
      "pick() argument 'n' must be number, not a string (pick(id: string, n: number))",
    ]);
  });

  it('positional values instead of the object are refused', () => {
    expect(js('await add_numbers(1, 2);')).toEqual([
      `tool-arguments@1:22 add_numbers() takes one object of named arguments, e.g. await add_numbers({...}), not 2 arguments ${JS_SIG}`,
    ]);
    expect(js('await add_numbers(1);')).toEqual([
      `tool-arguments@1:19 add_numbers() takes one object of named arguments, e.g. await add_numbers({a: ...}), not a bare value ${JS_SIG}`,
    ]);
  });

  it('spreads, computed keys and variables are left alone', () => {
    expect(
      js(
        'const o = {a: 1};\nconst k = "a";\nawait add_numbers(o);\nawait add_numbers({...o, b: 2});\nawait add_numbers({[k]: 1, b: 2});\nawait add_numbers(...[o]);',
      ),
    ).toEqual([]);
  });

  it('a JS skill takes positional arguments', () => {
    const sig = '(order_total(userId: unknown, currency?: unknown = "EUR"))';
    expect(js('await order_total("u1");\nawait order_total("u1", "USD");')).toEqual([]);
    expect(js('await order_total();')).toEqual([
      `tool-arguments@1:7 order_total() missing required argument 'userId' ${sig}`,
    ]);
    expect(js('await order_total("u1", "USD", 3);')).toEqual([
      `tool-arguments@1:32 order_total() takes 2 positional arguments but 3 were given ${sig}`,
    ]);
  });
});

describe('what the rule reads and shows', () => {
  it('the extractor records how each parameter may be passed, and *args/**kwargs', () => {
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName['po']?.parameters.map((p) => [p.name, p.kind])).toEqual([
      ['x', 'positional'],
      ['y', undefined],
      ['z', 'keyword'],
    ]);
    expect(byName['many']).toMatchObject({ varArgs: true, varKwargs: true });
    expect(byName['many']?.parameters.map((p) => p.name)).toEqual(['first']);
    expect(byName['add_numbers']?.varArgs).toBeUndefined();
  });

  it("the manual's signature shows /, * and **kwargs where the tool has them", () => {
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(toolSignature(byName['po']!)).toBe('po(x: int, /, y: str = "a", *, z: bool = False)');
    expect(toolSignature(byName['many']!)).toBe('many(first: str, *args, **kwargs)');
    expect(toolSignature(byName['kwonly']!)).toBe('kwonly(*, key: str, limit: int = 3)');
  });

  it("the one-line description of a run's violations keeps the signature whole", () => {
    const v = validatePython('add_numbers(1)\nemit_result(1)\n', {
      tools: names,
      shapes: callShapes(all, 'python'),
    }).violations;
    expect(describeViolations(v)).toBe(
      `the script failed validation: line 1:1 tool-arguments (add_numbers() missing required argument 'b' ${SIG})`,
    );
  });
});
