/**
 * The one service every front end uses (CLI, MCP server, Electron IPC, web). Composition root: it
 * wires workspace files, the pure core and the infrastructure adapters, builds the feature services
 * (catalog, runs, templates, suites, the sandbox backend, the watcher) and hands each only the narrow
 * interface it declares (app/deps.ts and the `*Deps` of each module). Feature modules never import this
 * file (test/unit/layering/service-imports.test.ts); the front ends and the handler table hold the facade.
 */
import { eventView, runDetail } from './run-view.ts';
import { join } from 'node:path';
import type { KitDefinition, ResolvedKit } from '../core/kits/kit.ts';
import { validateScript } from '../core/lang/validate.ts';
import type { ScriptLanguage, ValidateOptions, ValidationResult } from '../core/lang/violation.ts';
import { ParallelValidator } from '../infra/validate/parallel.ts';
import { ScriptGenerator } from '../core/script/generator.ts';
import type { BuiltPrompt, PromptOptions } from '../core/script/generator.ts';
import type { SandboxTool } from '../core/tools/extract.ts';
import type { ToolRegistry } from '../core/tools/registry.ts';
import {
  parseTomlFile,
  readConfigText,
  readPromptFiles,
  WorkspaceError,
  WorkspaceFiles,
} from '../infra/workspace/files.ts';
import { resourcesDir } from '../infra/workspace/paths.ts';
import { parseConfig } from './config.ts';
import type { Config } from './config.ts';
import { ToolsmithError } from './errors.ts';
import { providerChain } from '../core/records/records.ts';
import { RunService } from './runs.ts';
import type { StartedRun } from './runs.ts';
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
import { ApprovalBroker, contextApprovalTools, directGate } from './approval.ts';
import { NO_ONE_TO_ASK, type ApprovalAsk } from '../core/tools/approval.ts';
import type { LiveExecutionEvent, Logger, ScriptExecutor } from '../core/ports/executor.ts';
import { failedResult, infraResult } from '../core/sandbox/execution.ts';
import type { ExecutionResult } from '../core/sandbox/execution.ts';
import { runtimeOf, runtimeRegistry } from '../core/sandbox/runtimes.ts';
import type { RuntimeId, RuntimeSpec } from '../core/sandbox/runtimes.ts';
import { assembleIn, sandboxContext, scriptToolNames } from '../core/script/context.ts';
import type { ScriptContext } from '../core/script/context.ts';
import { McpManager } from '../infra/mcp/manager.ts';
import type { HostCommand } from '../infra/mcp/manager.ts';
import { ToolCatalog } from './catalog.ts';
import type { CatalogDeps, KitEntry } from './catalog.ts';
import type { Response } from '../contract/api.ts';
import type { JsonValue, Tool } from '../core/tools/model.ts';
import type { LlmProvider } from '../core/ports/llm.ts';
import type { ProviderConfig } from './config.ts';
import type { ProviderOverrides } from './providers.ts';
import { callTool, extractToolsView, listTools, saveTools } from './tools-service.ts';
import type { ToolsDeps } from './tools-service.ts';
import type { AdminDeps } from './workspace-admin.ts';
import { listKits, saveKit } from './kits-service.ts';
import type { KitDeps, SaveKitOptions, SavedKit } from './kits-service.ts';
import {
  learnConfigSecrets,
  ProviderKeys,
  providerKey,
  providersFor,
  setProviderKey,
  settingsView,
} from './settings.ts';
import type { KeyStore } from './settings.ts';
import { buildImage, systemStatus } from './system.ts';
import { watchWorkspace } from './watch.ts';
import { otlpTarget, sendRunTrace, telemetrySettings } from './telemetry.ts';
import type { WatchDeps, WorkspaceWatcher } from './watch.ts';
import { errorMessage } from '../core/errors.ts';

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
}

export interface ValidateRequest {
  code: string;
  language: ScriptLanguage;
  /** Tools come from this sandbox (optionally narrowed to a kit)... */
  sandbox?: string;
  kit?: string;
  /** ...or are named explicitly. */
  tools?: string[];
  strict?: boolean;
}

export class ToolsmithService
  implements CatalogDeps, SandboxFactoryDeps, SuiteDeps, WatchDeps, KitDeps, ToolsDeps, AdminDeps
{
  readonly files: WorkspaceFiles;
  /** The parsed config; replaced by `reloadConfig()` after the workbench edits the file. */
  config: Config;
  readonly generator: ScriptGenerator;
  /** Registries, kits and the tools a script or a person may call (app/catalog.ts). */
  readonly catalog: ToolCatalog;
  private mcpManager: McpManager | undefined;
  private readonly options: ServiceOptions;
  /** See `ServiceOptions.oneShot`. */
  readonly oneShot: boolean;
  private sandboxPromise: Promise<SandboxManager> | undefined;
  /** The sandbox manager once made (close tells it at once that shutdown began). */
  private sandboxMade: SandboxManager | undefined;
  private closing = false;
  private runService: RunService | undefined;
  private templateService: TemplateService | undefined;
  private suiteService: SuiteService | undefined;
  private skillService: SkillService | undefined;
  private readonly pushListeners = new Set<(e: PushEvent) => void>();
  private watcher: WorkspaceWatcher | undefined;
  /** Provider keys set at run time (desktop: loaded from the keychain; browser/CLI: this process only). */
  /** Each bound to the endpoint it was saved for (see settings.ts). */
  readonly providerKeys = new ProviderKeys();
  /** See `ServiceOptions.approveHostCommand`; a front end that wraps an existing service sets this. */
  approveHostCommand: ((c: HostCommand) => Promise<void>) | undefined;
  /** Tool calls waiting for the workbench's answer (app/approval.ts). */
  readonly approvals = new ApprovalBroker((e) => this.push(e));
  /** See `ServiceOptions.askApproval`; a run's own asker (MCP elicitation) comes first. */
  askApproval: ApprovalAsk | undefined;
  /**
   * Long Python scripts validated on two threads at once in long-lived processes (app, `serve`, `mcp`);
   * one-shot CLI verbs validate on their own thread (a thread start would cost more than it saves).
   */
  readonly validator: ParallelValidator | undefined;

  private constructor(
    files: WorkspaceFiles,
    config: Config,
    generator: ScriptGenerator,
    options: ServiceOptions,
  ) {
    this.files = files;
    this.config = config;
    learnConfigSecrets(config);
    this.generator = generator;
    this.options = options;
    this.askApproval = options.askApproval === 'workbench' ? this.approvals.ask : options.askApproval;
    this.oneShot = options.oneShot === true;
    this.validator = this.oneShot ? undefined : new ParallelValidator();
    // Reads the running config at each use (reloadConfig replaces it).
    const current = (): Config => this.config;
    this.catalog = new ToolCatalog({
      files,
      get config() {
        return current();
      },
      mcp: () => this.mcp(),
    });
    files.declaredSandboxes = new Set(
      Object.entries(config.sandboxes)
        .filter(([, s]) => Object.keys(s.mcp).length > 0)
        .map(([n]) => n),
    );
  }

  /** The connections to the workspace's MCP servers (none is opened before a tool needs it). */
  mcp(): McpManager {
    this.mcpManager ??= new McpManager(this.config.mcp_servers, {
      approve: async (c) => {
        const gate = this.options.approveHostCommand ?? this.approveHostCommand;
        if (gate) await gate(c);
      },
    });
    return this.mcpManager;
  }

  /**
   * Connects the MCP servers a sandbox uses (lazily, once) so that its registry lists their tools.
   * Returns the servers that could not be reached, each with the reason.
   */
  async prepareMcp(sandbox: string): Promise<{ server: string; error: string }[]> {
    const servers = Object.keys(this.config.sandboxes[sandbox]?.mcp ?? {});
    const failed: { server: string; error: string }[] = [];
    await Promise.all(
      servers.map((s) =>
        this.mcp()
          .refresh(s)
          .catch((e: unknown) => failed.push({ server: s, error: errorMessage(e) })),
      ),
    );
    return failed;
  }

  /** Validates a script: every validation in the service goes through here (see `validator`). */
  validateCode(code: string, language: ScriptLanguage, options: ValidateOptions): ValidationResult {
    return this.validator
      ? this.validator.validate(code, language, options)
      : validateScript(code, language, options);
  }

  static open(workspaceDir: string, options: ServiceOptions = {}): ToolsmithService {
    try {
      const files = new WorkspaceFiles(workspaceDir);
      const config = loadConfig(files);
      const generator = new ScriptGenerator(readPromptFiles(join(resourcesDir(), 'prompts')));
      const svc = new ToolsmithService(files, config, generator, options);
      if (options.watch) svc.watcher = watchWorkspace(svc);
      return svc;
    } catch (e) {
      if (e instanceof WorkspaceError) throw new ToolsmithError('invalid_config', e.message);
      throw e;
    }
  }

  /** The sandbox manager (Docker pool, or the process fallback), created on first use. */
  sandbox(): Promise<SandboxManager> {
    if (!this.sandboxPromise) {
      const factory = this.options.sandboxFactory;
      if (!factory)
        return Promise.reject(
          new ToolsmithError('infra', 'no sandbox backend is configured for this service'),
        );
      const made = factory(this);
      this.sandboxPromise = made;
      made.then(
        (m) => {
          if (this.closing) m.stopSpawning?.();
          if (this.sandboxPromise === made) this.sandboxMade = m;
        },
        () => {
          if (this.sandboxPromise === made) this.sandboxPromise = undefined;
        },
      );
    }
    return this.sandboxPromise;
  }

  /** Runs, templates and replay, over the workspace's run store. */
  async runs(): Promise<RunService> {
    // pino loads only when runs are opened (one-shot verbs such as `sandboxes` never log). The only
    // await comes first: two first calls at once (the window's first requests) open one store.
    const logModule = this.runService || this.options.log ? undefined : await import('./log.ts');
    if (!this.runService) {
      // The run store is SQLite only: listing or showing runs needs no sandbox. The sandbox is asked for
      // when a script runs, and a missing engine then becomes an `infra` result of that run.
      const executor: ScriptExecutor = {
        execute: async (req) => {
          let sandbox: SandboxManager;
          try {
            sandbox = await this.sandbox();
          } catch (e) {
            return infraResult(errorMessage(e), runtimeOf(req));
          }
          return sandbox.executor.execute(req);
        },
      };
      const store = new RunStore(`${this.files.dataDir}/runs.db`);
      const validate = (code: string, language: ScriptLanguage, tools: readonly string[]) =>
        this.validateCode(code, language, { tools });
      const context = (sandbox: string, kit: string | undefined, language: ScriptLanguage) =>
        this.scriptContext(sandbox, kit, language);
      const log = this.options.log ?? logModule!.createLogger(this.files.dataDir);
      const runs: RunService = new RunService({
        store,
        executor,
        generator: this.generator,
        validate,
        scriptContext: context,
        limits: () => this.config.limits,
        templates: () => templates.list(),
        log,
        approvalTools: (ctx) => contextApprovalTools(this.config.approval, ctx),
        ask: (r, signal) => (this.askApproval ?? (() => Promise.resolve(NO_ONE_TO_ASK)))(r, signal),
        // A run's trace, built from its recorded events once it ended (off unless configured).
        onRunEnded: async (runId) => {
          const target = telemetrySettings(this.config);
          if (!target.enabled) return;
          for (const w of target.warnings) log.warn({ event: 'telemetry_config', runId }, w);
          const spans = await sendRunTrace(store.events(runId), this.config, target);
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
    this.suiteService ??= new SuiteService(this, runs);
    return this.suiteService;
  }

  /** A run for the detail view (prompt heads unless `prompts`, the suite run it belongs to). */
  async runDetail(runId: string, prompts?: boolean): Promise<Response<'runs.get'>> {
    return runDetail(await this.runs(), (await this.suites()).store, runId, prompts);
  }

  /**
   * Continues a run from an attempt with an edited script, on the providers as the run used them: the
   * one (and model) that wrote that attempt first, then every other that answered (see providerChain);
   * a run no provider answered goes on with the configured ones.
   */
  async continueRun(runId: string, attempt: number, body: string): Promise<StartedRun> {
    const runs = await this.runs();
    const rec = runs.get(runId);
    const chain = providerChain(rec, attempt);
    const configured = new Set(this.config.providers.map((p) => p.id));
    const usable = chain.filter((p) => configured.has(p.id));
    if (chain.length && !usable.length)
      throw new ToolsmithError(
        'not_found',
        `run ${rec.id} was answered by ${chain.map((p) => `${p.id} (${p.model})`).join(', ')}, no longer configured; configured: ${[...configured].join(', ') || 'none'}`,
      );
    const providers = usable.length
      ? usable.flatMap((p) => this.providersFor({ provider: p.id, model: p.model }))
      : this.providersFor();
    return runs.continueFrom(rec, attempt, body, providers);
  }

  /**
   * Sends a recorded run's trace to an OTLP/HTTP endpoint: `url` when given, else the one config.toml and
   * the OTEL_* variables name (live export need not be on). docs/telemetry.md.
   */
  async exportRunTrace(
    runId: string,
    url?: string,
  ): Promise<{ runId: string; traceId: string; spans: number; url: string; warnings: string[] }> {
    const runs = await this.runs();
    const rec = runs.get(runId);
    if (rec.status === 'running' && runs.isActive(rec.id))
      throw new ToolsmithError('refused', `run ${rec.id} is still running; its trace is sent when it ends`);
    const target = otlpTarget(this.config);
    if (url) target.url = url;
    let spans: number;
    try {
      spans = await sendRunTrace(runs.store.events(rec.id), this.config, target);
    } catch (e) {
      throw new ToolsmithError('infra', errorMessage(e));
    }
    const { traceIdOf } = await import('../infra/telemetry/run-trace.ts');
    return { runId: rec.id, traceId: traceIdOf(rec.id), spans, url: target.url, warnings: target.warnings };
  }

  /** Subscribes to events pushed to front ends; returns the unsubscribe function. */
  onPush(fn: (e: PushEvent) => void): () => void {
    this.pushListeners.add(fn);
    return () => this.pushListeners.delete(fn);
  }

  push(e: PushEvent): void {
    for (const l of this.pushListeners) l(e);
  }

  /** The runtime registry with this workspace's settings. */
  runtimes(): RuntimeSpec[] {
    return runtimeRegistry(this.config.runtimes);
  }

  /** Runtimes enabled in the config, in registry order (python, the default, first). */
  enabledRuntimes(): string[] {
    return this.runtimes()
      .filter((r) => r.enabled)
      .map((r) => r.id);
  }

  /** Runs a script directly (no LLM, not recorded): `toolsmith exec` and MCP `execute_code`. */
  async executeScript(req: {
    sandbox: string;
    kit?: string;
    language: ScriptLanguage;
    /** python | node | bun | deno, given explicitly (default: python or node by the language). */
    runtime?: RuntimeId;
    body: string;
    timeoutMs?: number;
    validate?: boolean;
    /** Aborts the job (a client that cancelled its call). */
    signal?: AbortSignal;
    /** The job's live events (tool calls, logs, tools' progress). */
    onEvent?: (e: LiveExecutionEvent) => void;
    /** Who answers calls that need approval (an MCP client's elicitation); else `askApproval`. */
    ask?: ApprovalAsk;
  }): Promise<ExecutionResult> {
    const runtime = runtimeOf(req);
    const mcpDown = await this.prepareMcp(req.sandbox);
    if (mcpDown.length > 0) return infraResult(mcpDown.map((f) => f.error).join('; '), runtime);
    const ctx = this.scriptContext(req.sandbox, req.kit, req.language);
    const script = assembleIn(ctx, req.body);
    if (req.validate !== false) {
      const v = this.validateCode(script.body, req.language, {
        tools: scriptToolNames(ctx),
        excluded: this.excludedTools(req.sandbox, scriptToolNames(ctx)),
      });
      if (!v.valid)
        return failedResult(
          'rejected',
          { type: 'ValidationError', message: this.generator.validationErrorMessage(v.violations) },
          runtime,
        );
    }
    let sandbox: SandboxManager;
    try {
      sandbox = await this.sandbox();
    } catch (e) {
      // No engine, no image, no backend: a result that says so, never an exception.
      return infraResult(errorMessage(e), runtime);
    }
    const timeoutMs = Math.min(req.timeoutMs ?? this.config.limits.timeout_s * 1000, 600_000);
    return sandbox.executor.execute({
      sandbox: req.sandbox,
      language: req.language,
      ...(req.runtime ? { runtime: req.runtime } : {}),
      code: script.code,
      bodyStartLine: script.bodyStartLine,
      tools: ctx.toolMap,
      timeoutMs,
      ...(req.signal ? { signal: req.signal } : {}),
      ...(req.onEvent ? { onEvent: req.onEvent } : {}),
      ...directGate(this.config.approval, ctx, this.askApproval, req.ask),
    });
  }

  /** Applies the workspace's pending file changes now (see app/watch.ts); no-op without watching. */
  async flushChanges(): Promise<void> {
    await this.watcher?.flush();
  }

  /** The sandbox manager when one was started (or is starting), without starting one. */
  startedSandbox(): Promise<SandboxManager | undefined> {
    return this.sandboxPromise ? this.sandboxPromise.catch(() => undefined) : Promise.resolve(undefined);
  }

  /**
   * A sandbox's files changed on disk (or all sandboxes' when none is named): its tools are re-extracted
   * and its workers reloaded. A tools.py that does not parse is reported (file and line) and the
   * workers keep the tools they have until it parses again.
   */
  async toolsChanged(sandbox?: string): Promise<{ sandbox: string; error?: string }[]> {
    const names = sandbox ? [sandbox] : this.files.sandboxNames();
    const out: { sandbox: string; error?: string }[] = [];
    const manager = await this.startedSandbox();
    for (const name of names) {
      this.invalidateRegistry(name);
      if (!this.files.sandboxNames().includes(name)) {
        this.catalog.forget(name);
        out.push({ sandbox: name });
        continue;
      }
      let problems;
      try {
        problems = this.registry(name).problems;
      } catch (e) {
        out.push({ sandbox: name, error: errorMessage(e) });
        continue;
      }
      const syntax = problems.filter((p) => p.rule === 'syntax');
      if (syntax.length > 0) {
        const file = this.files.toolsFile(name);
        out.push({
          sandbox: name,
          error: `${syntax
            .slice(0, 3)
            .map((p) => `${file}:${p.line}:${p.column}: ${p.message}`)
            .join('; ')} (the sandbox's workers keep the tools they loaded until tools.py parses again)`,
        });
        continue;
      }
      await manager?.reload(name);
      out.push({ sandbox: name });
    }
    return out;
  }

  /**
   * Shutdown began: the jobs cancelled next (by close, or by a front end closing its sessions first) must
   * not make their pools start replacements or standbys: containers started now would outlive the
   * process, or make it miss its stop grace. Nothing is started from here on.
   */
  beginShutdown(): void {
    this.closing = true;
    this.sandboxMade?.stopSpawning?.();
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
    await this.validator?.close();
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
    const s = this.sandboxPromise;
    this.sandboxPromise = undefined;
    this.sandboxMade = undefined;
    if (s) await (await s.catch(() => undefined))?.dispose();
    await this.mcpManager?.close();
    this.mcpManager = undefined;
    if (storeError) throw storeError;
  }

  get workspaceDir(): string {
    return this.files.root;
  }

  // The tool catalog (app/catalog.ts), as every front end and feature service reaches it.

  /** Every sandbox with its tool count from every source (tools.py and connected MCP servers). */
  sandboxes(): Response<'sandboxes.list'> {
    return this.catalog.sandboxes();
  }

  /** Forgets the cached tools of a sandbox (after writing its tools.py). */
  invalidateRegistry(sandbox: string): void {
    this.catalog.invalidateRegistry(sandbox);
  }

  /** The sandbox's registry, re-extracted when tools.py changed on disk since the last call. */
  registry(sandbox: string): ToolRegistry {
    return this.catalog.registry(sandbox);
  }

  /** Every kit, resolved or with the reason it cannot be used. */
  kits(): KitEntry[] {
    return this.catalog.kits();
  }

  resolveKitDefinition(def: KitDefinition): ResolvedKit {
    return this.catalog.resolveKitDefinition(def);
  }

  /** A kit by name, resolved and checked against the workspace's maximum grade. */
  kit(name: string): ResolvedKit {
    return this.catalog.kit(name);
  }

  /** The tools a script sees: the kit's aliases, or every tool of the sandbox. */
  scriptTools(sandbox: string, kitName?: string): { tools: SandboxTool[]; kit: ResolvedKit } {
    return this.catalog.scriptTools(sandbox, kitName);
  }

  /**
   * The one script context of a sandbox, kit and language (see app/catalog.ts), with the skills offered
   * to its scripts (app/skills.ts).
   */
  scriptContext(sandbox: string, kitName: string | undefined, language: ScriptLanguage): ScriptContext {
    const ctx = this.catalog.scriptContext(sandbox, kitName, language);
    if (language !== 'python') return ctx;
    const skills = this.skills().offered(ctx);
    return skills.length ? { ...ctx, skills } : ctx;
  }

  /** A sandbox's tools as scripts see them, then its offered skills: what manuals, search and describe show. */
  manualTools(sandbox: string, kit?: string): SandboxTool[] {
    const ctx = this.scriptContext(sandbox, kit, 'python');
    return [...ctx.tools, ...(ctx.skills ?? []).map((s) => s.tool)];
  }

  /** The manual entries of a sandbox's offered skills among `names` (a job's run-time lookups). */
  skillManual(sandbox: string, names: readonly string[]): Tool[] {
    return this.skills()
      .offered(this.catalog.scriptContext(sandbox, undefined, 'python'))
      .filter((s) => names.includes(s.name))
      .map((s) => s.tool);
  }

  /** Skills over the workspace's `skills/` (app/skills.ts); their tests run through `runs()`. */
  skills(): SkillService {
    this.skillService ??= new SkillService({
      files: new SkillFiles(this.workspaceDir),
      toolContext: (sandbox, kit, language) => this.catalog.scriptContext(sandbox, kit, language),
      validate: (code, language, options) => this.validateCode(code, language, options),
      runs: async () => {
        const runs = await this.runs();
        return { runScript: (req) => runs.runScript(req), get: (id) => runs.get(id) };
      },
      executeScript: (req) => this.executeScript(req),
    });
    return this.skillService;
  }

  /** The sandbox's tools a script with `allowed` tools may not call, each with why. */
  excludedTools(sandbox: string, allowed: readonly string[]): Record<string, string> {
    return this.catalog.excludedTools(sandbox, allowed);
  }

  /** A tool a person calls directly (`tool call`, Try tool): refused above the workspace's maximum grade. */
  callableTool(sandbox: string, name: string): SandboxTool {
    return this.catalog.callableTool(sandbox, name);
  }

  validate(req: ValidateRequest): ValidationResult {
    let tools: string[] = req.tools ?? [];
    if (req.sandbox) tools = scriptToolNames(this.scriptContext(req.sandbox, req.kit, req.language));
    return this.validateCode(req.code, req.language, {
      tools,
      strict: req.strict ?? false,
      ...(req.sandbox ? { excluded: this.excludedTools(req.sandbox, tools) } : {}),
    });
  }

  buildPrompt(
    task: string,
    sandbox: string,
    options: PromptOptions & { kit?: string; language?: ScriptLanguage } = {},
  ): BuiltPrompt {
    if (!task.trim()) throw new ToolsmithError('invalid_argument', 'the task is empty');
    const ctx = this.scriptContext(sandbox, options.kit, options.language ?? 'python');
    return this.generator.buildPrompt(task, sandboxContext(ctx), options);
  }

  // Tools, kits, settings and the sandbox system: the logic lives in tools-service.ts, kits-service.ts,
  // settings.ts and system.ts; every front end (IPC, web, CLI, MCP) calls it through these members.

  /** A sandbox's tools, problems, manual and OpenAI schemas, with its tools.py source. */
  listTools(sandbox: string): Response<'tools.list'> {
    return listTools(this, sandbox);
  }

  /** The tools of an unsaved tools.py source. */
  extractTools(source: string): Response<'tools.extract'> {
    return extractToolsView(source);
  }

  /** Writes a sandbox's tools.py and reloads its tools (and workers). */
  saveTools(sandbox: string, source: string): Promise<Response<'tools.save'>> {
    return saveTools(this, sandbox, source);
  }

  /** Calls one tool directly (refused above the maximum grade; an infra result without a backend). */
  callTool(sandbox: string, tool: string, args: Record<string, JsonValue>): Promise<Response<'tools.call'>> {
    return callTool(this, sandbox, tool, args);
  }

  /** The kits as front ends list them (resolved, or with the reason they cannot be used). */
  listKits(): Response<'kits.list'> {
    return listKits(this);
  }

  /** Writes a kit file; an existing kit is replaced only with `overwrite` (see kits-service.ts). */
  saveKit(def: KitDefinition, options: SaveKitOptions = {}): SavedKit {
    return saveKit(this, def, options);
  }

  /** Providers (with where each key comes from), pool, limits, runtimes and the maximum grade. */
  settings(): Response<'settings.get'> {
    return settingsView(this);
  }

  /** A provider's key: set at run time, else from its environment variable. */
  providerKey(p: ProviderConfig): string | undefined {
    return providerKey(this, p);
  }

  /** The LLM providers a run uses (optionally overridden), with their keys. */
  providersFor(overrides: ProviderOverrides = {}): LlmProvider[] {
    return providersFor(this, overrides);
  }

  /** Sets a configured provider's key (in the front end's keychain when it has one, else in memory). */
  setProviderKey(provider: string, key: string, store?: KeyStore): Response<'settings.setProviderKey'> {
    return setProviderKey(this, provider, key, store);
  }

  /** Docker, isolation, images and pools (a status saying why when no backend starts). */
  status(): Promise<Response<'system.status'>> {
    return systemStatus(this);
  }

  /** Builds a runtime's image (and a sandbox's derived one), progress pushed and given to `onLine`. */
  buildImage(
    runtime: RuntimeId,
    sandbox?: string,
    onLine?: (line: string) => void,
  ): Promise<{ tag: string }> {
    return buildImage(this, runtime, sandbox, onLine);
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
  reloadConfig(): Config {
    const old = this.config;
    const next = loadConfig(this.files);
    this.config = next;
    learnConfigSecrets(next);
    this.files.declaredSandboxes = new Set(
      Object.entries(next.sandboxes)
        .filter(([, s]) => Object.keys(s.mcp).length > 0)
        .map(([n]) => n),
    );
    this.catalog.invalidateAll();
    void this.mcpManager?.setDefs(next.mcp_servers);
    const backendOf = (c: Config) => JSON.stringify([c.pool, c.limits, c.runtimes, c.sandboxes, c.engines]);
    if (backendOf(old) !== backendOf(next)) this.retireSandbox();
    return this.config;
  }

  /**
   * New jobs go to a new sandbox backend (made on their first use); the current one is disposed once its
   * running jobs end. Used when the config changed and when a Docker engine appeared while the process
   * fallback ran.
   */
  retireSandbox(): void {
    const retired = this.sandboxPromise;
    if (!retired) return;
    this.sandboxPromise = undefined;
    this.sandboxMade = undefined;
    void retired.then((m) => m.retire?.() ?? m.dispose()).catch(() => {});
  }
}

/** Reads, parses and validates the workspace's config (errors name the file, line and field). */
function loadConfig(files: WorkspaceFiles): Config {
  try {
    const text = readConfigText(files.configFile);
    const raw = text === undefined ? {} : parseTomlFile(files.configFile, text);
    return parseConfig(raw, files.configFile, text);
  } catch (e) {
    if (e instanceof WorkspaceError) throw new ToolsmithError('invalid_config', e.message);
    throw e;
  }
}
