/**
 * MCP servers as tool sources of a sandbox: the sandbox tools its selected servers contribute (from the
 * cached listings), and the host-side handlers that proxy a script's calls to the servers.
 */
import { endpointOf } from './providers.ts';
import { mcpServerSchema, parseConfig } from './config.ts';
import type { SandboxMcpConfig } from './config.ts';
import { ToolsmithError } from './errors.ts';
import type { ConfigDeps, McpDeps, RegistryDeps, WorkspaceDeps } from './deps.ts';
import type { SandboxTool } from '../core/tools/extract.ts';
import { searchTools } from '../core/tools/disclosure.ts';
import { toolsPrompt } from '../core/tools/prompt.ts';
import { mcpResultToResponse, mcpSandboxTools, serverArgs } from '../core/tools/mcp.ts';
import type { JsonValue, Tool, ToolResponse } from '../core/tools/model.ts';
import type { ScriptLanguage } from '../core/lang/violation.ts';
import type { McpManager } from '../infra/mcp/manager.ts';
import type { McpServerView } from '../contract/api.ts';
import { parseTomlFile } from '../infra/workspace/files.ts';
import type { HostToolHandler } from '../infra/sandbox/connection.ts';
import type { ToolProgress } from '../core/ports/executor.ts';
import { errorMessage } from '../core/errors.ts';

/** What MCP tool sources need: the connections, the running config and the sandboxes' registries. */
export type McpToolDeps = McpDeps & ConfigDeps & RegistryDeps;

/**
 * The tools a sandbox gets from its MCP servers; a name already taken gets the server's prefix.
 * `problems` are the selection's (a tool or alias the server lacks, an alias refused as a script's own
 * name, a name taken): counted as the sandbox's problems. `unreachable`: why a server has no listing.
 */
export function sandboxMcpTools(
  mgr: McpManager,
  selection: Record<string, SandboxMcpConfig>,
): { tools: SandboxTool[]; problems: string[]; unreachable: string[] } {
  const tools: SandboxTool[] = [];
  const problems: string[] = [];
  const unreachable: string[] = [];
  const taken = new Set<string>();
  for (const [server, sel] of Object.entries(selection)) {
    const listing = mgr.cachedTools(server);
    if (!listing) {
      const st = mgr.def(server) ? mgr.status(server) : undefined;
      if (st?.error) unreachable.push(st.error);
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
  return { tools, problems, unreachable };
}

/** Calls one MCP tool of a sandbox (by its script-side name) and maps the result to a ToolResponse. */
export async function callMcpTool(
  svc: McpDeps,
  tool: SandboxTool,
  args: Record<string, JsonValue>,
  signal?: AbortSignal,
  onProgress?: (p: ToolProgress) => void,
): Promise<ToolResponse> {
  if (!tool.mcp) throw new Error(`${tool.name} is not an MCP tool`);
  // Python passes a keyword-named parameter under its stub's name (`from_`): the server's name goes out.
  const sent = tool.inputSchema ? serverArgs(tool.inputSchema, args) : args;
  const r = await svc.mcp().callTool(tool.mcp.server, tool.mcp.tool, sent, {
    ...(signal ? { signal } : {}),
    ...(onProgress ? { onProgress } : {}),
  });
  return mcpResultToResponse(r);
}

/** Host-side handlers for a sandbox's MCP tools: location `mcp:<server>` in every trace. */
export function mcpHostTools(svc: McpToolDeps, sandbox: string): Record<string, HostToolHandler> {
  if (Object.keys(svc.config.sandboxes[sandbox]?.mcp ?? {}).length === 0) return {};
  const out: Record<string, HostToolHandler> = {};
  for (const tool of svc.registry(sandbox).tools) {
    if (tool.location !== 'mcp' || !tool.mcp) continue;
    const handler: HostToolHandler = (args, _report, ctx) =>
      callMcpTool(svc, tool, args, ctx?.signal, ctx?.onProgress);
    handler.location = `mcp:${tool.mcp.server}`;
    out[tool.name] = handler;
  }
  return out;
}

/**
 * A script's run-time tool lookups (core/tools/disclosure.ts DISCOVERY_CALLS), over the tools the job
 * may call (`tools`: script-visible name -> tool name, so a kit's tools are found and described under
 * the aliases the script calls): `search_tools {query, limit?}` answers a list of {name, summary};
 * `describe_tool {name}` the tool's full manual entry, as the `code` manual shows it. A tool the job
 * cannot call is neither found nor described.
 */
export function discoveryHostTools(
  svc: RegistryDeps,
  sandbox: string,
  jobTools: Readonly<Record<string, string>>,
  /** The job's skills, found and described beside its tools. */
  skills?: readonly Tool[],
  /** The job's script language: lines and entries are written as its scripts call the tools. */
  language: ScriptLanguage = 'python',
): Record<string, HostToolHandler> {
  let cached: Tool[] | undefined;
  const tools = () => {
    if (!cached) {
      const byName = new Map(svc.registry(sandbox).tools.map((t) => [t.name, t]));
      cached = Object.entries(jobTools).flatMap(([alias, name]): Tool[] => {
        const t = byName.get(name);
        return t ? [{ ...t, name: alias }] : [];
      });
      cached.push(...(skills ?? []));
    }
    return cached;
  };
  const search: HostToolHandler = (args) => {
    const { query, limit } = args;
    if (typeof query !== 'string' || !query.trim())
      return {
        success: false,
        message: 'search_tools takes a query: words a tool name or description holds',
      };
    const n = typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 ? Math.min(limit, 100) : 20;
    return {
      success: true,
      data: searchTools(tools(), query, n, language).map((t) => ({ name: t.name, summary: t.line })),
    };
  };
  const describe: HostToolHandler = (args) => {
    const { name } = args;
    const tool = typeof name === 'string' ? tools().find((t) => t.name === name) : undefined;
    if (!tool)
      return {
        success: false,
        message: `no tool ${JSON.stringify(name)} in sandbox ${sandbox}; search_tools finds tools by words`,
      };
    // Rendered for this tool as the script sees it (a kit's alias is not a key of the registry's cache).
    return { success: true, data: toolsPrompt([tool], language) };
  };
  return { search_tools: search, describe_tool: describe };
}

/** The names of a sandbox's MCP tools, for the worker's `load` (it defines a function for each). */
export function mcpHostToolNames(svc: ConfigDeps & RegistryDeps, sandbox: string): { name: string }[] {
  if (Object.keys(svc.config.sandboxes[sandbox]?.mcp ?? {}).length === 0) return [];
  return svc
    .registry(sandbox)
    .tools.filter((t) => t.location === 'mcp')
    .map((t) => ({ name: t.name }));
}

export function mcpServersView(svc: McpDeps & ConfigDeps): McpServerView[] {
  return svc
    .mcp()
    .names()
    .map((name) => {
      const d = svc.config.mcp_servers[name]!;
      return {
        ...svc.mcp().status(name),
        description: d.description,
        def: {
          ...(d.command !== undefined ? { command: d.command } : {}),
          args: d.args,
          env: d.env,
          ...(d.url !== undefined ? { url: d.url } : {}),
          headers: d.headers,
          timeout_ms: d.timeout_ms,
          ...(d.startup_timeout_ms !== undefined ? { startup_timeout_ms: d.startup_timeout_ms } : {}),
        },
        sandboxes: Object.entries(svc.config.sandboxes)
          .filter(([, s]) => name in s.mcp)
          .map(([n]) => n),
      };
    });
}

/** Connects (or reconnects) a server and returns its tools as a sandbox would see them (all, default names). */
export async function testMcpServer(
  svc: McpDeps & ConfigDeps,
  name: string,
): Promise<{ server: McpServerView; tools: SandboxTool[]; ms: number }> {
  if (!svc.config.mcp_servers[name])
    throw new ToolsmithError(
      'not_found',
      `no MCP server ${name}; declared: ${svc.mcp().names().join(', ') || 'none'}`,
    );
  const started = performance.now();
  let listing;
  try {
    // A person's test tries the server now, even while it is remembered as down (a backoff).
    listing = await svc.mcp().listTools(name, { force: true });
  } catch (e) {
    throw new ToolsmithError('infra', errorMessage(e));
  }
  const ms = Math.round(performance.now() - started);
  return {
    server: mcpServersView(svc).find((s) => s.name === name)!,
    tools: mcpSandboxTools(name, listing).tools,
    ms,
  };
}

const tomlKey = (k: string) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k));

/** A string, number, string list or string table as an inline TOML value (JSON strings are TOML strings). */
function tomlValue(v: unknown): string {
  if (typeof v === 'string' || typeof v === 'number') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(tomlValue).join(', ')}]`;
  return `{ ${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${tomlKey(k)} = ${tomlValue(x)}`)
    .join(', ')} }`;
}

/**
 * Removes the tables (each up to the next table header) whose `[header]` line `drop` picks from TOML
 * text. Comments and blank lines at the end of a dropped table stay when a kept table follows: they
 * are that table's.
 */
function dropTables(text: string, drop: (header: string) => boolean): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let skipping = false;
  let held: string[] = []; // (comments and blank lines met while skipping)
  for (const line of lines) {
    const t = line.trim();
    if (t.startsWith('[')) {
      skipping = drop(t);
      if (!skipping) out.push(...held);
      held = [];
    } else if (skipping && (t === '' || t.startsWith('#'))) {
      held.push(line);
      continue;
    } else if (skipping) held = [];
    if (!skipping) out.push(line);
  }
  return out.join('\n');
}

const dropTable = (text: string, header: string) => dropTables(text, (h) => h === header);

/**
 * Adds or replaces `[mcp_servers.NAME]` in `.toolsmith/config.toml` (other text and comments stay) and,
 * when `sandbox` is given, makes that sandbox use the server (declaring the sandbox when it is new). The
 * running service picks the change up at once: no restart.
 */
export async function saveMcpServer(
  svc: McpDeps & ConfigDeps & WorkspaceDeps,
  name: string,
  raw: Record<string, unknown>,
  sandbox?: string,
): Promise<McpServerView> {
  const parsed = mcpServerSchema.safeParse(raw);
  if (!parsed.success)
    throw new ToolsmithError(
      'invalid_argument',
      parsed.error.issues.map((i) => `${i.path.join('.') || 'server'}: ${i.message}`).join('; '),
    );
  const def = parsed.data;
  // A header read from a set environment variable goes only to the URL the config file already sends it
  // to: the workbench (a renderer, a browser page) cannot point a host secret at a new URL.
  if (def.url !== undefined) {
    const target = endpointOf(def.url);
    for (const [h, ref] of Object.entries(def.headers)) {
      const v = ref.slice('env:'.length);
      if (!process.env[v]) continue;
      const configured = Object.values(svc.config.mcp_servers).some(
        (m) => m.url !== undefined && endpointOf(m.url) === target && m.headers[h] === ref,
      );
      if (!configured)
        throw new ToolsmithError(
          'refused',
          `header ${h} would send $${v} (set in this process) to ${target}, which the config does not send it to: write this server into .toolsmith/config.toml yourself`,
        );
    }
  }
  const header = `[mcp_servers.${tomlKey(name)}]`;
  const file = svc.files.configFile;
  let text = svc.files.editableConfigText();
  text = dropTable(text, header).replace(/\n+$/, '\n');
  const table: Record<string, unknown> = {};
  if (def.command !== undefined) table['command'] = def.command;
  if (def.args.length) table['args'] = def.args;
  if (Object.keys(def.env).length) table['env'] = def.env;
  if (def.cwd !== undefined) table['cwd'] = def.cwd;
  if (def.url !== undefined) table['url'] = def.url;
  if (Object.keys(def.headers).length) table['headers'] = def.headers;
  table['timeout_ms'] = def.timeout_ms;
  if (def.startup_timeout_ms !== undefined) table['startup_timeout_ms'] = def.startup_timeout_ms;
  if (def.description) table['description'] = def.description;
  text += `\n${header}\n${Object.entries(table)
    .map(([k, v]) => `${k} = ${tomlValue(v)}`)
    .join('\n')}\n`;
  const usesAlready = sandbox !== undefined && svc.config.sandboxes[sandbox]?.mcp[name] !== undefined;
  if (sandbox !== undefined && !usesAlready) {
    if (!svc.config.sandboxes[sandbox]) text += `\n[sandboxes.${tomlKey(sandbox)}]\ndescription = ""\n`;
    text += `\n[sandboxes.${tomlKey(sandbox)}.mcp.${tomlKey(name)}]\n`;
  }
  // The whole file must still parse and validate before it is written.
  const config = parseConfig(parseTomlFile(file, text), file);
  svc.files.writeConfig(text);
  svc.config.mcp_servers[name] = config.mcp_servers[name]!;
  if (sandbox !== undefined) {
    svc.config.sandboxes[sandbox] = config.sandboxes[sandbox]!;
    svc.files.declaredSandboxes = new Set([...svc.files.declaredSandboxes, sandbox]);
  }
  await svc.mcp().setServer(name, config.mcp_servers[name]!);
  return mcpServersView(svc).find((s) => s.name === name)!;
}

/**
 * Removes `[mcp_servers.NAME]` from `.toolsmith/config.toml`, with every sandbox's use of it
 * (`[sandboxes.S.mcp.NAME]` and its subtables); other text and comments stay. The running service drops
 * the server at once (its connection closed): no restart. Refused, with the file unchanged, where the
 * file names the server in a way these tables do not cover (an inline table): then the file is to be
 * edited by hand, and the message says where.
 */
export async function removeMcpServer(
  svc: McpDeps & ConfigDeps & WorkspaceDeps,
  name: string,
): Promise<{ name: string; sandboxes: string[] }> {
  if (!svc.config.mcp_servers[name]) {
    const names = Object.keys(svc.config.mcp_servers).sort();
    throw new ToolsmithError(
      'not_found',
      `no MCP server ${name} in this workspace; its servers: ${names.join(', ') || 'none'}`,
    );
  }
  const users = Object.entries(svc.config.sandboxes)
    .filter(([, sb]) => sb.mcp[name] !== undefined)
    .map(([sb]) => sb)
    .sort();
  const server = `[mcp_servers.${tomlKey(name)}`;
  const uses = users.map((sb) => `[sandboxes.${tomlKey(sb)}.mcp.${tomlKey(name)}`);
  const file = svc.files.configFile;
  const text = dropTables(svc.files.editableConfigText(), (h) =>
    [server, ...uses].some((t) => h === `${t}]` || h.startsWith(`${t}.`)),
  ).replace(/\n{3,}/g, '\n\n');
  let config: ReturnType<typeof parseConfig>;
  try {
    config = parseConfig(parseTomlFile(file, text), file);
  } catch (e) {
    throw new ToolsmithError(
      'refused',
      `${file} would not be valid without the tables of MCP server ${name} (${errorMessage(e)}); nothing was changed: edit the file by hand`,
    );
  }
  const left = users.filter((sb) => config.sandboxes[sb]?.mcp[name] !== undefined);
  if (config.mcp_servers[name] || left.length)
    throw new ToolsmithError(
      'refused',
      `${file} names MCP server ${name} outside its own tables (an inline table${left.length ? ` in sandbox ${left.join(', ')}` : ''}); nothing was changed: remove it there by hand`,
    );
  svc.files.writeConfig(text);
  delete svc.config.mcp_servers[name];
  for (const sb of users) svc.config.sandboxes[sb] = config.sandboxes[sb]!;
  await svc.mcp().removeServer(name);
  return { name, sandboxes: users };
}

/** The workspace's MCP servers as the workbench manages them, built once by the composition root. */
export function mcpServersFeature(deps: McpDeps & ConfigDeps & WorkspaceDeps) {
  return {
    view: () => mcpServersView(deps),
    test: (name: string) => testMcpServer(deps, name),
    save: (name: string, raw: Record<string, unknown>, sandbox?: string) =>
      saveMcpServer(deps, name, raw, sandbox),
    remove: (name: string) => removeMcpServer(deps, name),
  };
}
export type McpServersFeature = ReturnType<typeof mcpServersFeature>;
