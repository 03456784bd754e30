/**
 * The tool catalog of a workspace: each sandbox's registry (tools.py, re-extracted when it changed on
 * disk, plus the tools of its MCP servers), the kits, and the tools a script or a person may call (the
 * script context of a sandbox, kit and language; the tools outside it, each with why). Runs, templates,
 * suites, `exec`, prompts and validation all see tools through here.
 */
import { statSync } from 'node:fs';
import { defaultKit, gradeRefusal, KitError, kitToolView, resolveKit } from '../core/kits/kit.ts';
import type { KitDefinition, KitToolsSpec, ResolvedKit } from '../core/kits/kit.ts';
import type { ScriptLanguage } from '../core/lang/violation.ts';
import { scriptContext } from '../core/script/context.ts';
import type { ScriptContext } from '../core/script/context.ts';
import type { SandboxTool } from '../core/tools/extract.ts';
import { ToolRegistry } from '../core/tools/registry.ts';
import type { Response } from '../contract/api.ts';
import { errorMessage } from '../core/errors.ts';
import type { ConfigDeps, McpDeps, WorkspaceDeps } from './deps.ts';
import { WorkspaceError } from '../infra/workspace/files.ts';
import { workspaceGone } from '../infra/workspace/atomic.ts';
import { ToolsmithError } from './errors.ts';
import { sandboxMcpTools } from './mcp.ts';
import { didYouMean } from '../core/text/near-names.ts';

export type CatalogDeps = WorkspaceDeps & ConfigDeps & McpDeps;

export interface KitEntry {
  name: string;
  sandbox: string;
  file: string;
  kit?: ResolvedKit;
  /** Why the kit cannot be used (unknown tool, grade above the workspace maximum...). */
  error?: string;
}

export class ToolCatalog {
  private readonly registries = new Map<
    string,
    { registry: ToolRegistry; mtimeMs: number; size: number; mcpVersion?: number }
  >();

  private readonly deps: CatalogDeps;

  constructor(deps: CatalogDeps) {
    this.deps = deps;
  }

  /** Forgets a sandbox that is gone. */
  forget(sandbox: string): void {
    this.registries.delete(sandbox);
  }

  /** Every sandbox's tools are re-extracted and its MCP tools re-listed on next use (the config changed). */
  invalidateAll(): void {
    for (const entry of this.registries.values()) {
      entry.mtimeMs = -1;
      delete entry.mcpVersion;
    }
  }

  /** Every sandbox with its tool count from every source (tools.py and connected MCP servers). */
  sandboxes(): Response<'sandboxes.list'> {
    return this.deps.files.sandboxNames().map((name) => {
      const r = this.registry(name);
      const servers = Object.keys(this.deps.config.sandboxes[name]?.mcp ?? {});
      return {
        name,
        description: this.deps.config.sandboxes[name]?.description ?? '',
        tools: r.tools.length,
        // tools.py's problems and those of its MCP selection (an alias refused, a tool a server lacks)
        problems: r.problems.length + r.mcpProblems.length,
        ...(servers.length ? { fromMcp: r.tools.filter((t) => t.mcp).length, mcpServers: servers } : {}),
      };
    });
  }

  /**
   * Forgets the cached tools of a sandbox (after writing its tools.py: mtime and size alone can miss a
   * same-size rewrite within the file system's timestamp resolution).
   */
  invalidateRegistry(sandbox: string): void {
    const entry = this.registries.get(sandbox);
    if (entry) entry.mtimeMs = -1;
  }

  /** The sandbox's registry, re-extracted when tools.py changed on disk since the last call. */
  registry(sandbox: string): ToolRegistry {
    let file: string;
    try {
      file = this.deps.files.toolsFile(sandbox);
    } catch (e) {
      throw new ToolsmithError('invalid_argument', errorMessage(e));
    }
    let st;
    try {
      st = this.deps.files.declaredSandboxes.has(sandbox) ? statOrEmpty(file) : statSync(file);
    } catch {
      // The workspace folder moved or deleted under this process (a run in flight, its retries): named
      // as such, with where it went, not as a sandbox that does not exist.
      const gone = workspaceGone(this.deps.files.root, `sandbox ${sandbox}'s tools`, 'read');
      if (gone) throw new ToolsmithError('infra', gone.message);
      // Declared in config.toml but its tools.py is gone (moved or deleted): say that, not that no such
      // sandbox exists (the config, default_sandbox included, still names it).
      if (this.deps.config.sandboxes[sandbox])
        throw new ToolsmithError(
          'not_found',
          `sandbox ${sandbox} is declared in ${this.deps.files.configFile} but has no tools: ${file} does not exist (moved or deleted?); put it back, or remove [sandboxes.${sandbox}] from the config`,
        );
      throw new ToolsmithError(
        'not_found',
        `no sandbox ${sandbox} in ${this.deps.files.root}; ${didYouMean(sandbox, this.deps.files.sandboxNames())}available: ${this.deps.files.sandboxNames().join(', ') || 'none'}`,
      );
    }
    let entry = this.registries.get(sandbox);
    if (!entry || entry.mtimeMs !== st.mtimeMs || entry.size !== st.size) {
      const registry = entry?.registry ?? new ToolRegistry(sandbox);
      let source: string;
      try {
        source = this.deps.files.readTools(sandbox);
      } catch (e) {
        // A tools.py refused as it is read (too large): its message names the file, for every front end.
        if (e instanceof WorkspaceError) throw new ToolsmithError('invalid_config', e.message);
        throw e;
      }
      registry.update(source);
      entry = { registry, mtimeMs: st.mtimeMs, size: st.size };
      this.registries.set(sandbox, entry);
    }
    const mcpConfig = this.deps.config.sandboxes[sandbox]?.mcp ?? {};
    if (Object.keys(mcpConfig).length > 0 && entry.mcpVersion !== this.deps.mcp().version) {
      entry.mcpVersion = this.deps.mcp().version;
      const r = sandboxMcpTools(this.deps.mcp(), mcpConfig);
      entry.registry.setHostTools(r.tools, r.problems);
    }
    return entry.registry;
  }

  kits(): KitEntry[] {
    const out: KitEntry[] = [];
    for (const { file, data, error } of this.deps.files.kitFiles()) {
      const name = typeof data['name'] === 'string' ? data['name'] : file.replace(/^.*\/|\.kit$/g, '');
      const sandbox = typeof data['sandbox'] === 'string' ? data['sandbox'] : '';
      const entry: KitEntry = { name, sandbox, file };
      // A kit file that does not parse is listed with its error; the other kits stay usable.
      if (error !== undefined) {
        out.push({ ...entry, error });
        continue;
      }
      try {
        entry.kit = this.resolveKitDefinition(kitDefinition(name, sandbox, data, file));
      } catch (e) {
        entry.error = e instanceof ToolsmithError || e instanceof KitError ? e.message : String(e);
      }
      out.push(entry);
    }
    return out;
  }

  resolveKitDefinition(def: KitDefinition): ResolvedKit {
    const tools = this.registry(def.sandbox).tools;
    // A definition that does not resolve (an unknown tool, a bad or repeated alias, no tools) is the
    // caller's input to fix (a usage error of `kit create`); one that resolves to a grade over the
    // workspace's maximum is refused by the workspace's rule, as a tool call over it is.
    try {
      resolveKit(def, tools);
    } catch (e) {
      if (e instanceof KitError) throw new ToolsmithError('invalid_argument', e.message);
      throw e;
    }
    try {
      return resolveKit(def, tools, this.deps.config.workspace.max_grade);
    } catch (e) {
      if (e instanceof KitError) throw new ToolsmithError('refused', e.message);
      throw e;
    }
  }

  /** A kit by name, resolved and checked against the workspace's maximum grade. */
  kit(name: string): ResolvedKit {
    const entry = this.kits().find((k) => k.name === name);
    if (!entry) {
      throw new ToolsmithError(
        'not_found',
        `no kit ${name}; available: ${
          this.kits()
            .map((k) => k.name)
            .join(', ') || 'none'
        }`,
      );
    }
    if (!entry.kit) throw new ToolsmithError('refused', entry.error ?? `kit ${name} cannot be used`);
    return entry.kit;
  }

  /** The tools a script sees: the kit's aliases, or every tool of the sandbox. */
  scriptTools(sandbox: string, kitName?: string): { tools: SandboxTool[]; kit: ResolvedKit } {
    const kit = kitName
      ? this.kit(kitName)
      : defaultKit(sandbox, this.registry(sandbox).tools, this.deps.config.workspace.max_grade);
    if (kit.sandbox !== sandbox)
      throw new ToolsmithError(
        'invalid_argument',
        `kit ${kit.name} belongs to sandbox ${kit.sandbox}, not ${sandbox}`,
      );
    return { tools: kitToolView(kit), kit };
  }

  /**
   * The one script context of a sandbox, kit and language: the tools under their aliases, the alias ->
   * tool map, the helpers and the tools manual (core/script/context.ts). Used by runs, edited scripts,
   * `exec`, prompts and templates.
   */
  scriptContext(sandbox: string, kitName: string | undefined, language: ScriptLanguage): ScriptContext {
    const { kit } = this.scriptTools(sandbox, kitName);
    return scriptContext({
      sandbox,
      kit,
      kitName,
      language,
      manual: (tools) => this.registry(sandbox).prompt(tools),
    });
  }

  /**
   * The sandbox's tools a script with `allowed` tools may not call, each with why: above the workspace's
   * maximum grade, or outside the kit. The same words as `tool call` uses.
   */
  excludedTools(sandbox: string, allowed: readonly string[]): Record<string, string> {
    const ok = new Set(allowed);
    const out: Record<string, string> = {};
    for (const t of this.registry(sandbox).tools) {
      if (ok.has(t.name)) continue;
      out[t.name] =
        gradeRefusal(t, this.deps.config.workspace.max_grade) ?? `tool ${t.name} is not in the script's kit`;
    }
    return out;
  }

  /** A tool a person calls directly (`tool call`, Try tool): refused above the workspace's maximum grade. */
  callableTool(sandbox: string, name: string): SandboxTool {
    const t = this.registry(sandbox).get(name);
    if (!t) {
      // The tool may be one of a server that could not be reached: "no tool" alone sent people to look
      // for a typo.
      // (a server that answered its tools/list once and then went away still has them listed, from that
      // listing, and is started again by their next call: its tools are not missing)
      const down = Object.keys(this.deps.config.sandboxes[sandbox]?.mcp ?? {}).flatMap((server) => {
        const st = this.deps.mcp().status(server);
        if (st.state !== 'error' || this.deps.mcp().cachedTools(server) !== undefined) return [];
        const error = st.error ?? 'it could not be reached';
        return [error.startsWith(`MCP server ${server}`) ? error : `MCP server ${server}: ${error}`];
      });
      throw new ToolsmithError(
        'not_found',
        `no tool ${name} in sandbox ${sandbox}; ${didYouMean(
          name,
          this.registry(sandbox).tools.map((x) => x.name),
        )}available: ${
          this.registry(sandbox)
            .tools.map((x) => x.name)
            .join(', ') || 'none'
        }${down.length ? `; the tools of its MCP servers that could not be reached are missing: ${down.join('; ')}` : ''}`,
      );
    }
    const refusal = gradeRefusal(t, this.deps.config.workspace.max_grade);
    if (refusal) throw new ToolsmithError('refused', refusal);
    return t;
  }
}

/** A missing tools.py of an MCP-only sandbox reads as an empty file. */
function statOrEmpty(file: string): { mtimeMs: number; size: number } {
  try {
    return statSync(file);
  } catch {
    return { mtimeMs: 0, size: 0 };
  }
}

function kitDefinition(
  name: string,
  sandbox: string,
  data: Record<string, unknown>,
  file: string,
): KitDefinition {
  if (!sandbox) throw new ToolsmithError('invalid_config', `${file}: a kit needs sandbox = "<name>"`);
  const tools = data['tools'];
  if (!isToolsSpec(tools))
    throw new ToolsmithError(
      'invalid_config',
      `${file}: tools must be a list of names or a table of aliases`,
    );
  const def: KitDefinition = { name, sandbox, tools };
  if (typeof data['description'] === 'string') def.description = data['description'];
  return def;
}

function isToolsSpec(v: unknown): v is KitToolsSpec {
  if (Array.isArray(v)) return v.every((x) => typeof x === 'string');
  if (typeof v !== 'object' || v === null) return false;
  return Object.values(v).every((x) => typeof x === 'string' || isToolsSpec(x));
}
