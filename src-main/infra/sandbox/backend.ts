/**
 * The sandbox backend the service uses: one warm pool per sandbox over a worker factory (Docker, or the
 * process fallback), the ScriptExecutor the orchestrator runs scripts through, one-off tool calls and
 * hot reload of tools.py.
 */
import type { ExecuteRequest, ScriptExecutor } from '../../core/ports/executor.ts';
import type { ExecutionResult } from '../../core/sandbox/execution.ts';
import type { RuntimeId } from '../../core/sandbox/runtimes.ts';
import type { JsonValue, ToolResponse } from '../../core/tools/model.ts';
import { pyLiteral } from '../../core/tools/prompt.ts';
import type { HostToolHandler, ReadyInfo } from './connection.ts';
import { infraResult, SandboxPool } from './pool.ts';
import type { PoolLimits, PoolStatus, SandboxSpec, WorkerFactory, WorkerIds } from './pool.ts';

export interface BackendOptions {
  factory: WorkerFactory;
  /** The factory of a sandbox with its own isolation level / engines (default: `factory`). */
  factoryFor?: (sandbox: string) => WorkerFactory;
  pool: PoolLimits;
  maxOutputBytes: number;
  /** The sandbox's current spec (tools.py, host tools, credentials), read when a pool is made or reloaded. */
  specFor: (sandbox: string, runtime: RuntimeId) => SandboxSpec;
  /** Host-side tool handlers by tool name (shared by every sandbox). */
  hostTools?: Record<string, HostToolHandler>;
}

export class SandboxBackend implements ScriptExecutor {
  private readonly opts: BackendOptions;
  private readonly pools = new Map<string, SandboxPool>();

  constructor(opts: BackendOptions) {
    this.opts = opts;
  }

  get isolation(): string {
    return this.opts.factory.isolation;
  }

  private pool(sandbox: string, runtime: RuntimeId): SandboxPool {
    const key = `${sandbox}:${runtime}`;
    let p = this.pools.get(key);
    if (!p) {
      const factory = this.opts.factoryFor?.(sandbox) ?? this.opts.factory;
      p = new SandboxPool(this.opts.specFor(sandbox, runtime), factory, this.opts.pool);
      this.pools.set(key, p);
    }
    return p;
  }

  async execute(req: ExecuteRequest): Promise<ExecutionResult> {
    const runtime = req.runtime ?? (req.language === 'python' ? 'python' : 'node');
    let pool: SandboxPool;
    try {
      pool = this.pool(req.sandbox, runtime);
    } catch (e) {
      return infraResult(
        (this.opts.factoryFor?.(req.sandbox) ?? this.opts.factory).isolation,
        e instanceof Error ? e.message : String(e),
        runtime,
      );
    }
    const spec = pool.spec;
    const hostTools =
      runtime !== 'python' ? this.forwardedTools(req.sandbox, req.tools) : this.opts.hostTools;
    const result = await pool.run({
      code: req.code,
      language: req.language,
      tools: req.tools,
      ...(req.inputs ? { inputs: req.inputs } : {}),
      timeoutMs: Math.min(req.timeoutMs ?? 300_000, 600_000),
      maxOutputBytes: this.opts.maxOutputBytes,
      ...(hostTools ? { hostTools } : {}),
      ...(req.onEvent ? { onEvent: req.onEvent } : {}),
      ...(req.signal ? { signal: req.signal } : {}),
      redact: Object.values(spec.credentials),
    });
    return mapFrames(result, req.bodyStartLine);
  }

  /**
   * For JS scripts every tool is a host call: host tools run here, sandbox tools (Python functions) run
   * in the sandbox's Python pool, one call each.
   */
  private forwardedTools(sandbox: string, tools: Record<string, string>): Record<string, HostToolHandler> {
    const out: Record<string, HostToolHandler> = {};
    for (const name of new Set(Object.values(tools))) {
      const host = this.opts.hostTools?.[name];
      if (host) out[name] = host;
      else {
        const forward: HostToolHandler = async (args) => {
          const r = await this.callTool(sandbox, name, args);
          if (!r.response)
            throw new Error(
              r.result.error ? `${r.result.error.type}: ${r.result.error.message}` : 'the tool call failed',
            );
          return r.response;
        };
        forward.location = 'sandbox';
        out[name] = forward;
      }
    }
    return out;
  }

  /** Runs one tool in its sandbox: a tiny generated script that calls it and emits the response. */
  async callTool(
    sandbox: string,
    tool: string,
    args: Record<string, JsonValue>,
  ): Promise<{ response?: ToolResponse; result: ExecutionResult }> {
    const argText = Object.entries(args)
      .map(([k, v]) => {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
          throw new Error(`invalid argument name ${JSON.stringify(k)}`);
        return `${k}=${pyLiteral(v)}`;
      })
      .join(', ');
    const code = `r = ${tool}(${argText})\nemit_result({"success": r.success, "message": r.message, "data": r.data})\n`;
    const result = await this.execute({
      sandbox,
      language: 'python',
      code,
      bodyStartLine: 1,
      tools: { [tool]: tool },
      timeoutMs: 60_000,
    });
    const d = result.data as { success?: boolean; message?: string | null; data?: JsonValue } | undefined;
    const response: ToolResponse | undefined =
      result.success && d
        ? {
            success: !!d.success,
            ...(d.message ? { message: d.message } : {}),
            ...(d.data !== undefined && d.data !== null ? { data: d.data } : {}),
          }
        : undefined;
    return { ...(response ? { response } : {}), result };
  }

  /** tools.py changed: reload the sandbox's pools (idle workers now, busy ones when they return). */
  async reload(sandbox: string): Promise<ReadyInfo | undefined> {
    let last: ReadyInfo | undefined;
    for (const [key, p] of this.pools) {
      if (!key.startsWith(`${sandbox}:`)) continue;
      last = await p.reload(this.opts.specFor(sandbox, p.spec.runtime));
    }
    return last;
  }

  /** Starts the pool's minimum workers now (the first job then finds a warm worker), then its standbys. */
  async warm(sandbox: string, runtime: RuntimeId = 'python'): Promise<ReadyInfo | undefined> {
    const p = this.pool(sandbox, runtime);
    await p.warm();
    return p.lastReady;
  }

  status(): PoolStatus[] {
    return [...this.pools.values()].map((p) => p.status());
  }

  /** The ids of a started pool's workers and standbys (container ids, or process ids). */
  workerIds(sandbox: string, runtime: RuntimeId = 'python'): WorkerIds | undefined {
    return this.pools.get(`${sandbox}:${runtime}`)?.workerIds();
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.dispose()));
    this.pools.clear();
  }
}

/**
 * Frames come back in lines of the assembled script; report them in lines of the body. The worker's own
 * validation messages (`line 6: ...`) are mapped the same way.
 */
export function mapFrames(r: ExecutionResult, bodyStartLine: number): ExecutionResult {
  if (!r.error || bodyStartLine <= 1) return r;
  const toBody = (line: number) => line - bodyStartLine + 1;
  const message =
    r.error.type === 'ValidationError'
      ? r.error.message.replace(/\bline (\d+)/g, (_m, n: string) => `line ${toBody(Number(n))}`)
      : r.error.message;
  return {
    ...r,
    error: { ...r.error, message, frames: r.error.frames.map((f) => ({ ...f, line: toBody(f.line) })) },
  };
}
