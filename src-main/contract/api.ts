/**
 * The typed API between the front ends (Electron renderer, browser, CLI) and the service: one map of
 * method -> request schema, with response types. Every payload is validated at the boundary with these
 * schemas. Preload and renderer import types from here only.
 */
import { z } from 'zod';
import type { ResolvedKit } from '../core/kits/kit.ts';
import {
  MAX_TASK_CHARS,
  RUN_BUDGETS,
  RUN_KINDS,
  RUN_MODES,
  RUN_STATUSES,
  TASK_LIMIT_MESSAGE,
  TIERS,
} from '../core/records/events.ts';
import type { RunEvent } from '../core/records/events.ts';
import type { ApprovalRequest } from '../core/tools/approval.ts';
import type { AttemptRecord, RunRecord } from '../core/records/records.ts';
import type { EventPayloads } from '../core/records/events.ts';
import { RUN_SORT_KEYS } from '../core/records/sort.ts';
import { httpUrlIssue, LLM_URL_EXAMPLE } from '../core/text/http-url.ts';
import type { RunPage, RunSummary } from '../core/records/summary.ts';
import type { ExecutionResult } from '../core/sandbox/execution.ts';
import type { RuntimeId } from '../core/sandbox/runtimes.ts';
import type { ToolResponse } from '../core/tools/model.ts';
import type { ScriptLanguage, ValidationResult, Violation } from '../core/lang/violation.ts';
import type { BuiltPrompt } from '../core/script/generator.ts';
import type { SandboxTool } from '../core/tools/extract.ts';
import type { OpenAiFunctionSchema } from '../core/tools/schema.ts';
import type { TemplateProposal, TemplateTestResult, TemplateView } from '../core/templates/template.ts';
import { skillRequests } from './skills.ts';
import type { SkillResponses } from './skills.ts';
import { suiteRequests } from './suites.ts';
import type { SuiteProgressView, SuiteResponses } from './suites.ts';

export type * from './suites.ts';
export type * from './skills.ts';

const name = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/, 'letters, digits, _ . - only');
const language = z.enum(['python', 'js', 'ts']) satisfies z.ZodType<ScriptLanguage>;
/** A provider's base URL from a form: http(s)://host (`localhost:8080/v1` is refused, saying so). */
const httpUrl = z.string().max(2000).superRefine(httpUrlIssue(LLM_URL_EXAMPLE));
/** The example an OTLP collector's endpoint is offered with (Settings › Telemetry). */
export const OTLP_URL_EXAMPLE = 'http://localhost:4318';
const runtime = z.enum(['python', 'node', 'bun', 'deno']) satisfies z.ZodType<RuntimeId>;
const runId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9-]+$/, 'a run id');
const status = z.enum(RUN_STATUSES);
const tier = z.enum(TIERS);
const mode = z.enum(RUN_MODES);
const slotType = z.enum(['str', 'int', 'float']);
const json: z.ZodType<unknown> = z.unknown();

export const requests = {
  'workspace.info': z.object({}).strict(),
  'sandboxes.list': z.object({}).strict(),
  'tools.list': z.object({ sandbox: name }).strict(),
  'tools.extract': z.object({ source: z.string().max(1_000_000) }).strict(),
  'kits.list': z.object({}).strict(),
  'scripts.validate': z
    .object({
      code: z.string().max(1_000_000),
      language,
      sandbox: name.optional(),
      kit: name.optional(),
      tools: z.array(name).max(500).optional(),
      strict: z.boolean().optional(),
    })
    .strict(),
  'prompts.build': z
    .object({
      task: z.string().min(1).max(MAX_TASK_CHARS, TASK_LIMIT_MESSAGE),
      sandbox: name,
      kit: name.optional(),
      language: language.optional(),
      attempt: z.number().int().min(1).max(100).optional(),
      previousScript: z.string().max(1_000_000).optional(),
      previousError: z.string().max(1_000_000).optional(),
    })
    .strict(),
  'tools.call': z.object({ sandbox: name, tool: name, args: z.record(z.string(), json) }).strict(),
  'tools.save': z.object({ sandbox: name, source: z.string().max(1_000_000) }).strict(),
  'runs.list': z
    .object({
      status: z.array(status).optional(),
      /** The kinds of run listed (RUN_KINDS); by default `run` only (template tests are hidden). */
      kind: z.array(z.enum(RUN_KINDS)).min(1).optional(),
      sandbox: name.optional(),
      mode: mode.optional(),
      model: z.string().max(200).optional(),
      tier: tier.optional(),
      from: z.number().optional(),
      to: z.number().optional(),
      text: z.string().max(500).optional(),
      limit: z.number().int().min(1).max(1000).optional(),
      offset: z.number().int().min(0).optional(),
      suiteRun: runId.optional(),
      sort: z.enum(RUN_SORT_KEYS).optional(),
      dir: z.enum(['asc', 'desc']).optional(),
      /** Count every match exactly (O(matches)); by default a filtered list counts up to its page. */
      count: z.boolean().optional(),
    })
    .strict(),
  /** A run's record. Prompts are large (the tools manual in every attempt): by default each attempt
   * carries only its prompt's head; `runs.prompt` fetches one attempt's prompt whole. */
  'runs.get': z.object({ runId, prompts: z.boolean().optional() }).strict(),
  'runs.prompt': z.object({ runId, n: z.number().int().min(1) }).strict(),
  /** A run's events after `afterSeq` (all of them without it), prompts as heads: a live view's catch-up
   * after it loaded the record or after its push connection came back. */
  'runs.events': z.object({ runId, afterSeq: z.number().int().min(-1).optional() }).strict(),
  'runs.start': z
    .object({
      task: z.string().min(1).max(MAX_TASK_CHARS, TASK_LIMIT_MESSAGE),
      sandbox: name,
      kit: name.optional(),
      mode: mode.optional(),
      language: language.optional(),
      provider: name.optional(),
      model: z.string().max(200).optional(),
      maxRetries: z.number().int().min(RUN_BUDGETS.maxRetries.min).max(RUN_BUDGETS.maxRetries.max).optional(),
      maxSteps: z.number().int().min(RUN_BUDGETS.maxSteps.min).max(RUN_BUDGETS.maxSteps.max).optional(),
      timeoutS: z.number().int().min(1).max(600).optional(),
      noTemplates: z.boolean().optional(),
    })
    .strict(),
  'runs.cancel': z.object({ runId }).strict(),
  'runs.delete': z.object({ runId }).strict(),
  'runs.replay': z.object({ runId }).strict(),
  'runs.export': z.object({ runId }).strict(),
  /** Sends a finished run as an OpenTelemetry trace to the configured endpoint (`runs export --otlp`). */
  'runs.sendTrace': z.object({ runId }).strict(),
  'runs.import': z.object({ doc: json }).strict(),
  /** Edit-and-rerun: run a script directly (no LLM), linked to its origin run/attempt. */
  'runs.runScript': z
    .object({
      sandbox: name,
      kit: name.optional(),
      language: language.optional(),
      body: z.string().min(1).max(1_000_000),
      task: z.string().max(MAX_TASK_CHARS, TASK_LIMIT_MESSAGE).optional(),
      originRun: runId.optional(),
      originAttempt: z.number().int().min(1).optional(),
    })
    .strict(),
  /** Continue a run from an attempt with an edited script: the script runs first, then PLAN retries continue with the LLM (the run's max retries, at least one). */
  'runs.continue': z
    .object({ runId, attempt: z.number().int().min(1), body: z.string().min(1).max(1_000_000) })
    .strict(),
  'templates.list': z.object({}).strict(),
  'templates.propose': z.object({ runId, attempt: z.number().int().min(1).optional() }).strict(),
  'templates.create': z
    .object({
      name,
      fromRun: runId.optional(),
      attempt: z.number().int().min(1).optional(),
      body: z.string().max(1_000_000).optional(),
      pattern: z.string().min(1).max(2000).optional(),
      slots: z.record(z.string(), slotType).optional(),
      sandbox: name.optional(),
      language: language.optional(),
      kit: name.optional(),
      examples: z
        .array(z.object({ intent: z.string().min(1), expect: json.optional() }))
        .max(100)
        .optional(),
      description: z.string().max(2000).optional(),
      force: z.boolean().optional(),
    })
    .strict(),
  'templates.test': z.object({ name }).strict(),
  'templates.delete': z.object({ name }).strict(),
  'kits.save': z
    .object({
      name,
      sandbox: name,
      description: z.string().max(2000).optional(),
      tools: z.record(z.string(), name),
    })
    .strict(),
  'settings.get': z.object({}).strict(),
  'settings.setProviderKey': z.object({ provider: name, key: z.string().min(1).max(1000) }).strict(),
  /**
   * Run traces (docs/telemetry.md): writes `[telemetry] enabled` and `endpoint` to `.toolsmith/config.toml`
   * (the collector's base URL; traces go to `<endpoint>/v1/traces`); no `endpoint` removes it (the
   * default, http://localhost:4318). The OTEL_* variables still win over the file.
   */
  'settings.setTelemetry': z
    .object({
      enabled: z.boolean(),
      endpoint: z.string().max(2000).superRefine(httpUrlIssue(OTLP_URL_EXAMPLE)).optional(),
    })
    .strict(),
  'system.status': z.object({}).strict(),
  'system.buildImage': z.object({ runtime: runtime, sandbox: z.string().min(1).optional() }).strict(),
  ...suiteRequests,
  ...skillRequests,
  'mcp.servers': z.object({}).strict(),
  'mcp.test': z.object({ name }).strict(),
  /** Adds or edits `[mcp_servers.NAME]` (stdio: command/args/env; HTTP: url/headers), optionally used by a sandbox. */
  'mcp.save': z
    .object({
      name,
      command: z.string().min(1).max(4096).optional(),
      args: z.array(z.string().max(4096)).max(100).optional(),
      env: z.record(z.string(), z.string().max(4096)).optional(),
      url: z.string().max(4096).optional(),
      headers: z.record(z.string(), z.string().max(200)).optional(),
      timeout_ms: z.number().int().positive().max(600_000).optional(),
      startup_timeout_ms: z.number().int().positive().max(600_000).optional(),
      description: z.string().max(2000).optional(),
      sandbox: name.optional(),
    })
    .strict(),
  /** Removes `[mcp_servers.NAME]` and every sandbox's use of it from `.toolsmith/config.toml`. */
  'mcp.remove': z.object({ name }).strict(),
  /** Providers edited from Settings: written to `.toolsmith/config.toml` and used at once. */
  'providers.save': z
    .object({
      id: name,
      kind: z.enum(['openai', 'anthropic']),
      baseUrl: httpUrl.optional(),
      model: z.string().min(1).max(200),
      apiKeyEnv: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
        .max(200)
        .optional(),
      apiKey: z.string().min(1).max(1000).optional(),
      previousId: name.optional(),
      /** A new provider (the Add form): refused when a provider of that id exists, never replacing it. */
      add: z.literal(true).optional(),
    })
    .strict(),
  'providers.remove': z.object({ id: name }).strict(),
  /** Moves a provider to position `to` (0 = first: the default, tried first by the LLM tier). */
  'providers.move': z.object({ id: name, to: z.number().int().min(0).max(1000) }).strict(),
  /** A saved provider by id, or a form's values (kind and model, optionally base URL and key). */
  'providers.test': z
    .object({
      id: name.optional(),
      kind: z.enum(['openai', 'anthropic']).optional(),
      baseUrl: httpUrl.optional(),
      model: z.string().min(1).max(200).optional(),
      apiKey: z.string().min(1).max(1000).optional(),
    })
    .strict(),
  'workspace.recent': z.object({}).strict(),
  /** Opens another workspace (an absolute path to a folder holding .toolsmith/config.toml). */
  'workspace.open': z.object({ path: z.string().min(1).max(4096) }).strict(),
  /** Creates a workspace in a new or empty folder (a copy of the sample, or an empty skeleton) and opens it. */
  'workspace.init': z.object({ path: z.string().min(1).max(4096), empty: z.boolean().optional() }).strict(),
  /** The desktop's folder dialog (the browser front end has none: it answers `refused`). */
  'workspace.choose': z.object({}).strict(),
  /** A person's answer to a tool call waiting for approval (app/approval.ts). */
  'approvals.answer': z
    .object({ id: z.string().uuid(), approved: z.boolean(), reason: z.string().max(500).optional() })
    .strict(),
  /** The tool calls waiting for a person's answer now. */
  'approvals.pending': z.object({}).strict(),
  'sandboxes.create': z
    .object({
      name,
      runtime: runtime,
      description: z.string().max(2000),
    })
    .strict(),
} as const;

/** A run in the run list: the run store's summary row, defined once in core/records/summary.ts. */
export type RunSummaryView = RunSummary;

/** An attempt's prompt without its text: what a timeline needs. */
export type PromptHead = Pick<EventPayloads['prompt'], 'n' | 'kind' | 'hints' | 'correction'> & {
  /** Section titles, in order. */
  titles: string[];
  /** Characters of the user message as sent. */
  chars: number;
};

/** A run as front ends receive it: attempts carry their prompt whole only when asked. */
export type AttemptView = Omit<AttemptRecord, 'prompt'> & { prompt?: EventPayloads['prompt'] | PromptHead };
export type RunRecordView = Omit<RunRecord, 'attempts'> & {
  attempts: AttemptView[];
  /** Set for a case of a suite run: the suite and the suite run it belongs to. */
  suite?: { id: string; name: string };
  /** A live run whose LLM is writing: what it streamed so far of attempt `n` (tokens are not recorded). */
  streaming?: { n: number; text: string };
};

/** A saved template with its counters (the one shape, core/templates/template.ts). */
export type TemplateInfo = TemplateView;

export interface SystemStatus {
  docker: { available: boolean; version?: string; error?: string; hint?: string };
  /** config.toml on disk did not validate: why (the last good config is the one in use). */
  configProblem?: string;
  /** What the config in use holds that does nothing (an `[approval]` name matching no sandbox or kit). */
  configWarnings?: string[];
  isolation: string;
  /** Why the default level is the one running (the process fallback: no engine answered, since when). */
  isolationReason?: string;
  images: { runtime: string; tag: string; present: boolean }[];
  pools: {
    sandbox: string;
    size: number;
    idle: number;
    busy: number;
    queued: number;
    /** Standby workers ready to replace a broken one at once (not counted in size). */
    standby: number;
    standbyStarting: number;
    /** The configured number of standbys (`[pool] standby`). */
    standbyTarget: number;
    /** Workers replaced so far (broken, recycled, reaped). */
    replaced: number;
    /** The last one: when (ISO time) and why (the worker's own reason when it stopped by itself). */
    lastReplaced?: { at: string; reason: string };
  }[];
}

/** Where a provider key set at run time is kept: the desktop keychain, or this process only. */
export type KeyPlace = 'keychain' | 'memory';

export interface SettingsView {
  providers: {
    id: string;
    kind: string;
    model: string;
    baseUrl?: string;
    /** The environment variable the key is read from (CLI), when the config names one. */
    apiKeyEnv?: string;
    /** Where the key in use comes from: set in the desktop keychain, set in this process only, the environment, or none. */
    keySource: KeyPlace | 'env' | 'none';
    /** Whether this provider needs a key at all: a server on this machine (Ollama, llama.cpp) does not. */
    keyNeeded: boolean;
    /** A stored key saved for another URL (not sent to this provider's URL until given again). */
    keyFor?: string;
  }[];
  pool: Record<string, number>;
  limits: Record<string, number>;
  runtimes: { id: string; enabled: boolean }[];
  maxGrade?: { w: number; d: number };
  /** Run traces over OpenTelemetry: whether they are sent, where, and the last export that failed. */
  telemetry: TelemetryView;
}

/** Settings › Telemetry (docs/telemetry.md): what the config and the OTEL_* variables make of it. */
export interface TelemetryView {
  /** Each run's trace is sent when it ends. */
  enabled: boolean;
  /** Why not, when it is off (`off by default: ...`, `OTEL_SDK_DISABLED=true`). */
  why?: string;
  /** Where a trace goes (also when off: the run view's Send trace sends there), without credentials. */
  url: string;
  /** What names that URL: an OTEL_* variable, `traces_endpoint` or `endpoint` of the config, or the default. */
  urlFrom: string;
  /** The config's `[telemetry] endpoint`, as written. */
  endpoint?: string;
  /** The config's `[telemetry] enabled`. */
  configEnabled: boolean;
  /** The OTEL_* variables that decide over the file (set in the environment the service started in). */
  envOverrides: string[];
  /** Settings that were ignored (an OTEL_* endpoint without its scheme, a header variable not set). */
  warnings: string[];
  /** The last trace that was not sent (live export or Send trace), until one is sent. */
  lastError?: { runId: string; at: number; message: string };
}

/** A run event as pushed to front ends and as `runs.events` returns it: a prompt carries its head only. */
export type RunEventView =
  | Exclude<RunEvent, { type: 'prompt' }>
  | (Omit<Extract<RunEvent, { type: 'prompt' }>, 'data'> & { data: PromptHead });

/** Events pushed from the service to front ends. */
export type PushEvent =
  | { type: 'run_event'; event: RunEventView }
  /** The web client's push connection came back after a drop (events may have been missed). */
  | { type: 'reconnected' }
  | { type: 'token'; runId: string; n: number; text: string }
  | {
      type: 'image_progress';
      runtime: string;
      line: string;
      done?: boolean;
      error?: string;
      /** Set for a sandbox's derived image (its dependencies). */
      sandbox?: string | undefined;
    }
  | { type: 'suite_progress'; progress: SuiteProgressView }
  /** A workspace file changed on disk and was applied (or refused: `error`, the last good state kept). */
  | ({ type: 'workspace_changed' } & WorkspaceChange)
  /** The sandbox backend changed level (a Docker engine answered while the process fallback ran). */
  | { type: 'engine_changed'; isolation: string; message: string }
  /** A tool call waits for a person's approval (answer with `approvals.answer`). */
  | { type: 'approval_request'; request: ApprovalView }
  /** The job of a waiting call ended first: the question is gone. */
  | { type: 'approval_withdrawn'; id: string }
  /**
   * A run's OpenTelemetry trace (docs/telemetry.md): `failed`, it was not sent (the endpoint and the
   * cause, `could not export to URL (connection refused)`); `warning`, a setting was ignored.
   */
  | { type: 'telemetry'; runId: string; level: 'failed' | 'warning'; message: string };

/** One tool call waiting for a person (core/tools/approval.ts), with the id its answer names. */
export type ApprovalView = ApprovalRequest & { id: string };

/** What changed in the workspace: its config, a sandbox's tools, the suites, kits or templates. */
export interface WorkspaceChange {
  what: 'config' | 'tools' | 'suites' | 'kits' | 'templates';
  /** The file that changed, when one is known. */
  file?: string;
  sandbox?: string;
  /** Why the change was not applied (file, line, field), the last good state staying in use. */
  error?: string;
}

/** One declared server as front ends see it: its definition, connection status and who uses it. */
export interface McpServerView {
  name: string;
  transport: 'stdio' | 'http';
  /** The command line or URL (env and headers are `env:VAR` references, never secrets). */
  target: string;
  state: 'idle' | 'connecting' | 'connected' | 'error' | 'closed';
  error?: string;
  server?: { name: string; version: string };
  tools?: number;
  connects: number;
  description: string;
  def: {
    command?: string;
    args: string[];
    env: Record<string, string>;
    url?: string;
    headers: Record<string, string>;
    timeout_ms: number;
    startup_timeout_ms?: number;
  };
  sandboxes: string[];
}

export interface ToolsView {
  sandbox: string;
  tools: SandboxTool[];
  problems: Violation[];
  /**
   * What is wrong in the sandbox's selection of MCP tools (`[sandboxes.S.mcp.SERVER]`): an alias refused
   * because scripts already have its name, a tool or alias a server lacks. Absent when nothing is.
   */
  mcpProblems?: string[];
  prompt: string;
  openai: OpenAiFunctionSchema[];
}

export interface Responses extends SuiteResponses, SkillResponses {
  'workspace.info': { workspace: string; name: string; version: string };
  /**
   * `tools` counts every tool a script of the sandbox can call: tools.py's and those of its MCP servers
   * (connected ones; `mcpServers` names every server it uses).
   */
  'sandboxes.list': {
    name: string;
    description: string;
    tools: number;
    problems: number;
    fromMcp?: number;
    mcpServers?: string[];
  }[];
  'tools.list': ToolsView & { source: string };
  'tools.extract': Omit<ToolsView, 'sandbox'>;
  'kits.list': { name: string; sandbox: string; kit?: ResolvedKit; error?: string }[];
  'scripts.validate': ValidationResult;
  'prompts.build': BuiltPrompt;
  'tools.call': { response?: ToolResponse; result: ExecutionResult };
  'tools.save': Omit<ToolsView, 'sandbox'> & { sandbox: string };
  /** `total` is exact when `totalExact`; otherwise the runs known to match through this page, with more after. */
  'runs.list': RunPage;
  'runs.get': RunRecordView;
  'runs.prompt': EventPayloads['prompt'];
  'runs.events': { events: RunEventView[]; live: boolean; streaming?: { n: number; text: string } };
  'runs.start': { runId: string };
  'runs.cancel': { cancelled: boolean };
  'runs.delete': { deleted: true };
  'runs.replay': { runId: string };
  'runs.export': { format: string; version: number; exportedAt: number; events: RunEvent[] };
  'runs.sendTrace': { runId: string; traceId: string; spans: number; url: string; warnings: string[] };
  'runs.import': { runId: string };
  'runs.runScript': { runId: string };
  'runs.continue': { runId: string };
  'templates.list': { templates: TemplateInfo[]; problems: { file: string; error: string }[] };
  'templates.propose': TemplateProposal;
  'templates.create': TemplateInfo;
  'templates.test': TemplateTestResult;
  'templates.delete': { deleted: true };
  'kits.save': { name: string; file: string };
  'settings.get': SettingsView;
  'settings.setProviderKey': { stored: boolean; where: KeyPlace };
  'settings.setTelemetry': TelemetryView;
  'system.status': SystemStatus;
  'system.buildImage': { tag: string };
  'mcp.servers': McpServerView[];
  'mcp.test': { server: McpServerView; tools: SandboxTool[]; ms: number };
  'mcp.save': McpServerView;
  /** The server removed, and the sandboxes that used it (their `[sandboxes.S.mcp.NAME]` removed too). */
  'mcp.remove': { name: string; sandboxes: string[] };
  'providers.save': { id: string; keyStored?: KeyPlace };
  'providers.remove': { removed: true };
  'providers.move': { order: string[] };
  'providers.test': {
    ok: boolean;
    url: string;
    model: string;
    latencyMs: number;
    /** What the model answered (cut short). */
    reply?: string;
    /** Why it failed; always names the URL. */
    error?: string;
  };
  'workspace.recent': {
    current: string;
    recent: { path: string; exists: boolean }[];
    /** A folder dialog exists (desktop). */
    canChoose: boolean;
    /** Switching workspaces is possible in this front end. */
    canOpen: boolean;
    /** The recent list's file was not one and was set aside (said once: the next answer has none). */
    problem?: string;
  };
  'workspace.open': { workspace: string; name: string; version: string };
  'workspace.init': { workspace: string; name: string; version: string };
  'workspace.choose': { path?: string };
  'approvals.answer': { answered: boolean };
  'approvals.pending': ApprovalView[];
  'sandboxes.create': { name: string; file: string };
}

export type Method = keyof typeof requests;
export type Request<M extends Method> = z.infer<(typeof requests)[M]>;
export type Response<M extends Method> = Responses[M];

/** The codes of every error that crosses a boundary (ToolsmithError, ApiError, the renderer's ApiCallError). */
export const ERROR_CODES = [
  'invalid_argument',
  'not_found',
  'invalid_config',
  'refused',
  'infra',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Errors cross every boundary as data. */
export interface ApiError {
  code: ErrorCode;
  message: string;
  details?: unknown;
}

export type ApiResult<M extends Method> = { ok: true; value: Response<M> } | { ok: false; error: ApiError };

/** The surface the renderer talks to: `window.toolsmith` in Electron, the web client in a browser. */
export type ToolsmithApi = { [M in Method]: (req: Request<M>) => Promise<Response<M>> } & {
  /** Subscribes to pushed events; returns the unsubscribe function. */
  onEvent(fn: (e: PushEvent) => void): () => void;
};

export const METHODS = Object.keys(requests) as Method[];
