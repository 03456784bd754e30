/** MCP tool listings as sandbox tools (parameters, grades, stubs, aliases) and call results as ToolResponses. */
import { describe, expect, it } from 'vitest';
import {
  gradeFromAnnotations,
  mcpResultToResponse,
  mcpSandboxTools,
  parametersFromSchema,
  pythonStub,
  scriptName,
  tsStub,
} from '../../../src-main/core/tools/mcp.ts';
import type { McpToolListing } from '../../../src-main/core/tools/mcp.ts';
import { openAiFunctionSchema } from '../../../src-main/core/tools/schema.ts';
import { toolsPrompt } from '../../../src-main/core/tools/prompt.ts';

const search: McpToolListing = {
  name: 'search-issues',
  description: 'Search issues.\nMore text.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Words to find' },
      state: { type: 'string', enum: ['open', 'closed'], default: 'open' },
      limit: { type: 'integer', default: 10 },
      labels: { type: 'array', items: { type: 'string' } },
      since: { type: ['string', 'null'] },
      filter: { $ref: '#/$defs/Filter' },
    },
    required: ['query'],
    $defs: {
      Filter: {
        type: 'object',
        properties: { author: { type: 'string' }, 'min-votes': { type: 'number' } },
        required: ['author'],
      },
    },
  },
  outputSchema: {
    type: 'object',
    properties: {
      items: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } } } },
    },
  },
  annotations: { readOnlyHint: true, openWorldHint: true },
};

describe('MCP tools as sandbox tools', () => {
  it('parameters from the JSON Schema: types, required, enums, defaults, descriptions, $refs', () => {
    const ps = parametersFromSchema(search.inputSchema);
    expect(ps.map((p) => [p.name, p.type, p.required])).toEqual([
      ['query', 'str', true],
      ['state', 'str', false],
      ['limit', 'int', false],
      ['labels', 'list', false],
      ['since', 'str', false],
      ['filter', 'dict', false],
    ]);
    expect(ps[0]!.description).toBe('Words to find');
    expect(ps[1]).toMatchObject({ options: ['open', 'closed'], default: 'open' });
    expect(ps[2]!.default).toBe(10);
  });

  it('grades from annotations (MCP defaults when absent: destructive, open world)', () => {
    expect(gradeFromAnnotations(undefined)).toEqual({ w: 2, d: 2 });
    expect(gradeFromAnnotations({ readOnlyHint: true, openWorldHint: false })).toEqual({ w: 1, d: 0 });
    expect(gradeFromAnnotations({ destructiveHint: false })).toEqual({ w: 2, d: 1 });
    expect(
      gradeFromAnnotations({ readOnlyHint: false, destructiveHint: true, openWorldHint: false }),
    ).toEqual({
      w: 1,
      d: 2,
    });
  });

  it('typed stubs: Python keyword-only signature with TypedDicts (functional form for odd keys), TS declaration', () => {
    const py = pythonStub('search_issues', search.inputSchema, 'Search issues.', search.outputSchema);
    expect(py).toContain(
      'SearchIssuesFilter = TypedDict("SearchIssuesFilter", {"author": str, "min-votes": NotRequired[float]})',
    );
    expect(py).toContain(
      'def search_issues(*, query: str, state: Literal["open", "closed"] = "open", limit: int = 10, labels: list[str] | None = None, since: str | None = None, filter: SearchIssuesFilter | None = None) -> ToolResponse:  # data: SearchIssuesResult',
    );
    expect(tsStub('search_issues', search.inputSchema, search.outputSchema)).toBe(
      'declare function search_issues(args: { query: string; state?: "open" | "closed"; limit?: number; labels?: string[]; since?: string | null; filter?: { author: string; "min-votes"?: number } }): Promise<ToolResponse<{ items?: Array<{ id?: number }> }>>;',
    );
  });

  it('selection: script names, aliases, a subset, grade overrides, and problems for missing tools', () => {
    const other: McpToolListing = { name: 'delete', inputSchema: { type: 'object' } };
    expect(scriptName('search-issues')).toBe('search_issues');
    expect(scriptName('2fa.check')).toBe('_2fa_check');
    // Keywords of either script language get a `_`: `delete` cannot be called in JS, `from` in Python.
    expect(['class', 'from', 'delete', 'lambda', 'match'].map(scriptName)).toEqual([
      'class_',
      'from_',
      'delete_',
      'lambda_',
      'match',
    ]);
    // Names scripts already have (helpers of either language, builtins, modules, Object.prototype's own
    // names) are renamed the same way: a tool named emit_result would replace the helper.
    expect(
      [
        'emit_result',
        'search_tools',
        'describe_tool',
        'emitResult',
        'credential',
        'ToolResponse',
        'len',
        'json',
        'print',
        'constructor',
        'toString',
        'hasOwnProperty',
        '__proto__',
        '__defineGetter__',
        'Object',
        'console',
      ].map(scriptName),
    ).toEqual([
      'emit_result_',
      'search_tools_',
      'describe_tool_',
      'emitResult_',
      'credential_',
      'ToolResponse_',
      'len_',
      'json_',
      'print_',
      'constructor_',
      'toString_',
      'hasOwnProperty_',
      'proto_',
      'defineGetter_',
      'Object_',
      'console_',
    ]);
    const helper: McpToolListing = {
      name: 'emit_result',
      description: 'Sends.',
      inputSchema: { type: 'object' },
    };
    const renamed = mcpSandboxTools('up', [helper]).tools[0];
    expect(renamed?.name).toBe('emit_result_');
    expect(renamed?.description).toBe(
      "Sends. (the server's tool `emit_result`; `emit_result` is already a name in scripts)",
    );
    const all = mcpSandboxTools('gh', [search, other]);
    expect(all.tools.map((t) => [t.name, t.grade])).toEqual([
      ['search_issues', { w: 2, d: 0 }],
      ['delete_', { w: 2, d: 2 }],
    ]);
    expect(all.tools[0]).toMatchObject({ location: 'mcp', mcp: { server: 'gh', tool: 'search-issues' } });
    expect(all.tools[0]!.returns).toBe('data: { items?: Array<{ id?: number }> }');
    const sel = mcpSandboxTools('gh', [search, other], {
      tools: ['delete', 'nope'],
      aliases: { find: 'search-issues', gone: 'missing' },
      grades: { delete: { w: 1, d: 1 } },
    });
    expect(sel.tools.map((t) => [t.name, t.grade])).toEqual([
      ['find', { w: 2, d: 0 }],
      ['delete_', { w: 1, d: 1 }],
    ]);
    expect(sel.problems).toEqual([
      'alias gone: server gh has no tool missing',
      'server gh has no tool nope; it has: search-issues, delete',
    ]);
  });

  it('the manual and the OpenAI shape come from the server schema', () => {
    const [t] = mcpSandboxTools('gh', [search]).tools;
    const xml = toolsPrompt([t!]);
    expect(xml).toContain('<tool name="search_issues" location="mcp">');
    expect(xml).toContain('<python_stub>');
    expect(xml).toContain('<ts_stub>declare function search_issues');
    const fn = openAiFunctionSchema(t!);
    expect(fn.parameters.required).toEqual(['query']);
    expect(fn.parameters.properties?.['state']).toEqual({
      type: 'string',
      enum: ['open', 'closed'],
      default: 'open',
    });
  });
});

describe('MCP results as ToolResponses', () => {
  it('structuredContent wins; else one text item (parsed when JSON) or a list; isError is a failure with the text', () => {
    expect(
      mcpResultToResponse({ content: [{ type: 'text', text: 'x' }], structuredContent: { a: 1 } }),
    ).toEqual({
      success: true,
      data: { a: 1 },
    });
    expect(mcpResultToResponse({ content: [{ type: 'text', text: '{"n": 2}' }] })).toEqual({
      success: true,
      data: { n: 2 },
    });
    expect(mcpResultToResponse({ content: [{ type: 'text', text: 'plain' }] })).toEqual({
      success: true,
      data: 'plain',
    });
    expect(
      mcpResultToResponse({
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        ],
      }),
    ).toEqual({ success: true, data: ['a', { type: 'image', data: 'AAAA', mimeType: 'image/png' }] });
    expect(mcpResultToResponse({ content: [] })).toEqual({ success: true });
    expect(
      mcpResultToResponse({ isError: true, content: [{ type: 'text', text: 'ENOENT: missing.txt' }] }),
    ).toEqual({
      success: false,
      message: 'ENOENT: missing.txt',
    });
    expect(mcpResultToResponse({ isError: true, content: [] })).toEqual({
      success: false,
      message: 'the MCP tool reported an error',
    });
  });
});
