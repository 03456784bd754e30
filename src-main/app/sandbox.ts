/**
 * The sandbox side of the service: the executor the orchestrator runs scripts through, one-off tool
 * calls, pool/Docker status and image builds. Implemented over the infra sandbox backends.
 */
import type { ScriptExecutor } from '../core/ports/executor.ts';
import type { ExecutionResult } from '../core/sandbox/execution.ts';
import type { RuntimeId } from '../core/sandbox/runtimes.ts';
import type { JsonValue, ToolResponse } from '../core/tools/model.ts';
import type { SystemStatus } from '../contract/api.ts';

export interface SandboxManager {
  readonly executor: ScriptExecutor;
  /** Runs one tool in its sandbox with the given arguments. */
  callTool(
    sandbox: string,
    tool: string,
    args: Record<string, JsonValue>,
  ): Promise<{ response?: ToolResponse; result: ExecutionResult }>;
  status(): Promise<SystemStatus>;
  /** The runtime image, and with a sandbox its derived image (requirements.txt / package.json). */
  buildImage(
    runtime: RuntimeId,
    onProgress: (line: string) => void,
    sandbox?: string,
  ): Promise<{ tag: string }>;
  /** Tools.py changed: hot-reload the sandbox's workers. */
  reload(sandbox: string): Promise<void>;
  dispose(): Promise<void>;
  /** Shutdown began (running jobs are about to be cancelled): start no container or process any more. */
  stopSpawning?(): void;
  /** Disposes once the jobs it is running have ended (the config changed: new jobs go to a new one). */
  retire?(): Promise<void>;
}
