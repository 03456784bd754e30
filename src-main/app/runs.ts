/**
 * Runs: start (PLAN or INTERACTIVE) through the orchestrator, cancel, list, inspect, export/import,
 * replay from recorded LLM outputs, and run an edited script directly (one attempt, tier `edit`, through
 * the same orchestrator). RunService sees only its narrow `RunDeps`, which the composition root
 * (ToolsmithService) builds; templates live in app/templates.ts.
 */
import type { ScriptLanguage } from '../core/lang/violation.ts';
import { directCallRule } from '../core/inference/rules.ts';
import { Orchestrator, runStartedData } from '../core/orchestrator/orchestrator.ts';
import type {
  RunOutcome,
  RunRequest,
  ScriptSource,
  UnrecordedEvent,
  Validate,
} from '../core/orchestrator/orchestrator.ts';
import { ReplayProvider } from '../core/orchestrator/replay.ts';
import type { Logger, ScriptExecutor } from '../core/ports/executor.ts';
import type { LlmProvider } from '../core/ports/llm.ts';
import type { RunEvent, RunMode } from '../core/records/events.ts';
import { attemptPrompt } from '../core/records/records.ts';
import type { RunRecord } from '../core/records/records.ts';
import { sandboxContext } from '../core/script/context.ts';
import type { JsonValue } from '../core/tools/model.ts';
import type { OfferedSkill } from '../core/skills/offered.ts';
import type { ScriptContext } from '../core/script/context.ts';
import type { ScriptGenerator } from '../core/script/generator.ts';
import { templateSource } from '../core/templates/source.ts';
import type { Template } from '../core/templates/template.ts';
import { DiskFullError } from '../infra/store/run-store.ts';
import type { RunStore } from '../infra/store/run-store.ts';
import type { RunExport, RunFilter } from '../infra/store/run-store.ts';
import type { RunPage } from '../core/records/summary.ts';
import { ToolsmithError } from './errors.ts';
import { taskTooLong } from '../core/records/events.ts';
import { eventView } from './run-view.ts';
import type { EventPayloads } from '../core/records/events.ts';
import type { RunEventView } from '../contract/api.ts';
import { errorMessage } from '../core/errors.ts';
import { NO_ONE_TO_ASK, type ApprovalAsk } from '../core/tools/approval.ts';

/** Every recorded event, streamed LLM tokens and tools' progress (core/orchestrator UnrecordedEvent). */
export type LiveEvent = RunEvent | UnrecordedEvent;

/** What RunService needs, and nothing more (ToolsmithService builds it). */
export interface RunDeps {
  store: RunStore;
  executor: ScriptExecutor;
  generator: ScriptGenerator;
  validate: Validate;
  /** The script context of a sandbox, kit and language (see core/script/context.ts). */
  scriptContext(sandbox: string, kit: string | undefined, language: ScriptLanguage): ScriptContext;
  /** The workspace's limits, read per run (the config can be reloaded). */
  limits(): { timeout_s: number };
  /** The saved templates the template tier serves from. */
  templates(): readonly Template[];
  log?: Logger;
  /**
   * Called once a run has recorded its end, with its id (the run's trace is exported from its events:
   * app/telemetry.ts). Shutdown waits for it, then aborts `signal`; its failure is logged, never the run's.
   */
  /**
   * `signal` aborts when a stopping process gave up waiting (its request is cut); `stopping` as soon as
   * the process starts to stop (no new wait for a collector to come back begins, and one under way ends).
   */
  onRunEnded?: (runId: string, signal: AbortSignal, stopping: AbortSignal) => Promise<void>;
  /** The tools of a script context whose calls need a person's approval (the config's `[approval]`). */
  approvalTools?(ctx: ScriptContext): string[];
  /** Who answers when a run's request names no one (the front end's default: dialog, terminal). */
  ask?: ApprovalAsk;
}

/** The most of a live attempt's streamed text kept for front ends that open it mid-stream. */
const MAX_STREAMED = 64 * 1024;

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
  /** Who answers this run's approval questions (an MCP client's elicitation); else `RunDeps.ask`. */
  ask?: ApprovalAsk;
}

export interface RunScriptRequest {
  sandbox: string;
  kit?: string;
  language?: ScriptLanguage;
  body: string;
  task?: string;
  origin?: RunRecord['started']['origin'];
  /** What the run is for (RUN_KINDS): a template's test is `template_test`. */
  kind?: RunRecord['started']['kind'];
  /** The skills the script may call instead of the offered ones (a skill's own test). */
  skills?: readonly OfferedSkill[];
  /** The script's time limit (default: the workspace's `[limits] timeout_s`). */
  timeoutMs?: number;
  /** The job's inputs (a rerun of an INTERACTIVE step: `collected`, see startEdit). */
  inputs?: Record<string, JsonValue>;
  onEvent?: (e: LiveEvent) => void;
  /** Who answers this run's approval questions (an MCP client's elicitation); else `RunDeps.ask`. */
  ask?: ApprovalAsk;
}

/** A run that is recorded and going: its id, and its outcome when it ends. */
export interface StartedRun {
  runId: string;
  done: Promise<RunOutcome>;
}

export class RunService {
  readonly store: RunStore;
  private readonly deps: RunDeps;
  private readonly orchestrator: Orchestrator;
  private readonly active = new Map<string, AbortController>();
  /** The `done` of every run in flight (shutdown waits for them to record their end). */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Aborted once shutdown has waited: what still runs after a run's end (its trace's request) stops. */
  private readonly afterEnd = new AbortController();
  /** Aborted when shutdown starts (see `onRunEnded`). */
  private readonly stopping = new AbortController();
  private readonly listeners = new Set<(e: LiveEvent) => void>();
  /**
   * What the LLM has streamed so far of each live run's current attempt (tokens are not recorded): a
   * front end that opens the run, or reconnects, mid-stream starts from it instead of mid-word.
   */
  private readonly streamed = new Map<string, { n: number; text: string }>();

  constructor(deps: RunDeps) {
    this.deps = deps;
    this.store = deps.store;
    this.orchestrator = new Orchestrator({
      sink: deps.store,
      executor: deps.executor,
      generator: deps.generator,
      validate: deps.validate,
      ...(deps.log ? { log: deps.log } : {}),
    });
  }

  /** The text streamed so far of a live run's attempt whose script has not arrived yet. */
  streamedText(runId: string): { n: number; text: string } | undefined {
    return this.streamed.get(this.resolveId(runId));
  }

  private followStream(e: LiveEvent): void {
    if (e.type === 'token') {
      const s = this.streamed.get(e.runId);
      const text = (s?.n === e.n ? s.text : '') + e.text;
      this.streamed.set(e.runId, {
        n: e.n,
        text: text.length > MAX_STREAMED ? text.slice(-MAX_STREAMED) : text,
      });
    } else if (e.type === 'script' || e.type === 'run_finished') this.streamed.delete(e.runId);
  }

  /** Subscribes to every live event of every run in this process; returns the unsubscribe function. */
  subscribe(fn: (e: LiveEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private sources(noTemplates: boolean | undefined): ScriptSource[] {
    if (noTemplates) return [];
    return [
      templateSource(this.deps.templates(), (name, success) => this.store.recordTemplateUse(name, success)),
      directCallRule,
    ];
  }

  /**
   * Records the run, then starts the orchestrator on it: the id is known (and the run listed) before
   * anything runs; `done` resolves when it ends. Rejects when the run cannot be recorded.
   */
  private launch(
    request: Omit<RunRequest, 'signal' | 'onEvent' | 'runId'>,
    onEvent: ((e: LiveEvent) => void) | undefined,
  ): StartedRun {
    // Every run starts here (CLI, MCP, web, desktop, suites, replays): the one size check of the task.
    const tooLong = taskTooLong(request.task);
    if (tooLong) throw new ToolsmithError('invalid_argument', tooLong);
    let runId: string;
    try {
      runId = this.store.createRun(runStartedData(request));
    } catch (e) {
      if (e instanceof ToolsmithError) throw e;
      throw new ToolsmithError(
        e instanceof DiskFullError ? 'infra' : 'internal',
        `the run could not be recorded: ${errorMessage(e)}`,
      );
    }
    const ac = new AbortController();
    this.active.set(runId, ac);
    const done = this.orchestrator
      .run({
        ...request,
        runId,
        signal: ac.signal,
        onEvent: (e) => {
          this.followStream(e);
          onEvent?.(e);
          for (const l of this.listeners) l(e);
        },
      })
      // A second wall: whatever escapes the orchestrator ends this run, never the process.
      .catch((e: unknown): RunOutcome => {
        this.deps.log?.error({ event: 'run_crashed', runId, err: String(e) }, 'run crashed');
        return { runId, status: 'failed', error: errorMessage(e) };
      })
      .finally(() => {
        this.active.delete(runId);
        this.streamed.delete(runId);
      });
    this.inFlight.add(done);
    void done.then(
      () => this.inFlight.delete(done),
      () => this.inFlight.delete(done),
    );
    const onEnded = this.deps.onRunEnded;
    if (onEnded) {
      const after: Promise<void> = done
        .then(() => onEnded(runId, this.afterEnd.signal, this.stopping.signal))
        .catch((e: unknown) =>
          this.deps.log?.warn(
            { event: 'run_trace_failed', runId, err: errorMessage(e) },
            'run trace not sent',
          ),
        )
        .finally(() => this.inFlight.delete(after));
      this.inFlight.add(after);
    }
    return { runId, done };
  }

  /** Starts a run; resolves once it is recorded, with its id and `done` (resolves when it ends). */
  async start(req: StartRunRequest): Promise<StartedRun> {
    if (!req.task.trim()) throw new ToolsmithError('invalid_argument', 'the task is empty');
    const language = req.language ?? 'python';
    const ctx = this.deps.scriptContext(req.sandbox, req.kit, language);
    const mode = req.mode ?? 'plan';
    return this.launch(
      {
        task: req.task,
        sandbox: sandboxContext(ctx),
        toolMap: ctx.toolMap,
        ...(ctx.skills?.length ? { skills: ctx.skills } : {}),
        mode,
        providers: req.providers,
        sources: this.sources(req.noTemplates || mode !== 'plan'),
        ...(req.kit ? { kit: req.kit } : {}),
        ...(req.maxRetries !== undefined ? { maxRetries: req.maxRetries } : {}),
        ...(req.maxSteps !== undefined ? { maxSteps: req.maxSteps } : {}),
        timeoutMs: req.timeoutMs ?? this.deps.limits().timeout_s * 1000,
        ...(req.origin ? { origin: req.origin } : {}),
        ...(req.initialScript !== undefined ? { initialScript: req.initialScript } : {}),
        ...this.approval(ctx, req.ask),
      },
      req.onEvent,
    );
  }

  /**
   * A run's approval gate: the context's tools that need a person, answered by the run's own asker, else
   * the front end's, else refused with how to allow them (core/tools/approval.ts).
   */
  private approval(ctx: ScriptContext, ask: ApprovalAsk | undefined): Pick<RunRequest, 'approval'> {
    const tools = this.deps.approvalTools?.(ctx) ?? [];
    if (!tools.length) return {};
    return { approval: { tools, ask: ask ?? this.deps.ask ?? (() => Promise.resolve(NO_ONE_TO_ASK)) } };
  }

  /** Cancels a run; a `reason` (why it was cancelled) is recorded in its error. */
  cancel(runId: string, reason?: string): boolean {
    const ac = this.active.get(runId);
    if (!ac) return false;
    ac.abort(reason);
    return true;
  }

  /**
   * Cancels every run in flight with `reason` and waits (at most `waitMs`) for each to record its end,
   * so that a stopping process leaves runs `cancelled` with the reason, never `interrupted`.
   */
  async shutdown(reason: string, waitMs = 15_000): Promise<void> {
    for (const ac of this.active.values()) ac.abort(reason);
    this.stopping.abort(reason);
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise<void>((r) => (timer = setTimeout(r, waitMs))),
    ]);
    clearTimeout(timer);
    // What still runs after a run's end (its trace on its way to a slow collector) ends here: its request
    // held the process open for its own timeout (OTEL_EXPORTER_OTLP_TIMEOUT: minutes) after this wait.
    this.afterEnd.abort(`no answer after the process waited ${waitMs / 1000} s to stop`);
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

  /** The sandbox a run ran in, from its summary row (no event is read). */
  sandboxOf(runId: string): string {
    const summary = this.store.summary(this.resolveId(runId));
    if (!summary) throw new ToolsmithError('not_found', `no run ${runId}`);
    return summary.sandbox;
  }

  /** A run id, or the start of one (the 8 characters the workbench shows) that names one run. */
  resolveId(idOrPrefix: string): string {
    if (this.store.has(idOrPrefix) || idOrPrefix.length < 4) return idOrPrefix;
    const ids = this.store.idsStartingWith(idOrPrefix, 6);
    if (ids.length > 1)
      throw new ToolsmithError(
        'invalid_argument',
        `${idOrPrefix} is the start of more than one run id (${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', ...' : ''}); give more of it`,
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
      throw new ToolsmithError('invalid_argument', errorMessage(e));
    }
  }

  /** Replays a run from its recorded LLM outputs, in order, with no request to any LLM. */
  async replay(runId: string, onEvent?: (e: LiveEvent) => void): Promise<StartedRun> {
    // One read: the record and the recorded answers come from the same events.
    const found = this.store.getWithEvents(this.resolveId(runId));
    if (!found) throw new ToolsmithError('not_found', `no run ${runId}`);
    const { record: rec, events } = found;
    // A run no LLM answered (served by a template, a rule or an edited script, or every LLM call failed)
    // has nothing to replay: refused here, naming why, rather than recorded as a new failed run whose
    // error blames the replay for running out of answers.
    if (!events.some((e) => e.type === 'llm_response')) {
      const tiers = [...new Set(rec.attempts.flatMap((a) => (a.script && a.tier ? [a.tier] : [])))];
      throw new ToolsmithError(
        'invalid_argument',
        `run ${runId} has no recorded LLM answer to replay: ${
          tiers.length
            ? `its script came from the ${tiers.join(' and ')} tier, not from an LLM`
            : 'no LLM answered during it'
        }; run its task again instead`,
      );
    }
    return this.start({
      task: rec.started.task,
      sandbox: rec.started.sandbox,
      ...(rec.started.kit ? { kit: rec.started.kit } : {}),
      mode: rec.started.mode,
      language: rec.started.language,
      providers: [new ReplayProvider(events)],
      maxRetries: rec.started.maxRetries,
      maxSteps: rec.started.maxSteps,
      ...(rec.started.timeoutMs ? { timeoutMs: rec.started.timeoutMs } : {}),
      noTemplates: true,
      origin: { runId: rec.id, kind: 'replay' },
      ...(onEvent ? { onEvent } : {}),
    });
  }

  /**
   * Continues a run (its record, read once by the caller) from an attempt with an edited script; PLAN
   * retries go on with the providers, the run's `maxRetries` of them, and at least one: a run that had
   * none (`--max-retries 0`, an edited script, an MCP `code` script) ran the edited script alone and
   * never asked the LLM, which is what Continue is for (Run script runs a script alone).
   */
  async continueFrom(
    rec: RunRecord,
    attempt: number,
    body: string,
    providers: LlmProvider[],
  ): Promise<StartedRun> {
    if (!rec.attempts.some((a) => a.n === attempt))
      throw new ToolsmithError('not_found', `run ${rec.id} has no attempt ${attempt}`);
    return this.start({
      task: rec.started.task,
      sandbox: rec.started.sandbox,
      ...(rec.started.kit ? { kit: rec.started.kit } : {}),
      mode: 'plan',
      language: rec.started.language,
      providers,
      maxRetries: providers.length ? Math.max(1, rec.started.maxRetries) : rec.started.maxRetries,
      ...(rec.started.timeoutMs ? { timeoutMs: rec.started.timeoutMs } : {}),
      noTemplates: true,
      initialScript: body,
      origin: { runId: rec.id, attempt, kind: 'continue' },
    });
  }

  /** One attempt's prompt, whole (records and pushed events carry its head only). */
  prompt(runId: string, n: number): EventPayloads['prompt'] {
    // Only the attempt's prompt events are read; the whole record only to say why there is none.
    const found = attemptPrompt(this.store.eventsOfAttempt(this.resolveId(runId), 'prompt', n), n);
    if (found) return found;
    const a = this.get(runId).attempts.find((x) => x.n === n);
    if (!a?.prompt)
      throw new ToolsmithError(
        'not_found',
        `run ${runId} has no prompt at ${a ? 'attempt' : 'unknown attempt'} ${n}`,
      );
    return a.prompt;
  }

  /** A run's events after `afterSeq` (all without it) as front ends see them, and whether it is live. */
  eventViews(
    runId: string,
    afterSeq?: number,
  ): { events: RunEventView[]; live: boolean; streaming?: { n: number; text: string } } {
    const id = this.resolveId(runId);
    const summary = this.store.summary(id);
    if (!summary) throw new ToolsmithError('not_found', `no run ${runId}`);
    const events = afterSeq === undefined ? this.store.events(id) : this.store.eventsAfter(id, afterSeq);
    const streaming = this.streamed.get(id);
    return {
      events: events.map(eventView),
      live: summary.status === 'running',
      ...(streaming ? { streaming } : {}),
    };
  }

  /**
   * An edited script run from the workbench: linked to the run (and attempt) it was edited from, whose
   * task it keeps with "(edited)" unless a task is given.
   */
  async startEdit(
    req: Omit<RunScriptRequest, 'origin'> & { originRun?: string; originAttempt?: number },
  ): Promise<StartedRun> {
    const { originRun, originAttempt, ...rest } = req;
    const origin = originRun
      ? {
          runId: originRun,
          kind: 'edit' as const,
          ...(originAttempt !== undefined ? { attempt: originAttempt } : {}),
        }
      : undefined;
    const rec = originRun ? this.get(originRun) : undefined;
    const from = rec?.started;
    const task = req.task ?? (from ? `${from.task} (edited)` : undefined);
    // A rerun of a run's script keeps that run's time limit (a timeout reproduces as it happened).
    const timeoutMs = req.timeoutMs ?? from?.timeoutMs;
    // An INTERACTIVE step's script reads `collected`, what the steps before it reported: it gets that.
    const inputs =
      req.inputs ??
      (rec && from?.mode === 'interactive' && originAttempt !== undefined
        ? {
            collected: rec.attempts.filter((a) => a.n < originAttempt).flatMap((a) => a.step?.data ?? []),
          }
        : undefined);
    return this.startScript({
      ...rest,
      ...(task !== undefined ? { task } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(inputs ? { inputs } : {}),
      ...(origin ? { origin } : {}),
    });
  }

  /**
   * Starts a script run directly in the sandbox, no LLM (edit-and-rerun, `template test`, MCP `code`):
   * a one-attempt run with tier `edit` through the orchestrator, linked to its origin when given.
   */
  async startScript(req: RunScriptRequest): Promise<StartedRun> {
    const language = req.language ?? 'python';
    const base = this.deps.scriptContext(req.sandbox, req.kit, language);
    const ctx = req.skills ? { ...base, skills: req.skills } : base;
    return this.launch(
      {
        task: req.task ?? '(script run directly)',
        sandbox: sandboxContext(ctx),
        toolMap: ctx.toolMap,
        ...(ctx.skills?.length ? { skills: ctx.skills } : {}),
        mode: 'plan',
        providers: [],
        maxRetries: 0,
        maxSteps: 1,
        initialScript: req.body,
        direct: true,
        timeoutMs: req.timeoutMs ?? this.deps.limits().timeout_s * 1000,
        ...(req.inputs ? { inputs: req.inputs } : {}),
        ...(req.kit ? { kit: req.kit } : {}),
        ...(req.origin ? { origin: req.origin } : {}),
        ...(req.kind ? { kind: req.kind } : {}),
        ...this.approval(ctx, req.ask),
      },
      req.onEvent,
    );
  }

  /** `startScript`, waiting for the run to end. */
  async runScript(req: RunScriptRequest): Promise<RunOutcome> {
    return (await this.startScript(req)).done;
  }

  close(): void {
    for (const ac of this.active.values()) ac.abort();
    this.store.close();
  }
}
