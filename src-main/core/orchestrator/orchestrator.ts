/**
 * The orchestrator: turns a task into a verified result and records the whole story as events.
 * PLAN mode writes one script and retries with feedback; INTERACTIVE mode works step by step with loop
 * detection. Inference tiers per attempt: templates -> rules -> LLM providers in order, each candidate
 * validated, a provider's invalid script corrected once before the next tier.
 */
import type { CallShape } from '../lang/signature.ts';
import { describeViolations } from '../lang/violation.ts';
import type { ScriptLanguage, ValidationResult } from '../lang/violation.ts';
import { CancelledError, LlmError } from '../ports/llm.ts';
import type { LlmProvider } from '../ports/llm.ts';
import type { Logger, ScriptExecutor, ToolProgress } from '../ports/executor.ts';
import { silentLogger } from '../ports/executor.ts';
import { RUN_BUDGETS } from '../records/events.ts';
import type { EventPayloads, EventType, RunEvent, RunMode, RunStartedData, Tier } from '../records/events.ts';
import type { AssembledScript } from '../script/assemble.ts';
import { fenceTags, LANGUAGE_TAGS, otherLanguageFence } from '../script/assemble.ts';
import { assembleIn } from '../script/context.ts';
import type { OfferedSkill } from '../skills/offered.ts';
import type { BuiltPrompt, ScriptGenerator, SandboxContext } from '../script/generator.ts';
import { FENCES, formatExecutionFailure, LANGUAGE_NAMES } from '../script/generator.ts';
import { capArgs, failureMessage } from '../sandbox/execution.ts';
import { toAgentContext } from '../sandbox/agent-context.ts';
import type { ExecutionError, ExecutionResult } from '../sandbox/execution.ts';
import { callShapes } from '../tools/call-shape.ts';
import type { JsonValue, Tool } from '../tools/model.ts';
import type { ApprovalAnswer, ApprovalAsk, ApprovalGate } from '../tools/approval.ts';
import { errorMessage } from '../errors.ts';
import { LogCoalescer } from './log-coalescer.ts';

/** Live events that are not recorded: streamed LLM tokens, and progress a tool reports while it runs. */
export type UnrecordedEvent =
  | { type: 'token'; runId: string; n: number; text: string }
  | { type: 'tool_progress'; runId: string; n: number; name: string; progress: ToolProgress };

/** Where events go: the run store (append is durable when it returns). */
export interface RunSink {
  createRun(data: RunStartedData): string;
  append<T extends EventType>(runId: string, type: T, data: EventPayloads[T]): RunEvent;
}

/** Serves an intent without an LLM: a template or a rule. */
export interface ScriptSource {
  readonly tier: Extract<Tier, 'template' | 'rule'>;
  /** A script body for the task, or undefined when this source does not apply. */
  propose(
    task: string,
    ctx: { sandbox: string; kit?: string; language: ScriptLanguage; tools: readonly Tool[] },
  ): { body: string; name: string; slots?: Record<string, JsonValue> } | undefined;
  /** Told after the script ran (template counters). */
  outcome?(name: string, success: boolean): void;
  /** Why this source proposed nothing for the task (recorded as a `template_miss` event). */
  explainMiss?(
    task: string,
    ctx: { sandbox: string; kit?: string; language: ScriptLanguage },
  ): Omit<EventPayloads['template_miss'], 'n'>;
}

/**
 * Validates a script against the names it may call; with its sandbox, a call of one of the sandbox's
 * tools or the workspace's skills it may not call says why (excluded tools, skills not offered); with
 * shapes, what each call may pass.
 */
export type Validate = (
  code: string,
  language: ScriptLanguage,
  tools: readonly string[],
  sandbox?: string,
  shapes?: Readonly<Record<string, CallShape>>,
) => ValidationResult;

export interface OrchestratorDeps {
  sink: RunSink;
  executor: ScriptExecutor;
  generator: ScriptGenerator;
  validate: Validate;
  log?: Logger;
}

export interface RunRequest {
  task: string;
  sandbox: SandboxContext;
  /** Script-visible name -> tool name (kit aliases; identity otherwise). */
  toolMap: Record<string, string>;
  /** The skills scripts of this run may call (defined ahead of a body that names them). */
  skills?: readonly OfferedSkill[];
  mode: RunMode;
  providers: LlmProvider[];
  sources?: ScriptSource[];
  kit?: string;
  maxRetries?: number;
  maxSteps?: number;
  timeoutMs?: number;
  origin?: RunStartedData['origin'];
  /** What the run is for (RUN_KINDS); `run` when absent. */
  kind?: RunStartedData['kind'];
  /** Live stream: every recorded event, plus streamed LLM tokens and tools' progress (not recorded). */
  onEvent?: (e: RunEvent | UnrecordedEvent) => void;
  signal?: AbortSignal;
  /** A first-attempt script given by a person (continue-from-attempt with an edited script). */
  initialScript?: string;
  /**
   * The job's inputs, for a script run directly whose text reads them: a rerun of an INTERACTIVE step
   * gets the `collected` of the steps before it, as the step itself did.
   */
  inputs?: Record<string, JsonValue>;
  /**
   * A script run directly (edit-and-rerun, `template test`, the MCP `code` tool): `initialScript` with no
   * retry; the outcome is the execution's own (the emitted result only; a failure as `Type: message`).
   */
  direct?: boolean;
  /** The run, already recorded by the caller with `runStartedData(req)`; created here when absent. */
  runId?: string;
  /** Tool calls that wait for a person, and who answers (core/tools/approval.ts). */
  approval?: { tools: readonly string[]; ask: ApprovalAsk };
}

export interface RunOutcome {
  runId: string;
  status: 'succeeded' | 'failed' | 'cancelled';
  result?: JsonValue;
  error?: string;
}

interface Candidate {
  tier: Tier;
  name?: string;
  script: AssembledScript;
  validation: ValidationResult;
  /** The answer held several code blocks of the run's language, only the longest taken: told on failure. */
  blocks?: number;
  /**
   * The answer held no script, and why (its `withheld-answer` violation's words: a refusal, a content
   * filter, a function call): its text is never shown as a script, to the model or in a run's error.
   */
  noScript?: string;
}

/** An LLM's answer as the tiers judge it: its text, and whether it was cut at the token limit. */
interface Answer {
  text: string;
  truncated?: { reason: string; maxTokens: number };
  /** Not the model's text: a refusal, a content filter, a function call (LlmResponse.withheld). */
  withheld?: string;
  /** A function call beside the answer's text (LlmResponse.functionCall). */
  functionCall?: string;
}

/**
 * An answer whose script is never run, as one violation at the script's last line: `rule` and what the
 * person and the model read (the model then answers again, as for any rejected script).
 */
function answerNotRun(script: AssembledScript, rule: string, message: string): ValidationResult {
  const line = Math.max(1, script.body.replace(/\n$/, '').split('\n').length);
  return { valid: false, violations: [{ rule, message, line, column: 1, endLine: line, endColumn: 1 }] };
}

/**
 * An answer that is not the model's text (its refusal, the provider's content filter, a function call:
 * LlmResponse.withheld): whatever text came with it is never run (a filter can stop a script halfway), and
 * the person and the model read why, not "the answer was empty".
 */
const withheldAnswer = (script: AssembledScript, withheld: string, language: ScriptLanguage) =>
  answerNotRun(script, 'withheld-answer', `${noScriptWords(withheld)}${answerAgain(language)}`);

/** What ends a withheld answer's violation: how to answer instead. */
const answerAgain = (language: ScriptLanguage): string =>
  `. Answer with the whole script in one fenced \`\`\`${FENCES[language]} block`;

/** Why an answer that was not the model's text held no script, in one sentence (no full stop). */
const noScriptWords = (withheld: string): string => `${withheld}, so the answer held no script to run`;

/** The script a rejected candidate is shown to the model (and compared) as: none when its answer held none. */
const shownScript = (c: Candidate): string => (c.noScript !== undefined ? '' : c.script.body);

/**
 * An answer cut at the token limit: its script is incomplete, never run (a cut that falls between two
 * lines parses, and ran as a script missing its end). The model is told its answer was cut and to write a
 * shorter one; the person reads the same, with the provider's setting to raise.
 */
const cutAnswer = (
  script: AssembledScript,
  truncated: NonNullable<Answer['truncated']>,
  language: ScriptLanguage,
) =>
  answerNotRun(
    script,
    'truncated-answer',
    `the answer was cut at the token limit before it ended (${truncated.reason}, max_tokens ${truncated.maxTokens}): its script is incomplete and was not run. Write a shorter script (no comments, no explanation, only the code the task needs) and answer with the whole script in one fenced \`\`\`${FENCES[language]} block`,
  );

/** What a failed script's error is prefixed with when its answer held several code blocks. */
const severalBlocks = (c: Candidate, language: ScriptLanguage): string =>
  c.blocks
    ? `Your answer held ${c.blocks} \`\`\`${FENCES[language]} blocks; only the longest was taken, as the whole script. Put the whole script in one block.\n`
    : '';

/**
 * A script as loop detection compares it: blank lines and trailing spaces dropped, spaces inside a line
 * collapsed and those next to brackets, commas and operators removed; the indentation kept (it is Python's
 * syntax). Two steps that differ only there are the same step.
 */
function scriptKey(script: string): string {
  return script
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''))
    .filter((l) => l !== '')
    .map((l) => {
      const indent = /^[ \t]*/.exec(l)?.[0].replace(/\t/g, '    ') ?? '';
      return (
        indent +
        l
          .trim()
          .replace(/\s*([()[\]{},:;=+\-*/%<>!&|^~.])\s*/g, '$1')
          .replace(/\s+/g, ' ')
      );
    })
    .join('\n');
}

/**
 * What an LLM answer that did not give a script of the run's language is told, to the person and in the
 * correction the LLM gets, instead of a bare "the script is empty" or "syntax error": an answer with text
 * but no code (prose only, every line read as prose), an answer with no fenced block whose text does not
 * parse (a refusal, an explanation), and an answer whose only code block is tagged another language (a
 * ```javascript block for a Python run), whether that code fails to parse or parses and breaks other
 * rules (`wrong-language` first, then its violations).
 */
function noCodeIn(
  answer: string | undefined,
  script: AssembledScript,
  v: ValidationResult,
  functionCall?: string,
): ValidationResult {
  const said = answer?.replace(/\s+/g, ' ').trim();
  if (answer === undefined || v.valid) return v;
  const fence = FENCES[script.language];
  const oneBlock = `answer with the whole script in one fenced \`\`\`${fence} block`;
  // Text with no script beside a call of a function: the call is what the model answered with (it read
  // as "no fenced code block, and its text is not Python", the call unsaid).
  const noCode =
    script.body.trim() === '' || (!fenceTags(answer).length && v.violations.some((x) => x.rule === 'syntax'));
  if (functionCall && said && noCode) {
    const quote = said.length > 120 ? `${said.slice(0, 120)}…` : said;
    return withheldAnswer(
      script,
      `${functionCall}, and that text is not a script (${JSON.stringify(quote)})`,
      script.language,
    );
  }
  if (!said)
    return {
      valid: false,
      violations: v.violations.map((x) =>
        x.rule === 'empty-script'
          ? { ...x, message: `the answer was empty (the model returned no text): ${oneBlock}` }
          : x,
      ),
    };
  const quote = said.length > 120 ? `${said.slice(0, 120)}…` : said;
  const tags = fenceTags(answer ?? '');
  const other = otherLanguageFence(answer ?? '', script.language);
  const rewrite = (rule: string, message: (x: ValidationResult['violations'][number]) => string) => ({
    valid: false,
    violations: v.violations.map((x) => (x.rule === rule ? { ...x, message: message(x) } : x)),
  });
  if (script.body.trim() === '')
    return rewrite(
      'empty-script',
      () => `the answer held no script, only text (${JSON.stringify(quote)}): ${oneBlock}`,
    );
  if (!tags.length)
    return rewrite(
      'syntax',
      (x) =>
        `the answer held no fenced code block, and its text is not ${LANGUAGE_NAMES[script.language]} (${x.message}; the answer began ${JSON.stringify(quote)}): ${oneBlock}`,
    );
  if (other) {
    const name = LANGUAGE_NAMES[script.language];
    const wrong = `the answer's code is a \`\`\`${other} block, but this run's scripts are ${name}`;
    const fix = `write the script in ${name} and ${oneBlock}`;
    if (v.violations.some((x) => x.rule === 'syntax'))
      return rewrite('syntax', (x) => `${wrong} (${x.message}): ${fix}`);
    // JavaScript is TypeScript: a ```js block of a TS run is that run's language.
    if (script.language === 'ts' && LANGUAGE_TAGS.js.includes(other)) return v;
    // Code of the other language that parses as this one (`emitResult(1)` is a Python call): its
    // violations alone (missing-emit, unknown-function) never said the language was wrong.
    return {
      valid: false,
      violations: [
        { rule: 'wrong-language', message: `${wrong}: ${fix}`, line: 1, column: 1, endLine: 1, endColumn: 1 },
        ...v.violations,
      ],
    };
  }
  return v;
}

/** The names a script of the run may call: its tools (kit aliases applied) and its skills. */
const callableNames = (req: Pick<RunRequest, 'toolMap' | 'skills'>): string[] => [
  ...Object.keys(req.toolMap),
  ...(req.skills ?? []).map((s) => s.name),
];

/** A provider's endpoint as a run records it: origin and path, never credentials, query or fragment. */
function endpointOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return undefined;
  }
}

/** What a call of each of a run's tools and skills may pass (its scripts' `tool-arguments` checks). */
function runCallShapes(
  req: Pick<RunRequest, 'sandbox' | 'skills'>,
  language: ScriptLanguage,
): Record<string, CallShape> {
  const seen = new Set(req.sandbox.tools.map((t) => t.name));
  const skills = (req.skills ?? []).map((s) => s.tool).filter((t) => !seen.has(t.name));
  return callShapes([...req.sandbox.tools, ...skills], language);
}

/** The `run_started` record of a request (what the run store creates the run from). */
export function runStartedData(req: RunRequest): RunStartedData {
  return {
    task: req.task,
    sandbox: req.sandbox.name,
    mode: req.mode,
    language: req.sandbox.language ?? 'python',
    maxRetries: req.maxRetries ?? RUN_BUDGETS.maxRetries.default,
    maxSteps: req.maxSteps ?? RUN_BUDGETS.maxSteps.default,
    ...(req.timeoutMs ? { timeoutMs: req.timeoutMs } : {}),
    ...(req.kit ? { kit: req.kit } : {}),
    ...(req.providers[0] ? { provider: req.providers[0].id, model: req.providers[0].model } : {}),
    ...(req.providers.length
      ? {
          providers: req.providers.map((p) => {
            const endpoint = p.url === undefined ? undefined : endpointOf(p.url);
            return {
              id: p.id,
              model: p.model,
              ...(p.kind ? { kind: p.kind } : {}),
              ...(endpoint ? { endpoint } : {}),
              ...(p.maxTokens !== undefined ? { maxTokens: p.maxTokens } : {}),
              ...(p.temperature !== undefined ? { temperature: p.temperature } : {}),
            };
          }),
        }
      : {}),
    ...(req.origin ? { origin: req.origin } : {}),
    ...(req.kind && req.kind !== 'run' ? { kind: req.kind } : {}),
  };
}

/** A run that ended without a result. */
export const failedOutcome = (
  runId: string,
  error: string,
  status: 'failed' | 'cancelled' = 'failed',
): RunOutcome => ({ runId, status, error });

/** The outcome of a script run directly: its emitted result, or its failure as `Type: message`. */
export const directOutcome = (runId: string, result: ExecutionResult): RunOutcome =>
  result.success
    ? { runId, status: 'succeeded', ...(result.data !== undefined ? { result: result.data } : {}) }
    : failedOutcome(runId, failureMessage(result));

export class Orchestrator {
  private readonly deps: OrchestratorDeps;
  private readonly log: Logger;

  constructor(deps: OrchestratorDeps) {
    this.deps = deps;
    this.log = deps.log ?? silentLogger;
  }

  async run(req: RunRequest): Promise<RunOutcome> {
    const started = runStartedData(req);
    const language = started.language;
    const runId = req.runId ?? this.deps.sink.createRun(started);
    const log = this.log.child({ runId });
    log.info(
      { event: 'run_started', task: req.task, sandbox: req.sandbox.name, mode: req.mode },
      'run started',
    );
    const ctx: RunCtx = {
      runId,
      req,
      language,
      log,
      providerErrors: [],
      emit: (type, data) => this.emit(runId, req, type, data),
    };
    let outcome: RunOutcome;
    try {
      outcome = req.mode === 'plan' ? await this.plan(ctx, started) : await this.interactive(ctx, started);
    } catch (e) {
      const cancelled = e instanceof CancelledError || req.signal?.aborted;
      const message = errorMessage(e);
      // A cancel with a reason (the process got SIGTERM, the server is stopping) keeps it in the record;
      // a store that cannot write (disk full) names its cause itself: not an internal error.
      const why = typeof req.signal?.reason === 'string' ? req.signal.reason : undefined;
      const error = cancelled
        ? why
          ? `cancelled: ${why}`
          : 'cancelled'
        : /^disk full\b/.test(message)
          ? message
          : `internal error: ${message}`;
      if (!cancelled)
        log.error({ event: 'run_crashed', err: e instanceof Error ? e.stack : String(e) }, 'run crashed');
      outcome = failedOutcome(runId, error, cancelled ? 'cancelled' : 'failed');
    }
    try {
      ctx.emit('run_finished', {
        status: outcome.status,
        ...(outcome.result !== undefined ? { result: outcome.result } : {}),
        ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      });
    } catch (e) {
      // The end could not be recorded (a full disk past what the store holds in memory): the caller
      // still gets the outcome, with the reason the record is incomplete.
      const why = errorMessage(e);
      log.error({ event: 'run_finished_unrecorded', err: why }, 'the end of the run could not be recorded');
      outcome = {
        ...outcome,
        error: outcome.error ? `${outcome.error}; ${why}` : `the run's end was not recorded: ${why}`,
      };
    }
    log.info({ event: 'run_finished', status: outcome.status }, 'run finished');
    return outcome;
  }

  private emit<T extends EventType>(runId: string, req: RunRequest, type: T, data: EventPayloads[T]): void {
    const event = this.deps.sink.append(runId, type, data);
    req.onEvent?.(event);
  }

  private checkCancel(ctx: RunCtx): void {
    if (ctx.req.signal?.aborted) throw new CancelledError();
  }

  private async plan(ctx: RunCtx, started: RunStartedData): Promise<RunOutcome> {
    const { req, runId } = ctx;
    let previous: { script: string; error: string | ExecutionError } | undefined;
    let lastError = NO_ATTEMPT;
    // The last attempt's candidate was rejected before it ran (`lastError` says why).
    let rejected = false;
    // A template's or a rule's script that failed in the sandbox did not use one of the LLM's attempts:
    // the LLM still gets 1 + max_retries (with max_retries 0, a failed template was the run's end).
    let served: string | undefined;
    // Every attempt the run has (a failed template's adds one): a retry prompt tells the model how many
    // are left after the one it answers for (it said only "Attempt 2.").
    const allAttempts = () => started.maxRetries + 1 + (served ? 1 : 0);
    for (let n = 1; n <= allAttempts(); n++) {
      this.checkCancel(ctx);
      const budget = { attempt: n, of: allAttempts() };
      const cand =
        n === 1 && req.initialScript !== undefined
          ? this.given(ctx, req.initialScript)
          : await this.candidate(
              ctx,
              n,
              this.deps.generator.buildPrompt(req.task, req.sandbox, {
                attempt: n,
                budget,
                ...(previous ? { previousScript: previous.script, previousError: previous.error } : {}),
              }),
              n === 1 ? (req.sources ?? []) : [],
              // A provider's correction of its rejected script is still this attempt: the same budget.
              (previousScript, previousError) =>
                this.deps.generator.buildPrompt(req.task, req.sandbox, {
                  attempt: Math.max(2, n + 1),
                  budget,
                  previousScript,
                  previousError,
                }),
            );
      if (!cand) return failedOutcome(runId, lastErrorOrProviders(ctx, lastError));
      if (!cand.validation.valid) {
        // The LLM gets the corrective paragraph; the run's error is for people: an answer that held no
        // script says why, not "the script failed validation" of a script that never existed.
        lastError = cand.noScript ?? describeViolations(cand.validation.violations);
        rejected = true;
        previous = {
          script: shownScript(cand),
          error: this.feedback(ctx, cand),
        };
        continue;
      }
      const result = await this.execute(
        ctx,
        n,
        cand.script,
        req.direct ? req.inputs : undefined,
        !req.direct,
      );
      // Cancel during execution: the job ended as `Cancelled`; the run is cancelled, not failed.
      this.checkCancel(ctx);
      const value = resultValue(result);
      if (cand.name) this.sourceOutcome(req, cand, result.success && (req.direct || value !== undefined));
      if (req.direct) return directOutcome(runId, result);
      if (result.success && value !== undefined) return { runId, status: 'succeeded', result: value };
      if (result.exitReason === 'infra')
        return failedOutcome(runId, result.error?.message ?? 'the sandbox is not available');
      // A script that ended without emitting anything (its emit_result on a path it did not take) gave no
      // answer: not a success with an empty result, but a failed attempt the next one is told about.
      const err = result.error ?? { type: result.exitReason, message: 'the script failed', frames: [] };
      lastError = `${err.type}: ${err.message}`;
      rejected = false;
      const failure = severalBlocks(cand, ctx.language) + formatExecutionFailure(err, result.toolCalls);
      const source = cand.tier === 'template' || cand.tier === 'rule' ? `${cand.tier} ${cand.name}` : '';
      if (source) served = source;
      previous = {
        script: cand.script.body,
        // The LLM is told whose script it was: it did not write it, a saved template that matched did.
        error: source
          ? `This script is ${source}'s, which matched the task; it failed:\n${failure}`
          : failure,
      };
    }
    // The budget is spent: say so (how many attempts, the setting), then how the last one ended.
    if (req.direct || lastError === NO_ATTEMPT) return failedOutcome(runId, lastError);
    const attempts = started.maxRetries + 1;
    return failedOutcome(
      runId,
      `no result after ${served ? `${served}'s script and ` : ''}${attempts} attempt${attempts === 1 ? '' : 's'} (max_retries ${started.maxRetries}); the last attempt ${rejected ? 'was rejected: ' : 'failed: '}${lastError}`,
    );
  }

  private async interactive(ctx: RunCtx, started: RunStartedData): Promise<RunOutcome> {
    const { req, runId } = ctx;
    const collected: JsonValue[] = [];
    const history: string[] = [];
    // What each step that reported data did (its tool calls and data), to catch one that repeats another.
    const reported: { n: number; key: string }[] = [];
    let forceFinal = false;
    let previous: { script: string; error: string | ExecutionError } | undefined;
    // Each failed step (its script, whitespace aside, and what went wrong), to catch a step that repeats
    // one: the step just before (a retry of the same failure), or an older one (steps going round in
    // circles, A-B-A-B). An older repeat is told to the model once; the next repeat ends the run.
    const failures: { n: number; script: string; outcome: string }[] = [];
    // The step whose repeat of an older one the model was told about.
    let warnedAt: number | undefined;
    // What the last step did, for the error when the steps run out.
    let lastStep = '';
    /** Records a failed step; a failure that repeats an earlier one is a loop (see `failures`). */
    const failedStep = (
      n: number,
      final: boolean,
      script: string,
      summary: string,
      outcome: string,
    ): RunOutcome | undefined => {
      const key = scriptKey(script);
      const earlier = failures.findLast((f) => f.script === key && f.outcome === outcome);
      failures.push({ n, script: key, outcome });
      const noScript = summary === NO_SCRIPT_STEP;
      lastStep = noScript
        ? `the last step's answer held no script: ${outcome}`
        : `the last step ${summary === 'script rejected by the validator' ? 'was rejected by the validator' : 'failed'}: ${outcome}`;
      // What the repeat was: the same script failing the same way, or answers that held no script.
      const same = noScript ? 'the answer held no script again' : 'the same script failed the same way';
      const stop = earlier !== undefined && (earlier.n === n - 1 || warnedAt !== undefined);
      // `stagnant` on a failed step means the loop stopped the run (front ends say so); a first repeat of an
      // older step is told to the model in the history instead.
      ctx.emit('step', {
        n,
        summary,
        stagnant: stop,
        final: final || stop,
        ...(earlier ? { repeats: earlier.n } : {}),
      });
      if (!earlier) return undefined;
      if (!stop) {
        // The first repeat of an older step: the next prompt says so, and the model gets one more chance.
        warnedAt = n;
        history.push(
          `step ${n} repeated step ${earlier.n}: ${noScript ? same : `${same} again`} (${outcome}). Do not ${noScript ? 'answer that way' : 'write it'} again: take a different approach (another tool, other arguments, or answer from \`collected\`); one more repeat ends the run`,
        );
        ctx.log.warn({ event: 'loop', step: n, repeats: earlier.n }, 'a step repeated an earlier failure');
        return undefined;
      }
      ctx.log.warn(
        { event: 'loop', step: n, repeats: earlier.n },
        'a step repeated an earlier failure: stopping',
      );
      return failedOutcome(
        runId,
        earlier.n === n - 1
          ? `step ${n} repeated step ${n - 1}: ${same} (${outcome}); stopped as a loop instead of spending the remaining steps on it`
          : `step ${n} repeated step ${earlier.n}: ${same} (${outcome}), after step ${warnedAt} had repeated an earlier step and the model was told to change course; the steps go round in circles: stopped as a loop instead of spending the remaining steps on it`,
      );
    };
    for (let n = 1; n <= started.maxSteps; n++) {
      this.checkCancel(ctx);
      const final = forceFinal || n === started.maxSteps;
      const stepOptions = { step: n, maxSteps: started.maxSteps, collected, history, final: forceFinal };
      const prompt = this.deps.generator.buildStepPrompt(req.task, req.sandbox, {
        ...stepOptions,
        ...(previous ? { previousScript: previous.script, previousError: previous.error } : {}),
      });
      const cand = await this.candidate(ctx, n, prompt, [], (previousScript, previousError) =>
        this.deps.generator.buildStepPrompt(req.task, req.sandbox, {
          ...stepOptions,
          previousScript,
          previousError,
          correction: true,
        }),
      );
      if (!cand) return failedOutcome(runId, lastErrorOrProviders(ctx, 'no provider produced a script'));
      if (!cand.validation.valid) {
        const msg = this.feedback(ctx, cand);
        // An answer that held no script (a refusal, a content filter, a function call) is said as such:
        // it was no script the validator rejected, and its text is not shown as one.
        const summary = cand.noScript !== undefined ? NO_SCRIPT_STEP : 'script rejected by the validator';
        previous = { script: shownScript(cand), error: msg };
        history.push(`step ${n}: ${summary}${cand.noScript !== undefined ? ` (${cand.noScript})` : ''}`);
        const loop = failedStep(
          n,
          final,
          shownScript(cand),
          summary,
          cand.noScript ?? describeViolations(cand.validation.violations),
        );
        if (loop) return loop;
        continue;
      }
      const result = await this.execute(ctx, n, cand.script, { collected });
      this.checkCancel(ctx);
      if (result.success && result.data !== undefined) {
        ctx.emit('step', {
          n,
          summary: 'emitted the result',
          data: result.data,
          stagnant: false,
          final: true,
        });
        return { runId, status: 'succeeded', result: result.data };
      }
      if (!result.success) {
        if (result.exitReason === 'infra')
          return failedOutcome(runId, result.error?.message ?? 'the sandbox is not available');
        const err = result.error ?? { type: result.exitReason, message: 'the script failed', frames: [] };
        previous = {
          script: cand.script.body,
          error: severalBlocks(cand, ctx.language) + formatExecutionFailure(err, result.toolCalls),
        };
        history.push(`step ${n}: failed with ${err.type}\n${stepContext(result)}`);
        const loop = failedStep(
          n,
          final,
          cand.script.body,
          `failed with ${err.type}`,
          `${err.type}: ${err.message}`,
        );
        if (loop) return loop;
        if (forceFinal)
          return failedOutcome(runId, `the forced final step failed: ${err.type}: ${err.message}`);
        continue;
      }
      previous = undefined;
      const data = result.intermediates;
      // Stagnant: the same tool calls (names and arguments) reporting the same data as an earlier step.
      // The same data from other calls (another page, another warehouse: polling with other arguments)
      // is progress, not a loop.
      const key = JSON.stringify({ calls: result.toolCalls.map((c) => [c.name, c.args]), data });
      const same = reported.findLast((r) => r.key === key);
      const stagnant = same !== undefined;
      reported.push({ n, key });
      collected.push(...data);
      const summary = !same
        ? `reported ${data.length} item${data.length === 1 ? '' : 's'}`
        : same.n === n - 1
          ? 'reported the same data as the step before'
          : `reported the same data with the same calls as step ${same.n}`;
      history.push(`step ${n}: ${summary}\n${stepContext(result)}`);
      lastStep = `the last step ${summary} without calling emit_result`;
      ctx.emit('step', { n, summary, data, stagnant, final });
      if (forceFinal) return failedOutcome(runId, 'the forced final step did not call emit_result');
      if (stagnant) {
        forceFinal = true;
        ctx.log.warn(
          { event: 'stagnation', step: n, repeats: same.n },
          'a step repeated an earlier one: forcing a final step',
        );
      }
    }
    return failedOutcome(
      runId,
      `no result after ${started.maxSteps} steps (max_steps)${lastStep ? `; ${lastStep}` : ''}`,
    );
  }

  private assemble(ctx: RunCtx, body: string): AssembledScript {
    return assembleIn(
      {
        sandbox: ctx.req.sandbox.name,
        toolMap: ctx.req.toolMap,
        language: ctx.language,
        ...(ctx.req.skills ? { skills: ctx.req.skills } : {}),
      },
      body,
    );
  }

  /**
   * A script whose job is too large for the worker's line, as the violation it is reported by instead
   * of validating it (seconds for a 1 MB script, which could never run): its size, the limit and what
   * to do. An INTERACTIVE step's `collected` is not known yet: the sandbox refuses that job the same way.
   */
  private tooLarge(
    ctx: RunCtx,
    script: AssembledScript,
    inputs?: Record<string, JsonValue>,
  ): ValidationResult | undefined {
    const message = this.deps.executor.tooLarge?.({
      language: ctx.language,
      code: script.code,
      tools: ctx.req.toolMap,
      ...(ctx.req.skills?.length ? { skills: ctx.req.skills.map((s) => s.name) } : {}),
      ...(inputs ? { inputs } : {}),
      ...(ctx.req.timeoutMs ? { timeoutMs: ctx.req.timeoutMs } : {}),
      ...(ctx.req.approval?.tools.length ? { approve: ctx.req.approval.tools } : {}),
    });
    if (message === undefined) return undefined;
    return {
      valid: false,
      violations: [{ rule: 'script-too-large', message, line: 1, column: 1, endLine: 1, endColumn: 1 }],
    };
  }

  /** The person-edited first script: recorded with tier `edit`, validated like any other. */
  private given(ctx: RunCtx, body: string): Candidate {
    const tools = callableNames(ctx.req);
    const script = this.assemble(ctx, body);
    const validation =
      this.tooLarge(ctx, script, ctx.req.direct ? ctx.req.inputs : undefined) ??
      this.deps.validate(
        script.body,
        ctx.language,
        tools,
        ctx.req.sandbox.name,
        runCallShapes(ctx.req, ctx.language),
      );
    ctx.emit('tier', { n: 1, tier: 'edit' });
    ctx.emit('script', {
      n: 1,
      code: script.code,
      body: script.body,
      bodyStartLine: script.bodyStartLine,
      language: ctx.language,
      source: 'edit',
    });
    ctx.emit('validation', { n: 1, valid: validation.valid, violations: validation.violations });
    return { tier: 'edit', script, validation };
  }

  /**
   * Runs the tiers for one attempt/step; returns the first valid candidate, else the last invalid one.
   * `correct` builds the prompt that asks a provider to fix its rejected script (an INTERACTIVE step keeps
   * its step framing there: the collected data, the history, the final step's "answer now").
   */
  private async candidate(
    ctx: RunCtx,
    n: number,
    prompt: BuiltPrompt,
    sources: ScriptSource[],
    correct: (previousScript: string, previousError: string) => BuiltPrompt = (
      previousScript,
      previousError,
    ) =>
      this.deps.generator.buildPrompt(ctx.req.task, ctx.req.sandbox, {
        attempt: Math.max(2, n + 1),
        previousScript,
        previousError,
      }),
  ): Promise<Candidate | undefined> {
    const { req, language } = ctx;
    const tools = callableNames(ctx.req);
    const shapes = runCallShapes(req, language);
    const assemble = (body: string) => this.assemble(ctx, body);
    let last: Candidate | undefined;
    const check = (
      tier: Tier,
      script: AssembledScript,
      name?: string,
      answer?: string,
      truncated?: Answer['truncated'],
      withheld?: string,
      functionCall?: string,
    ): Candidate => {
      const validation = withheld
        ? withheldAnswer(script, withheld, language)
        : truncated
          ? cutAnswer(script, truncated, language)
          : (this.tooLarge(ctx, script) ??
            noCodeIn(
              answer,
              script,
              this.deps.validate(script.body, language, tools, req.sandbox.name, shapes),
              functionCall,
            ));
      const noScript = validation.violations.find((v) => v.rule === 'withheld-answer')?.message;
      ctx.emit('script', {
        n,
        code: script.code,
        body: script.body,
        bodyStartLine: script.bodyStartLine,
        language,
        source: tier,
      });
      ctx.emit('validation', { n, valid: validation.valid, violations: validation.violations });
      ctx.log.info(
        {
          event: 'script_generated',
          n,
          tier,
          valid: validation.valid,
          violations: validation.violations.length,
        },
        'script generated',
      );
      const blocks = answer ? fenceTags(answer).filter((t) => LANGUAGE_TAGS[language].includes(t)).length : 0;
      last = {
        tier,
        script,
        validation,
        ...(name ? { name } : {}),
        ...(blocks > 1 ? { blocks } : {}),
        // (the violation's words but how to answer again: what the answer was instead of a script)
        ...(noScript !== undefined
          ? { noScript: noScript.slice(0, noScript.length - answerAgain(language).length) }
          : {}),
      };
      return last;
    };
    for (const source of sources) {
      const proposal = source.propose(req.task, {
        sandbox: req.sandbox.name,
        ...(req.kit ? { kit: req.kit } : {}),
        language,
        tools: req.sandbox.tools,
      });
      if (!proposal) {
        const miss = source.explainMiss?.(req.task, {
          sandbox: req.sandbox.name,
          ...(req.kit ? { kit: req.kit } : {}),
          language,
        });
        if (miss) ctx.emit('template_miss', { n, ...miss });
        continue;
      }
      // The slot values the template matched the task with: `runs show` says what the script was filled with.
      ctx.emit('tier', {
        n,
        tier: source.tier,
        template: proposal.name,
        ...(proposal.slots && Object.keys(proposal.slots).length ? { slots: proposal.slots } : {}),
      });
      const c = check(source.tier, assemble(proposal.body), proposal.name);
      if (c.validation.valid) return c;
      // A template that no longer validates (a skill it calls deleted, a tool renamed) did not serve the
      // task: a failure of that template, as one that fails in the sandbox is.
      this.sourceOutcome(req, c, false);
    }
    for (const provider of req.providers) {
      this.checkCancel(ctx);
      ctx.emit('tier', { n, tier: provider.id === 'replay' ? 'replay' : 'llm', provider: provider.id });
      ctx.emit('prompt', {
        n,
        kind: prompt.kind,
        system: prompt.system,
        user: prompt.user,
        sections: prompt.sections,
        hints: prompt.hints,
      });
      const first = await this.ask(ctx, n, provider, prompt.system, prompt.user, false);
      if (first === undefined) continue;
      const c1 = check(
        'llm',
        assemble(first.text),
        undefined,
        first.text,
        first.truncated,
        first.withheld,
        first.functionCall,
      );
      if (c1.validation.valid) return c1;
      // (an answer that held no script is not quoted back as one: a content filter stopped that text)
      const fix = correct(shownScript(c1), this.feedback(ctx, c1));
      ctx.emit('prompt', {
        n,
        kind: fix.kind,
        system: fix.system,
        user: fix.user,
        sections: fix.sections,
        hints: fix.hints,
        correction: true,
      });
      const second = await this.ask(ctx, n, provider, fix.system, fix.user, true);
      if (second === undefined) continue;
      const c2 = check(
        'llm',
        assemble(second.text),
        undefined,
        second.text,
        second.truncated,
        second.withheld,
        second.functionCall,
      );
      if (c2.validation.valid) return c2;
    }
    return last;
  }

  private async ask(
    ctx: RunCtx,
    n: number,
    provider: LlmProvider,
    system: string,
    user: string,
    correction: boolean,
  ): Promise<Answer | undefined> {
    try {
      const r = await provider.generate({
        system,
        user,
        // An answer cut at max_tokens comes back (its tokens were spent): recorded and counted, and the
        // model told its answer was cut (cutAnswer). It failed the provider with no tokens counted and
        // nothing said to the model.
        acceptTruncated: true,
        ...(ctx.req.signal ? { signal: ctx.req.signal } : {}),
        onToken: (text) => ctx.req.onEvent?.({ type: 'token', runId: ctx.runId, n, text }),
        // Every wait before a retry is in the run's history as it starts: no silent minutes.
        onRetry: (retry) =>
          ctx.emit('llm_retry', { n, provider: provider.id, model: provider.model, ...retry }),
      });
      ctx.emit('llm_response', {
        n,
        text: r.text,
        promptTokens: r.promptTokens,
        completionTokens: r.completionTokens,
        model: r.model,
        provider: r.provider,
        latencyMs: r.latencyMs,
        retries: r.retries,
        ...(r.responseId ? { responseId: r.responseId } : {}),
        ...(r.finishReason ? { finishReason: r.finishReason } : {}),
        ...(r.truncated ? { truncated: r.truncated } : {}),
        ...(r.withheld ? { withheld: r.withheld } : {}),
        ...(r.withheld && r.withheldKind ? { withheldKind: r.withheldKind } : {}),
        ...(r.functionCall ? { functionCall: r.functionCall } : {}),
        ...(correction ? { correction: true } : {}),
      });
      return {
        text: r.text,
        ...(r.truncated ? { truncated: r.truncated } : {}),
        ...(r.withheld ? { withheld: r.withheld } : {}),
        ...(r.functionCall ? { functionCall: r.functionCall } : {}),
      };
    } catch (e) {
      if (e instanceof CancelledError || ctx.req.signal?.aborted) throw new CancelledError();
      const message = errorMessage(e);
      ctx.emit('llm_error', {
        n,
        provider: provider.id,
        message,
        retries: e instanceof LlmError ? e.retries : [],
      });
      ctx.log.warn({ event: 'llm_error', n, provider: provider.id, message }, 'provider failed');
      ctx.providerErrors.push(message);
      return undefined;
    }
  }

  private async execute(
    ctx: RunCtx,
    n: number,
    script: AssembledScript,
    inputs?: Record<string, JsonValue>,
    /** A PLAN attempt: a script that ends without emitting failed (NoResult), in its record too. */
    needsResult = false,
  ): Promise<ExecutionResult> {
    this.checkCancel(ctx);
    // Consecutive log lines are one event (log-coalescer.ts); any other event of the job writes them first.
    const logs = new LogCoalescer(({ text, lines }) =>
      ctx.emit('emit', { n, kind: 'log', data: text, ...(lines > 1 ? { lines } : {}) }),
    );
    let result: ExecutionResult;
    try {
      result = await this.runJob(ctx, n, script, logs, inputs);
    } catch (e) {
      try {
        logs.flush();
      } catch {
        // The job's own error is the one to tell.
      }
      throw e;
    }
    logs.flush();
    if (needsResult && result.success && resultValue(result) === undefined)
      result = { ...result, success: false, exitReason: 'error', error: noResult(ctx.language) };
    ctx.emit('execution', { n, result });
    ctx.log.info(
      {
        event: 'script_executed',
        n,
        success: result.success,
        exitReason: result.exitReason,
        ms: result.durationMs,
        isolation: result.isolation,
      },
      'script executed',
    );
    return result;
  }

  /** Runs one script in the sandbox, its live events recorded as they come. */
  private runJob(
    ctx: RunCtx,
    n: number,
    script: AssembledScript,
    logs: LogCoalescer,
    inputs?: Record<string, JsonValue>,
  ): Promise<ExecutionResult> {
    return this.deps.executor.execute({
      sandbox: ctx.req.sandbox.name,
      language: ctx.language,
      code: script.code,
      bodyStartLine: script.bodyStartLine,
      tools: ctx.req.toolMap,
      ...(ctx.req.skills?.length ? { skills: ctx.req.skills.map((s) => s.name) } : {}),
      ...(inputs ? { inputs } : {}),
      ...(ctx.req.timeoutMs ? { timeoutMs: ctx.req.timeoutMs } : {}),
      ...(ctx.req.signal ? { signal: ctx.req.signal } : {}),
      onEvent: (e) => {
        if (e.type === 'emit' && e.kind === 'log') return logs.add(String(e.data));
        if (e.type === 'tool_progress')
          return ctx.req.onEvent?.({
            type: 'tool_progress',
            runId: ctx.runId,
            n,
            name: e.name,
            progress: e.progress,
          });
        logs.flush();
        if (e.type === 'tool_call') ctx.emit('tool_call', { n, trace: e.trace });
        else ctx.emit('emit', { n, kind: e.kind, data: e.data });
      },
      ...(ctx.req.approval?.tools.length ? { approval: this.gate(ctx, n, ctx.req.approval, logs) } : {}),
    });
  }

  /**
   * The job's approval gate: each answer is an `approval` event of the run before the call goes on. The
   * job's log lines so far are recorded before the question is put (the person sees what led to it).
   */
  private gate(
    ctx: RunCtx,
    n: number,
    a: NonNullable<RunRequest['approval']>,
    logs: LogCoalescer,
  ): ApprovalGate {
    return {
      tools: a.tools,
      ask: async (call, signal) => {
        logs.flush();
        const started = performance.now();
        let answer: ApprovalAnswer;
        try {
          answer = await a.ask({ ...call, runId: ctx.runId, sandbox: ctx.req.sandbox.name }, signal);
        } catch (e) {
          answer = { approved: false, via: 'none', reason: errorMessage(e) };
        }
        ctx.emit('approval', {
          n,
          ...call,
          // The person saw the whole call; its record keeps arguments as a tool call's trace does (16 KB).
          args: capArgs(call.args),
          approved: answer.approved,
          via: answer.via,
          ...(answer.reason ? { reason: answer.reason } : {}),
          waitedMs: Math.round(performance.now() - started),
        });
        return answer;
      },
    };
  }

  /** What the LLM is told of a candidate the validator rejected. */
  private feedback(ctx: RunCtx, cand: Candidate): string {
    return (
      severalBlocks(cand, ctx.language) +
      this.deps.generator.validationErrorMessage(cand.validation.violations)
    );
  }

  private sourceOutcome(req: RunRequest, cand: Candidate, success: boolean): void {
    for (const s of req.sources ?? []) if (s.tier === cand.tier && cand.name) s.outcome?.(cand.name, success);
  }
}

interface RunCtx {
  runId: string;
  req: RunRequest;
  language: ScriptLanguage;
  log: Logger;
  emit: <T extends EventType>(type: T, data: EventPayloads[T]) => void;
  providerErrors: string[];
}

function resultValue(r: ExecutionResult): JsonValue | undefined {
  return r.data !== undefined ? r.data : r.intermediates.length ? r.intermediates : undefined;
}

const NO_ATTEMPT = 'no attempt was made';

/** A step whose answer held no script (Candidate.noScript), as its summary says it. */
const NO_SCRIPT_STEP = 'the answer held no script';

/** A PLAN script that ran to its end without emitting anything (the hint for it says emit_result). */
const noResult = (language: ScriptLanguage): ExecutionError => {
  // In the script's language: a JS/TS run was told to call emit_result.
  const emit = language === 'python' ? 'emit_result' : 'emitResult';
  return {
    type: 'NoResult',
    message: `the script ran to its end but no result was emitted: no ${emit}(...) call was reached on the path it took. Make every path end with ${emit}(answer)`,
    frames: [],
  };
};

function lastErrorOrProviders(ctx: RunCtx, fallback: string): string {
  const errs = ctx.providerErrors;
  // No provider and no attempt: whether or not the workspace has templates or rules, none matched
  // (before, a workspace with templates said only "no attempt was made").
  if (ctx.req.providers.length === 0 && (fallback === NO_ATTEMPT || (ctx.req.sources ?? []).length === 0))
    return 'no LLM provider is configured and no template or rule matched';
  return errs.length ? `no provider produced a script: ${errs.join('; ')}` : fallback;
}

/**
 * A step's execution as the model reads it in the next step's history: the compact `<tool_execution>`
 * XML (tool calls, logs, the error with its line; payloads cut short, since the data is in `collected`).
 */
function stepContext(result: ExecutionResult): string {
  return toAgentContext(result, { maxChars: STEP_CONTEXT_CHARS }).trimEnd();
}

/** The longest payload a step's history entry keeps (its data is also in `collected`). */
const STEP_CONTEXT_CHARS = 300;
