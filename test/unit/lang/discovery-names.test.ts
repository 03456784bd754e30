/**
 * The run-time tool lookups are framework names in both validators: scripts may call them (strict mode
 * included) and may not rebind them, as with emit_result.
 */
import { describe, expect, it } from 'vitest';
import { validateJs } from '../../../src-main/core/lang/js/validate.ts';
import { validatePython } from '../../../src-main/core/lang/python/validate.ts';

const rules = (r: { violations: { rule: string }[] }) => r.violations.map((v) => v.rule);

describe('search_tools / describe_tool in the validators', () => {
  it('Python: callable, in strict mode too', () => {
    const code = 'found = search_tools("orders")\nm = describe_tool(found[0]["name"])\nemit_result(m)\n';
    expect(rules(validatePython(code, { tools: [], strict: false }))).toEqual([]);
    expect(rules(validatePython(code, { tools: [], strict: true }))).toEqual([]);
  });

  it.each(['search_tools = 1\nemit_result(1)\n', 'def describe_tool(x):\n    return x\nemit_result(1)\n'])(
    'Python: rebinding is refused: %j',
    (code) => {
      expect(rules(validatePython(code, { tools: [] }))).toContain('rebind-framework');
    },
  );

  it('JS and TS: callable', () => {
    const code =
      'const f = await searchTools("orders");\nconst m = await describeTool(f[0].name);\nemitResult(m);\n';
    expect(rules(validateJs(code, { tools: [] }))).toEqual([]);
    expect(rules(validateJs(code, { tools: [], typescript: true }))).toEqual([]);
  });

  it.each(['searchTools = 1;\nemitResult(1);\n', 'const describeTool = 1;\nemitResult(1);\n'])(
    'JS: rebinding is refused: %j',
    (code) => {
      expect(rules(validateJs(code, { tools: [] }))).toContain('rebind-framework');
    },
  );
});
