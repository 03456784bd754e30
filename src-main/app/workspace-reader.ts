/**
 * A workspace opened to be read only, by the listing verbs that need neither sandboxes nor scripts
 * (`runs list`, `template list`, `skill list`, `mcp-servers list`): its files and config opened as the
 * service opens them (app/workspace-open.ts: the same config rules, warnings and learned secrets), and
 * each listing's own modules loaded when it is asked for. None of the service's other modules load (the
 * script validators, the run orchestrator, pino, the suites): docs/scaling.md has what that saves.
 */
import { McpManager } from '../infra/mcp/manager.ts';
import type { RunStoreCore } from '../infra/store/run-store-core.ts';
import type { WorkspaceFiles } from '../infra/workspace/files.ts';
import type { TemplateView } from '../core/templates/template.ts';
import type { SkillView } from '../core/skills/views.ts';
import type { Config } from './config.ts';
import { sayConfigWarnings } from './config-keys.ts';
import { prepareLogFile, stderrWarn } from './log-file.ts';
import type { SkillViewDeps } from './skill-views.ts';
import { openWorkspaceFiles, useConfig } from './workspace-open.ts';
import type { ConfigWordsOptions } from './workspace-open.ts';

export class WorkspaceReader {
  readonly files: WorkspaceFiles;
  readonly config: Config;
  private store: RunStoreCore | undefined;
  private mcpManager: McpManager | undefined;

  private constructor(files: WorkspaceFiles, config: Config) {
    this.files = files;
    this.config = config;
  }

  /** Opens `dir` as ToolsmithService.open does for a verb that does not watch the workspace. */
  static open(dir: string, options: ConfigWordsOptions = {}): WorkspaceReader {
    const { files, config } = openWorkspaceFiles(dir, options);
    useConfig(files, config);
    sayConfigWarnings(files, config, options.onConfigWarning);
    return new WorkspaceReader(files, config);
  }

  /**
   * The workspace's run store (opened on first use, as the service's `runs()` opens it). Each listing
   * loads only its own modules: the store's for runs and templates (without `import`, whose check loads
   * zod and the records' schemas: infra/store/run-store.ts), the catalog's for skills.
   */
  async runStore(): Promise<RunStoreCore> {
    const { RunStoreCore } = await import('../infra/store/run-store-core.ts');
    if (!this.store) {
      this.store = new RunStoreCore(`${this.files.dataDir}/runs.db`);
      // Its log, as the service's logger opens it (app/log.ts): made, closed to other users; no pino,
      // since a listing writes no log line.
      prepareLogFile(this.files.dataDir, stderrWarn);
    }
    return this.store;
  }

  /** The saved templates with their counters, as the template service lists them. */
  async templates(): Promise<{ templates: TemplateView[]; problems: { file: string; error: string }[] }> {
    const [{ TemplateFiles }, { templateProblems, templateViews }] = await Promise.all([
      import('../infra/workspace/files.ts'),
      import('./template-views.ts'),
    ]);
    const store = await this.runStore();
    const files = new TemplateFiles(this.files.root);
    return { templates: templateViews(files, store), problems: templateProblems(files) };
  }

  /**
   * The saved skills (of one sandbox, or all: a sandbox that is neither the workspace's nor a folder of
   * skills is `not_found`) with the files that do not parse, as the skill service lists them: their
   * tools and grades from the sandboxes' tools (the catalog), MCP servers' tools as far as known without
   * connecting (the service's `skill list` connects none either).
   */
  async skills(
    sandbox?: string,
  ): Promise<{ skills: SkillView[]; problems: { file: string; error: string }[] }> {
    const [{ ToolCatalog }, { SkillFiles }, views] = await Promise.all([
      import('./catalog.ts'),
      import('../infra/workspace/skill-files.ts'),
      import('./skill-views.ts'),
    ]);
    const catalog = new ToolCatalog({ files: this.files, config: this.config, mcp: () => this.mcp() });
    const deps: SkillViewDeps = {
      files: new SkillFiles(this.files.root),
      sandboxNames: () => this.files.sandboxNames(),
      root: this.files.root,
      toolContext: (name, kit, language) => catalog.scriptContext(name, kit, language),
    };
    if (sandbox !== undefined) views.requireSkillSandbox(deps, sandbox);
    return { skills: views.skillViews(deps, sandbox), problems: views.skillProblems(deps.files) };
  }

  /**
   * The workspace's MCP servers as declared (`names()`, `status()`); a one-shot process's, as the
   * service's `mcp()` makes it. Listing them connects to none.
   */
  mcp(): McpManager {
    this.mcpManager ??= new McpManager(this.config.mcp_servers);
    return this.mcpManager;
  }

  /**
   * Closes the MCP connections (none, unless one was opened) and the run store: the store's error (a
   * full disk's) is thrown last, as the service's close throws it.
   */
  async close(): Promise<void> {
    const store = this.store;
    this.store = undefined;
    let storeError: unknown;
    try {
      store?.close();
    } catch (e) {
      storeError = e;
    }
    await this.mcpManager?.close();
    this.mcpManager = undefined;
    if (storeError) throw storeError;
  }
}
