/**
 * `npm run bench:mcp-manual`: prints JSON. The size of the tools part of the MCP `code` manual for 10,
 * 100 and 1,000 MCP tools (realistic listings: a description of two sentences, three parameters, an
 * output schema; rendered with their typed stubs as the manual shows them), full manual against the
 * index that progressive disclosure shows above the limit (`$TOOLSMITH_MCP_FULL_MANUAL_MAX`, default 30).
 * Tokens are estimated as characters / 4 (no tokenizer is installed); bytes are UTF-8.
 */
import { estimateTokens, FULL_MANUAL_MAX_TOOLS, toolsIndex } from '../src-main/core/tools/disclosure.ts';
import { mcpSandboxTools } from '../src-main/core/tools/mcp.ts';
import type { McpToolListing } from '../src-main/core/tools/mcp.ts';
import { toolsPrompt } from '../src-main/core/tools/prompt.ts';

const listing = (n: number): McpToolListing[] =>
  Array.from({ length: n }, (_, i) => ({
    name: `crm_record_${i}`,
    description: `Fetch CRM record ${i} with its owner and history. Returns at most \`limit\` history entries, newest first.`,
    inputSchema: {
      type: 'object',
      properties: {
        record_id: { type: 'string', description: 'the record id, e.g. "r-123"' },
        limit: { type: 'integer', description: 'history entries to return', default: 20 },
        include_archived: { type: 'boolean', description: 'also archived entries', default: false },
      },
      required: ['record_id'],
    },
    outputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        owner: { type: 'string' },
        history: { type: 'array', items: { type: 'string' } },
      },
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  }));

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const results = [10, 100, 1000].map((n) => {
  const { tools } = mcpSandboxTools('crm', listing(n));
  const full = toolsPrompt(tools);
  const index = toolsIndex(tools);
  return {
    tools: n,
    full: { bytes: bytes(full), tokens: estimateTokens(full) },
    index: { bytes: bytes(index), tokens: estimateTokens(index) },
    ratio: Number((bytes(full) / bytes(index)).toFixed(1)),
    shown: n > FULL_MANUAL_MAX_TOOLS ? 'index' : 'full',
  };
});
process.stdout.write(
  JSON.stringify(
    {
      bench: 'mcp-manual',
      tokenEstimate: 'characters / 4',
      fullManualMaxTools: FULL_MANUAL_MAX_TOOLS,
      results,
    },
    null,
    2,
  ) + '\n',
);
