/**
 * The MCP server (`toolsmith mcp`): the same service over the Model Context Protocol, on stdio or over
 * Streamable HTTP (`mcp-http.ts`); both build their servers from one tool table (`mcpToolTable`).
 * Tools: delegate (task -> result through the tiers), execute_code (the flat multi-runtime schema),
 * validate, list_tools, kit_info, list_templates, code (one script over the sandbox's tools, recorded).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { stopReason, untilStopped } from './signals.ts';
import { MAX_TASK_CHARS, TASK_LIMIT_MESSAGE } from '../core/records/events.ts';
import { z } from 'zod';
import { ToolsmithError } from '../app/errors.ts';
import type { ToolsmithService } from '../app/service.ts';
import { kitToolView } from '../core/kits/kit.ts';
import { openAiFunctionSchema } from '../core/tools/schema.ts';
import { resolveRuntime } from '../core/sandbox/runtimes.ts';
import { cancelledWith, codeToolDescription, runCodeTool } from './mcp-code.ts';
import { registerSuiteTools } from './mcp-suites.ts';

type Content = {
  content: { type: 'text'; text: string }[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
};

const text = (value: unknown, isError = false): Content => ({
  content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
  ...(isError ? { isError: true } : {}),
});

async function guard(fn: () => Promise<Content> | Content): Promise<Content> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ToolsmithError) return text({ error: e.message, code: e.code }, true);
    return text({ error: e instanceof Error ? e.message : String(e), code: 'internal' }, true);
  }
}

/** The execute_code description: the LLM's single source of truth about runtimes. */
export function executeCodeDescription(svc: ToolsmithService): string {
  const enabled = svc.enabledRuntimes();
  return (
    `Run a short script in an isolated sandbox (no network, no file system, no imports) and return its ` +
    `result. The default runtime is ${enabled[0] ?? 'python'}; enabled runtimes: ${enabled.join(', ') || 'none'}. ` +
    `The runtime is never guessed from the code: pass it explicitly for anything but the default. ` +
    `Scripts call the sandbox's tools directly and must end with emit_result(value) (JS: emitResult(value)). ` +
    `Timeout defaults to 300 s, at most 600 s; output is capped at ${svc.config.limits.output_kb} KB.`
  );
}

/** Registers one tool on a server; the table is built once per process and applied to every session. */
export type McpToolRegistration = (server: McpServer) => void;

/** Every tool of the MCP server, shared by the stdio and the HTTP transports. */
export function mcpToolTable(svc: ToolsmithService): McpToolRegistration[] {
  const table: McpToolRegistration[] = [];
  const sandboxes = svc.files.sandboxNames();
  const defaultSandbox = svc.config.workspace.default_sandbox ?? sandboxes[0] ?? '';
  // Collects the registrations with registerTool's own signature, so each handler keeps its typed args.
  const server = {
    registerTool<I extends ZodRawShapeCompat>(
      name: string,
      config: { description: string; inputSchema: I },
      cb: ToolCallback<I>,
    ): void {
      table.push((s) => void s.registerTool(name, config, cb));
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
      },
    },
    ({ task, sandbox, kit, mode }, extra) =>
      guard(async () => {
        await svc.prepareMcp(sandbox);
        const runs = await svc.runs();
        const started = await runs.start({
          task,
          sandbox,
          ...(kit ? { kit } : {}),
          mode,
          providers: svc.providersFor(),
        });
        const outcome = await cancelledWith(extra.signal, runs, started);
        return text(outcome, outcome.status !== 'succeeded');
      }),
  );

  server.registerTool(
    'execute_code',
    {
      description: executeCodeDescription(svc),
      inputSchema: {
        code: z.string().min(1).describe('the script'),
        runtime: z
          .string()
          .optional()
          .describe(
            `one of: ${svc.enabledRuntimes().join(', ')} (default ${svc.enabledRuntimes()[0] ?? 'python'})`,
          ),
        timeout: z.number().int().min(1).max(600).optional().describe('seconds (default 300, max 600)'),
        sandbox: z
          .string()
          .default(defaultSandbox)
          .describe(`whose tools the script may call (default ${defaultSandbox})`),
      },
    },
    ({ code, runtime, timeout, sandbox }, extra) =>
      guard(async () => {
        const found = resolveRuntime(runtime ?? svc.enabledRuntimes()[0] ?? 'python', svc.runtimes());
        if ('error' in found) return text({ error: found.error }, true);
        // bun and deno scripts are TypeScript (types stripped; plain JS is valid TS).
        const r = found.runtime;
        const language = r.id === 'python' ? 'python' : r.extension === '.ts' ? 'ts' : 'js';
        const result = await svc.executeScript({
          sandbox,
          language,
          runtime: r.id,
          body: code,
          ...(timeout ? { timeoutMs: timeout * 1000 } : {}),
          signal: extra.signal,
        });
        return text(result, !result.success);
      }),
  );

  server.registerTool(
    'validate',
    {
      description:
        'Check a script statically (no execution): returns {valid, violations[{rule, message, line, column, endLine, endColumn}]}.',
      inputSchema: {
        code: z.string(),
        language: z.enum(['python', 'js', 'ts']).default('python'),
        sandbox: z.string().default(defaultSandbox),
        kit: z.string().optional(),
        strict: z.boolean().default(false),
      },
    },
    ({ code, language, sandbox, kit, strict }) =>
      guard(async () => {
        await svc.prepareMcp(sandbox);
        return text(svc.validate({ code, language, sandbox, ...(kit ? { kit } : {}), strict }));
      }),
  );

  server.registerTool(
    'list_tools',
    {
      description: 'The tools of a sandbox (or kit) as flat OpenAI function schemas.',
      inputSchema: { sandbox: z.string().default(defaultSandbox), kit: z.string().optional() },
    },
    ({ sandbox, kit }) =>
      guard(async () => {
        await svc.prepareMcp(sandbox);
        return text(svc.scriptTools(sandbox, kit).tools.map(openAiFunctionSchema));
      }),
  );

  server.registerTool(
    'kit_info',
    {
      description: 'A kit: its tools with aliases, groups and grade (w, d).',
      inputSchema: { name: z.string() },
    },
    ({ name }) =>
      guard(async () => {
        const sb = svc.kits().find((x) => x.name === name)?.sandbox;
        if (sb) await svc.prepareMcp(sb);
        const k = svc.kit(name);
        return text({
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
    },
    () =>
      guard(async () => {
        const templates = await svc.templates();
        return text(
          templates.list().map((t) => ({
            name: t.name,
            pattern: t.pattern,
            sandbox: t.sandbox,
            kit: t.kit,
            successes: t.successes,
            failures: t.failures,
          })),
        );
      }),
  );
  server.registerTool(
    'code',
    {
      description: codeToolDescription(svc, defaultSandbox),
      inputSchema: {
        code: z.string().min(1).describe('the script body (no imports; ends with emit_result / emitResult)'),
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
                    params: { progressToken: token, progress: n, message },
                  })
                  .catch(() => {});
        const answer = await runCodeTool(
          svc,
          { code, language, sandbox, ...(kit ? { kit } : {}), ...(task ? { task } : {}) },
          progress,
          extra.signal,
        );
        return text(answer, answer.status !== 'succeeded');
      }),
  );
  table.push((s) => registerSuiteTools(s, svc));
  return table;
}

/** A server with every tool of the table (one per stdio process, one per HTTP session). */
export function createMcpServer(
  svc: ToolsmithService,
  table: readonly McpToolRegistration[] = mcpToolTable(svc),
): McpServer {
  // `logging`: clients may set a level (logging/setLevel); the tools send no log messages yet.
  const server = new McpServer({ name: 'toolsmith', version: '0.1.0' }, { capabilities: { logging: {} } });
  for (const register of table) register(server);
  return server;
}

/**
 * Connects the MCP servers of every sandbox before the tool table is built, so the `code` tool's manual
 * lists their tools (with their typed stubs). Waits at most `waitMs`: a slow or dead server (its own
 * timeout can be 30 s) must not keep an MCP client waiting for `initialize`; its sandbox's calls then
 * connect on first use or fail with the reason, which is also named on stderr.
 */
export async function prepareAllMcp(svc: ToolsmithService, waitMs = 5000): Promise<void> {
  const all = Promise.all(svc.files.sandboxNames().map((s) => svc.prepareMcp(s))).then((down) => {
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

export async function serveMcpStdio(svc: ToolsmithService): Promise<void> {
  await prepareAllMcp(svc);
  const server = createMcpServer(svc);
  await server.connect(new StdioServerTransport());
  const reason = await new Promise<string>((resolve) => {
    process.stdin.once('end', () => resolve('the MCP client closed its input'));
    void untilStopped().then((sig) => resolve(stopReason(sig)));
  });
  await server.close();
  await svc.close(reason);
}
