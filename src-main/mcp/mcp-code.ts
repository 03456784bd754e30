/**
 * The MCP `code` tool ("code mode"): the client's model sends one script, Toolsmith validates it and runs it
 * over the sandbox's tools through the service's recorded script path (`RunService.runScript`), and answers
 * the result with the run id, so the run can be inspected in the workbench.
 */
import type { ApprovalAsk } from '../core/tools/approval.ts';
import { ToolsmithError } from '../app/errors.ts';
import type { LiveEvent, RunService, StartedRun } from '../app/runs.ts';
import { readThroughOverwrite } from '../infra/store/read-through.ts';
import type { RunOutcome } from '../core/orchestrator/orchestrator.ts';
import type { ToolsmithService } from '../app/service.ts';
import { formatExecutionFailure } from '../core/script/generator.ts';
import { disclosedManual, FULL_MANUAL_MAX_TOOLS } from '../core/tools/disclosure.ts';
import type { JsonValue } from '../core/tools/model.ts';
import type { ToolProgress } from '../core/ports/executor.ts';
import { toolsPrompt as renderManual } from '../core/tools/prompt.ts';
import type { ScriptLanguage, Violation } from '../core/lang/violation.ts';
import { errorMessage } from '../core/errors.ts';
import { errorHints } from '../app/error-hints.ts';

/** What the `code` tool answers (as JSON text; `isError` unless `status` is `succeeded`). */
export type CodeToolAnswer =
  | { runId: string; status: 'succeeded'; result: JsonValue | null; logs: string[] }
  | { runId: string; status: 'rejected'; error: string; violations: Violation[] }
  | { runId: string; status: 'failed' | 'cancelled'; error: string; logs: string[]; hints?: string[] };

/** The tool's description: the rules of both languages and the tools manual of every sandbox. */
export function codeToolDescription(svc: ToolsmithService, defaultSandbox: string): string {
  const maxFull = fullManualMaxTools(svc.workspace.config().mcp.full_manual_max);
  const sandboxes = svc.workspace.sandboxNames().map((name) => {
    try {
      const tools = svc.execution.manualTools(name);
      // The registry caches the manual of its tools; with skills offered the manual is rendered here.
      const skills = tools.some((t) => t.location === 'skill');
      const manual = disclosedManual(tools, maxFull, () =>
        skills ? renderManual(tools) : svc.catalog.registry(name).prompt(tools),
      );
      const toolsPrompt =
        manual.kind === 'full'
          ? manual.text
          : `${manual.text}(an index: ${tools.length} tools. Call the MCP tools \`search_tools\` {query, sandbox} and \`describe_tool\` {name, sandbox} for a tool's parameters and types before using it.)\n`;
      return { name, tools, toolsPrompt, ...(manual.kind === 'index' ? { indexed: true } : {}) };
    } catch (e) {
      // A sandbox whose tools cannot be read is named with the reason, not left out silently.
      const reason = errorMessage(e);
      return { name, tools: [], toolsPrompt: `(its tools cannot be read: ${reason})\n` };
    }
  });
  // Only kits that can be used (a kit above the workspace's maximum grade has an error instead).
  const kits = svc.catalog.kits().filter((k) => k.kit && !k.error);
  const notes = mcpServerNotes(svc);
  return svc.execution.codeToolDescription(sandboxes, defaultSandbox, kits) + (notes ? `\n\n${notes}` : '');
}

/**
 * Sandboxes with more tools than this get an index in the `code` manual instead of the full manual:
 * `$TOOLSMITH_MCP_FULL_MANUAL_MAX` when set (a whole number), else config.toml's `[mcp] full_manual_max`
 * (`configured`), else FULL_MANUAL_MAX_TOOLS.
 */
export function fullManualMaxTools(configured: number = FULL_MANUAL_MAX_TOOLS): number {
  const raw = process.env['TOOLSMITH_MCP_FULL_MANUAL_MAX'];
  const v = raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  return Number.isInteger(v) && v >= 0 ? v : configured;
}

/**
 * What the manual says about the MCP servers whose tools it cannot list yet: still connecting (the
 * tools are added when they connect, and the client is told with notifications/tools/list_changed)
 * or failed (with the reason). Empty when every server of every sandbox is connected.
 */
export function mcpServerNotes(svc: ToolsmithService): string {
  const lines: string[] = [];
  for (const [sandbox, sb] of Object.entries(svc.workspace.config().sandboxes)) {
    for (const server of Object.keys(sb.mcp)) {
      if (!svc.mcp().def(server)) continue;
      const st = svc.mcp().status(server);
      if (st.state === 'connected') continue;
      // Remembered as down (a long-lived process): tried again in the background, and this manual is
      // rebuilt (notifications/tools/list_changed) when it answers.
      const down = svc.mcp().unavailable(server);
      lines.push(
        down
          ? `- ${server} (sandbox ${sandbox}): failed: ${down.error}; unavailable since ${new Date(down.since).toISOString()}; its tools are missing above and are added when it answers again (it is tried again in the background)`
          : st.state === 'error'
            ? `- ${server} (sandbox ${sandbox}): failed: ${st.error ?? 'unknown error'}; its tools are missing above, and calling them retries the connection`
            : `- ${server} (sandbox ${sandbox}): still connecting; its tools are added to this manual when it connects`,
      );
    }
  }
  return lines.length ? `MCP servers not (yet) listed:\n${lines.join('\n')}` : '';
}

/** The part of a registered tool the manual updates (the SDK's RegisteredTool). */
interface UpdatableTool {
  update(updates: { description?: string }): void;
}

/**
 * The `code` tool's manual, kept current: rebuilt whenever an upstream MCP server connects, fails or
 * changes its tools, and pushed to every server object that registered the tool (one per stdio process,
 * one per HTTP session). `update` makes the SDK send notifications/tools/list_changed to that client.
 */
export class CodeManual {
  text: string;
  private readonly tools = new Set<UpdatableTool>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly unsubscribe: () => void;
  private readonly build: () => string;

  constructor(build: () => string, subscribe: (listener: () => void) => () => void) {
    this.build = build;
    this.text = build();
    this.unsubscribe = subscribe(() => this.schedule());
  }

  /** Registers a tool to keep current; returns the function that forgets it (its session ended). */
  attach(tool: UpdatableTool): () => void {
    this.tools.add(tool);
    return () => this.tools.delete(tool);
  }

  /** Several servers changing at once make one rebuild. */
  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.refresh();
    }, 25);
    this.timer.unref?.();
  }

  /** Rebuilds the manual; true when it changed (and the tools were updated). */
  refresh(): boolean {
    let next: string;
    try {
      next = this.build();
    } catch {
      return false;
    }
    if (next === this.text) return false;
    this.text = next;
    for (const t of this.tools) t.update({ description: next });
    return true;
  }

  close(): void {
    this.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    this.tools.clear();
  }
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

/** The longest upstream progress message relayed (characters). */
const MAX_PROGRESS_MESSAGE = 300;

/**
 * A line for the progress an upstream MCP server reported during a tool call, relayed to the client:
 * the tool, the server's own message, and its count (`of total` when it gave one).
 */
export function toolProgressLine(name: string, p: ToolProgress): string {
  const count = p.total !== undefined ? `${p.progress}/${p.total}` : String(p.progress);
  // A server's message is its own text: one line of a sensible length reaches the client.
  const message = p.message?.replace(/\s+/g, ' ').trim().slice(0, MAX_PROGRESS_MESSAGE);
  return `${name}: ${message ? `${message} (${count})` : `progress ${count}`}`;
}

/**
 * Runs the script as a recorded run. `progress`, when given (the client sent a progress token), hears of
 * each tool call, each `emit_log` line and each progress report of an upstream MCP server during a call
 * as they happen: a long script is not silent until its end.
 */
export async function runCodeTool(
  svc: ToolsmithService,
  req: { code: string; language: ScriptLanguage; sandbox: string; kit?: string; task?: string },
  progress?: (n: number, message: string) => void,
  signal?: AbortSignal,
  /** Who answers the script's calls that need approval (the client, through elicitation). */
  ask?: ApprovalAsk,
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
    ...(ask ? { ask } : {}),
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
            else if (e.type === 'tool_progress') progress(++n, toolProgressLine(e.name, e.progress));
          },
        }
      : {}),
  });
  const outcome = await cancelledWith(signal, runs, started);
  // (through a copy going on over the store, until the call is cancelled: read-through.ts)
  const attempt = (await readThroughOverwrite(() => runs.get(outcome.runId), undefined, signal)).attempts[0];
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
  // Calls past the bound of recorded tool calls: the run's record (toolsmith://runs/<id>) lacks them.
  // Calls past the bound of approval requests (limits.approvals): refused without asking anyone.
  const missing = {
    ...(execution?.toolCallsNotRecorded ? { toolCallsNotRecorded: execution.toolCallsNotRecorded } : {}),
    ...(execution?.approvalsNotAsked ? { approvalsNotAsked: execution.approvalsNotAsked } : {}),
    ...(execution?.intermediatesNotRecorded
      ? { intermediatesNotRecorded: execution.intermediatesNotRecorded }
      : {}),
  };
  if (outcome.status === 'succeeded')
    return { runId: outcome.runId, status: 'succeeded', result: outcome.result ?? null, logs, ...missing };
  const hints = execution?.error
    ? errorHints(() => svc.tools.list(req.sandbox).tools, req.code, req.language, execution.error)
    : [];
  return {
    runId: outcome.runId,
    status: outcome.status,
    error: execution?.error
      ? formatExecutionFailure(execution.error, execution.toolCalls)
      : (outcome.error ?? execution?.exitReason ?? 'the run failed'),
    logs,
    ...(hints.length ? { hints } : {}),
    ...missing,
  };
}
