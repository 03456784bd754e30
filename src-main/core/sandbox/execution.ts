import type { JsonValue, ToolResponse } from '../tools/model.ts';

/** Why a job ended. */
export type ExitReason =
  'ok' | 'error' | 'timeout' | 'oom' | 'output_limit' | 'crashed' | 'rejected' | 'infra';

/** How strongly the job was isolated; recorded in every result and shown wherever results are shown. */
export type IsolationLevel = 'docker' | 'gvisor' | 'bubblewrap' | 'process' | 'none';

export interface TraceFrame {
  /** 1-based line in the script body as the user/LLM wrote it. */
  line: number;
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
  location: 'sandbox' | 'host' | 'mcp';
  /** True when the call was refused (tool outside the kit). */
  refused?: boolean;
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
  durationMs: number;
  runtime: string;
}
