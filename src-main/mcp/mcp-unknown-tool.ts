/**
 * A `tools/call` of a tool this server does not have. The SDK (1.32) answers it as a tool result whose
 * text is only "MCP error -32602: Tool NAME not found", so the client's model learns nothing it can act
 * on. It is answered here in the same shape (a tool result with `isError`, which clients hand to the
 * model, as MCP's tool execution errors are meant for self-correction, and which MCP's conformance
 * scenarios expect of a call: a protocol error failed `tools-call-simple-text` and `tools-call-error`),
 * with the tools this server has and the nearest name when one is close.
 */
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
 * The answer to an unknown tool's call (a tool result with `isError`), or undefined when the request
 * names a tool the server has (or names none: invalid params, answered elsewhere).
 */
export function unknownToolAnswer(
  server: McpServer,
  params: unknown,
): { content: { type: 'text'; text: string }[]; isError: true } | undefined {
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
  return { content: [{ type: 'text', text: unknownToolMessage(name, names) }], isError: true };
}
