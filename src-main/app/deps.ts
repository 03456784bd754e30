/**
 * The few things most feature services need, each a narrow interface. A feature module declares what it
 * uses from these (and any member of its own), never the whole service: the composition root
 * (`ToolsmithService` in service.ts) builds a plain object of those members for each feature object, once,
 * so a feature can be built, read and tested against those members alone.
 */
import type { PushEvent } from '../contract/api.ts';
import type { ToolRegistry } from '../core/tools/registry.ts';
import type { McpManager } from '../infra/mcp/manager.ts';
import type { WorkspaceFiles } from '../infra/workspace/files.ts';
import type { Config } from './config.ts';
import type { SandboxManager } from './sandbox.ts';

/** The open workspace's files. */
export interface WorkspaceDeps {
  readonly files: WorkspaceFiles;
}

/**
 * The running config. It is replaced when `.toolsmith/config.toml` is reloaded: read it at each use,
 * never keep a copy.
 */
export interface ConfigDeps {
  readonly config: Config;
}

/** A sandbox's tools (tools.py and its MCP servers), re-extracted when tools.py changed. */
export interface RegistryDeps {
  registry(sandbox: string): ToolRegistry;
}

/** Events pushed to every front end (run events, image progress, workspace changes). */
export interface PushDeps {
  push(e: PushEvent): void;
}

/** The sandbox backend, started on first use (rejects, saying why, when none can start). */
export interface SandboxDeps {
  sandbox(): Promise<SandboxManager>;
}

/** The connections to the workspace's MCP servers. */
export interface McpDeps {
  mcp(): McpManager;
}
