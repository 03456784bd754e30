/**
 * The composition root every front end opens (CLI, MCP server, Electron IPC, web): it wires workspace
 * files, the pure core and the infrastructure adapters, and builds each feature object once, handing it
 * a plain deps object of the narrow interface it declares (app/deps.ts and the `*Deps` of each module):
 * script execution, the workspace (reload, watch), tools, kits, settings, the sandbox system, the catalog,
 * runs, templates, suites and skills. Front ends and the handler table call those feature objects
 * (`svc.tools.list(...)`); no feature receives this object (test/unit/layering/feature-deps.test.ts), and
 * feature modules never import this file (test/unit/layering/service-imports.test.ts).
 */
import { eventView } from './run-view.ts';
import { join, resolve } from 'node:path';
import { ParallelValidator } from '../infra/validate/parallel.ts';
import { ScriptGenerator } from '../core/script/generator.ts';
import {
  parseTomlFile,
  quotedLastLine,
  readConfigText,
  readPromptFiles,
  WorkspaceError,
} from '../infra/workspace/files.ts';
import type { WorkspaceFiles } from '../infra/workspace/files.ts';
import { loadConfig, openWorkspaceFiles, useConfig } from './workspace-open.ts';
import { resourcesDir } from '../infra/workspace/paths.ts';
import type { Config } from './config.ts';
import { ToolsmithError } from './errors.ts';
import { RunService } from './runs.ts';
import { SkillService } from './skills.ts';
import { TemplateService } from './templates.ts';
import { SkillFiles } from '../infra/workspace/skill-files.ts';
import { TemplateFiles } from '../infra/workspace/files.ts';
import { RunStore } from '../infra/store/run-store.ts';
import { SuiteService } from './suites.ts';
import type { SuiteDeps } from './suites.ts';
import type { SandboxManager } from './sandbox.ts';
import type { SandboxFactoryDeps } from './sandbox-factory.ts';
import type { PushEvent } from '../contract/api.ts';
import type { Logger, ScriptExecutor } from '../core/ports/executor.ts';
import { ApprovalBroker, contextApprovalTools } from './approval.ts';
import { NO_ONE_TO_ASK, type ApprovalAsk } from '../core/tools/approval.ts';
import { runtimeOf } from '../core/sandbox/runtimes.ts';
import type { ScriptLanguage } from '../core/lang/violation.ts';
import type { Validate } from '../core/orchestrator/orchestrator.ts';
import { backoffFromEnv, McpManager } from '../infra/mcp/manager.ts';
import type { HostCommand, McpUnavailable } from '../infra/mcp/manager.ts';
import { ToolCatalog } from './catalog.ts';
import { ScriptExecution } from './execution.ts';
import { runActions } from './run-actions.ts';
import type { RunActions } from './run-actions.ts';
import { toolsFeature } from './tools-service.ts';
import type { ToolsFeature } from './tools-service.ts';
import { kitsFeature } from './kits-service.ts';
import type { KitsFeature } from './kits-service.ts';
import { ProviderKeys, settingsFeature } from './settings.ts';
import { knownSecrets } from '../core/records/redact.ts';
import type { SettingsFeature } from './settings.ts';
import { systemFeature } from './system.ts';
import type { SystemFeature } from './system.ts';
import { adminFeature } from './workspace-admin.ts';
import type { AdminFeature } from './workspace-admin.ts';
import { mcpServersFeature } from './mcp.ts';
import type { McpServersFeature } from './mcp.ts';
import { workspaceFeature } from './workspaces.ts';
import type { WorkspaceFeature } from './workspaces.ts';
import { watchWorkspace } from './watch.ts';
import { followWorkspaceLink, realFolder } from './workspace-link.ts';
import { sayConfigWarnings } from './config-keys.ts';
import {
  sendRunTraceRetrying,
  telemetryFailureLine,
  telemetrySettings,
  TRACE_RETRY_WAITS_MS,
} from './telemetry.ts';
import type { WatchDeps, WorkspaceWatcher } from './watch.ts';
import { errorMessage } from '../core/errors.ts';

export type { ValidateRequest } from './execution.ts';

/** Builds the sandbox backend (app/sandbox-factory.ts, loaded lazily by the front ends that run scripts). */
export type SandboxFactory = (deps: SandboxFactoryDeps) => Promise<SandboxManager>;

export interface ServiceOptions {
  sandboxFactory?: SandboxFactory;
  log?: Logger;
  /**
   * A process that runs one command and exits (most CLI verbs): pools keep no standby worker, which would
   * only cost a container start that nothing uses. Servers (app, `serve`, `mcp`) leave this unset.
   */
  oneShot?: boolean;
  /**
   * Asked before a command starts on the host (a stdio MCP server); throws a ToolsmithError to refuse.
   * The desktop shows a native dialog; the browser front end refuses unless started to allow them.
   */
  approveHostCommand?: (c: HostCommand) => Promise<void>;
  /**
   * Follow hand edits of the workspace's files (config.toml, tools.py, suites, kits, templates) and
   * apply them live (app/watch.ts). Long-lived processes only.
   */
  watch?: boolean;
  /**
   * Who answers tool calls that need approval (app/approval.ts): `workbench` puts them to the front end
   * through push events; a function asks itself (the CLI's terminal). Unset: such calls are refused.
   */
  askApproval?: ApprovalAsk | 'workbench';
  /**
   * Told when a run's trace could not be sent (a collector that refuses, cannot be reached or answers
   * an error), with one line naming the endpoint and the cause (`could not export to URL (connection
   * refused)`); the run log has it too. The CLI prints it on stderr.
   */
  onTelemetryFailure?: (line: string) => void;
  /**
   * A telemetry setting that was ignored or could not be used (an OTEL_* endpoint that is not an http(s)
   * URL, a header variable that is not set, an unsupported protocol), once per run whose trace is sent;
   * the run log has it too. The CLI prints each once on stderr.
   */
  onTelemetryWarning?: (line: string) => void;
  /**
   * A verb that reads only what config.toml does not shape (recorded runs, template and skill files):
   * an invalid config is told here (its error, which names the file and the line) and the defaults
   * stand in, so the verb still answers. Unset: an invalid config is refused (`invalid_config`).
   */
  onInvalidConfig?: (message: string) => void;
  /**
   * A config read at the start that is valid but may not be whole (it ends in the middle of a line:
   * infra/workspace/files.ts `cutShortWarning`), with one line naming the file and the line. A server's
   * later reloads refuse such a file when it lacks tables the config in use has (refuseCutShort).
   */
  onConfigWarning?: (line: string) => void;
  /**
   * A process that watches (`watch`) opens the folder a symbolic link on its path leads to at start and
   * stays there; told once per change when that link is retargeted or removed (app/workspace-link.ts),
   * with one line naming both folders and what to do.
   */
  onWorkspaceLinkMoved?: (line: string) => void;
}

export class ToolsmithService {
  readonly files: WorkspaceFiles;
  /** The parsed config; replaced when the workspace reloads it (`workspace.reload()`). */
  config: Config;
  /** The path this service was opened by (the workspace as named, a link's path too). */
  openedAs: string | undefined;
  readonly generator: ScriptGenerator;
  /** Provider keys set at run time (desktop: loaded from the keychain; browser/CLI: this process only). */
  /** Each bound to the endpoint it was saved for (see settings.ts). */
  readonly providerKeys = new ProviderKeys();
  /** See `ServiceOptions.oneShot`. */
  readonly oneShot: boolean;
  /** See `ServiceOptions.approveHostCommand`; a front end that wraps an existing service sets this. */
  approveHostCommand: ((c: HostCommand) => Promise<void>) | undefined;
  /** Tool calls waiting for the workbench's answer (app/approval.ts). */
  readonly approvals = new ApprovalBroker((e) => this.push(e));
  /** See `ServiceOptions.askApproval`; a run's own asker (MCP elicitation) comes first. */
  askApproval: ApprovalAsk | undefined;

  // The feature objects, each built once with a plain deps object.
  /** Registries, kits and the tools a script or a person may call (app/catalog.ts). */
  readonly catalog: ToolCatalog;
  /** The sandbox backend, validation, prompts and running a script directly (app/execution.ts). */
  readonly execution: ScriptExecution;
  /** A sandbox's tools: list, extract, save, call, reload after edits (app/tools-service.ts). */
  readonly tools: ToolsFeature;
  /** Kits: list and save (app/kits-service.ts). */
  readonly kits: KitsFeature;
  /** Providers, keys and the settings view (app/settings.ts). */
  readonly settings: SettingsFeature;
  /** Docker, images, pools and runtimes (app/system.ts). */
  readonly system: SystemFeature;
  /** The open workspace: info, recent, switching, the default sandbox, reload (app/workspaces.ts). */
  readonly workspace: WorkspaceFeature;
  /** Setup from the workbench: providers and new sandboxes (app/workspace-admin.ts). */
  readonly admin: AdminFeature;
  /** The workspace's MCP servers as the workbench manages them (app/mcp.ts). */
  readonly mcpServers: McpServersFeature;
  /** A run's detail, continuing it, sending its trace (app/run-actions.ts). */
  readonly runActions: RunActions;

  private mcpManager: McpManager | undefined;
  private readonly options: ServiceOptions;
  private runService: RunService | undefined;
  private templateService: TemplateService | undefined;
  private suiteService: SuiteService | undefined;
  private skillService: SkillService | undefined;
  private readonly pushListeners = new Set<(e: PushEvent) => void>();
  private watcher: WorkspaceWatcher | undefined;

  private constructor(
    files: WorkspaceFiles,
    config: Config,
    generator: ScriptGenerator,
    options: ServiceOptions,
  ) {
    this.files = files;
    this.config = config;
    this.generator = generator;
    this.options = options;
    const oneShot = options.oneShot === true;
    this.oneShot = oneShot;
    this.askApproval = options.askApproval === 'workbench' ? this.approvals.ask : options.askApproval;
    useConfig(files, config);

    // The state features share, as plain functions and getters: the running config is read at each use
    // (a reload replaces it), and the MCP connections open on first use.
    const current = (): Config => this.config;
    const providerKeys = this.providerKeys;
    const push = (e: PushEvent): void => this.push(e);
    const mcp = (): McpManager => this.mcp();
    const prepareMcp = (sandbox: string) => this.prepareMcp(sandbox);
    const workspace = {
      files,
      get config() {
        return current();
      },
    };
    const keys = {
      ...workspace,
      get config() {
        return current();
      },
      providerKeys,
    };

    const catalog = new ToolCatalog({
      ...workspace,
      get config() {
        return current();
      },
      mcp,
    });
    this.catalog = catalog;
    const registry = (sandbox: string) => catalog.registry(sandbox);
    const invalidateRegistry = (sandbox: string) => catalog.invalidateRegistry(sandbox);

    const system = systemFeature({
      get config() {
        return current();
      },
      files,
      push,
      sandbox: () => execution.sandbox(),
    });
    this.system = system;

    // Why the local Docker engine went away mid-session, until a backend finds it answering again.
    let lostEngine: string | undefined;
    const factoryDeps: SandboxFactoryDeps = {
      files,
      get config() {
        return current();
      },
      oneShot,
      push,
      mcp,
      registry,
      prepareMcp,
      enabledRuntimes: () => system.enabledRuntimes(),
      retireSandbox: () => execution.retireSandbox(),
      get lostEngine() {
        return lostEngine;
      },
      // (aborted by beginShutdown: a backend still asking the engine gives up)
      get stopping() {
        return execution.stopping;
      },
      engineLost: (reason) => {
        lostEngine = reason;
        // A one-shot command makes the fallback when (and if) it runs another job.
        if (reason !== undefined) {
          if (oneShot) execution.retireSandbox();
          else execution.replaceSandbox();
        }
      },
      skillManual: (sandbox, names, language) => execution.skillManual(sandbox, names, language),
    };
    const execution: ScriptExecution = new ScriptExecution({
      get config() {
        return current();
      },
      generator,
      validator: oneShot ? undefined : new ParallelValidator(),
      toolContext: (sandbox, kit, language) => catalog.scriptContext(sandbox, kit, language),
      excludedTools: (sandbox, allowed) => catalog.excludedTools(sandbox, allowed),
      offeredSkills: (ctx) => this.skills().offered(ctx),
      unofferedSkills: (sandbox, language, callable) => this.skills().notOffered(sandbox, language, callable),
      prepareMcp,
      startBackend: () => {
        const factory = options.sandboxFactory;
        if (!factory)
          return Promise.reject(
            new ToolsmithError('infra', 'no sandbox backend is configured for this service'),
          );
        return factory(factoryDeps);
      },
      askApproval: () => this.askApproval,
    });
    this.execution = execution;

    this.tools = toolsFeature({
      files,
      registry,
      // A tools.py saved from a front end (which the watcher does not report): its tools may now match
      // an [approval] name, or no longer.
      invalidateRegistry: (sandbox) => {
        invalidateRegistry(sandbox);
        sayConfigWarnings(files, this.config, options.onConfigWarning);
      },
      callableTool: (sandbox, name) => catalog.callableTool(sandbox, name),
      sandbox: () => execution.sandbox(),
      startedSandbox: () => execution.startedSandbox(),
      forget: (sandbox) => catalog.forget(sandbox),
    });
    this.kits = kitsFeature({
      files,
      kits: () => catalog.kits(),
      resolveKitDefinition: (def) => catalog.resolveKitDefinition(def),
    });
    this.settings = settingsFeature(keys);
    this.workspace = workspaceFeature({
      ...workspace,
      get config() {
        return current();
      },
      reload: () => this.reloadConfig(),
      flush: async () => {
        await this.watcher?.flush();
      },
    });
    this.admin = adminFeature({
      ...keys,
      get config() {
        return current();
      },
      reloadConfig: () => this.reloadConfig(),
      enabledRuntimes: () => system.enabledRuntimes(),
      invalidateRegistry,
    });
    this.mcpServers = mcpServersFeature({
      ...workspace,
      get config() {
        return current();
      },
      mcp,
    });
    this.runActions = runActions({
      get config() {
        return current();
      },
      runs: () => this.runs(),
      suites: () => this.suites(),
      providersFor: (overrides) => this.settings.providersFor(overrides),
    });
  }

  /** Starts following hand edits of the workspace's files (app/watch.ts). */
  private watch(): void {
    const deps: WatchDeps = {
      files: this.files,
      push: (e) => this.push(e),
      reloadConfig: () => this.reloadConfig(),
      // A sandbox folder made or removed can make an [approval] name match, or stop matching.
      toolsChanged: (sandbox) =>
        this.tools
          .changed(sandbox)
          .finally(() => sayConfigWarnings(this.files, this.config, this.options.onConfigWarning)),
    };
    this.watcher = watchWorkspace(deps);
    // Opened through a symbolic link: say when the link leads elsewhere (the process stays here).
    const said = this.options.onWorkspaceLinkMoved;
    if (said && this.openedAs !== undefined && this.openedAs !== this.files.root) {
      const link = followWorkspaceLink(this.openedAs, this.files.root, said);
      const watcher = this.watcher;
      this.watcher = {
        flush: () => watcher.flush(),
        close: () => {
          link.close();
          watcher.close();
        },
      };
    }
  }

  /** The connections to the workspace's MCP servers (none is opened before a tool needs it). */
  mcp(): McpManager {
    this.mcpManager ??= new McpManager(this.config.mcp_servers, {
      approve: async (c) => {
        const gate = this.options.approveHostCommand ?? this.approveHostCommand;
        if (gate) await gate(c);
      },
      // A long-lived process (the MCP server, serve, the app) remembers a server whose connect failed:
      // look-ups answer at once that it is unavailable, since when and why, instead of waiting out its
      // timeout each time; it is tried again after a backoff, in the background unless starting it needs
      // a person's confirmation (a stdio server where the front end asks), then by the next use.
      ...(this.oneShot
        ? {}
        : {
            backoff: backoffFromEnv(
              (def) => def.url !== undefined || !(this.options.approveHostCommand ?? this.approveHostCommand),
            ),
          }),
    });
    return this.mcpManager;
  }

  /**
   * Connects the MCP servers a sandbox uses (lazily, once) so that its registry lists their tools.
   * Returns the servers that could not be reached, each with the reason.
   */
  async prepareMcp(sandbox: string): Promise<McpUnavailable[]> {
    const servers = Object.keys(this.config.sandboxes[sandbox]?.mcp ?? {});
    const failed: McpUnavailable[] = [];
    await Promise.all(
      servers.map((s) =>
        this.mcp()
          .refresh(s)
          .catch((e: unknown) => {
            // A server remembered as down: its cause as the failed try said it, since when, and when
            // it is tried again (a long-lived process: see mcp()).
            const down = this.mcp().unavailable(s);
            failed.push(
              down
                ? {
                    server: s,
                    error: down.error,
                    since: new Date(down.since).toISOString(),
                    retry_at: new Date(down.retryAt).toISOString(),
                  }
                : { server: s, error: errorMessage(e) },
            );
          }),
      ),
    );
    return failed;
  }

  static open(workspaceDir: string, options: ServiceOptions = {}): ToolsmithService {
    try {
      // A long-lived process stays on the folder a link on the path leads to now (workspace-link.ts).
      const root = options.watch ? (realFolder(workspaceDir) ?? workspaceDir) : workspaceDir;
      const { files, config } = openWorkspaceFiles(root, options);
      const generator = new ScriptGenerator(readPromptFiles(join(resourcesDir(), 'prompts')));
      const svc = new ToolsmithService(files, config, generator, options);
      svc.openedAs = resolve(workspaceDir);
      sayConfigWarnings(files, config, options.onConfigWarning);
      if (options.watch) svc.watch();
      return svc;
    } catch (e) {
      if (e instanceof WorkspaceError) throw new ToolsmithError('invalid_config', e.message);
      throw e;
    }
  }

  /** Runs, templates and replay, over the workspace's run store. */
  async runs(): Promise<RunService> {
    // pino loads only when runs are opened (one-shot verbs such as `sandboxes` never log). The only
    // await comes first: two first calls at once (the window's first requests) open one store.
    const logModule = this.runService || this.options.log ? undefined : await import('./log.ts');
    if (!this.runService) {
      // The run store is SQLite only: listing or showing runs needs no sandbox. The sandbox is asked for
      // when a script runs, and a missing engine then becomes an `infra` result of that run.
      const execution = this.execution;
      const executor: ScriptExecutor = {
        execute: async (req) => {
          const sandbox = await execution.backendFor(req.signal, runtimeOf(req));
          return 'executor' in sandbox ? sandbox.executor.execute(req) : sandbox;
        },
        tooLarge: (req) => execution.jobTooLarge(req),
      };
      const store = new RunStore(`${this.files.dataDir}/runs.db`);
      // With the script's sandbox, a call of a tool outside its kit or a skill it is not offered says why.
      const validate: Validate = (code, language, tools, sandbox, shapes) =>
        execution.validateCode(
          code,
          language,
          {
            tools,
            ...(sandbox !== undefined ? excludedIn(sandbox, tools) : {}),
            ...(shapes ? { shapes } : {}),
          },
          sandbox,
        );
      const excludedIn = (sandbox: string, tools: readonly string[]) => {
        try {
          return { excluded: this.catalog.excludedTools(sandbox, tools) };
        } catch {
          return {}; // the sandbox's tools do not load: the run says so where it needs them
        }
      };
      const context = (sandbox: string, kit: string | undefined, language: ScriptLanguage) =>
        execution.scriptContext(sandbox, kit, language);
      const log = this.options.log ?? logModule!.createLogger(this.files.dataDir);
      const current = (): Config => this.config;
      const runs: RunService = new RunService({
        store,
        executor,
        generator: this.generator,
        validate,
        scriptContext: context,
        limits: () => current().limits,
        templates: () => templates.list(),
        log,
        approvalTools: (ctx) => contextApprovalTools(current().approval, ctx),
        ask: (r, signal) => (this.askApproval ?? (() => Promise.resolve(NO_ONE_TO_ASK)))(r, signal),
        // A run's trace, built from its recorded events once it ended (off unless configured).
        onRunEnded: async (runId, signal, stopping) => {
          const target = telemetrySettings(current());
          if (!target.enabled) return;
          for (const w of target.warnings) {
            log.warn({ event: 'telemetry_config', runId }, w);
            this.options.onTelemetryWarning?.(w);
            this.push({ type: 'telemetry', runId, level: 'warning', message: w });
          }
          let spans: number;
          try {
            // A process that stays up tries again while the collector restarts (a one-shot command
            // does not: it would wait for a collector that is not there at every exit).
            spans = await sendRunTraceRetrying(store.events(runId), current(), target, {
              signal,
              stopping,
              waits: this.oneShot ? [] : TRACE_RETRY_WAITS_MS,
              onRetry: (e, waitMs) =>
                log.info(
                  { event: 'run_trace_retry', runId, waitMs, err: telemetryFailureLine(e, target.url) },
                  'run trace not taken; trying again',
                ),
            });
          } catch (e) {
            const line = telemetryFailureLine(e, target.url);
            this.settings.noteTelemetry(runId, line);
            this.options.onTelemetryFailure?.(line);
            // The workbench says it too (a notice): the run log is not where its user looks.
            this.push({ type: 'telemetry', runId, level: 'failed', message: line });
            throw e; // logged by the run service (run_trace_failed)
          }
          this.settings.noteTelemetry(runId);
          log.info({ event: 'run_trace_sent', runId, spans }, 'run trace sent');
        },
      });
      const templates: TemplateService = new TemplateService({
        files: new TemplateFiles(this.workspaceDir),
        store,
        runs,
        validate,
        scriptContext: context,
      });
      this.runService = runs;
      this.templateService = templates;
      this.runService.subscribe((e) => {
        // A tool's progress goes to the caller that asked for it (an MCP client), not to front ends.
        if (e.type === 'tool_progress') return;
        this.push(e.type === 'token' ? e : { type: 'run_event', event: eventView(e) });
      });
    }
    return this.runService;
  }

  /** The template ratchet over the workspace's `templates/` and the run store's counters. */
  async templates(): Promise<TemplateService> {
    await this.runs();
    return this.templateService as TemplateService;
  }

  /** Test suites over the run store (see app/suites.ts). */
  async suites(): Promise<SuiteService> {
    const runs = await this.runs();
    if (!this.suiteService) {
      const execution = this.execution;
      const catalog = this.catalog;
      const current = (): Config => this.config;
      const deps: SuiteDeps = {
        files: this.files,
        get config() {
          return current();
        },
        push: (e) => this.push(e),
        scriptTools: (sandbox, kit) => catalog.scriptTools(sandbox, kit),
        validateCode: (code, language, options) => execution.validateCode(code, language, options),
        executeScript: (req) => execution.executeScript(req),
        skills: () => this.skills(),
        prepareMcp: (sandbox) => this.prepareMcp(sandbox),
      };
      this.suiteService = new SuiteService(deps, runs);
    }
    return this.suiteService;
  }

  /** Skills over the workspace's `skills/` (app/skills.ts); their tests run through `runs()`. */
  skills(): SkillService {
    if (!this.skillService) {
      const execution = this.execution;
      const catalog = this.catalog;
      this.skillService = new SkillService({
        files: new SkillFiles(this.workspaceDir),
        sandboxNames: () => this.files.sandboxNames(),
        root: this.workspaceDir,
        toolContext: (sandbox, kit, language) => catalog.scriptContext(sandbox, kit, language),
        validate: (code, language, options) => execution.validateCode(code, language, options),
        runs: async () => {
          const runs = await this.runs();
          return { runScript: (req) => runs.runScript(req), get: (id) => runs.get(id) };
        },
        executeScript: (req) => execution.executeScript(req),
      });
    }
    return this.skillService;
  }

  /** Subscribes to events pushed to front ends; returns the unsubscribe function. */
  onPush(fn: (e: PushEvent) => void): () => void {
    this.pushListeners.add(fn);
    return () => this.pushListeners.delete(fn);
  }

  push(e: PushEvent): void {
    // Front ends show what is pushed (a browser page among them): no known secret in it, as in the store.
    const shown = knownSecrets.value(e);
    for (const l of this.pushListeners) l(shown);
  }

  /**
   * Shutdown began: the jobs cancelled next (by close, or by a front end closing its sessions first) must
   * not make their pools start replacements or standbys (app/execution.ts). Nothing is started from here on.
   */
  beginShutdown(): void {
    this.execution.beginShutdown();
  }

  /**
   * Ends the service: runs and suite runs in flight are cancelled with `reason` and recorded, then the
   * pools (their containers removed), the store and the MCP connections are closed.
   */
  async close(reason = 'the service was closed'): Promise<void> {
    this.watcher?.close();
    this.watcher = undefined;
    this.beginShutdown();
    await Promise.all([this.suiteService?.shutdown(reason), this.runService?.shutdown(reason)]);
    this.suiteService?.close();
    this.suiteService = undefined;
    // The run store may fail to close (events held while the disk was full, still unwritable): the
    // sandboxes and MCP servers are closed all the same, then that error is reported.
    let storeError: unknown;
    try {
      this.runService?.close();
    } catch (e) {
      storeError = e;
    }
    this.runService = undefined;
    this.templateService = undefined;
    await this.execution.close();
    await this.mcpManager?.close();
    this.mcpManager = undefined;
    if (storeError) throw storeError;
  }

  get workspaceDir(): string {
    return this.files.root;
  }

  /** Opens another workspace with this service's options (sandbox backend, one-shot, log). */
  openOther(workspaceDir: string): ToolsmithService {
    const next = ToolsmithService.open(workspaceDir, this.options);
    next.approveHostCommand = this.approveHostCommand;
    return next;
  }

  /**
   * Re-reads `.toolsmith/config.toml` without a restart and applies it: MCP server definitions (changed
   * servers reconnect on next use), sandboxes and kits (tools re-resolved), and, when pool, limits,
   * runtimes, sandboxes or engines changed, a new sandbox backend for the next jobs (the old one is
   * disposed once its running jobs end). Throws when invalid, keeping the running config.
   */
  private reloadConfig(): Config {
    const old = this.config;
    // A config file that was there and is gone (deleted, renamed away, its folder deleted) is not an
    // edit to the defaults: the config in use is kept, and a save from a front end writes it back.
    if (this.files.inUseConfigText !== undefined && readConfigText(this.files.configFile) === undefined)
      throw new ToolsmithError(
        'invalid_config',
        `${this.files.configFile} is gone (deleted, or renamed away) while this process runs; put it back, or save a setting (a provider, an MCP server) to write the config in use there again`,
      );
    refuseCutShort(this.files);
    const next = loadConfig(this.files);
    this.config = next;
    useConfig(this.files, next);
    this.catalog.invalidateAll();
    void this.mcpManager?.setDefs(next.mcp_servers);
    const backendOf = (c: Config) => JSON.stringify([c.pool, c.limits, c.runtimes, c.sandboxes, c.engines]);
    if (backendOf(old) !== backendOf(next)) this.execution.retireSandbox();
    sayConfigWarnings(this.files, this.config, this.options.onConfigWarning);
    return this.config;
  }
}

/**
 * A config.toml that parses but stops in the middle of a line (no line break at its end) and lacks
 * whole tables the config in use has ([pool], [limits], a sandbox's): a file written only in part that
 * happens to be valid TOML (cut after a key or inside a comment), whose missing tables would silently
 * fall back to their defaults. Refused (the last good config stays in use), naming what is missing and
 * how to have a shorter config taken (end it with a line break).
 */
function refuseCutShort(files: WorkspaceFiles): void {
  const text = readConfigText(files.configFile);
  const inUse = files.inUseConfigText;
  if (text === undefined || inUse === undefined || text === '' || text.endsWith('\n')) return;
  let had: string[];
  let has: Set<string>;
  try {
    had = tableNames(parseTomlFile(files.configFile, inUse));
    has = new Set(tableNames(parseTomlFile(files.configFile, text)));
  } catch {
    return;
  }
  const lost = had.filter((t) => !has.has(t));
  if (lost.length === 0) return;
  const lines = text.split('\n');
  throw new ToolsmithError(
    'invalid_config',
    `${files.configFile}:${lines.length}: the file ends in the middle of line ${lines.length} (${quotedLastLine(lines)}) with no line break, ` +
      `and has no ${lost.map((t) => `[${t}]`).join(', ')}, which the config in use has: it looks cut short (written only in part, or still being written); ` +
      `put back a whole copy, or end the file with a line break if the shorter config is meant`,
  );
}

/** The tables of a parsed config, one level deep (`pool`, `sandboxes.ecommerce`, `providers`). */
function tableNames(raw: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(raw)) {
    if (v === null || typeof v !== 'object') continue;
    out.push(k);
    if (!Array.isArray(v))
      for (const [k2, v2] of Object.entries(v as Record<string, unknown>))
        if (v2 !== null && typeof v2 === 'object' && !Array.isArray(v2)) out.push(`${k}.${k2}`);
  }
  return out;
}
