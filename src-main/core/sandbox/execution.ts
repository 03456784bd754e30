import type { z } from 'zod';
import type {
  egressRecordSchema,
  executionErrorSchema,
  executionResultSchema,
  exitReasonSchema,
  isolationLevelSchema,
  skillCallTraceSchema,
  toolCallTraceSchema,
  traceFrameSchema,
} from '../records/schemas.ts';
import type { JsonValue } from '../tools/model.ts';

// The shapes of a job's result and traces are the run-event schemas' outputs (core/records/schemas.ts,
// where each field is described): a result is recorded in a run's `execution` event as it is.

/** Why a job ended. */
export type ExitReason = z.output<typeof exitReasonSchema>;

/** How strongly the job was isolated; recorded in every result and shown wherever results are shown. */
export type IsolationLevel = z.output<typeof isolationLevelSchema>;

export type TraceFrame = z.output<typeof traceFrameSchema>;

/** Where a traceback frame is: a line of the script, of tools.py, or of a skill the script called. */
export function frameWhere(f: Pick<TraceFrame, 'line' | 'file' | 'skill'>): string {
  if (f.skill) return `line ${f.line} of skill ${f.skill}`;
  if (f.file) return `${f.file} line ${f.line}`;
  return `line ${f.line}`;
}

export type ExecutionError = z.output<typeof executionErrorSchema>;

/** One tool call of a job: name, arguments, result (absent when the call raised), ms, where it ran. */
export type ToolCallTrace = z.output<typeof toolCallTraceSchema>;

/** One call of a skill in a job: when it started and ran, its arguments, how it ended, its parent call. */
export type SkillCallTrace = z.output<typeof skillCallTraceSchema>;

/** One outbound request of tool code, recorded by the host's egress proxy. */
export type EgressRecord = z.output<typeof egressRecordSchema>;

export type ExecutionResult = z.output<typeof executionResultSchema>;

/**
 * How many tool calls of one job are recorded when the workspace does not say (`limits.tool_calls`):
 * the first ones are kept, the rest counted (`toolCallsNotRecorded`). Unbounded, a script calling a tool
 * in a long loop (an LLM's bug as often as an attack) or tool code writing trace lines made the host keep
 * every trace until the job's timeout, store each in the run store and send each to the workbench.
 */
export const DEFAULT_MAX_TOOL_CALLS = 1000;

/**
 * What a result says of the tool calls it does not hold ("1200 more tool calls not recorded (past the
 * first 1000)"), or undefined when it holds every one: the one wording of the CLI, the MCP results and
 * the workbench.
 */
export function notRecordedNote(
  r: Pick<ExecutionResult, 'toolCalls' | 'toolCallsNotRecorded'>,
): string | undefined {
  const n = r.toolCallsNotRecorded;
  if (!n) return undefined;
  return `${n} more tool call${n === 1 ? '' : 's'} not recorded (past the first ${r.toolCalls.length}; limits.tool_calls)`;
}

/**
 * How many approval requests one job may put to a person when the workspace does not say
 * (`limits.approvals`). Past it, a call that needs approval is refused without asking, with an error
 * naming the bound, and counted (`approvalsNotAsked`). Unbounded, a script calling a gated tool in a loop
 * (or tool code asking again and again) put thousands of questions to a person (dialogs, terminal
 * prompts, MCP elicitations) and added one `approval` event per question to the run's record.
 */
export const DEFAULT_MAX_APPROVALS = 50;

/** The reason a call past the job's bound of approval requests is refused with (its ToolRefused error). */
export function approvalBoundReason(max: number): string {
  return `this job already asked a person ${max} time${max === 1 ? '' : 's'}, its bound (limits.approvals in .toolsmith/config.toml); further calls that need approval are refused without asking`;
}

/**
 * What a result says of the calls that needed approval and were refused without asking a person (past
 * `limits.approvals`), or undefined when every one was asked: the one wording of the CLI, the MCP
 * results and the workbench.
 */
export function notAskedNote(r: Pick<ExecutionResult, 'approvalsNotAsked'>): string | undefined {
  const n = r.approvalsNotAsked;
  if (!n) return undefined;
  return `${n} call${n === 1 ? '' : 's'} needing approval refused without asking (past the job's bound of approval requests; limits.approvals)`;
}

/**
 * How many intermediates of one job are recorded when the workspace does not say
 * (`limits.intermediates`): the first ones are kept (each a run event, sent live), the rest counted
 * (`intermediatesNotRecorded`). Their bytes were bounded by `limits.output_kb` but not their number: a
 * loop of 100,000 tiny `emit_intermediate` calls made 100,000 run events, pushes to the workbench and
 * entries of the execution's record.
 */
export const DEFAULT_MAX_INTERMEDIATES = 1000;

/**
 * What a result says of the intermediates it does not hold ("19000 more intermediates not recorded (past
 * the first 1000)"), or undefined when it holds every one: the one wording of the CLI, the MCP results and
 * the workbench.
 */
export function intermediatesNote(
  r: Pick<ExecutionResult, 'intermediates' | 'intermediatesNotRecorded'>,
): string | undefined {
  const n = r.intermediatesNotRecorded;
  if (!n) return undefined;
  return `${n} more intermediate${n === 1 ? '' : 's'} not recorded (past the first ${r.intermediates.length}; limits.intermediates)`;
}

/**
 * Tool arguments kept in traces are capped like results (the tool itself got the whole value): a script
 * passing a large value to a tool in a loop made every trace hold it (up to a worker line's 4 MB each).
 * Each argument whose JSON is longer than its share of `max` (at least 256 characters) is kept as the
 * start of that JSON and its length; past `max` in all, the remaining arguments are only counted.
 */
export function capArgs(args: Record<string, JsonValue>, max = 16_384): Record<string, JsonValue> {
  const whole = JSON.stringify(args) ?? 'null';
  if (whole.length <= max) return args;
  const cut = (s: string, n: number) => `${s.slice(0, n)}… (${s.length} characters, truncated in the trace)`;
  // (A worker's trace may carry anything as its arguments: kept as the start of its JSON.)
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { '…': cut(whole, max) };
  const keys = Object.keys(args);
  const share = Math.max(256, Math.floor(max / keys.length));
  const out: Record<string, JsonValue> = {};
  let used = 0;
  for (const [i, k] of keys.entries()) {
    if (used >= max) {
      out['…'] = `${keys.length - i} more arguments, not kept in the trace`;
      break;
    }
    const v = args[k] ?? null;
    const s = JSON.stringify(v) ?? 'null';
    out[k] = s.length <= share ? v : cut(s, share);
    used += k.length + Math.min(s.length, share);
  }
  return out;
}

/**
 * An ExecutionResult for a job that failed before or without running its script (no backend, a runtime
 * not enabled, a rejected or unparsable script): the one constructor every layer uses.
 */
export function failedResult(
  exitReason: Exclude<ExitReason, 'ok'>,
  error: { type: string; message: string; frames?: TraceFrame[] },
  runtime: string,
  isolation: IsolationLevel = 'none',
): ExecutionResult {
  return {
    success: false,
    intermediates: [],
    logs: [],
    toolCalls: [],
    exitReason,
    isolation,
    durationMs: 0,
    runtime,
    error: { type: error.type, message: error.message, frames: error.frames ?? [] },
  };
}

/** A job that could not run at all (no engine, no image, no pool, a server down): exit reason `infra`. */
export const infraResult = (
  message: string,
  runtime: string,
  isolation: IsolationLevel = 'none',
): ExecutionResult => failedResult('infra', { type: 'Infra', message }, runtime, isolation);

const utf8Bytes = (s: string): number => new TextEncoder().encode(s).length;

/**
 * An OutputLimit said which output went over the cap and what to do: the worker's words ("the script's
 * output exceeded 51200 bytes") said neither whether the script printed too much (stdout, its log lines)
 * or emitted too much (results, intermediates), nor the setting. Read from what the job had sent before
 * it was stopped: the side that sent most of it is named; when neither had sent much, the piece that
 * went over was not kept and the worker does not say which kind it was, so both are named. Other errors are returned as they are; an explained one is not again.
 * Told by the job's exit reason, never by the error's type alone: a script may raise its own error
 * named OutputLimit (its message was given the output cap's advice).
 */
export function explainOutputLimit(
  error: ExecutionError,
  exitReason: ExitReason,
  sent: Pick<ExecutionResult, 'logs' | 'intermediates' | 'data'>,
  capBytes: number,
): ExecutionError {
  if (exitReason !== 'output_limit' || error.type !== 'OutputLimit') return error;
  if (error.message.includes('limits.output_kb')) return error;
  // The worker names what went over (`... bytes (its prints)`, `(its emits)`; since 2026-12-06): the
  // piece that went over is not kept, so what was kept alone cannot always tell.
  const told = /\s*\(its (prints|emits)\)$/.exec(error.message);
  // (a JS job's own check knows no byte count: "exceeded its limit", given here as the cap)
  const message = (told ? error.message.slice(0, told.index) : error.message).replace(
    /exceeded its limit$/,
    `exceeded ${capBytes} bytes`,
  );
  const printed = sent.logs.reduce((n, l) => n + utf8Bytes(l) + 1, 0);
  const emitted =
    sent.intermediates.reduce<number>((n, v) => n + utf8Bytes(JSON.stringify(v) ?? ''), 0) +
    (sent.data === undefined ? 0 : utf8Bytes(JSON.stringify(sent.data) ?? ''));
  const cap = `the output cap of ${capBytes} bytes (limits.output_kb = ${Math.round(capBytes / 1024)} in .toolsmith/config.toml)`;
  const before = `${printed} bytes printed and ${emitted} emitted before the script was stopped`;
  const emitOnly =
    'emit only the answer the task asks for (a count, the few fields it names), never whole tool responses or long lists';
  // What was kept is what the worker sent before the piece that went over (a Python worker reads prints
  // in pieces of up to 64 KB: a loop's prints may all arrive in the one piece that is not kept).
  const enough = Math.max(1024, capBytes / 16);
  const why =
    told?.[1] === 'prints' || (!told && printed >= enough && printed >= emitted)
      ? `its prints (stdout and log lines) went over ${cap} (${before}): print little or nothing (a count, a few lines, not every item of a loop), and ${emitOnly}`
      : told?.[1] === 'emits' || (!told && emitted >= enough && emitted > printed)
        ? `its emits (results and intermediates) went over ${cap} (${before}): ${emitOnly}; do not emit an intermediate for every item of a loop`
        : `the piece of output that went over ${cap} (one large print or emit, or a burst of prints read at once) was not kept, and the worker does not say which it was (${before}): print little or nothing, and ${emitOnly}`;
  return { ...error, message: `${message.replace(/[.\s]+$/, '')}: ${why}` };
}

/** How a script run directly reports a failed result: `Type: message`, or the exit reason alone. */
export const failureMessage = (r: ExecutionResult): string =>
  r.error ? `${r.error.type}: ${r.error.message}` : r.exitReason;
