/** The port the orchestrator runs scripts through (a Docker or process pool behind it). */
import type { ScriptLanguage } from '../lang/violation.ts';
import type { ExecutionResult, ToolCallTrace } from '../sandbox/execution.ts';
import type { RuntimeId } from '../sandbox/runtimes.ts';
import type { JsonValue } from '../tools/model.ts';
import type { ApprovalGate } from '../tools/approval.ts';

export type LiveExecutionEvent =
  | { type: 'tool_call'; trace: ToolCallTrace }
  | { type: 'emit'; kind: 'intermediate' | 'log'; data: JsonValue }
  /** Progress a tool reported while it ran (an upstream MCP server's notifications/progress); not recorded. */
  | { type: 'tool_progress'; name: string; progress: ToolProgress };

/** One progress report of a running tool call, as MCP's notifications/progress carries it. */
export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface ExecuteRequest {
  sandbox: string;
  language: ScriptLanguage;
  /** The runtime to run it in (never guessed from the code); default python or node by the language. */
  runtime?: RuntimeId;
  /** The assembled script (comments around the body). */
  code: string;
  /** 1-based line of `code` where the body starts: frames are reported in body lines. */
  bodyStartLine: number;
  /** Names the script may call, mapped to the tool they stand for (kit aliases; identity otherwise). */
  tools: Record<string, string>;
  /** The skills defined in `code` (their tool calls are recorded under the skill's name). */
  skills?: readonly string[];
  /** Extra read-only variables for the script (e.g. `collected` on a forced final step). */
  inputs?: Record<string, JsonValue>;
  timeoutMs?: number;
  signal?: AbortSignal;
  onEvent?: (e: LiveExecutionEvent) => void;
  /** Tool calls that wait for a person (core/tools/approval.ts); lines given to `ask` are body lines. */
  approval?: ApprovalGate;
}

export interface ScriptExecutor {
  execute(req: ExecuteRequest): Promise<ExecutionResult>;
  /**
   * Why the job would be refused for its size (undefined when it fits): the whole line a worker would
   * read (core/sandbox/job-line.ts), told before the script is validated. Absent: not checked ahead.
   */
  tooLarge?(req: JobSizeRequest): string | undefined;
}

/** What a job's size is made of (`ScriptExecutor.tooLarge`): the tools whose calls wait for a person by name. */
export type JobSizeRequest = Pick<
  ExecuteRequest,
  'language' | 'code' | 'tools' | 'skills' | 'inputs' | 'timeoutMs'
> & {
  approve?: readonly string[];
};

/** Structured logging port (pino's Logger satisfies it). */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

export const silentLogger: Logger = {
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};
