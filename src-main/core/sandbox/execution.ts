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
