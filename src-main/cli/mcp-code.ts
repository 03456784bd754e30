/**
 * The MCP `code` tool ("code mode"): the client's model sends one script, Toolsmith validates it and runs it
 * over the sandbox's tools through the service's recorded script path (`RunService.runScript`), and answers
 * the result with the run id, so the run can be inspected in the workbench.
 */
import { ToolsmithError } from '../app/errors.ts';
import type { LiveEvent, RunService, StartedRun } from '../app/runs.ts';
import type { RunOutcome } from '../core/orchestrator/orchestrator.ts';
import type { ToolsmithService } from '../app/service.ts';
import { formatExecutionError } from '../core/script/generator.ts';
import type { JsonValue } from '../core/tools/model.ts';
import type { ScriptLanguage, Violation } from '../core/lang/violation.ts';

/** What the `code` tool answers (as JSON text; `isError` unless `status` is `succeeded`). */
export type CodeToolAnswer =
  | { runId: string; status: 'succeeded'; result: JsonValue | null; logs: string[] }
  | { runId: string; status: 'rejected'; error: string; violations: Violation[] }
  | { runId: string; status: 'failed' | 'cancelled'; error: string; logs: string[] };

/** The tool's description: the rules of both languages and the tools manual of every sandbox. */
export function codeToolDescription(svc: ToolsmithService, defaultSandbox: string): string {
  const sandboxes = svc.files.sandboxNames().map((name) => {
    try {
      const { tools } = svc.scriptTools(name);
      return { name, tools, toolsPrompt: svc.registry(name).prompt(tools) };
    } catch (e) {
      // A sandbox whose tools cannot be read is named with the reason, not left out silently.
      const reason = e instanceof Error ? e.message : String(e);
      return { name, tools: [], toolsPrompt: `(its tools cannot be read: ${reason})\n` };
    }
  });
  // Only kits that can be used (a kit above the workspace's maximum grade has an error instead).
  const kits = svc.kits().filter((k) => k.kit && !k.error);
  return svc.generator.codeToolDescription(sandboxes, defaultSandbox, kits);
}

/**
 * The run's outcome; a client that cancels its call (notifications/cancelled) cancels the run too, so
 * its LLM requests and its job stop instead of running on for nobody.
 */
export async function cancelledWith(
  signal: AbortSignal | undefined,
  runs: RunService,
  started: StartedRun,
): Promise<RunOutcome> {
  const cancel = () => void runs.cancel(started.runId);
  if (signal?.aborted) cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  return started.done.finally(() => signal?.removeEventListener('abort', cancel));
}

/**
 * Runs the script as a recorded run. `progress`, when given (the client sent a progress token), hears of
 * each tool call and each `emit_log` line as they happen: a long script is not silent until its end.
 */
export async function runCodeTool(
  svc: ToolsmithService,
  req: { code: string; language: ScriptLanguage; sandbox: string; kit?: string; task?: string },
  progress?: (n: number, message: string) => void,
  signal?: AbortSignal,
): Promise<CodeToolAnswer> {
  // The sandbox's MCP servers first: validation needs their tools, and a server that is down is named.
  const down = await svc.prepareMcp(req.sandbox);
  if (down.length > 0)
    throw new ToolsmithError('infra', `sandbox ${req.sandbox}: ${down.map((d) => d.error).join('; ')}`, {
      servers: down.map((d) => d.server),
    });
  const runs = await svc.runs();
  let n = 0;
  const started = await runs.startScript({
    sandbox: req.sandbox,
    ...(req.kit ? { kit: req.kit } : {}),
    language: req.language,
    body: req.code,
    task: req.task ?? '(script sent to the MCP code tool)',
    ...(progress
      ? {
          onEvent: (e: LiveEvent) => {
            if (e.type === 'tool_call') {
              const t = e.data.trace;
              progress(
                ++n,
                `${t.name}: ${t.error ? 'raised' : t.result?.success ? 'ok' : 'failed'} (${t.ms.toFixed(1)} ms)`,
              );
            } else if (e.type === 'emit' && e.data.kind === 'log')
              progress(++n, `log: ${String(e.data.data)}`);
          },
        }
      : {}),
  });
  const outcome = await cancelledWith(signal, runs, started);
  const attempt = runs.get(outcome.runId).attempts[0];
  const validation = attempt?.validation;
  if (validation && !validation.valid)
    return {
      runId: outcome.runId,
      status: 'rejected',
      error: 'the script was rejected by validation and did not run; fix every violation and send it again',
      violations: validation.violations,
    };
  const execution = attempt?.execution;
  const logs = execution?.logs ?? [];
  if (outcome.status === 'succeeded')
    return { runId: outcome.runId, status: 'succeeded', result: outcome.result ?? null, logs };
  return {
    runId: outcome.runId,
    status: outcome.status,
    error: execution?.error
      ? formatExecutionError(execution.error)
      : (outcome.error ?? execution?.exitReason ?? 'the run failed'),
    logs,
  };
}
