import { describe, expect, it } from 'vitest';
import { toAgentContext } from '../../../src-main/core/sandbox/agent-context.ts';
import { resolveRuntime, runtimeRegistry } from '../../../src-main/core/sandbox/runtimes.ts';

describe('toAgentContext', () => {
  it('says how many tool calls past the bound are not in the trace', () => {
    const xml = toAgentContext({
      success: true,
      data: 1,
      intermediates: [],
      logs: [],
      toolCalls: [{ name: 'ping', args: { i: 0 }, ms: 1, location: 'sandbox', result: { success: true } }],
      toolCallsNotRecorded: 2999,
      exitReason: 'ok',
      isolation: 'docker',
      durationMs: 12,
      runtime: 'python',
    });
    expect(xml).toContain(
      [
        '  <tool_calls>',
        '    <call name="ping" location="sandbox" ms="1" success="true"/>',
        '    <not_recorded count="2999"/>',
        '  </tool_calls>',
      ].join('\n'),
    );
  });

  it('renders a failed execution with its traceback, tool calls and logs, escaped', () => {
    const xml = toAgentContext({
      success: false,
      intermediates: [{ a: '<b>' }],
      logs: ['x < y'],
      toolCalls: [
        { name: 'get_user', args: {}, ms: 1.5, location: 'sandbox', result: { success: true, data: 1 } },
        { name: 'admin', args: {}, ms: 0, location: 'host', error: 'refused', refused: true },
      ],
      error: {
        type: 'KeyError',
        message: "'name'",
        frames: [{ line: 3, name: '<script>', text: 'emit_result(r.data["name"])' }],
      },
      exitReason: 'error',
      isolation: 'docker',
      durationMs: 12,
      runtime: 'python',
    });
    expect(xml).toBe(
      [
        '<tool_execution success="false" exit_reason="error" isolation="docker" runtime="python" duration_ms="12">',
        '  <intermediates>',
        '    <item>{"a":"&lt;b&gt;"}</item>',
        '  </intermediates>',
        '  <tool_calls>',
        '    <call name="get_user" location="sandbox" ms="1.5" success="true"/>',
        '    <call name="admin" location="host" ms="0" success="false" refused="true"><error>refused</error></call>',
        '  </tool_calls>',
        '  <logs>x &lt; y</logs>',
        '  <error type="KeyError">',
        "    <message>'name'</message>",
        '    <frame line="3" name="&lt;script&gt;">emit_result(r.data["name"])</frame>',
        '  </error>',
        '</tool_execution>',
        '',
      ].join('\n'),
    );
  });
  it('cuts long results', () => {
    const xml = toAgentContext(
      {
        success: true,
        data: 'x'.repeat(100),
        intermediates: [],
        logs: [],
        toolCalls: [],
        exitReason: 'ok',
        isolation: 'docker',
        durationMs: 1,
        runtime: 'python',
      },
      { maxChars: 10 },
    );
    expect(xml).toContain('<result>"xxxxxxxxx… (92 more characters)</result>');
  });
});

describe('runtime registry', () => {
  const reg = runtimeRegistry({
    python: { enabled: true },
    node: { enabled: true },
    deno: { enabled: false },
  });
  it('answers a disabled runtime with the exact error', () => {
    expect(resolveRuntime('deno', reg)).toEqual({
      error:
        'runtime \'deno\' is not enabled; available: python, node (turn it on with "enabled = true" under [runtimes.deno] in .toolsmith/config.toml)',
    });
    expect(resolveRuntime('cobol', reg)).toEqual({
      error: "unknown runtime 'cobol'; available: python, node",
    });
  });
  it('has id, enabled, extension, preamble, command (argv, never a shell) and image for each', () => {
    for (const r of reg) {
      expect(Object.keys(r).sort()).toEqual(['command', 'enabled', 'extension', 'id', 'image', 'preamble']);
      expect(r.command.join(' ')).not.toMatch(/\bsh\b|bash|-c /);
    }
    expect(resolveRuntime('python', reg)).toMatchObject({ runtime: { id: 'python', extension: '.py' } });
  });
});
