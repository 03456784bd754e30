/**
 * The MCP server (`toolsmith mcp`): the same service over the Model Context Protocol, on stdio or over
 * Streamable HTTP (`mcp-http.ts`); both build their servers from one tool table (`mcpToolTable`).
 * Tools: delegate (task -> result through the tiers), execute_code (the flat multi-runtime schema),
 * validate, list_tools, kit_info, list_templates, code (one script over the sandbox's tools, recorded).
 */
import { toolsPrompt } from '../core/tools/prompt.ts';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { ClientRequestSchema, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { violationSchema } from '../core/records/schemas.ts';
import {
  integerRangeMessage,
  MAX_SCRIPT_CHARS,
  MAX_TASK_CHARS,
  RUN_BUDGETS,
  SCRIPT_LIMIT_MESSAGE,
  TASK_LIMIT_MESSAGE,
  unitOf,
} from '../core/records/events.ts';
import { z } from 'zod';
import { ToolsmithError } from '../app/errors.ts';
import { WorkspaceFileError, workspaceGone } from '../infra/workspace/atomic.ts';
import type { ToolsmithService } from '../app/service.ts';
import type { McpUnavailable } from '../infra/mcp/manager.ts';
import { kitToolView } from '../core/kits/kit.ts';
import { openAiFunctionSchema } from '../core/tools/schema.ts';
import { searchTools } from '../core/tools/disclosure.ts';
import { resolveRuntime } from '../core/sandbox/runtimes.ts';
import type { ToolCallTrace } from '../core/sandbox/execution.ts';
import { cancelledWith, CodeManual, codeToolDescription, runCodeTool, toolProgressLine } from './mcp-code.ts';
import { retryLine } from '../app/run-view.ts';
import type { LiveEvent } from '../app/runs.ts';
import { registerSkillTools } from './mcp-skills.ts';
import { elicitApproval, rememberServer } from './mcp-approval.ts';
import { registerSuiteTools } from './mcp-suites.ts';
import { nearTool, unknownToolAnswer } from './mcp-unknown-tool.ts';
import { SERVER_INSTRUCTIONS, toolConfig } from './mcp-meta.ts';
import { registerRunResources, runContextText } from './mcp-runs.ts';
import { readThroughOverwrite } from '../infra/store/read-through.ts';
import { errorMessage } from '../core/errors.ts';
import { errorHints } from '../app/error-hints.ts';
import { knownSecrets } from '../core/records/redact.ts';
import { earlyStdio, MCP_CAPABILITIES, MCP_SERVER_INFO } from './stdio-early.ts';
import type { LiveExecutionEvent } from '../core/ports/executor.ts';

type Content = {
  content: { type: 'text'; text: string }[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
};

const text = (value: unknown, isError = false): Content => ({
  content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
  ...(isError ? { isError: true } : {}),
});

/**
 * A tool answer with `structuredContent` (the object the tool's output schema describes) and the same
 * value as JSON text for clients that read text only.
 */
const structured = (value: Record<string, unknown>, isError = false): Content => ({
  ...text(value, isError),
  structuredContent: value,
});

// Output schemas of Toolsmith's own tools (clients validate `structuredContent` against them).
// The violation as the event schema defines it; loose, so a field added later passes a client's check.
const violationShape = violationSchema.loose();
/** Calls refused past the job's bound of approval requests (code and execute_code say the same). */
const approvalsNotAsked = () =>
  z
    .number()
    .optional()
    .describe('calls needing approval past the limits.approvals bound: refused without asking anyone');
const intermediatesNotRecorded = () =>
  z
    .number()
    .optional()
    .describe('intermediates past the limits.intermediates bound, not in the run record (only counted)');
const VALIDATE_OUTPUT = { valid: z.boolean(), violations: z.array(violationShape) };
const CODE_OUTPUT = {
  runId: z.string(),
  status: z.enum(['succeeded', 'rejected', 'failed', 'cancelled']),
  result: z.unknown().optional().describe('what the script emitted (succeeded)'),
  logs: z.array(z.string()).optional(),
  error: z.string().optional(),
  violations: z.array(violationShape).optional(),
  hints: z
    .array(z.string())
    .optional()
    .describe('what to change, for an error a hint knows (the hints a PLAN retry gives its LLM)'),
  toolCallsNotRecorded: z
    .number()
    .optional()
    .describe('tool calls past the limits.tool_calls bound, not in the run record (only counted)'),
  approvalsNotAsked: approvalsNotAsked(),
  intermediatesNotRecorded: intermediatesNotRecorded(),
};
const MAX_FAILED_CALLS = 5;
const MAX_FAILED_CALL_CHARS = 500;

/**
 * The tool calls that failed (a ToolResponse with success false, or a tool that raised), for an
 * `execute_code` answer without its trace: the tool's own words ("no user with id 'zz'; known ids: ...")
 * are what the caller needs to fix the script, and neither `data: null` nor a later TypeError carries
 * them. The first few, each message cut to a bound; nothing when every call succeeded.
 */
function failedCalls(calls: readonly ToolCallTrace[]): {
  failedToolCalls?: { name: string; args: unknown; message: string }[];
} {
  const failed = calls.filter((c) => c.error !== undefined || c.result?.success === false);
  if (!failed.length) return {};
  const cut = (s: string) =>
    s.length <= MAX_FAILED_CALL_CHARS ? s : `${s.slice(0, MAX_FAILED_CALL_CHARS)}… (cut)`;
  return {
    failedToolCalls: failed.slice(0, MAX_FAILED_CALLS).map((c) => ({
      name: c.name,
      args: c.args,
      message: cut(c.error ?? c.result?.message ?? '(the tool gave no message)'),
    })),
  };
}

/** execute_code's answer: the job's result (every field of ExecutionResult a job can have), its trace on request. */
export const EXECUTE_OUTPUT = {
  success: z.boolean(),
  data: z.unknown().optional().describe('what the script emitted'),
  intermediates: z.array(z.unknown()),
  logs: z.array(z.string()),
  error: z.unknown().optional(),
  exitReason: z.string(),
  isolation: z.string(),
  isolationDetails: z
    .string()
    .optional()
    .describe("what the level's limits are made of where it varies by machine (the process level)"),
  isolationReason: z.string().optional().describe('why this level ran when it is not the one asked for'),
  durationMs: z.number(),
  waitMs: z
    .number()
    .optional()
    .describe('how long the job waited for a worker before it started (a worker started, its tools loaded)'),
  runtime: z.string(),
  egress: z.array(z.unknown()).optional(),
  toolCallCount: z.number().describe('tool calls the script made'),
  hints: z
    .array(z.string())
    .optional()
    .describe('what to change, for an error a hint knows (the hints a PLAN retry gives its LLM)'),
  failedToolCalls: z
    .array(z.object({ name: z.string(), args: z.unknown(), message: z.string() }))
    .optional()
    .describe(
      `without include_trace: the first ${MAX_FAILED_CALLS} tool calls that failed, each with its arguments and the tool's message`,
    ),
  toolCalls: z
    .array(z.unknown())
    .optional()
    .describe('every recorded call with its arguments and result (include_trace)'),
  toolCallsNotRecorded: z
    .number()
    .optional()
    .describe('calls past the first limits.tool_calls: counted in toolCallCount, not in toolCalls'),
  skillCalls: z
    .array(z.unknown())
    .optional()
    .describe(
      "every recorded skill call: id, name, parent (the skill call that made it), args, at, ms, error (include_trace); a tool call's skillCall names the one that made it",
    ),
  skillCallsNotRecorded: z.number().optional().describe('skill calls past the first limits.tool_calls'),
  approvalsNotAsked: approvalsNotAsked(),
  intermediatesNotRecorded: intermediatesNotRecorded(),
};
/**
 * The upstream MCP servers of a sandbox that could not be reached, each with the cause (the text
 * `toolsmith mcp-servers test` prints): their tools are missing from a look-up's answer, which says so.
 */
const UNAVAILABLE_OUTPUT = z
  .array(
    z.object({
      server: z.string(),
      error: z.string(),
      since: z.string().optional().describe('ISO time: unavailable since (its first failed try)'),
      retry_at: z.string().optional().describe('ISO time: tried again then (in the background)'),
    }),
  )
  .optional();
type Unavailable = McpUnavailable[];
/**
 * A server whose connect failed is remembered (a backoff: McpManager): a look-up answers at once with
 * the cause, since when it is unavailable and when it is tried again, instead of waiting out its timeout.
 * A failure that tried nothing (an `env:` variable not set, a start refused) is not remembered: such a
 * server is tried again by the next use only, and the note says so (not "in the background").
 */
const unavailableNote = (sandbox: string, down: Unavailable): string => {
  const lines = down.map((d) =>
    d.since
      ? `- ${d.server}: ${d.error} (unavailable since ${d.since}${d.retry_at ? `; tried again at ${d.retry_at}` : ''})`
      : `- ${d.server}: ${d.error} (tried again by the next look-up or call)`,
  );
  const remembered = down.some((d) => d.since);
  return `MCP servers of sandbox ${sandbox} that could not be reached (their tools are missing from this answer${remembered ? '; a server unavailable since a time is tried again at the time given, and its tools come back with notifications/tools/list_changed when it answers' : ''}):\n${lines.join('\n')}`;
};
const LIST_TOOLS_OUTPUT = {
  tools: z.array(z.record(z.string(), z.unknown())),
  unavailable: UNAVAILABLE_OUTPUT,
};
const KIT_OUTPUT = {
  name: z.string(),
  sandbox: z.string(),
  description: z.string().optional(),
  grade: z.unknown(),
  tools: z.array(z.record(z.string(), z.unknown())),
};
const TEMPLATES_OUTPUT = { templates: z.array(z.record(z.string(), z.unknown())) };

/**
 * A run budget as a tool argument: a whole number in the CLI's bounds (RUN_BUDGETS); anything else (a
 * fraction, a string, out of range) is refused with the message the CLI gives, naming the argument.
 */
function budgetArgument(name: string, bounds: { min: number; max: number; default: number }, what: string) {
  const error = (issue: { input?: unknown }) =>
    integerRangeMessage(name, bounds.min, bounds.max, issue.input);
  return z
    .number({ error })
    .int({ error })
    .min(bounds.min, { error })
    .max(bounds.max, { error })
    .optional()
    .describe(`${what}: ${bounds.min} to ${bounds.max} (default ${bounds.default})`);
}

async function guard(fn: () => Promise<Content> | Content): Promise<Content> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ToolsmithError) return text({ error: e.message, code: e.code }, true);
    // A workspace file or folder the machine refused, or the workspace folder gone: named, not a bug.
    if (e instanceof WorkspaceFileError) return text({ error: e.message, code: 'infra' }, true);
    return text({ error: errorMessage(e), code: 'internal' }, true);
  }
}

/** The execute_code description: the LLM's single source of truth about runtimes. */
export function executeCodeDescription(svc: ToolsmithService): string {
  const enabled = svc.system.enabledRuntimes();
  return (
    `Run a short script in an isolated sandbox (no network, no file system, no imports) and return its ` +
    `result. The default runtime is ${enabled[0] ?? 'python'}; enabled runtimes: ${enabled.join(', ') || 'none'}. ` +
    `The runtime is never guessed from the code: pass it explicitly for anything but the default. ` +
    `Scripts call the sandbox's tools directly and must end with emit_result(value) (JS: emitResult(value)). ` +
    `Timeout defaults to 300 s, at most 600 s; output is capped at ${svc.workspace.config().limits.output_kb} KB.`
  );
}

/** Registers one tool on a server; the table is built once per process and applied to every session. */
export type McpToolRegistration = (server: McpServer) => void;

/**
 * Sends the client numbered progress messages for its token (none is asked for: they go nowhere).
 * `settled()` waits for those already sent: a tool awaits it before its answer, since a client stops
 * listening for a call's progress once the answer is in (the last tool call's "ok" was lost otherwise).
 */
function progressSender(
  extra: { sendNotification(n: ServerNotification): Promise<void> },
  token: unknown,
): ((message: string) => void) & { settled(): Promise<void> } {
  let n = 0;
  const pending = new Set<Promise<void>>();
  const send = (message: string) => {
    const sent = extra
      .sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken: token as string | number,
          progress: ++n,
          message: knownSecrets.text(message),
        },
      })
      .catch(() => {});
    pending.add(sent);
    void sent.then(() => pending.delete(sent));
  };
  return Object.assign(send, {
    settled: async () => {
      await Promise.all([...pending]);
    },
  });
}

/** Every tool of the MCP server, shared by the stdio and the HTTP transports. */
export function mcpToolTable(svc: ToolsmithService): McpToolRegistration[] {
  const table: McpToolRegistration[] = [];
  const sandboxes = svc.workspace.sandboxNames();
  const defaultSandbox = svc.workspace.defaultSandbox() ?? '';
  // The manual follows the upstream MCP servers as they connect (see CodeManual), and hand edits of the
  // workspace (a sandbox's tools.py, config.toml, kits) that the service applied (app/watch.ts).
  const manual = new CodeManual(
    () => codeToolDescription(svc, defaultSandbox),
    (listener) => {
      const offServers = svc.mcp().subscribe(listener);
      const offEdits = svc.onPush((e) => {
        if (e.type === 'workspace_changed') listener();
      });
      return () => {
        offServers();
        offEdits();
      };
    },
  );
  // The look-ups that read the workspace's files: with its folder moved or deleted under this process,
  // they say so (the head of a save's refusal) instead of answering the empty old path.
  const readable = (what: string) => {
    const gone = workspaceGone(svc.workspaceDir, what, 'list');
    if (gone) throw gone;
  };
  // Collects the registrations with registerTool's own signature, so each handler keeps its typed args.
  const server = {
    registerTool<I extends z.ZodRawShape>(
      name: string,
      config: { description: string; inputSchema: I; outputSchema?: ZodRawShapeCompat },
      cb: ToolCallback<I>,
    ): void {
      table.push((s) => {
        // The manual's current text when the session starts; kept current afterwards. The input is
        // strict (toolConfig): an argument the tool does not take is refused, naming it.
        const strict = toolConfig(name, name === 'code' ? { ...config, description: manual.text } : config);
        const tool = s.registerTool<ZodRawShapeCompat, typeof strict.inputSchema>(
          name,
          strict,
          // Each request remembers its server: an approval question goes to that client (mcp-approval.ts).
          // Its answer goes to the client's model (off the machine, as a rule): no known secret in it
          // (an upstream MCP server's token in its tool's error, a provider key an endpoint echoed).
          (async (args: unknown, extra: object) => {
            rememberServer(extra, s.server);
            try {
              return knownSecrets.value(await (cb as (a: unknown, e: object) => unknown)(args, extra));
            } catch (e) {
              if (e instanceof Error) e.message = knownSecrets.text(e.message);
              throw e;
            }
          }) as ToolCallback<typeof strict.inputSchema>,
        );
        if (name !== 'code') return;
        const detach = manual.attach(tool);
        const previous = s.server.onclose;
        s.server.onclose = () => {
          detach();
          previous?.();
        };
      });
    },
  };

  server.registerTool(
    'delegate',
    {
      description:
        'Solve a task with the sandbox tools: templates, rules, then the configured LLM write a script that is validated and run. Returns the result and the run id.',
      inputSchema: {
        task: z
          .string()
          .min(1)
          .max(MAX_TASK_CHARS, TASK_LIMIT_MESSAGE)
          .describe(`what to do, in words (at most ${MAX_TASK_CHARS} characters)`),
        sandbox: z
          .string()
          .default(defaultSandbox)
          .describe(`sandbox (default ${defaultSandbox}); available: ${sandboxes.join(', ')}`),
        kit: z.string().optional().describe('only the tools of this kit'),
        mode: z.enum(['plan', 'interactive']).default('plan'),
        max_retries: budgetArgument(
          'max_retries',
          RUN_BUDGETS.maxRetries,
          'PLAN mode: retries after the first attempt',
        ),
        max_steps: budgetArgument('max_steps', RUN_BUDGETS.maxSteps, 'INTERACTIVE mode: the most steps'),
      },
    },
    ({ task, sandbox, kit, mode, max_retries, max_steps }, extra) =>
      guard(async () => {
        await svc.prepareMcp(sandbox);
        const runs = await svc.runs();
        // With a progress token, each attempt (a step in INTERACTIVE mode) and each LLM retry (and its
        // wait) is told as it starts.
        const token = extra._meta?.progressToken;
        const unit = unitOf(mode);
        const progress = progressSender(extra, token);
        const started = await runs.start({
          task,
          sandbox,
          ask: elicitApproval(extra),
          ...(kit ? { kit } : {}),
          mode,
          ...(max_retries !== undefined ? { maxRetries: max_retries } : {}),
          ...(max_steps !== undefined ? { maxSteps: max_steps } : {}),
          providers: svc.settings.providersFor(),
          ...(token === undefined
            ? {}
            : {
                onEvent: (e: LiveEvent) => {
                  if (e.type === 'llm_retry')
                    progress(
                      `${unit} ${e.data.n}: ${e.data.provider} retry ${e.data.attempt}: ${retryLine(e.data)}`,
                    );
                  else if (e.type === 'llm_error') progress(`${unit} ${e.data.n}: ${e.data.message}`);
                  else if (e.type === 'tool_progress')
                    progress(`${unit} ${e.n}: ${toolProgressLine(e.name, e.progress)}`);
                  else if (e.type === 'tier')
                    progress(
                      `${unit} ${e.data.n}: ${e.data.tier}${e.data.provider ? ` (${e.data.provider})` : ''}`,
                    );
                },
              }),
        });
        const outcome = await cancelledWith(extra.signal, runs, started);
        await progress.settled();
        // The tool calls of the last script that ran which failed, with the tool's own message (as
        // `execute_code` answers them): a failed run's error says only how the script ended.
        // (through a copy going on over the store, until the call is cancelled: read-through.ts)
        const record = await readThroughOverwrite(() => runs.get(outcome.runId), undefined, extra.signal);
        const last = [...record.attempts].reverse().find((a) => a.execution);
        // The outcome as data, and the run as the compact XML an agent keeps for its next turn.
        const answer = structured(
          { ...outcome, ...failedCalls(last?.execution?.toolCalls ?? []) },
          outcome.status !== 'succeeded',
        );
        answer.content.push({ type: 'text', text: await runContextText(svc, outcome.runId, extra.signal) });
        return answer;
      }),
  );

  server.registerTool(
    'execute_code',
    {
      description: executeCodeDescription(svc),
      inputSchema: {
        code: z.string().min(1).max(MAX_SCRIPT_CHARS, SCRIPT_LIMIT_MESSAGE).describe('the script'),
        runtime: z
          .string()
          .optional()
          .describe(
            `one of: ${svc.system.enabledRuntimes().join(', ')} (default ${svc.system.enabledRuntimes()[0] ?? 'python'})`,
          ),
        timeout: z.number().int().min(1).max(600).optional().describe('seconds (default 300, max 600)'),
        sandbox: z
          .string()
          .default(defaultSandbox)
          .describe(`whose tools the script may call (default ${defaultSandbox})`),
        include_trace: z
          .boolean()
          .default(false)
          .describe('also answer every tool call with its arguments and result (large; default false)'),
      },
      outputSchema: EXECUTE_OUTPUT,
    },
    ({ code, runtime, timeout, sandbox, include_trace }, extra) =>
      guard(async () => {
        const found = resolveRuntime(
          runtime ?? svc.system.enabledRuntimes()[0] ?? 'python',
          svc.system.runtimes(),
        );
        // Answered like the tool's other errors, {error, code} (through guard).
        if ('error' in found) throw new ToolsmithError('invalid_argument', found.error);
        // bun and deno scripts are TypeScript (types stripped; plain JS is valid TS).
        const r = found.runtime;
        const language = r.id === 'python' ? 'python' : r.extension === '.ts' ? 'ts' : 'js';
        const token = extra._meta?.progressToken;
        const progress = progressSender(extra, token);
        const result = await svc.execution.executeScript({
          sandbox,
          language,
          runtime: r.id,
          body: code,
          ...(timeout ? { timeoutMs: timeout * 1000 } : {}),
          signal: extra.signal,
          // With a progress token, each tool call and the progress upstream servers report during one.
          ...(token === undefined
            ? {}
            : {
                onEvent: (e: LiveExecutionEvent) => {
                  if (e.type === 'tool_call')
                    progress(
                      `${e.trace.name}: ${e.trace.error ? 'raised' : e.trace.result?.success ? 'ok' : 'failed'}`,
                    );
                  else if (e.type === 'tool_progress') progress(toolProgressLine(e.name, e.progress));
                },
              }),
          ask: elicitApproval(extra),
        });
        await progress.settled();
        // The trace (every call's arguments and result) is most of an answer's size: only on request.
        const { toolCalls, skillCalls, ...rest } = result;
        const answer = {
          ...rest,
          // Every call the script made, those past the bound (rest.toolCallsNotRecorded) too.
          toolCallCount: toolCalls.length + (rest.toolCallsNotRecorded ?? 0),
          ...(include_trace ? { toolCalls, ...(skillCalls ? { skillCalls } : {}) } : failedCalls(toolCalls)),
        };
        const hints =
          !result.success && result.error && result.exitReason !== 'rejected'
            ? errorHints(() => svc.tools.list(sandbox).tools, code, language, result.error)
            : [];
        if (hints.length) Object.assign(answer, { hints });
        return structured(answer, !result.success);
      }),
  );

  server.registerTool(
    'validate',
    {
      description:
        'Check a script statically (no execution): returns {valid, violations[{rule, message, line, column, endLine, endColumn}]}.',
      inputSchema: {
        code: z.string().max(MAX_SCRIPT_CHARS, SCRIPT_LIMIT_MESSAGE),
        language: z.enum(['python', 'js', 'ts']).default('python'),
        sandbox: z.string().default(defaultSandbox),
        kit: z.string().optional(),
        strict: z.boolean().default(false),
      },
      outputSchema: VALIDATE_OUTPUT,
    },
    ({ code, language, sandbox, kit, strict }) =>
      guard(async () => {
        await svc.prepareMcp(sandbox);
        const r = svc.execution.validate({ code, language, sandbox, ...(kit ? { kit } : {}), strict });
        return structured({ valid: r.valid, violations: r.violations });
      }),
  );

  server.registerTool(
    'list_tools',
    {
      description: 'The tools of a sandbox (or kit) as flat OpenAI function schemas.',
      inputSchema: { sandbox: z.string().default(defaultSandbox), kit: z.string().optional() },
      outputSchema: LIST_TOOLS_OUTPUT,
    },
    ({ sandbox, kit }) =>
      guard(async () => {
        readable(`the tools of sandbox ${sandbox}`);
        const down = await svc.prepareMcp(sandbox);
        const tools = svc.catalog.scriptTools(sandbox, kit).tools.map(openAiFunctionSchema);
        // The text stays the bare list (as before); the structured answer wraps it in an object.
        if (down.length === 0) return { ...text(tools), structuredContent: { tools } };
        // Servers that could not be reached: named with their cause after the list (a second text
        // item, so a client parsing the first as the list still can) and in the structured answer.
        const answer = text(tools);
        answer.content.push({ type: 'text', text: unavailableNote(sandbox, down) });
        return { ...answer, structuredContent: { tools, unavailable: down } };
      }),
  );

  server.registerTool(
    'kit_info',
    {
      description: 'A kit: its tools with aliases, groups and grade (w, d).',
      inputSchema: { name: z.string() },
      outputSchema: KIT_OUTPUT,
    },
    ({ name }) =>
      guard(async () => {
        readable(`kit ${name}`);
        const sb = svc.catalog.kits().find((x) => x.name === name)?.sandbox;
        if (sb) await svc.prepareMcp(sb);
        const k = svc.catalog.kit(name);
        return structured({
          name: k.name,
          sandbox: k.sandbox,
          description: k.description,
          grade: k.grade,
          tools: kitToolView(k).map((t, i) => ({
            alias: t.name,
            tool: k.tools[i]?.tool.name,
            group: k.tools[i]?.group,
            grade: t.grade,
          })),
        });
      }),
  );

  server.registerTool(
    'list_templates',
    {
      description: 'Templates: intent patterns served without an LLM, with success and failure counts.',
      inputSchema: {},
      outputSchema: TEMPLATES_OUTPUT,
    },
    () =>
      guard(async () => {
        readable('the templates');
        const templates = await svc.templates();
        const list = templates.list().map((t) => ({
          name: t.name,
          pattern: t.pattern,
          sandbox: t.sandbox,
          kit: t.kit,
          successes: t.successes,
          failures: t.failures,
        }));
        return { ...text(list), structuredContent: { templates: list } };
      }),
  );
  server.registerTool(
    'code',
    {
      description: manual.text,
      inputSchema: {
        code: z
          .string()
          .min(1)
          .max(MAX_SCRIPT_CHARS, SCRIPT_LIMIT_MESSAGE)
          .describe('the script body (no imports; ends with emit_result / emitResult)'),
        language: z.enum(['python', 'ts', 'js']).default('python'),
        sandbox: z
          .string()
          .default(defaultSandbox)
          .describe(
            `whose tools the script calls (default ${defaultSandbox}); available: ${sandboxes.join(', ')}`,
          ),
        kit: z.string().optional().describe("only this kit's tools, under its aliases"),
        task: z
          .string()
          .max(MAX_TASK_CHARS, TASK_LIMIT_MESSAGE)
          .optional()
          .describe('what the script is for, kept with the recorded run'),
      },
      outputSchema: CODE_OUTPUT,
    },
    ({ code, language, sandbox, kit, task }, extra) =>
      guard(async () => {
        const token = extra._meta?.progressToken;
        const progress =
          token === undefined
            ? undefined
            : (n: number, message: string) =>
                void extra
                  .sendNotification({
                    method: 'notifications/progress',
                    params: { progressToken: token, progress: n, message: knownSecrets.text(message) },
                  })
                  .catch(() => {});
        const answer = await runCodeTool(
          svc,
          { code, language, sandbox, ...(kit ? { kit } : {}), ...(task ? { task } : {}) },
          progress,
          extra.signal,
          elicitApproval(extra),
        );
        const out = structured(answer, answer.status !== 'succeeded');
        out.content.push({ type: 'text', text: await runContextText(svc, answer.runId, extra.signal) });
        return out;
      }),
  );
  server.registerTool(
    'search_tools',
    {
      description:
        "Find a sandbox's tools for what you want to do, in your own words (for sandboxes whose `code` manual shows an index): tools ranked by the words their names, descriptions and parameters share with the query, best first; one line per tool, its signature and first sentence.",
      inputSchema: {
        query: z.string().min(1).describe('what the tool should do, in words (e.g. "schedule a meeting")'),
        sandbox: z.string().default(defaultSandbox),
        limit: z.number().int().min(1).max(100).default(20),
      },
      outputSchema: {
        tools: z.array(z.object({ name: z.string(), line: z.string() })),
        unavailable: UNAVAILABLE_OUTPUT,
      },
    },
    ({ query, sandbox, limit }) =>
      guard(async () => {
        readable(`the tools of sandbox ${sandbox}`);
        const down = await svc.prepareMcp(sandbox);
        const tools = searchTools(svc.execution.manualTools(sandbox), query, limit);
        return structured({ tools, ...(down.length ? { unavailable: down } : {}) });
      }),
  );
  server.registerTool(
    'describe_tool',
    {
      description:
        "One tool's full manual entry (parameters with types, defaults, options, examples; typed stubs for MCP tools), as the `code` manual would show it.",
      inputSchema: { name: z.string().min(1), sandbox: z.string().default(defaultSandbox) },
      outputSchema: { name: z.string(), manual: z.string() },
    },
    ({ name, sandbox }) =>
      guard(async () => {
        readable(`the tools of sandbox ${sandbox}`);
        const down = await svc.prepareMcp(sandbox);
        const tools = svc.execution.manualTools(sandbox);
        const tool = tools.find((t) => t.name === name);
        // Not found while a server is down: the tool may be that server's, so the answer says which
        // servers could not be reached and why.
        if (!tool)
          return text(
            {
              error: `no tool ${name} in sandbox ${sandbox}${nearTool(name, tools)} search_tools finds tools by words${down.length ? `\n${unavailableNote(sandbox, down)}` : ''}`,
              code: 'not_found',
              ...(down.length ? { unavailable: down } : {}),
            },
            true,
          );
        const manual =
          tool.location === 'skill' ? toolsPrompt([tool]) : svc.catalog.registry(sandbox).prompt([tool]);
        return structured({ name, manual });
      }),
  );
  table.push((s) => registerSuiteTools(s, svc));
  table.push((s) => registerSkillTools(s, svc));
  table.push((s) => registerRunResources(s, svc));
  return table;
}

/** A server with every tool of the table (one per stdio process, one per HTTP session). */
export function createMcpServer(
  svc: ToolsmithService,
  table: readonly McpToolRegistration[] = mcpToolTable(svc),
): McpServer {
  // `logging`: clients may set a level (logging/setLevel); the tools send no log messages yet.
  // The capabilities are declared in one place: the stdio server's early initialize answers them too.
  const server = new McpServer(MCP_SERVER_INFO, {
    capabilities: MCP_CAPABILITIES,
    instructions: SERVER_INSTRUCTIONS,
  });
  answerInvalidParams(server.server, (request) =>
    request.method === 'tools/call' ? unknownToolAnswer(server, request.params) : undefined,
  );
  for (const register of table) register(server);
  return server;
}

type RequestHandler = (request: { method: string; params?: unknown }, extra: unknown) => Promise<unknown>;

/** The SDK's schema of each request a client may send, by method. */
const CLIENT_REQUESTS = new Map<string, (typeof ClientRequestSchema.options)[number]>(
  ClientRequestSchema.options.map((o) => [o.shape.method.value, o] as const),
);

/** What a missing field is, where its name alone does not say. */
const FIELD_HINTS: Readonly<Record<string, string>> = {
  'tools/call params.name': 'the name of the tool to call',
  'resources/read params.uri': 'the URI of the resource to read',
};

/**
 * One line naming what is wrong with a request's params, undefined when the request matches its
 * method's schema. With no params at all, the fields the method needs inside them are named
 * (`missing params.name`), not just `params`.
 */
function invalidParamsMessage(request: { method: string; params?: unknown }): string | undefined {
  const schema = CLIENT_REQUESTS.get(request.method);
  const parsed = schema?.safeParse(request);
  if (!schema || !parsed || parsed.success) return undefined;
  const inside = request.params === undefined ? schema.safeParse({ ...request, params: {} }) : undefined;
  const issues = inside?.error?.issues ?? parsed.error.issues;
  const what = issues.map((i) => {
    const path = i.path.map(String).join('.') || 'the request';
    const hint = FIELD_HINTS[`${request.method} ${path}`];
    return i.code === 'invalid_type' && /received undefined$/.test(i.message)
      ? `missing ${path}${hint ? ` (${hint})` : ''}`
      : `${path}: ${i.message.replace(/\s+/g, ' ')}`;
  });
  return `Invalid params for ${request.method}: ${[...new Set(what)].join('; ')}`;
}

/**
 * A request whose params do not match its method's schema (`tools/call` without params) is answered
 * -32602 (Invalid params) with one line naming what is wrong. The SDK (1.32) parses a request before its
 * handler runs and answers the parse's ZodError as -32603 (Internal error) with the issues as multi-line
 * JSON. Its handlers are reachable only in the Protocol's private map: each is wrapped, those the server
 * set up already (initialize, ping, logging/setLevel) and those set later (tools, resources). An error
 * of a request that matches its schema passes as it is. `refuse` answers a request before its handler
 * (a call of an unknown tool).
 */
function answerInvalidParams(
  server: McpServer['server'],
  answer: (request: { method: string; params?: unknown }) => unknown = () => undefined,
): void {
  const handlers = (server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  // An SDK that moved the map keeps its own -32603 answer (the server still starts); the protocol-errors
  // test of a call without params then fails and points here.
  if (!(handlers instanceof Map)) return;
  const map = handlers as Map<string, RequestHandler>;
  const wrapped = new WeakSet<RequestHandler>();
  const wrapAll = () => {
    for (const [method, handler] of map) {
      if (wrapped.has(handler)) continue;
      const checked: RequestHandler = async (request, extra) => {
        // A request the SDK would answer in its own words (an unknown tool: mcp-unknown-tool.ts).
        const answered = answer(request);
        if (answered !== undefined) return answered;
        try {
          return await handler(request, extra);
        } catch (e) {
          const message = invalidParamsMessage(request);
          // Not an McpError: it would prefix "MCP error -32602: " to the message.
          throw message === undefined
            ? e
            : Object.assign(new Error(message), { code: ErrorCode.InvalidParams });
        }
      };
      wrapped.add(checked);
      map.set(method, checked);
    }
  };
  wrapAll();
  const set = server.setRequestHandler.bind(server);
  server.setRequestHandler = ((...args: Parameters<typeof set>) => {
    set(...args);
    wrapAll();
  }) as typeof server.setRequestHandler;
}

/**
 * Connects the MCP servers of every sandbox, waiting at most `waitMs` before the server answers
 * `initialize` (clients that ignore notifications/tools/list_changed then see most tools at once). The
 * `code` manual does not depend on that wait: it is rebuilt as each server connects or fails, and says
 * which are still connecting or failed (CodeManual). A server that fails is also named on stderr.
 * `$TOOLSMITH_MCP_UPSTREAM_WAIT_MS` sets the wait (default 5000 over HTTP; 0 on stdio, whose
 * initialize is answered before anything loads and whose tools/list does not wait for upstream servers).
 */
export async function prepareAllMcp(svc: ToolsmithService, waitMs = upstreamWaitMs()): Promise<void> {
  const all = Promise.all(svc.workspace.sandboxNames().map((s) => svc.prepareMcp(s))).then((down) => {
    const seen = new Set<string>();
    for (const f of down.flat())
      if (!seen.has(f.server)) {
        seen.add(f.server);
        process.stderr.write(`toolsmith mcp: ${f.error}\n`);
      }
  });
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([all, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
  clearTimeout(timer);
}

function upstreamWaitMs(fallback = 5000): number {
  const raw = process.env['TOOLSMITH_MCP_UPSTREAM_WAIT_MS'];
  const v = Number(raw);
  return raw !== undefined && raw !== '' && Number.isFinite(v) && v >= 0 ? v : fallback;
}

/**
 * Serves on stdio until the client closes its input or the promise `untilStopped` gives (called once the
 * server is connected) resolves with a reason: the front end that starts the server owns the process's
 * signals, and the reason is recorded on whatever is cancelled.
 */
export async function serveMcpStdio(
  svc: ToolsmithService,
  untilStopped: () => Promise<string>,
  opts: { stopBudgetMs?: number } = {},
): Promise<'closed' | 'unfinished'> {
  // Initialize was answered by the early server (stdio-early.ts); tools/list is answered as soon as the
  // tools are registered, whatever upstream servers are doing: they connect in the background and the
  // `code` manual follows them (list_changed).
  const early = earlyStdio();
  await prepareAllMcp(svc, upstreamWaitMs(0));
  const server = createMcpServer(svc);
  await server.connect(early.transport());
  const reason = await Promise.race([
    early.ended.then(() => 'the MCP client closed its input'),
    untilStopped(),
  ]);
  // Closing the session cancels its calls: their pools must not start replacements from here on.
  svc.beginShutdown();
  const closing = (async () => {
    await server.close().catch(() => {});
    await svc.close(reason);
  })();
  if (opts.stopBudgetMs === undefined) {
    await closing;
    return 'closed';
  }
  // A client gives the server 2 s after closing its input, then SIGTERM: past the budget the caller
  // hands what is left (containers still being removed) to a process that outlives this one.
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<'unfinished'>((resolve) => {
    timer = setTimeout(() => resolve('unfinished'), opts.stopBudgetMs);
  });
  const done = await Promise.race([closing.then(() => 'closed' as const), budget]);
  clearTimeout(timer);
  return done;
}
