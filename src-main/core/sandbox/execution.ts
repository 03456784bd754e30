import type { z } from 'zod';
import type {
  egressRecordSchema,
  executionErrorSchema,
  executionResultSchema,
  exitReasonSchema,
  isolationLevelSchema,
  toolCallTraceSchema,
  traceFrameSchema,
} from '../records/schemas.ts';

// The shapes of a job's result and traces are the run-event schemas' outputs (core/records/schemas.ts,
// where each field is described): a result is recorded in a run's `execution` event as it is.

/** Why a job ended. */
export type ExitReason = z.output<typeof exitReasonSchema>;

/** How strongly the job was isolated; recorded in every result and shown wherever results are shown. */
export type IsolationLevel = z.output<typeof isolationLevelSchema>;

export type TraceFrame = z.output<typeof traceFrameSchema>;

export type ExecutionError = z.output<typeof executionErrorSchema>;

/** One tool call of a job: name, arguments, result (absent when the call raised), ms, where it ran. */
export type ToolCallTrace = z.output<typeof toolCallTraceSchema>;

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

/** How a script run directly reports a failed result: `Type: message`, or the exit reason alone. */
export const failureMessage = (r: ExecutionResult): string =>
  r.error ? `${r.error.type}: ${r.error.message}` : r.exitReason;
