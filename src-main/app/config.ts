/** The workspace configuration (`.toolsmith/config.toml`), validated with zod; defaults fill the gaps. */
import { z } from 'zod';
import { ToolsmithError } from './errors.ts';
import { FULL_MANUAL_MAX_TOOLS } from '../core/tools/disclosure.ts';
import {
  DEFAULT_MAX_APPROVALS,
  DEFAULT_MAX_INTERMEDIATES,
  DEFAULT_MAX_TOOL_CALLS,
} from '../core/sandbox/execution.ts';
import { RUNTIMES } from '../core/sandbox/runtimes.ts';
import {
  httpUrlIssue,
  isHttpUrl,
  llmUrlCredentialsProblem,
  LLM_URL_EXAMPLE,
  withoutUserinfo,
} from '../core/text/http-url.ts';

const grade = z.object({ w: z.number().int().min(0).max(2), d: z.number().int().min(0).max(2) });

/**
 * An HTTP endpoint in config.toml (a provider's base_url, an MCP server's url): refused at load unless
 * http(s)://host, naming the key and the value (`localhost:8080/v1` passed z.string().url(): a URL parser
 * reads `localhost:` as its scheme; it failed later, on a request, without naming the setting).
 */
const httpUrl = (example: string) => z.string().superRefine(httpUrlIssue(example));

/** A provider's settings when the config leaves them out (deadlines and retries: docs/reliability.md). */
export const PROVIDER_DEFAULTS = {
  max_tokens: 2048,
  temperature: 0,
  timeout_ms: 30_000,
  idle_timeout_ms: 60_000,
  total_timeout_ms: 180_000,
  max_retries: 2,
  max_retry_wait_ms: 20_000,
} as const;

const provider = z.object({
  id: z.string().min(1),
  kind: z.enum(['openai', 'anthropic']),
  /** The API's root, http:// or https:// (default: the vendor's). */
  base_url: httpUrl(LLM_URL_EXAMPLE)
    .superRefine((value, ctx) => {
      const problem = llmUrlCredentialsProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  model: z.string().min(1),
  api_key_env: z.string().optional(),
  max_tokens: z.number().int().positive().default(PROVIDER_DEFAULTS.max_tokens),
  temperature: z.number().min(0).max(2).default(PROVIDER_DEFAULTS.temperature),
  /** Connect and response headers; then `idle_timeout_ms` between chunks; the whole call (retries and
   * their waits included) within `total_timeout_ms` (see docs/reliability.md). */
  timeout_ms: z.number().int().positive().max(600_000).default(PROVIDER_DEFAULTS.timeout_ms),
  idle_timeout_ms: z.number().int().positive().max(600_000).default(PROVIDER_DEFAULTS.idle_timeout_ms),
  total_timeout_ms: z.number().int().positive().max(3_600_000).default(PROVIDER_DEFAULTS.total_timeout_ms),
  /** Retries of a 429, a 5xx, a timeout or a dropped connection. */
  max_retries: z.number().int().min(0).max(10).default(PROVIDER_DEFAULTS.max_retries),
  /** The longest wait before a retry; a Retry-After asking for more fails at once, saying when to retry. */
  max_retry_wait_ms: z.number().int().min(0).max(600_000).default(PROVIDER_DEFAULTS.max_retry_wait_ms),
});

const runtime = z.object({ enabled: z.boolean().default(true), image: z.string().optional() });
/** A runtime's name where config.toml gives one (a sandbox's `runtime`, a `[runtimes.X]` table). */
const isRuntimeId = (id: string): boolean => RUNTIMES.some((r) => r.id === id);
const RUNTIME_WORDS = `no such runtime: use one of ${RUNTIMES.map((r) => r.id).join(', ')}`;

const envRef = z.string().regex(/^env:[A-Za-z_][A-Za-z0-9_]*$/, 'use "env:VARIABLE"');

export { isHttpUrl };

/**
 * An OTLP/HTTP endpoint in config.toml: refused at load, saying what is expected, unless http(s)://host
 * (a `user:token@` typed before the host is not quoted back, as for base_url).
 */
const otlpUrl = (example: string) =>
  z.string().superRefine((v, ctx) => {
    if (!isHttpUrl(v))
      ctx.addIssue({
        code: 'custom',
        message: `expected an http:// or https:// URL with a host and port, such as ${example}, got ${JSON.stringify(withoutUserinfo(v))}`,
      });
  });

/** An MCP server the workspace imports tools from: stdio (command) or Streamable HTTP (url). */
export const mcpServerSchema = z
  .object({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    /** Environment of a stdio server: literal values or `env:VAR` (read from the host's environment). */
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
    url: httpUrl('http://127.0.0.1:3000/mcp').optional(),
    /** HTTP headers, each `env:VAR` (secrets never live in the config file). */
    headers: z.record(z.string(), envRef).default({}),
    /** Per-request time limit (connect, list, call). */
    timeout_ms: z.number().int().positive().max(600_000).default(30_000),
    /**
     * Time limit for starting the server: its process (stdio) or connection, `initialize` and the first
     * tool list (default: `timeout_ms`). A Node server took 5 to 7 s to answer initialize at load 11, so a
     * short per-call limit need not also be the limit to start.
     */
    startup_timeout_ms: z.number().int().positive().max(600_000).optional(),
    description: z.string().default(''),
  })
  .refine((s) => (s.command === undefined) !== (s.url === undefined), {
    message: 'an MCP server needs either command (stdio) or url (Streamable HTTP), not both',
  });

/** Which tools of an MCP server a sandbox uses, under which names, with which grades. */
const sandboxMcp = z.object({
  /** Only these tools of the server (default: all). */
  tools: z.array(z.string().min(1)).optional(),
  /** script name -> the server's tool name. */
  aliases: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an identifier'), z.string()).default({}),
  /** A grade for every tool of the server, or per tool (by the server's tool name). */
  grade: grade.optional(),
  grades: z.record(z.string(), grade).default({}),
});

const sandbox = z.object({
  description: z.string().default(''),
  /** MCP servers whose tools this sandbox offers beside (or instead of) tools.py. */
  mcp: z.record(z.string(), sandboxMcp).default({}),
  /** The runtime a new sandbox was made for (the workbench's form); a job's own language picks its runtime. */
  runtime: z.string().refine(isRuntimeId, RUNTIME_WORDS).default('python'),
  /** name -> `env:VAR`: credentials a script may read with credential("name"). */
  credentials: z
    .record(z.string(), z.string().regex(/^env:[A-Za-z_][A-Za-z0-9_]*$/, 'use "env:VARIABLE"'))
    .default({}),
  /** Outbound access for tool code (never script code), off by default: docs/sandboxes.md. */
  egress: z
    .object({
      allow: z
        .array(
          z
            .string()
            .regex(
              /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*)|\*\.[A-Za-z0-9][A-Za-z0-9.-]*):\d{1,5}$/,
              'use "host:port" (e.g. "api.example.com:443", "*.example.com:443")',
            ),
        )
        .default([]),
    })
    .strict()
    .optional(),
  /**
   * How the sandbox's workers are isolated: `process` (bubblewrap), `docker` (runc) or `gvisor` (Docker's
   * runsc runtime). Absent: docker, or the process fallback when no Docker engine answers (recorded in
   * every result). A level set here that is not available is an error, never a fallback.
   */
  isolation: z.enum(['process', 'docker', 'gvisor']).optional(),
  /** Engines (names under [engines]) the sandbox's pool places workers on, by load; absent: the local one. */
  engines: z.array(z.string().min(1)).min(1).optional(),
});

/** A Docker engine (or Podman's Docker-compatible API): unix socket, or tcp with TLS client certificates. */
const engine = z.object({
  host: z.string().regex(/^(unix|tcp):\/\//, 'use unix:///path.sock or tcp://host:port'),
  tls_ca: z.string().optional(),
  tls_cert: z.string().optional(),
  tls_key: z.string().optional(),
  max_workers: z.number().int().min(1).max(256).default(8),
  /** `podman`: Podman's Docker-compatible API (`podman system service`), with its differences handled. */
  kind: z.enum(['docker', 'podman']).default('docker'),
});

export const configSchema = z.object({
  workspace: z
    .object({
      name: z.string().default('Toolsmith workspace'),
      max_grade: grade.optional(),
      default_sandbox: z.string().optional(),
    })
    .default({ name: 'Toolsmith workspace' }),
  providers: z.array(provider).default([]),
  pool: z
    .object({
      min_size: z.number().int().min(0).max(16).default(1),
      max_size: z.number().int().min(1).max(32).default(2),
      max_jobs_per_container: z.number().int().positive().default(500),
      idle_seconds: z.number().positive().default(300),
      queue_timeout_ms: z.number().int().positive().default(30_000),
      /** Workers kept started and loaded beside the pool, promoted at once when one breaks (0: none). */
      standby: z.number().int().min(0).max(4).default(1),
    })
    .default({
      min_size: 1,
      max_size: 2,
      max_jobs_per_container: 500,
      idle_seconds: 300,
      queue_timeout_ms: 30_000,
      standby: 1,
    }),
  limits: z
    .object({
      timeout_s: z.number().positive().max(600).default(300),
      memory_mb: z.number().int().min(32).default(256),
      cpus: z.number().positive().max(16).default(1),
      pids: z.number().int().min(8).default(64),
      tmpfs_mb: z.number().int().min(1).default(16),
      output_kb: z.number().int().min(1).default(50),
      /**
       * Tool calls of one script recorded at most (its trace in the run, the live view): the first ones
       * are kept, the rest counted ("N more tool calls not recorded"). Every call still runs.
       */
      tool_calls: z.number().int().min(1).max(100_000).default(DEFAULT_MAX_TOOL_CALLS),
      /**
       * Approval requests one script may put to a person (core/tools/approval.ts): past them a call that
       * needs approval is refused without asking, with an error naming this bound, and counted.
       */
      approvals: z.number().int().min(1).max(10_000).default(DEFAULT_MAX_APPROVALS),
      /**
       * Intermediates of one script recorded (each a run event): the first ones are kept, the rest
       * counted ("N more intermediates not recorded"). The script goes on either way.
       */
      intermediates: z.number().int().min(1).max(100_000).default(DEFAULT_MAX_INTERMEDIATES),
    })
    .default({
      timeout_s: 300,
      memory_mb: 256,
      cpus: 1,
      pids: 64,
      tmpfs_mb: 16,
      output_kb: 50,
      tool_calls: DEFAULT_MAX_TOOL_CALLS,
      approvals: DEFAULT_MAX_APPROVALS,
      intermediates: DEFAULT_MAX_INTERMEDIATES,
    }),
  runtimes: z.record(z.string(), runtime).default({ python: { enabled: true }, node: { enabled: true } }),
  sandboxes: z.record(z.string(), sandbox).default({}),
  /** Prices per million tokens by model name, for the cost column of suite results. */
  prices: z
    .record(z.string(), z.object({ prompt: z.number().min(0), completion: z.number().min(0) }).strict())
    .default({}),
  mcp_servers: z.record(z.string(), mcpServerSchema).default({}),
  /** Toolsmith as an MCP server: a sandbox with more tools than `full_manual_max` gets the index. */
  mcp: z
    .object({ full_manual_max: z.number().int().min(0).default(FULL_MANUAL_MAX_TOOLS) })
    .strict()
    .default({ full_manual_max: FULL_MANUAL_MAX_TOOLS }),
  engines: z.record(z.string(), engine).default({}),
  /** Tool calls that wait for a person's approval (core/tools/approval.ts, docs/tools.md). */
  approval: z
    .object({
      /** `sandbox.tool`: every call of the tool, whatever its grade. */
      tools: z.array(z.string().regex(/^[^.\s]+\.[^.\s]+$/, 'use "sandbox.tool"')).default([]),
      /** Kits whose destructive tools (d = 2) need approval in runs using the kit. */
      kits: z.array(z.string().min(1)).default([]),
      /** Sandboxes whose destructive tools (d = 2) need approval. */
      sandboxes: z.array(z.string().min(1)).default([]),
    })
    .strict()
    .default({ tools: [], kits: [], sandboxes: [] }),
  /** Run traces over OTLP/HTTP (docs/telemetry.md); the standard OTEL_* variables override these. */
  telemetry: z
    .object({
      enabled: z.boolean().default(false),
      /** The collector's base URL; traces go to `<endpoint>/v1/traces`. */
      endpoint: otlpUrl('http://localhost:4318').optional(),
      /** The full traces URL, used as is (wins over `endpoint`). */
      traces_endpoint: otlpUrl('http://localhost:4318/v1/traces').optional(),
      /** HTTP headers, each `env:VAR` (secrets never live in the config file). */
      headers: z.record(z.string(), envRef).default({}),
      service_name: z.string().min(1).default('toolsmith'),
      timeout_ms: z.number().int().positive().max(120_000).default(10_000),
      /** OTLP over HTTP with a protobuf (the default) or a JSON body. */
      protocol: z.enum(['http/protobuf', 'http/json']).optional(),
    })
    .strict()
    .default({ enabled: false, headers: {}, service_name: 'toolsmith', timeout_ms: 10_000 }),
});

export type Config = z.infer<typeof configSchema>;
export type ProviderConfig = z.infer<typeof provider>;
export type McpServerConfig = z.infer<typeof mcpServerSchema>;
export type SandboxMcpConfig = z.infer<typeof sandboxMcp>;

/**
 * The line of a field in the config's TOML text (1-based): the line of the key itself, else of the
 * nearest table or key above it on its path (`[pool]` for a missing pool.max_size). Undefined when the
 * text holds no part of the path.
 */
export function lineOfField(text: string, path: readonly PropertyKey[]): number | undefined {
  const want = path.map(String);
  const unquote = (k: string) => k.trim().replace(/^"(.*)"$|^'(.*)'$/, '$1$2');
  const keysOf = (dotted: string) => dotted.split('.').map(unquote);
  let table: string[] = [];
  const arrays = new Map<string, number>();
  let best: { line: number; depth: number } | undefined;
  const consider = (full: string[], line: number) => {
    let depth = 0;
    while (depth < full.length && depth < want.length && full[depth] === want[depth]) depth++;
    if (depth < full.length) return; // not on the path
    if (!best || depth > best.depth) best = { line, depth };
  };
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = (lines[i] ?? '').trim();
    let m: RegExpExecArray | null;
    if ((m = /^\[\[([^\]]+)\]\]/.exec(l))) {
      const name = keysOf(m[1] ?? '');
      const key = name.join('.');
      const n = arrays.get(key) ?? 0;
      arrays.set(key, n + 1);
      table = [...name, String(n)];
      consider(table, i + 1);
    } else if ((m = /^\[([^\]]+)\]/.exec(l))) {
      table = keysOf(m[1] ?? '');
      consider(table, i + 1);
    } else if ((m = /^((?:"[^"]*"|'[^']*'|[A-Za-z0-9_.\s-])+?)\s*=/.exec(l))) {
      consider([...table, ...keysOf(m[1] ?? '')], i + 1);
    }
  }
  return best?.line;
}

/** `file:line: field: message` for each issue (the line when the config's text is given). */
function issueText(file: string, text: string | undefined, path: readonly PropertyKey[], msg: string) {
  const line = text !== undefined ? lineOfField(text, path) : undefined;
  return `${file}${line ? `:${line}` : ''}: ${path.map(String).join('.') || '(root)'}: ${msg}`;
}

/** Parses and validates the config; `text` (the file's TOML) puts line numbers in error messages. */
export function parseConfig(raw: unknown, file = '.toolsmith/config.toml', text?: string): Config {
  const r = configSchema.safeParse(raw);
  if (!r.success) {
    const issues = r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    const located = r.error.issues.map((i) => issueText(file, text, i.path, i.message));
    throw new ToolsmithError('invalid_config', located.join('; '), { issues });
  }
  const c = r.data;
  // (a record key's own refinement is reported by zod as "Invalid key in record": checked here instead)
  for (const id of Object.keys(c.runtimes))
    if (!isRuntimeId(id))
      throw new ToolsmithError('invalid_config', issueText(file, text, ['runtimes', id], RUNTIME_WORDS));
  if (c.pool.min_size > c.pool.max_size)
    throw new ToolsmithError(
      'invalid_config',
      issueText(file, text, ['pool', 'min_size'], 'pool.min_size is above pool.max_size'),
    );
  for (const [sb, def] of Object.entries(c.sandboxes))
    for (const server of Object.keys(def.mcp))
      if (!c.mcp_servers[server])
        throw new ToolsmithError(
          'invalid_config',
          issueText(
            file,
            text,
            ['sandboxes', sb, 'mcp', server],
            `no [mcp_servers.${server}] is declared; declared: ${Object.keys(c.mcp_servers).join(', ') || 'none'}`,
          ),
        );
  for (const [name, sb] of Object.entries(c.sandboxes)) {
    for (const e of sb.engines ?? [])
      if (!c.engines[e] && e !== 'local')
        throw new ToolsmithError(
          'invalid_config',
          issueText(
            file,
            text,
            ['sandboxes', name, 'engines'],
            `no engine '${e}' (define it under [engines.${e}])`,
          ),
        );
    if (sb.engines && sb.isolation === 'process')
      throw new ToolsmithError(
        'invalid_config',
        issueText(
          file,
          text,
          ['sandboxes', name, 'isolation'],
          'isolation "process" runs on this machine, not on engines',
        ),
      );
  }
  return c;
}
