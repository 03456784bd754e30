import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assembleScript, bodyLine, stripFences } from '../../../src-main/core/script/assemble.ts';
import {
  formatExecutionError,
  PromptMissingError,
  ScriptGenerator,
} from '../../../src-main/core/script/generator.ts';
import { editDistance, hintsFor } from '../../../src-main/core/script/hints.ts';
import { PromptTemplateError, renderTemplate } from '../../../src-main/core/script/template.ts';
import { extractTools } from '../../../src-main/core/tools/extract.ts';
import { PYTHON_SAFE_BUILTINS } from '../../../src-main/core/lang/builtins.ts';

const promptsDir = new URL('../../../resources/prompts/', import.meta.url);
const prompts = Object.fromEntries(
  readdirSync(promptsDir)
    .filter((f) => f.endsWith('.md'))
    .map((f) => [f.slice(0, -3), readFileSync(new URL(f, promptsDir), 'utf8')]),
);
const tools = extractTools(
  readFileSync(new URL('../../../resources/workspace/sandboxes/ecommerce/tools.py', import.meta.url), 'utf8'),
).tools;
const gen = new ScriptGenerator(prompts);
const sandbox = { name: 'ecommerce', tools };

describe('buildPrompt', () => {
  it('first attempt: strict rules, the builtins list from data and the tools manual', () => {
    const p = gen.buildPrompt('How many orders are pending?', sandbox);
    expect(p.kind).toBe('first');
    expect(p.system).toMatch(/```python```/);
    expect(p.user).toContain('Task: How many orders are pending?');
    expect(p.user).toContain('No import statements');
    expect(p.user).toContain(PYTHON_SAFE_BUILTINS.join(', '));
    expect(p.user).toContain('<tool name="check_inventory" location="sandbox">');
    expect(p.user).not.toContain('{{');
    expect(p.sections.map((s) => s.title)).toEqual(['Task', 'Rules', 'Tools']);
  });

  it('retry: carries the previous script, the error and hints', () => {
    const p = gen.buildPrompt('Name of user u1', sandbox, {
      attempt: 2,
      previousScript: 'r = get_user(user_id="u1")\nemit_result(r.data[0])\n',
      previousError: {
        type: 'KeyError',
        message: '0',
        frames: [{ line: 2, name: '<script>', text: 'emit_result(r.data[0])' }],
      },
    });
    expect(p.kind).toBe('retry');
    expect(p.user).toContain('Attempt 2. Your previous script failed.');
    expect(p.user).toContain('emit_result(r.data[0])');
    expect(p.user).toContain(
      'Traceback (most recent call last):\n  line 2, in <script>\n    emit_result(r.data[0])\nKeyError: 0',
    );
    expect(p.hints[0]).toMatch(/indexed a dict with the integer 0/);
    expect(p.user).toContain('How to fix it:');
    expect(p.sections.map((s) => s.title)).toContain('Hints');
  });

  it('JS prompts use the JS rules', () => {
    const p = gen.buildPrompt('count orders', { ...sandbox, language: 'js' });
    expect(p.user).toContain('await get_user({ user_id: "u1" })');
    expect(p.system).toContain('JavaScript');
  });

  it('refuses to start without its prompt files', () => {
    expect(() => new ScriptGenerator({ system: 'x' })).toThrow(PromptMissingError);
  });

  it('validation feedback lists every violation with positions', () => {
    const msg = gen.validationErrorMessage([
      {
        rule: 'no-import',
        message: 'imports are not available',
        line: 1,
        column: 1,
        endLine: 1,
        endColumn: 10,
      },
      { rule: 'missing-emit', message: 'call emit_result', line: 3, column: 1, endLine: 3, endColumn: 2 },
    ]);
    expect(msg).toContain('rejected before it ran');
    expect(msg).toContain('- line 1, column 1 [no-import]: imports are not available');
    expect(msg).toContain('- line 3, column 1 [missing-emit]: call emit_result');
  });

  it('formats string errors as they are', () => {
    expect(formatExecutionError('  boom \n')).toBe('boom');
  });
});

describe('hinters', () => {
  const h = (error: string) => hintsFor({ error, script: '', tools });
  it('KeyError with an integer vs a name', () => {
    expect(h('KeyError: 0')[0]).toMatch(/as if it were a list/);
    expect(h("KeyError: 'nme'")[0]).toMatch(/key is not in the dict/);
  });
  it("KeyError on a dict of an INTERACTIVE step's collected data points there, not to a tool's manual", () => {
    const fromCollected = h(
      'Traceback (most recent call last):\n  line 1, in <script>\n    u = get_user(user_id=collected[0]["uid"]).data\nKeyError: \'uid\'',
    )[0];
    expect(fromCollected).toMatch(/not in the dict read from collected, the data earlier steps emitted/);
    expect(fromCollected).not.toMatch(/tool's manual/);
    // A tool's data read on that line keeps the manual's hint.
    expect(
      h(
        'Traceback (most recent call last):\n  line 2, in <script>\n    emit_result(u.data["uid"])\nKeyError: \'uid\'',
      )[0],
    ).toMatch(/the tool's manual lists/);
  });
  it('NameError for an unknown tool suggests the closest', () => {
    expect(h("NameError: name 'get_usr' is not defined")[0]).toMatch(/Did you mean the tool get_user\?/);
    expect(h("NameError: name 'zzz' is not defined")[0]).not.toMatch(/Did you mean/);
  });
  it('TypeError for wrong arguments shows the signature', () => {
    expect(h("TypeError: check_inventory() got an unexpected keyword argument 'product'")[0]).toContain(
      'check_inventory(product_id: str, warehouse: str = "New York")',
    );
  });
  it("a JS/TS script's wrong arguments get the JS call, not Python's signature and keyword arguments", () => {
    // The node worker relays the tool layer's TypeError (docs/tools.md): a JS run was told
    // `check_inventory(product_id: str, ...)` and to use keyword arguments.
    const error =
      "Error: check_inventory: TypeError: check_inventory() got an unexpected keyword argument 'product'";
    for (const language of ['js', 'ts'] as const) {
      const [hint] = hintsFor({ error, script: '', tools, language });
      expect(hint).toBe(
        'Call check_inventory exactly as its signature says: check_inventory({ product_id: string, warehouse?: string = "New York" }). Pass one object whose keys are these parameter names.',
      );
    }
  });
  it('a JS/TS script that emitted nothing is told to call emitResult, not emit_result', () => {
    const error = 'NoResult: the script ran to its end but no result was emitted: no emitResult(...) call';
    expect(hintsFor({ error, script: '', tools, language: 'ts' })).toEqual([
      'End the script by calling emitResult(value) with the final answer.',
    ]);
    expect(h(error)).toEqual(['End the script by calling emit_result(value) with the final answer.']);
  });
  it('AttributeError on a ToolResponse points to .data', () => {
    expect(h("AttributeError: 'ToolResponse' object has no attribute 'name'")[0]).toContain('r.data["name"]');
    expect(h("AttributeError: 'dict' object has no attribute 'name'")[0]).toContain('d["name"]');
  });
  it('a ToolResponse indexed, looped over or measured as if it were its value points to .data', () => {
    for (const error of [
      "TypeError: 'ToolResponse' object is not subscriptable",
      "TypeError: 'ToolResponse' object is not iterable",
      "TypeError: object of type 'ToolResponse' has no len()",
    ])
      expect(h(error)).toEqual([
        'A tool returns a ToolResponse, not its value: the value is r.data (r.data["name"], for item in r.data, len(r.data)), after checking r.success.',
      ]);
  });
  it('a ToolResponse passed to emit_result, whole or inside a list or dict, points to .data', () => {
    const worker = (what: string, path: string) =>
      `Traceback (most recent call last):\n  line 1, in <script>\nTypeError: ${what} takes JSON-safe data (dict, list, str, int, float, bool, None); ${path} (ToolResponse) is not`;
    expect(h(worker('emit_result', '$'))).toEqual([
      'emit_result takes the answer, not a tool\'s response: the value passed is a ToolResponse. Emit its value, r.data (or only the fields the task asks for, r.data["name"]), after checking r.success.',
    ]);
    expect(h(worker('emit_intermediate', '$.user'))[0]).toMatch(
      /^emit_intermediate takes the answer, not a tool's response: \$\.user of the value passed is a ToolResponse\. /,
    );
    expect(h(worker('emit_result', '$[1]'))[0]).toContain('$[1] of the value passed is a ToolResponse');
    // A key with a space (the worker writes the path as it is: `$.first user`).
    expect(h(worker('emit_result', '$.first user[0]'))[0]).toContain(
      '$.first user[0] of the value passed is a ToolResponse',
    );
    // Another value that is not JSON-safe is not a response.
    expect(
      h(
        'TypeError: emit_result takes JSON-safe data (dict, list, str, int, float, bool, None); $ (set) is not',
      ),
    ).toEqual([]);
  });
  it("a JS/TS script that read a field off a tool call's response is told the value is in .data", () => {
    const script = 'const u = await get_user({ user_id: "u1" });\nemitResult(u.name.toUpperCase());\n';
    const js = (error: string, s = script) => hintsFor({ error, script: s, tools, language: 'js' });
    const toData =
      "A tool call resolves to { success, message, data }, not to the tool's value: read r.data (r.data.name, r.data.map(...), for (const item of r.data)), after checking r.success.";
    expect(js("TypeError: Cannot read properties of undefined (reading 'toUpperCase')")).toEqual([toData]);
    expect(js('TypeError: rows.map is not a function')).toEqual([toData]);
    expect(js('TypeError: r is not iterable')).toEqual([toData]);
    expect(js("TypeError: Cannot read properties of null (reading 'name')")[0]).toMatch(/check r\.success/);
    // No tool called: the undefined came from elsewhere, nothing to say about responses.
    expect(
      js("TypeError: Cannot read properties of undefined (reading 'x')", 'emitResult({}.a.x);\n'),
    ).toEqual([]);
    // A Python script is never told about r.data.map.
    expect(hintsFor({ error: 'TypeError: r is not iterable', script, tools })).toEqual([]);
  });
  it('a JS/TS script that already reads .data, or calls no tool (only a name ending in one), is not told to read r.data', () => {
    const js = (error: string, script: string) =>
      hintsFor({ error, script, tools: [...tools, { ...tools[0]!, name: 'get' }], language: 'js' });
    // The undefined is in the value's own shape: the script reads r.data already.
    const reads =
      'const r = await get_user({ user_id: "u1" });\nif (!r.success) throw new Error(r.message);\nemitResult(r.data.address.city);\n';
    expect(js("TypeError: Cannot read properties of undefined (reading 'city')", reads)).toEqual([]);
    const destructured =
      'const { success, data } = await get_user({ user_id: "u1" });\nemitResult(data.tags.map((t) => t));\n';
    expect(js('TypeError: data.tags.map is not a function', destructured)).toEqual([]);
    const typed =
      'const { data }: { data: { tags: string } } = await get_user({ user_id: "u1" });\nemitResult(data.tags.map((t) => t));\n';
    expect(
      hintsFor({ error: 'TypeError: data.tags.map is not a function', script: typed, tools, language: 'ts' }),
    ).toEqual([]);
    expect(
      js(
        'TypeError: r.data.tags.map is not a function',
        'const r = await get_user({});\nemitResult(r.data.tags.map(String));\n',
      ),
    ).toEqual([]);
    // `budget(` and `cache.get(` call no tool named get.
    expect(
      js(
        "TypeError: Cannot read properties of undefined (reading 'a')",
        'emitResult(budget(3).a.b, cache.get(1));\n',
      ),
    ).toEqual([]);
  });
  it('a JS/TS script that reads .data of one call but another response whole is still told to read r.data', () => {
    const js = (error: string, script: string) => hintsFor({ error, script, tools, language: 'js' });
    const script = [
      'const o = await get_user({ user_id: "u2" });',
      'const n = o.data.name;',
      'const u = await get_user({ user_id: "u1" });',
      'emitResult([n, u.address.city]);',
    ].join('\n');
    // Before: any `.data` in the script kept the hint from it, and the retry got no word of u.address.
    expect(js("TypeError: Cannot read properties of undefined (reading 'city')", script)[0]).toMatch(
      /read r\.data/,
    );
    expect(
      js('TypeError: u.map is not a function', script.replace('u.address.city', 'u.map(String)'))[0],
    ).toMatch(/read r\.data/);
    // Each response read through .data, .success or .message only: not told.
    const fine = script.replace('u.address.city', 'u.success && u["data"].address.city');
    expect(js("TypeError: Cannot read properties of undefined (reading 'city')", fine)).toEqual([]);
  });
  it('list indexed by string and None subscripts', () => {
    expect(h('TypeError: list indices must be integers or slices, not str')[0]).toMatch(/loop over it/);
    expect(h("TypeError: 'NoneType' object is not subscriptable")[0]).toMatch(/check r.success/);
  });
  it('a timeout and an output past the limit say what to change, not only that the limit was hit', () => {
    expect(h('Timeout: the script ran past its 3 s time limit')[0]).toMatch(/a loop that never ends/);
    expect(h("OutputLimit: the script's output exceeded 51200 bytes")[0]).toMatch(
      /emit only the answer the task asks for/,
    );
    // A traceback above the error line (formatExecutionError's form) still gets the hint.
    expect(
      h('Traceback (most recent call last):\n  line 3, in <module>\nTimeout: the script ran past'),
    ).toHaveLength(1);
  });
  it('nothing for an unknown error', () => {
    expect(h('ValueError: something')).toEqual([]);
  });
  it('edit distance', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});

describe('stripFences and assembleScript', () => {
  it.each([
    ['```python\nx = 1\n```', 'x = 1\n'],
    ['```py\nx = 1\n```\n', 'x = 1\n'],
    ['~~~\nx = 1\n~~~', 'x = 1\n'],
    ['Here is the script:\n```python\nx = 1\nemit_result(x)\n```\nThis emits 1.', 'x = 1\nemit_result(x)\n'],
    ['Here is the script:\nx = 1\n', 'x = 1\n'],
    ['x = 1', 'x = 1\n'],
    ['```python\nx = 1\n', 'x = 1\n'],
    ['```js\nconst a = 1\n```\n```python\ny = 2\n```', 'y = 2\n'],
  ])('extracts code from %j', (raw, code) => {
    expect(stripFences(raw)).toBe(code);
  });

  it('assembles preamble, body and postamble and maps lines back to the body', () => {
    const s = assembleScript('```python\na = get_orders()\nemit_result(a.data)\n```', {
      sandbox: 'ecommerce',
      tools: ['get_orders'],
      helpers: ['emit_result'],
    });
    expect(s.body).toBe('a = get_orders()\nemit_result(a.data)\n');
    const lines = s.code.split('\n');
    expect(lines[s.bodyStartLine - 1]).toBe('a = get_orders()');
    expect(lines[0]).toMatch(/^# toolsmith script · sandbox ecommerce/);
    expect(lines[1]).toBe('# tools: get_orders');
    expect(s.code.trimEnd().endsWith('# --- end of body ---')).toBe(true);
    expect(bodyLine(s, s.bodyStartLine + 1)).toBe(2);
    expect(bodyLine(s, 1)).toBeUndefined();
  });
});

describe('renderTemplate', () => {
  it('fills variables and sections, and fails on unknown variables', () => {
    expect(renderTemplate('a {{x}} {{#y}}Y={{y}}{{/y}}{{^y}}no y{{/y}}', { x: 1, y: '' })).toBe('a 1 no y');
    expect(renderTemplate('{{#y}}Y={{y}}{{/y}}', { y: 'q' })).toBe('Y=q');
    expect(() => renderTemplate('{{nope}}', {})).toThrow(PromptTemplateError);
  });
});
