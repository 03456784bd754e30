import type { JsonValue, ToolResponse } from '../tools/model.ts';

/** Why a job ended. */
export type ExitReason =
  'ok' | 'error' | 'timeout' | 'oom' | 'output_limit' | 'crashed' | 'rejected' | 'infra';

/** How strongly the job was isolated; recorded in every result and shown wherever results are shown. */
export type IsolationLevel = 'docker' | 'gvisor' | 'bubblewrap' | 'process' | 'none';

export interface TraceFrame {
  /** 1-based line in the script body as the user/LLM wrote it (in `file` when set). */
  line: number;
  /** Set for a frame in the sandbox's own tools (a tool that raised): its line is in tools.py. */
  file?: 'tools.py';
  /** Function name, `<script>` for module level. */
  name: string;
  /** The source line, when available. */
  text?: string;
}

export interface ExecutionError {
  /** Python/JS exception type (`KeyError`), or a harness category (`Timeout`, `OutOfMemory`, `Infra`...). */
  type: string;
  message: string;
  frames: TraceFrame[];
}

export interface ToolCallTrace {
  name: string;
  args: Record<string, JsonValue>;
  /** The (size-capped) ToolResponse, absent when the call raised. */
  result?: ToolResponse;
  ms: number;
  error?: string;
  /** `mcp:<server>` for a call proxied to an MCP server. */
  location: 'sandbox' | 'host' | 'mcp' | `mcp:${string}`;
  /** True when the call was refused (tool outside the kit). */
  refused?: boolean;
  /** Outbound requests the tool made through its sandbox's egress proxy (docs/sandboxes.md). */
  egress?: EgressRecord[];
}

/** One outbound request of tool code, recorded by the host's egress proxy. */
export interface EgressRecord {
  host: string;
  port: number;
  /** The HTTP method, or CONNECT for a tunnel (HTTPS: the inner method is not visible). */
  method: string;
  allowed: boolean;
  /** Bytes from the tool to the destination (request head included) and back. */
  bytesOut: number;
  bytesIn: number;
  ms: number;
  /** The proxy's or the destination's HTTP status, when one was seen. */
  status?: number;
  error?: string;
  /** Still open when the tool call ended (bytes so far). */
  open?: boolean;
}

export interface ExecutionResult {
  success: boolean;
  /** The value passed to emit_result, when any. */
  data?: JsonValue;
  intermediates: JsonValue[];
  logs: string[];
  toolCalls: ToolCallTrace[];
  error?: ExecutionError;
  exitReason: ExitReason;
  isolation: IsolationLevel;
  /** What the level's limits are made of where it varies by machine (the process backend: cgroup, uid, seccomp). */
  isolationDetails?: string;
  /** Why this level ran when it is not the one asked for (the process fallback: no Docker engine answered). */
  isolationReason?: string;
  durationMs: number;
  runtime: string;
  /** Outbound requests made through the egress proxy during this job (tool containers only). */
  egress?: EgressRecord[];
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
