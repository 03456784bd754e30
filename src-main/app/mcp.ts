/**
 * MCP servers as tool sources of a sandbox: the sandbox tools its selected servers contribute (from the
 * cached listings), and the host-side handlers that proxy a script's calls to the servers.
 */
import type { SandboxMcpConfig } from './config.ts';
import type { ToolsmithService } from './service.ts';
import type { SandboxTool } from '../core/tools/extract.ts';
import { mcpResultToResponse, mcpSandboxTools } from '../core/tools/mcp.ts';
import type { JsonValue, ToolResponse } from '../core/tools/model.ts';
import type { McpManager } from '../infra/mcp/manager.ts';
import type { HostToolHandler } from '../infra/sandbox/connection.ts';

/** The tools a sandbox gets from its MCP servers; a name already taken gets the server's prefix. */
export function sandboxMcpTools(
  mgr: McpManager,
  selection: Record<string, SandboxMcpConfig>,
): { tools: SandboxTool[]; problems: string[] } {
  const tools: SandboxTool[] = [];
  const problems: string[] = [];
  const taken = new Set<string>();
  for (const [server, sel] of Object.entries(selection)) {
    const listing = mgr.cachedTools(server);
    if (!listing) {
      const st = mgr.def(server) ? mgr.status(server) : undefined;
      if (st?.error) problems.push(st.error);
      continue;
    }
    const r = mcpSandboxTools(server, listing, sel);
    problems.push(...r.problems);
    for (const t of r.tools) {
      if (taken.has(t.name)) {
        const renamed = `${server.replace(/[^A-Za-z0-9_]/g, '_')}_${t.name}`;
        problems.push(`${server}: tool ${t.name} is already taken in this sandbox; it is called ${renamed}`);
        t.name = renamed;
      }
      taken.add(t.name);
      tools.push(t);
    }
  }
  return { tools, problems };
}

/** Calls one MCP tool of a sandbox (by its script-side name) and maps the result to a ToolResponse. */
export async function callMcpTool(
  svc: ToolsmithService,
  tool: SandboxTool,
  args: Record<string, JsonValue>,
  signal?: AbortSignal,
): Promise<ToolResponse> {
  if (!tool.mcp) throw new Error(`${tool.name} is not an MCP tool`);
  const r = await svc.mcp().callTool(tool.mcp.server, tool.mcp.tool, args, signal ? { signal } : {});
  return mcpResultToResponse(r);
}

/** Host-side handlers for a sandbox's MCP tools: location `mcp:<server>` in every trace. */
export function mcpHostTools(svc: ToolsmithService, sandbox: string): Record<string, HostToolHandler> {
  if (Object.keys(svc.config.sandboxes[sandbox]?.mcp ?? {}).length === 0) return {};
  const out: Record<string, HostToolHandler> = {};
  for (const tool of svc.registry(sandbox).tools) {
    if (tool.location !== 'mcp' || !tool.mcp) continue;
    const handler: HostToolHandler = (args, ctx) => callMcpTool(svc, tool, args, ctx?.signal);
    handler.location = `mcp:${tool.mcp.server}`;
    out[tool.name] = handler;
  }
  return out;
}

/** The names of a sandbox's MCP tools, for the worker's `load` (it defines a function for each). */
export function mcpHostToolNames(svc: ToolsmithService, sandbox: string): { name: string }[] {
  if (Object.keys(svc.config.sandboxes[sandbox]?.mcp ?? {}).length === 0) return [];
  return svc
    .registry(sandbox)
    .tools.filter((t) => t.location === 'mcp')
    .map((t) => ({ name: t.name }));
}
