/**
 * Runs: start (PLAN or INTERACTIVE) through the orchestrator, cancel, list, inspect, export/import,
 * replay from recorded LLM outputs, run an edited script directly, and the template ratchet.
 */
import { randomUUID } from 'node:crypto';
import { describeViolations } from '../core/lang/violation.ts';
import type { ScriptLanguage } from '../core/lang/violation.ts';
import { directCallRule } from '../core/inference/rules.ts';
import { Orchestrator } from '../core/orchestrator/orchestrator.ts';
import type { RunOutcome, RunRequest, ScriptSource } from '../core/orchestrator/orchestrator.ts';
import { ReplayProvider } from '../core/orchestrator/replay.ts';
import type { Logger, ScriptExecutor } from '../core/ports/executor.ts';
import type { LlmProvider } from '../core/ports/llm.ts';
import type { EventPayloads, EventType, RunEvent, RunMode } from '../core/records/events.ts';
import type { RunRecord } from '../core/records/records.ts';
import { assembleScript } from '../core/script/assemble.ts';
import type { ExecutionResult } from '../core/sandbox/execution.ts';
import { templateSource } from '../core/templates/source.ts';
import {
  checkTemplate,
  instantiate,
  matchTemplate,
  proposePattern,
  templateBody,
} from '../core/templates/template.ts';
import type { SlotType, Template, TemplateExample } from '../core/templates/template.ts';
import type { JsonValue } from '../core/tools/model.ts';
import { PYTHON_FRAMEWORK_NAMES, JS_FRAMEWORK_NAMES } from '../core/lang/builtins.ts';
import { RunStore } from '../infra/store/run-store.ts';
import type { RunExport, RunFilter, RunPage } from '../infra/store/run-store.ts';
import { TemplateFiles } from '../infra/workspace/files.ts';
import type { TemplateEntry } from '../infra/workspace/files.ts';
import { ToolsmithError } from './errors.ts';
import type { ToolsmithService } from './service.ts';

export type LiveEvent = RunEvent | { type: 'token'; runId: string; n: number; text: string };

export interface StartRunRequest {
  task: string;
  sandbox: string;
  kit?: string;
  mode?: RunMode;
  language?: ScriptLanguage;
  providers: LlmProvider[];
  maxRetries?: number;
  maxSteps?: number;
  timeoutMs?: number;
  /** Skip the template and rule tiers (e.g. to compare with a fresh LLM answer). */
  noTemplates?: boolean;
  origin?: RunRecord['started']['origin'];
  initialScript?: string;
  onEvent?: (e: LiveEvent) => void;
}

export interface TemplateView extends Template {
  file: string;
  successes: number;
  failures: number;
  lastUsed: number | null;
}

export interface TemplateTestResult {
  name: string;
  examples: {
    intent: string;
    matched: boolean;
    success: boolean;
    data?: JsonValue;
    expected?: JsonValue;
    error?: string;
  }[];
  passed: boolean;
}

export class RunService {
  readonly store: RunStore;
  readonly templates: TemplateFiles;
  private readonly svc: ToolsmithService;
  private readonly executor: ScriptExecutor;
  private readonly log: Logger | undefined;
  private readonly active = new Map<string, AbortController>();
  private readonly listeners = new Set<(e: LiveEvent) => void>();

  constructor(
    svc: ToolsmithService,
    executor: ScriptExecutor,
    opts: { store?: RunStore; log?: Logger } = {},
  ) {
    this.svc = svc;
    this.executor = executor;
    this.store = opts.store ?? new RunStore(`${svc.files.dataDir}/runs.db`);
    this.templates = new TemplateFiles(svc.workspaceDir);
    this.log = opts.log;
  }

  /** Subscribes to every live event of every run in this process; returns the unsubscribe function. */
  subscribe(fn: (e: LiveEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private orchestrator(): Orchestrator {
    return new Orchestrator({
      sink: this.store,
      executor: this.executor,
      generator: this.svc.generator,
      validate: (code, language, tools) => this.svc.validateCode(code, language, { tools }),
      ...(this.log ? { log: this.log } : {}),
    });
  }

  private sources(noTemplates: boolean | undefined): ScriptSource[] {
    if (noTemplates) return [];
    const templates = this.listTemplates().filter((t) => t.successes >= 0);
    return [
      templateSource(templates, (name, success) => this.store.recordTemplateUse(name, success)),
      directCallRule,
    ];
  }

  /** Starts a run; resolves `runId` as soon as it is recorded and `done` when it ends. */
  start(req: StartRunRequest): { runId: Promise<string>; done: Promise<RunOutcome> } {
    if (!req.task.trim()) throw new ToolsmithError('invalid_argument', 'the task is empty');
    const { tools, kit } = this.svc.scriptTools(req.sandbox, req.kit);
    const language = req.language ?? 'python';
    const registry = this.svc.registry(req.sandbox);
    const ac = new AbortController();
    let resolveId: (id: string) => void = () => {};
    let rejectId: (e: unknown) => void = () => {};
    const runId = new Promise<string>((res, rej) => {
      resolveId = res;
      rejectId = rej;
    });
    // Callers that only wait for the id must not wait on the run: swallow here, `done` still rejects.
    runId.catch(() => {});
    const toolMap = Object.fromEntries(kit.tools.map((k) => [k.alias, k.tool.name]));
    const request: RunRequest = {
      task: req.task,
      sandbox: {
        name: req.sandbox,
        tools,
        language,
        ...(req.kit ? { kit: req.kit } : { toolsPrompt: registry.prompt(kit.tools.map((k) => k.tool)) }),
      },
      toolMap,
      mode: req.mode ?? 'plan',
      providers: req.providers,
      sources: this.sources(req.noTemplates || (req.mode ?? 'plan') !== 'plan'),
      ...(req.kit ? { kit: req.kit } : {}),
      ...(req.maxRetries !== undefined ? { maxRetries: req.maxRetries } : {}),
      ...(req.maxSteps !== undefined ? { maxSteps: req.maxSteps } : {}),
      timeoutMs: req.timeoutMs ?? this.svc.config.limits.timeout_s * 1000,
      ...(req.origin ? { origin: req.origin } : {}),
      ...(req.initialScript !== undefined ? { initialScript: req.initialScript } : {}),
      signal: ac.signal,
      onStart: (id) => {
        this.active.set(id, ac);
        resolveId(id);
      },
      onEvent: (e) => {
        req.onEvent?.(e);
        for (const l of this.listeners) l(e);
      },
    };
    const done = this.orchestrator()
      .run(request)
      // A run that could not even be recorded (store closed, disk full) has no id: say so to whoever
      // waits for one instead of leaving them waiting forever. A no-op once the id is known.
      .catch((e: unknown) => {
        rejectId(
          e instanceof ToolsmithError
            ? e
            : new ToolsmithError(
                'internal',
                `the run could not be recorded: ${e instanceof Error ? e.message : String(e)}`,
              ),
        );
        throw e;
      })
      .finally(() => {
        for (const [id, c] of this.active) if (c === ac) this.active.delete(id);
      });
    return { runId, done };
  }

  cancel(runId: string): boolean {
    const ac = this.active.get(runId);
    if (!ac) return false;
    ac.abort();
    return true;
  }

  isActive(runId: string): boolean {
    return this.active.has(runId);
  }

  list(filter: RunFilter = {}): RunPage {
    return this.store.list(filter);
  }

  get(runId: string): RunRecord {
    const rec = this.store.get(this.resolveId(runId));
    if (!rec) throw new ToolsmithError('not_found', `no run ${runId}`);
    return rec;
  }

  /** A run id, or the start of one (the 8 characters the workbench shows) that names one run. */
  resolveId(idOrPrefix: string): string {
    if (this.store.has(idOrPrefix) || idOrPrefix.length < 4) return idOrPrefix;
    const ids = this.store.idsStartingWith(idOrPrefix, 2);
    if (ids.length > 1)
      throw new ToolsmithError(
        'invalid_argument',
        `${idOrPrefix} is the start of more than one run id; give more of it`,
      );
    return ids[0] ?? idOrPrefix;
  }

  delete(idOrPrefix: string): void {
    const runId = this.resolveId(idOrPrefix);
    if (this.active.has(runId))
      throw new ToolsmithError('refused', `run ${runId} is still running; cancel it first`);
    if (!this.store.delete(runId)) throw new ToolsmithError('not_found', `no run ${runId}`);
  }

  export(idOrPrefix: string): RunExport {
    return this.store.export(this.get(idOrPrefix).id);
  }

  import(doc: unknown): string {
    try {
      return this.store.import(doc);
    } catch (e) {
      throw new ToolsmithError('invalid_argument', (e as Error).message);
    }
  }

  /** Replays a run from its recorded LLM outputs, in order, with no request to any LLM. */
  replay(
    runId: string,
    onEvent?: (e: LiveEvent) => void,
  ): { runId: Promise<string>; done: Promise<RunOutcome> } {
    const rec = this.get(runId);
    const events = this.store.events(rec.id);
    return this.start({
      task: rec.started.task,
      sandbox: rec.started.sandbox,
      ...(rec.started.kit ? { kit: rec.started.kit } : {}),
      mode: rec.started.mode,
      language: rec.started.language,
      providers: [new ReplayProvider(events)],
      maxRetries: rec.started.maxRetries,
      maxSteps: rec.started.maxSteps,
      noTemplates: true,
      origin: { runId: rec.id, kind: 'replay' },
      ...(onEvent ? { onEvent } : {}),
    });
  }

  /** Continues a run from an attempt with an edited script; PLAN retries go on with the providers. */
  continueFrom(
    runId: string,
    attempt: number,
    body: string,
    providers: LlmProvider[],
  ): { runId: Promise<string>; done: Promise<RunOutcome> } {
    const rec = this.get(runId);
    if (!rec.attempts.some((a) => a.n === attempt))
      throw new ToolsmithError('not_found', `run ${runId} has no attempt ${attempt}`);
    return this.start({
      task: rec.started.task,
      sandbox: rec.started.sandbox,
      ...(rec.started.kit ? { kit: rec.started.kit } : {}),
      mode: 'plan',
      language: rec.started.language,
      providers,
      maxRetries: rec.started.maxRetries,
      noTemplates: true,
      initialScript: body,
      origin: { runId: rec.id, attempt, kind: 'continue' },
    });
  }

  /**
   * Runs a script directly in the sandbox, no LLM (edit-and-rerun, `toolsmith exec`-like); recorded as a
   * one-attempt run with tier `edit`, linked to its origin when given.
   */
  async runScript(req: {
    sandbox: string;
    kit?: string;
    language?: ScriptLanguage;
    body: string;
    task?: string;
    origin?: RunRecord['started']['origin'];
    onEvent?: (e: LiveEvent) => void;
  }): Promise<RunOutcome> {
    const language = req.language ?? 'python';
    const { kit } = this.svc.scriptTools(req.sandbox, req.kit);
    const toolMap = Object.fromEntries(kit.tools.map((k) => [k.alias, k.tool.name]));
    const runId = this.store.createRun({
      task: req.task ?? '(script run directly)',
      sandbox: req.sandbox,
      mode: 'plan',
      language,
      maxRetries: 0,
      maxSteps: 1,
      ...(req.kit ? { kit: req.kit } : {}),
      ...(req.origin ? { origin: req.origin } : {}),
    });
    const emit = <T extends EventType>(type: T, data: EventPayloads[T]) => {
      const e = this.store.append(runId, type, data);
      req.onEvent?.(e);
      for (const l of this.listeners) l(e);
    };
    const script = assembleScript(req.body, {
      sandbox: req.sandbox,
      tools: Object.keys(toolMap),
      helpers: language === 'python' ? PYTHON_FRAMEWORK_NAMES : JS_FRAMEWORK_NAMES,
      language,
    });
    emit('tier', { n: 1, tier: 'edit' });
    emit('script', {
      n: 1,
      code: script.code,
      body: script.body,
      bodyStartLine: script.bodyStartLine,
      language,
      source: 'edit',
    });
    const validation = this.svc.validateCode(script.body, language, { tools: Object.keys(toolMap) });
    emit('validation', { n: 1, valid: validation.valid, violations: validation.violations });
    if (!validation.valid) {
      const error = describeViolations(validation.violations);
      emit('run_finished', { status: 'failed', error });
      return { runId, status: 'failed', error };
    }
    const result = await this.executor.execute({
      sandbox: req.sandbox,
      language,
      code: script.code,
      bodyStartLine: script.bodyStartLine,
      tools: toolMap,
      timeoutMs: this.svc.config.limits.timeout_s * 1000,
      onEvent: (e) =>
        e.type === 'tool_call'
          ? emit('tool_call', { n: 1, trace: e.trace })
          : emit('emit', { n: 1, kind: e.kind, data: e.data }),
    });
    emit('execution', { n: 1, result });
    const outcome: RunOutcome = result.success
      ? { runId, status: 'succeeded', ...(result.data !== undefined ? { result: result.data } : {}) }
      : {
          runId,
          status: 'failed',
          error: result.error ? `${result.error.type}: ${result.error.message}` : result.exitReason,
        };
    emit('run_finished', {
      status: outcome.status as 'succeeded' | 'failed',
      ...(outcome.result !== undefined ? { result: outcome.result } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
    });
    return outcome;
  }

  // ---- templates (the ratchet) ----

  listTemplates(): TemplateView[] {
    const stats = this.store.templateStats();
    return this.templates.list().flatMap((e: TemplateEntry) =>
      e.template
        ? [
            {
              ...e.template,
              file: e.file,
              successes: stats.get(e.template.name)?.successes ?? 0,
              failures: stats.get(e.template.name)?.failures ?? 0,
              lastUsed: stats.get(e.template.name)?.lastUsed ?? null,
            },
          ]
        : [],
    );
  }

  templateProblems(): { file: string; error: string }[] {
    return this.templates.list().flatMap((e) => (e.error ? [{ file: e.file, error: e.error }] : []));
  }

  /**
   * Promotes a script to a template. From a run: its last successful attempt's script (or `attempt`);
   * the pattern defaults to the run's task with proposed slots. Refused unless the body validates.
   */
  createTemplate(req: {
    name: string;
    fromRun?: string;
    attempt?: number;
    body?: string;
    pattern?: string;
    slots?: Record<string, SlotType>;
    sandbox?: string;
    kit?: string;
    language?: ScriptLanguage;
    examples?: TemplateExample[];
    description?: string;
    force?: boolean;
  }): TemplateView {
    let body = req.body;
    let sandbox = req.sandbox;
    let kit = req.kit;
    let language = req.language ?? 'python';
    let task: string | undefined;
    if (req.fromRun) {
      const rec = this.get(req.fromRun);
      const attempt =
        req.attempt !== undefined
          ? rec.attempts.find((a) => a.n === req.attempt)
          : [...rec.attempts].reverse().find((a) => a.execution?.success);
      if (!attempt?.script)
        throw new ToolsmithError(
          'invalid_argument',
          req.attempt !== undefined
            ? `run ${req.fromRun} has no script at attempt ${req.attempt}`
            : `run ${req.fromRun} has no successful attempt to promote`,
        );
      body ??= attempt.script.body;
      sandbox ??= rec.started.sandbox;
      kit ??= rec.started.kit;
      language = attempt.script.language;
      task = rec.started.task;
    }
    if (!body || !sandbox)
      throw new ToolsmithError(
        'invalid_argument',
        'a template needs a script (--from-run or --file) and a sandbox',
      );
    let pattern = req.pattern;
    let slots = req.slots;
    if (!pattern) {
      if (!task)
        throw new ToolsmithError(
          'invalid_argument',
          'a template needs --pattern (or --from-run to propose one from the task)',
        );
      const proposal = proposePattern(task);
      pattern = proposal.pattern;
      slots ??= proposal.slots;
      body = templateBody(body, proposal.values, language);
    } else if (!slots) {
      slots = Object.fromEntries(
        [...pattern.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => [
          m[1] as string,
          'str' as SlotType,
        ]),
      );
    }
    const examples = req.examples ?? (task ? [{ intent: task }] : []);
    const t: Template = {
      name: req.name,
      pattern,
      slots: slots ?? {},
      sandbox,
      language,
      body,
      examples,
      ...(kit ? { kit } : {}),
      ...(req.description ? { description: req.description } : {}),
      ...(req.fromRun ? { origin: req.fromRun } : {}),
    };
    const problems = checkTemplate(t);
    if (problems.length)
      throw new ToolsmithError('invalid_argument', `template ${req.name}: ${problems.join('; ')}`);
    for (const ex of t.examples) {
      const values = matchTemplate(t, ex.intent);
      if (!values)
        throw new ToolsmithError(
          'invalid_argument',
          `the example ${JSON.stringify(ex.intent)} does not match the pattern ${JSON.stringify(t.pattern)}`,
        );
      const tools = this.svc.scriptTools(sandbox, kit).tools.map((x) => x.name);
      const v = this.svc.validateCode(instantiate(t, values), language, { tools });
      if (!v.valid)
        throw new ToolsmithError(
          'invalid_argument',
          `the template's script does not validate: ${v.violations.map((x) => `${x.line}:${x.column} ${x.rule}`).join(', ')}`,
        );
    }
    if (!req.force && this.templates.list().some((e) => e.template?.name === t.name)) {
      throw new ToolsmithError('refused', `template ${t.name} exists; use --force to replace it`);
    }
    const file = this.templates.write(t);
    this.store.resetTemplateStats(t.name);
    return { ...t, file, successes: 0, failures: 0, lastUsed: null };
  }

  deleteTemplate(name: string): void {
    if (!this.templates.delete(name)) throw new ToolsmithError('not_found', `no template ${name}`);
    this.store.resetTemplateStats(name);
  }

  /** Runs a template against its saved examples in the sandbox (not counted as uses of the template). */
  async testTemplate(name: string): Promise<TemplateTestResult> {
    const t = this.listTemplates().find((x) => x.name === name);
    if (!t)
      throw new ToolsmithError(
        'not_found',
        `no template ${name}; available: ${
          this.listTemplates()
            .map((x) => x.name)
            .join(', ') || 'none'
        }`,
      );
    if (!t.examples.length)
      throw new ToolsmithError('invalid_argument', `template ${name} has no examples to test`);
    const out: TemplateTestResult['examples'] = [];
    for (const ex of t.examples) {
      const values = matchTemplate(t, ex.intent);
      if (!values) {
        out.push({
          intent: ex.intent,
          matched: false,
          success: false,
          error: 'the example does not match the pattern',
        });
        continue;
      }
      const o = await this.runScript({
        sandbox: t.sandbox,
        ...(t.kit ? { kit: t.kit } : {}),
        language: t.language,
        body: instantiate(t, values),
        task: `template test ${name}: ${ex.intent}`,
        ...(t.origin && this.store.get(t.origin)
          ? { origin: { runId: t.origin, kind: 'test' as const } }
          : {}),
      });
      const data = o.result;
      const ok =
        o.status === 'succeeded' &&
        (ex.expect === undefined || JSON.stringify(data) === JSON.stringify(ex.expect));
      // A test is not a use: the counters say how the template served real tasks.
      out.push({
        intent: ex.intent,
        matched: true,
        success: ok,
        ...(data !== undefined ? { data } : {}),
        ...(ex.expect !== undefined ? { expected: ex.expect } : {}),
        ...(o.error ? { error: o.error } : !ok ? { error: 'the result differs from the expected one' } : {}),
      });
    }
    return { name, examples: out, passed: out.every((e) => e.success) };
  }

  close(): void {
    for (const ac of this.active.values()) ac.abort();
    this.store.close();
  }
}

export const newRunId = (): string => randomUUID();
export type { ExecutionResult };
