/**
 * MCP tools whose parameters are keywords or not identifiers (`from`, `x-header`, `class`, `2fa`): the
 * Python stub names them as keyword arguments a script can write (`from_`, `x_header`), checked by
 * Python's own parser; the TypeScript stub keeps the server's keys (quoted where needed), checked by the
 * TypeScript compiler; and a Python call's arguments go back to the server's names.
 */
import { describe, expect, it } from 'vitest';
import ts from 'typescript';
import { mcpSandboxTools, pyParamName, serverArgs } from '../../../src-main/core/tools/mcp.ts';
import { hostPython } from '../../support/host-python.ts';

const input = {
  type: 'object',
  properties: {
    from: { type: 'string', description: 'sender' },
    'x-header': { type: 'string' },
    class: { type: 'integer', default: 1 },
    '2fa': { type: 'boolean' },
    to: { type: 'object', properties: { 'e-mail': { type: 'string' }, in: { type: 'string' } } },
  },
  required: ['from', 'x-header'],
};
const [tool] = mcpSandboxTools('mail', [
  { name: 'send', description: 'Send a message.', inputSchema: input },
]).tools;

describe('keyword and non-identifier parameters', () => {
  it('Python stub: valid Python, callable with keyword arguments', { timeout: 60_000 }, () => {
    expect(['from', 'x-header', 'class', '2fa', 'to', 'new'].map(pyParamName)).toEqual([
      'from_',
      'x_header',
      'class_',
      '_2fa',
      'to',
      'new',
    ]);
    const stub = tool!.stubs!.python;
    expect(stub).toMatch(
      /def send\(\*, from_: str, x_header: str, class_: int = 1, _2fa: bool \| None = None/,
    );
    expect(stub).toContain(`from_ is the server's "from"`);
    // Python runs the stub and a natural call of it (the old stub, `from: str`, is a syntax error).
    const program = `from typing import Any, Literal, NotRequired, TypedDict\nclass ToolResponse: ...\n${stub}\nsend(from_="a", x_header="b", class_=2, _2fa=True)\n`;
    const check = [
      'import ast, sys',
      'exec(compile(sys.stdin.read(), "stub", "exec"))',
      'try:',
      '    ast.parse("def f(*, from: str) -> None: ...")',
      '    print("old stub parsed")',
      'except SyntaxError:',
      '    print("ok")',
    ].join('\n');
    const r = hostPython(check, [], { input: program });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('ok\n');
  });

  it('TypeScript stub: valid TypeScript, callable with the server keys', { timeout: 60_000 }, () => {
    const stub = tool!.stubs!.ts;
    expect(stub).toContain('from: string');
    expect(stub).toContain('"x-header": string');
    const program = `type ToolResponse<T> = { success: boolean; data?: T };\n${stub}\nvoid send({ from: "a", "x-header": "b", class: 2, "2fa": true });\n`;
    const out = ts.transpileModule(program, { reportDiagnostics: true, compilerOptions: { strict: true } });
    expect(out.diagnostics ?? []).toEqual([]);
  });

  it("a Python call's arguments go back to the server's names; JS keys pass as they are", () => {
    expect(serverArgs(input, { from_: 'a', x_header: 'b', class_: 3, _2fa: false, to: { in: 'x' } })).toEqual(
      {
        from: 'a',
        'x-header': 'b',
        class: 3,
        '2fa': false,
        to: { in: 'x' },
      },
    );
    expect(serverArgs(input, { from: 'a', 'x-header': 'b' })).toEqual({ from: 'a', 'x-header': 'b' });
  });
});
