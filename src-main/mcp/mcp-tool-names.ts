/**
 * The names of the MCP server's own tools, without loading the server (the top-level help and
 * `mcp --help` print them). A test checks that the server registers exactly these.
 */
export const MCP_TOOL_NAMES = [
  'code',
  'delegate',
  'execute_code',
  'validate',
  'list_tools',
  'kit_info',
  'list_templates',
  'run_suite',
  'save_skill',
  'search_tools',
  'describe_tool',
] as const;

export const MCP_DESCRIPTION = `serve Toolsmith as an MCP server on stdio, or over Streamable HTTP with --http (tools: ${MCP_TOOL_NAMES.join(', ')})`;
