/**
 * Run events as zod schemas: the one definition of what an event holds. The event types of events.ts
 * (RunStartedData, EventPayloads, RunEvent) and the execution types of core/sandbox/execution.ts
 * (ExecutionResult, ToolCallTrace, the worker's error and trace shapes) are `z.output` of these schemas,
 * so a field exists in the types exactly when the schema knows it. Used at run time wherever events come
 * from outside this process (an imported export file). An object accepts fields it does not know (a
 * later version may add some) and drops them; every field it knows must have its type.
 *
 * Runtime zod lives here only: the renderer imports events.ts (constants and types) and never this file.
 */
import { z } from 'zod';
import { EVENT_VERSION, RUN_KINDS, RUN_MODES, RUN_STATUSES, TIERS } from './vocabulary.ts';
import type { JsonValue } from '../tools/model.ts';

const obj = <T extends z.ZodRawShape>(shape: T) => z.object(shape);

export const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.null(),
    z.boolean(),
    z.number(),
    z.string(),
    z.array(jsonValueSchema),
    z.record(z.string(), jsonValueSchema),
  ]),
);

const n = z.number().int().min(0);
export const languageSchema = z.enum(['python', 'js', 'ts']);
const language = languageSchema;
const tier = z.enum(TIERS);
export const llmRetrySchema = obj({ attempt: z.number(), reason: z.string(), waitMs: z.number() });
export const violationSchema = obj({
  rule: z.string(),
  message: z.string(),
  line: z.number(),
  column: z.number(),
  endLine: z.number(),
  endColumn: z.number(),
});
export const toolResponseSchema = obj({
  success: z.boolean(),
  message: z.string().optional(),
  data: jsonValueSchema.optional(),
});
/** One outbound request of tool code, recorded by the host's egress proxy (docs/sandboxes.md). */
export const egressRecordSchema = obj({
  host: z.string(),
  port: z.number(),
  /** The HTTP method, or CONNECT for a tunnel (HTTPS: the inner method is not visible). */
  method: z.string(),
  allowed: z.boolean(),
  /** Bytes from the tool to the destination (request head included) and back. */
  bytesOut: z.number(),
  bytesIn: z.number(),
  ms: z.number(),
  /** The proxy's or the destination's HTTP status, when one was seen. */
  status: z.number().optional(),
  error: z.string().optional(),
  /** Still open when the tool call ended (bytes so far). */
  open: z.boolean().optional(),
});
export const toolCallTraceSchema = obj({
  name: z.string(),
  args: z.record(z.string(), jsonValueSchema),
  /** The (size-capped) ToolResponse, absent when the call raised. */
  result: toolResponseSchema.optional(),
  ms: z.number(),
  error: z.string().optional(),
  /** `mcp:<server>` for a call proxied to an MCP server. */
  location: z.union([z.enum(['sandbox', 'host', 'mcp']), z.templateLiteral(['mcp:', z.string()])]),
  /** True when the call was refused (tool outside the kit). */
  refused: z.boolean().optional(),
  /** The skill whose code made the call (core/skills), when a skill did. */
  skill: z.string().optional(),
  /**
   * The call of that skill that made it: the `id` of one of the job's `skillCalls` (absent in runs
   * recorded before skill calls were, and when that call was past the job's bound of recorded ones).
   */
  skillCall: z.number().int().min(1).optional(),
  /** Outbound requests the tool made through its sandbox's egress proxy (docs/sandboxes.md). */
  egress: z.array(egressRecordSchema).optional(),
});
/**
 * One call of a skill (docs/skills.md, "How a skill runs"): recorded by the worker when the call starts
 * and when it ends, so a skill call that failed, or was still running when its job ended, is in the
 * record with the tool calls it made (`ToolCallTrace.skillCall`) and the skill calls it made (`parent`).
 */
export const skillCallTraceSchema = obj({
  /** The call's number in its job, 1 for the first skill call that started. */
  id: z.number().int().min(1),
  name: z.string(),
  /** The skill call that made this one (its `id`): a skill that called a skill, itself included. */
  parent: z.number().int().min(1).optional(),
  /** Its arguments by parameter name, capped as a tool call's are. */
  args: z.record(z.string(), jsonValueSchema),
  /**
   * When it started: ms after the job's start, as the worker measured it from when the job reached it
   * (at most when its start line reached the host).
   */
  at: z.number().min(0),
  /** How long it ran (the worker's clock); for an unfinished call, until the job ended. */
  ms: z.number().min(0),
  /** The exception it ended with: its type and message (the script may have caught it). */
  error: obj({ type: z.string(), message: z.string() }).optional(),
  /** True when the job ended (timeout, crash, the script's end) while the call was still running. */
  unfinished: z.boolean().optional(),
});
export const exitReasonSchema = z.enum([
  'ok',
  'error',
  'timeout',
  'oom',
  'output_limit',
  'crashed',
  'rejected',
  'infra',
]);
export const isolationLevelSchema = z.enum(['docker', 'gvisor', 'bubblewrap', 'process', 'none']);
export const traceFrameSchema = obj({
  /** 1-based line in the script body as the user/LLM wrote it (in `file` when set). */
  line: z.number(),
  /** Set for a frame in the sandbox's own tools (a tool that raised): its line is in tools.py. */
  file: z.literal('tools.py').optional(),
  /** Set for a frame inside a skill the script called: its line is in the skill's source (the function
   * as the Skills view shows it, front matter excluded). */
  skill: z.string().optional(),
  /** Function name, `<script>` for module level. */
  name: z.string(),
  /** The source line, when available. */
  text: z.string().optional(),
});
export const executionErrorSchema = obj({
  /** Python/JS exception type (`KeyError`), or a harness category (`Timeout`, `OutOfMemory`, `Infra`...). */
  type: z.string(),
  message: z.string(),
  frames: z.array(traceFrameSchema),
});
export const executionResultSchema = obj({
  success: z.boolean(),
  /** The value passed to emit_result, when any. */
  data: jsonValueSchema.optional(),
  intermediates: z.array(jsonValueSchema),
  logs: z.array(z.string()),
  toolCalls: z.array(toolCallTraceSchema),
  /**
   * Tool calls made past the job's bound (`limits.tool_calls`): counted, not in `toolCalls` (which holds
   * the first ones). Absent when every call is recorded.
   */
  toolCallsNotRecorded: z.number().int().min(0).optional(),
  /**
   * The job's skill calls, in the order they started (the first `limits.tool_calls` of them). Absent when
   * the job called no skill, and in runs recorded before skill calls were.
   */
  skillCalls: z.array(skillCallTraceSchema).optional(),
  /** Skill calls past the job's bound: counted, not in `skillCalls`. Absent when every one is recorded. */
  skillCallsNotRecorded: z.number().int().min(0).optional(),
  /**
   * Calls that needed approval made past the job's bound of approval requests (`limits.approvals`):
   * refused without asking a person, each with an error naming the bound. Absent when every one was asked.
   */
  approvalsNotAsked: z.number().int().min(0).optional(),
  /**
   * Intermediates the script emitted past the job's bound (`limits.intermediates`): counted, not in
   * `intermediates` nor recorded as events. Absent when every one is recorded.
   */
  intermediatesNotRecorded: z.number().int().min(0).optional(),
  error: executionErrorSchema.optional(),
  exitReason: exitReasonSchema,
  isolation: isolationLevelSchema,
  /** What the level's limits are made of where it varies by machine (the process backend: cgroup, uid, seccomp). */
  isolationDetails: z.string().optional(),
  /** Why this level ran when it is not the one asked for (the process fallback: no Docker engine answered). */
  isolationReason: z.string().optional(),
  durationMs: z.number(),
  /**
   * How long the job waited before it was sent, in ms (a worker started and its tools loaded, or a busy
   * pool): the time before durationMs. Absent when under 1 ms, and in runs recorded before it was kept.
   */
  waitMs: z.number().min(0).optional(),
  runtime: z.string(),
  /** Outbound requests made through the egress proxy during this job (tool containers only). */
  egress: z.array(egressRecordSchema).optional(),
});

export const runStartedSchema = obj({
  task: z.string().min(1),
  sandbox: z.string().min(1),
  kit: z.string().optional(),
  mode: z.enum(RUN_MODES),
  language,
  /** What the run is for (absent in runs recorded before kinds: a `run`). See RUN_KINDS. */
  kind: z.enum(RUN_KINDS).optional(),
  /** The first provider asked and its model (the chain's head; which one answered is per attempt). */
  provider: z.string().optional(),
  model: z.string().optional(),
  /**
   * Every provider the run may ask, in order, with its model, the API it speaks (`openai`, `anthropic`),
   * its endpoint (origin and path: no credentials, no query), its max_tokens and temperature. Runs
   * recorded before these have none of them.
   */
  providers: z
    .array(
      obj({
        id: z.string(),
        model: z.string(),
        kind: z.string().optional(),
        endpoint: z.string().optional(),
        /** What its requests sent: the answer's token limit and the temperature (absent in older runs). */
        maxTokens: z.number().optional(),
        temperature: z.number().optional(),
      }),
    )
    .optional(),
  maxRetries: n,
  maxSteps: n,
  /**
   * The time limit of each of the run's scripts (absent in runs recorded before it): a replay, a
   * continue or a rerun of one of its scripts keeps it, so a timeout is reproduced as it happened.
   */
  timeoutMs: z.number().int().positive().optional(),
  /** The run (and attempt) this one was replayed, edited or continued from, or whose template it tests. */
  origin: obj({
    runId: z.string(),
    attempt: z.number().optional(),
    kind: z.enum(['replay', 'edit', 'continue', 'test']),
  }).optional(),
});

/**
 * One schema per event type: its `data`. `n` is the attempt number in PLAN mode and the step number in
 * INTERACTIVE mode.
 */
export const eventPayloadSchemas = {
  run_started: runStartedSchema,
  tier: obj({
    n,
    tier,
    provider: z.string().optional(),
    template: z.string().optional(),
    /** The values of the template's slots the task matched with (tier `template`; absent before). */
    slots: z.record(z.string(), jsonValueSchema).optional(),
  }),
  prompt: obj({
    n,
    kind: z.enum(['first', 'retry', 'step', 'final']),
    system: z.string(),
    user: z.string(),
    sections: z.array(obj({ title: z.string(), text: z.string() })),
    hints: z.array(z.string()),
    /** The corrective prompt a provider gets after an invalid script (same attempt, same tier). */
    correction: z.boolean().optional(),
  }),
  llm_response: obj({
    n,
    text: z.string(),
    promptTokens: z.number().min(0),
    completionTokens: z.number().min(0),
    model: z.string(),
    provider: z.string(),
    latencyMs: z.number().min(0),
    retries: z.array(llmRetrySchema),
    /** A provider's corrective retry after an invalid script (same tier). */
    correction: z.boolean().optional(),
    /**
     * The answer's id as the provider's API gave it (OpenAI's `id`, Anthropic's message `id`) and why it
     * ended as the API said it (`stop`, `end_turn`): absent in runs recorded before, and in a replay's.
     */
    responseId: z.string().optional(),
    finishReason: z.string().optional(),
    /**
     * The answer stopped at the token limit (its stop reason as the API said it, and the max_tokens
     * sent): its tokens count, its script is not run, the model is told it was cut.
     */
    truncated: obj({ reason: z.string(), maxTokens: z.number() }).optional(),
    /**
     * Why the answer is not the model's text, as the API said it: the model's refusal, the provider's
     * content filter, a function call instead of text. Its script (if any) is not run.
     */
    withheld: z.string().optional(),
    /**
     * What `withheld` says, by kind (a trace names the kind, never the words): absent in runs recorded
     * before it was kept.
     */
    withheldKind: z.enum(['refusal', 'content_filter', 'function_call']).optional(),
    /**
     * A call of a function the model made beside its text, in words: named as what the answer was when
     * that text held no script.
     */
    functionCall: z.string().optional(),
  }),
  llm_error: obj({ n, provider: z.string(), message: z.string(), retries: z.array(llmRetrySchema) }),
  /** A provider's call failed for a transient cause and is tried again after `waitMs` (told live). */
  llm_retry: obj({
    n,
    provider: z.string(),
    model: z.string().optional(),
    attempt: z.number(),
    reason: z.string(),
    waitMs: z.number(),
  }),
  script: obj({
    n,
    code: z.string(),
    body: z.string(),
    bodyStartLine: z.number().int().min(1),
    language,
    source: tier,
  }),
  validation: obj({ n, valid: z.boolean(), violations: z.array(violationSchema) }),
  tool_call: obj({ n, trace: toolCallTraceSchema }),
  /** A person's answer to a call that needed approval (core/tools/approval.ts); a refusal fails the call. */
  approval: obj({
    n,
    tool: z.string(),
    alias: z.string().optional(),
    args: z.record(z.string(), jsonValueSchema),
    line: z.number().int().optional(),
    text: z.string().optional(),
    approved: z.boolean(),
    via: z.enum(['workbench', 'cli', 'mcp', 'none']),
    reason: z.string().optional(),
    /** How long the call waited for the answer. */
    waitedMs: z.number().min(0),
  }),
  /**
   * An intermediate, or the job's log lines: consecutive lines are one event (`data` the lines joined by
   * "\n", `lines` how many; absent in runs recorded before, one line per event), core/orchestrator/log-coalescer.ts.
   */
  emit: obj({
    n,
    kind: z.enum(['intermediate', 'log']),
    data: jsonValueSchema,
    lines: z.number().int().min(1).optional(),
  }),
  execution: obj({ n, result: executionResultSchema }),
  step: obj({
    n,
    summary: z.string(),
    data: jsonValueSchema.optional(),
    stagnant: z.boolean(),
    final: z.boolean(),
    /** A failed step that repeated an earlier one (its script, whitespace aside, and its failure): that step. */
    repeats: n.optional(),
  }),
  /** Why no template served the task: the nearest template and where the task parts from its pattern. */
  template_miss: obj({
    n,
    reason: z.string(),
    template: z.string().optional(),
    pattern: z.string().optional(),
    position: z.number().optional(),
    expected: z.string().optional(),
    found: z.string().optional(),
  }),
  run_finished: obj({
    status: z.enum(
      RUN_STATUSES.filter((s) => s !== 'running' && s !== 'interrupted') as [
        'succeeded',
        'failed',
        'cancelled',
      ],
    ),
    result: jsonValueSchema.optional(),
    error: z.string().optional(),
  }),
};

/** Each event type's data. */
export type EventPayloads = {
  [K in keyof typeof eventPayloadSchemas]: z.output<(typeof eventPayloadSchemas)[K]>;
};

export type EventType = keyof EventPayloads;

export type RunEvent = {
  [T in EventType]: { v: number; runId: string; seq: number; ts: number; type: T; data: EventPayloads[T] };
}[EventType];

export const EVENT_TYPES = Object.keys(eventPayloadSchemas) as EventType[];

/** The envelope of an event (its `data` is checked by its type's schema). */
export const eventEnvelopeSchema = obj({
  v: z.number().int().min(1).max(EVENT_VERSION),
  runId: z.string().min(1),
  seq: z.number().int().min(0),
  ts: z.number().min(0),
  type: z.enum(EVENT_TYPES as [EventType, ...EventType[]]),
  data: z.unknown(),
});

/** One event, checked whole: its envelope, then its data by its type. */
export const runEventSchema: z.ZodType<RunEvent> = eventEnvelopeSchema.superRefine((e, ctx) => {
  const r = eventPayloadSchemas[e.type].safeParse(e.data);
  if (!r.success) for (const i of r.error.issues) ctx.addIssue({ ...i, path: ['data', ...i.path] });
}) as unknown as z.ZodType<RunEvent>;

/** A run export file (`toolsmith runs export`). */
export const runExportSchema = obj({
  format: z.literal('toolsmith-run'),
  version: z.number().int().min(1).max(EVENT_VERSION),
  exportedAt: z.number().optional(),
  events: z.array(z.unknown()).min(1),
});

/**
 * Checks every event of an export before anything is written: the first is run_started, all carry the
 * same run id, sequence numbers increase, at most one run_finished and it comes last. Returns the events
 * or the first problem in words: the run, the event's index and type, and the field at fault.
 */
export function checkRunExport(doc: unknown): { events: RunEvent[] } | { error: string } {
  const version = (doc as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > EVENT_VERSION)
    return {
      error: `export version ${version} is newer than this Toolsmith supports (${EVENT_VERSION}): upgrade Toolsmith to import it`,
    };
  const head = runExportSchema.safeParse(doc);
  if (!head.success) {
    const i = head.error.issues[0]!;
    return {
      error: `not a toolsmith-run export: ${i.path.join('.') || '(root)'}: ${i.message} (expected {"format": "toolsmith-run", "version": ${EVENT_VERSION}, "events": [...]})`,
    };
  }
  const raw = head.data.events;
  const first = raw[0] as { runId?: unknown } | undefined;
  const run = typeof first?.runId === 'string' ? first.runId : '(unknown run)';
  const events: RunEvent[] = [];
  for (let i = 0; i < raw.length; i++) {
    const r = runEventSchema.safeParse(raw[i]);
    const type = (raw[i] as { type?: unknown } | null)?.type;
    const at = `run ${run}, event ${i}${typeof type === 'string' ? ` (${type})` : ''}`;
    if (!r.success) {
      const issue = r.error.issues[0]!;
      return { error: `${at}: ${issue.path.join('.') || '(event)'}: ${issue.message}` };
    }
    const e = r.data;
    if (i === 0 && e.type !== 'run_started')
      return { error: `${at}: type: the first event must be run_started` };
    if (i > 0 && e.type === 'run_started') return { error: `${at}: type: run_started may only come first` };
    if (e.runId !== run) return { error: `${at}: runId: ${e.runId} is not the run's id ${run}` };
    const prev = events.at(-1);
    if (prev && e.seq <= prev.seq)
      return { error: `${at}: seq: ${e.seq} does not follow ${prev.seq} (events must be in order)` };
    if (prev?.type === 'run_finished') return { error: `${at}: type: an event after run_finished` };
    events.push(e);
  }
  return { events };
}
