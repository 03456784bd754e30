/**
 * A `tools/call` of a tool this server does not have. The SDK (1.32) answers it as a tool result whose
 * text is only "MCP error -32602: Tool NAME not found", so the client's model learns nothing it can act
 * on. MCP (2025-06-18, "Error Handling") makes an unknown tool a protocol error: -32602 (Invalid
 * params), answered here with the tools this server has and the nearest name when one is close.
 */
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { closest } from '../core/script/hints.ts';

/** The answer's message: the name asked for, a near name if one is close, and every tool there is. */
export function unknownToolMessage(name: string, tools: readonly string[]): string {
  const near = closest(name, tools);
  const shown = JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
  return (
    `Unknown tool: ${shown}${near ? `; did you mean ${near}?` : ''}` +
    ` This server's tools: ${tools.join(', ') || 'none'} (tools/list describes them)`
  );
}

/** `; did you mean NAME?` when one of `tools` is close to `name` (a sandbox's tool), else `;`. */
export function nearTool(name: string, tools: readonly { name: string }[]): string {
  const near = closest(
    name,
    tools.map((t) => t.name),
  );
  return near ? `; did you mean ${near}?` : ';';
}

/**
 * The error thrown for an unknown tool's call, or undefined when the request names a tool the server
 * has (or names none: invalid params, answered elsewhere). Not an McpError: it would prefix "MCP error
 * -32602: " to the message.
 */
export function unknownToolError(server: McpServer, params: unknown): Error | undefined {
  const name = (params as { name?: unknown } | undefined)?.name;
  if (typeof name !== 'string') return undefined;
  // The SDK keeps its tools in a private record: an SDK that moved it keeps its own answer.
  const registered = (server as unknown as { _registeredTools?: unknown })._registeredTools;
  if (registered === null || typeof registered !== 'object') return undefined;
  const tools = registered as Record<string, { enabled?: boolean }>;
  if (Object.hasOwn(tools, name)) return undefined;
  const names = Object.entries(tools)
    .filter(([, t]) => t.enabled !== false)
    .map(([n]) => n);
  return Object.assign(new Error(unknownToolMessage(name, names)), { code: ErrorCode.InvalidParams });
}
