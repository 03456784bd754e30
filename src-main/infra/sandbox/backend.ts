/**
 * The sandbox backend the service uses: one warm pool per sandbox over a worker factory (Docker, or the
 * process fallback), the ScriptExecutor the orchestrator runs scripts through, one-off tool calls and
 * hot reload of tools.py.
 */
import type { ApprovalGate } from '../../core/tools/approval.ts';
import type { ExecuteRequest, ScriptExecutor } from '../../core/ports/executor.ts';
import { infraResult } from '../../core/sandbox/execution.ts';
import type { ExecutionResult, TraceFrame } from '../../core/sandbox/execution.ts';
import { runtimeOf } from '../../core/sandbox/runtimes.ts';
import { SKILL_MARK } from '../../core/skills/offered.ts';
import type { RuntimeId } from '../../core/sandbox/runtimes.ts';
import type { JsonValue, ToolResponse } from '../../core/tools/model.ts';
import type { ScriptLanguage } from '../../core/lang/violation.ts';
import { pyLiteral } from '../../core/tools/prompt.ts';
import type { HostToolHandler, ReadyInfo } from './connection.ts';
import { SandboxPool } from './pool.ts';
import type { PoolLimits, PoolStatus, SandboxSpec, WorkerFactory, WorkerIds } from './pool.ts';
import { errorMessage } from '../../core/errors.ts';

export interface BackendOptions {
  factory: WorkerFactory;
  /** The factory of a sandbox with its own isolation level / engines (default: `factory`). */
  factoryFor?: (sandbox: string) => WorkerFactory;
  pool: PoolLimits;
  maxOutputBytes: number;
  /** Tool calls of one job recorded at most (`limits.tool_calls`; JobRequest.maxToolCalls). */
  maxToolCalls?: number;
  /** Approval requests of one job put to a person at most (`limits.approvals`; JobRequest.maxApprovals). */
  maxApprovals?: number;
  /** Intermediates of one job recorded at most (`limits.intermediates`; JobRequest.maxIntermediates). */
  maxIntermediates?: number;
  /** The sandbox's current spec (tools.py, host tools, credentials), read when a pool is made or reloaded. */
  specFor: (sandbox: string, runtime: RuntimeId) => SandboxSpec;
  /** Host-side tool handlers by tool name (shared by every sandbox). */
  hostTools?: Record<string, HostToolHandler>;
  /** Host-side tools of one sandbox (its MCP tools), by tool name. */
  hostToolsFor?: (sandbox: string) => Record<string, HostToolHandler>;
  /**
   * The handlers of a script's run-time tool lookups (`search_tools`, `describe_tool`), over the job's
   * tools (`tools`: script-visible name -> tool name); without them those calls fail with "no host
   * handler".
   */
  discoveryFor?: (
    sandbox: string,
    tools: Readonly<Record<string, string>>,
    /** The job's skills (found and described beside its tools). */
    skills?: readonly string[],
    /** The job's script language (which skills its lookups describe). */
    language?: ScriptLanguage,
  ) => Record<string, HostToolHandler>;
}

export class SandboxBackend implements ScriptExecutor {
  private readonly opts: BackendOptions;
  private readonly pools = new Map<string, SandboxPool>();
  private stopping = false;

  constructor(opts: BackendOptions) {
    this.opts = opts;
  }

  get isolation(): string {
    return this.opts.factory.isolation;
  }

  /**
   * A sandbox with egress has two kinds of pools: scripts run where they always do, with no network and
   * with the sandbox's tools forwarded to the host; the tools themselves run in the `tools` pool, whose
   * containers alone reach the host's egress proxy (docs/sandboxes.md). Other sandboxes: one kind.
   */
  private specOf(sandbox: string, runtime: RuntimeId, role: 'script' | 'tools'): SandboxSpec {
    const spec = this.opts.specFor(sandbox, role === 'tools' ? 'python' : runtime);
    if (!spec.egress) return spec;
    if (role === 'tools') {
      if (this.opts.factory.isolation !== 'docker')
        throw new Error(
          `sandbox ${sandbox} has egress, which is enforced only by the Docker backend (this one is ${this.opts.factory.isolation})`,
        );
      return spec;
    }
    const { egress: _egress, ...rest } = spec;
    return runtime === 'python' ? { ...rest, forwardTools: true } : rest;
  }

  private pool(sandbox: string, runtime: RuntimeId, role: 'script' | 'tools' = 'script'): SandboxPool {
    const key = role === 'tools' ? `${sandbox}:python:tools` : `${sandbox}:${runtime}`;
    let p = this.pools.get(key);
    if (!p) {
      if (this.stopping) throw new Error('the sandbox backend is shutting down');
      const factory = this.opts.factoryFor?.(sandbox) ?? this.opts.factory;
      p = new SandboxPool(this.specOf(sandbox, runtime, role), factory, this.opts.pool);
      this.pools.set(key, p);
    }
    return p;
  }

  async execute(req: ExecuteRequest): Promise<ExecutionResult> {
    const runtime = runtimeOf(req);
    let pool: SandboxPool;
    try {
      pool = this.pool(req.sandbox, runtime);
    } catch (e) {
      return infraResult(
        errorMessage(e),
        runtime,
        (this.opts.factoryFor?.(req.sandbox) ?? this.opts.factory).isolation,
      );
    }
    const spec = pool.spec;
    const hostTools =
      runtime !== 'python' || spec.forwardTools
        ? this.forwardedTools(req.sandbox, req.tools)
        : this.opts.hostToolsFor
          ? { ...this.opts.hostTools, ...this.opts.hostToolsFor(req.sandbox) }
          : this.opts.hostTools;
    // The run-time tool lookups answer for this job's tools only.
    const discovery = this.opts.discoveryFor?.(req.sandbox, req.tools, req.skills, req.language);
    const asked = performance.now();
    const result = await pool.run({
      code: req.code,
      language: req.language,
      tools: req.tools,
      ...(req.skills?.length ? { skills: req.skills } : {}),
      ...(req.inputs ? { inputs: req.inputs } : {}),
      timeoutMs: Math.min(req.timeoutMs ?? 300_000, 600_000),
      maxOutputBytes: this.opts.maxOutputBytes,
      ...(this.opts.maxToolCalls ? { maxToolCalls: this.opts.maxToolCalls } : {}),
      ...(this.opts.maxApprovals ? { maxApprovals: this.opts.maxApprovals } : {}),
      ...(this.opts.maxIntermediates ? { maxIntermediates: this.opts.maxIntermediates } : {}),
      // A tool of the job under a lookup's name keeps it (the script's namespace binds the tool too).
      ...(hostTools || discovery ? { hostTools: { ...discovery, ...hostTools } } : {}),
      ...(req.onEvent ? { onEvent: req.onEvent } : {}),
      ...(req.signal ? { signal: req.signal } : {}),
      ...(req.approval?.tools.length
        ? { approval: bodyLines(req.approval, req.code, req.bodyStartLine) }
        : {}),
      redact: Object.values(spec.credentials),
    });
    // The time before the job was sent (a worker started, its tools loaded): the trace's sandbox.acquire.
    const waitMs = Math.round(performance.now() - asked - result.durationMs);
    return mapFrames(waitMs >= 1 ? { ...result, waitMs } : result, req.bodyStartLine, req.code);
  }

  /**
   * For JS scripts every tool is a host call: host tools run here, sandbox tools (Python functions) run
   * in the sandbox's Python pool, one call each.
   */
  private forwardedTools(sandbox: string, tools: Record<string, string>): Record<string, HostToolHandler> {
    const out: Record<string, HostToolHandler> = {};
    const own = this.opts.hostToolsFor?.(sandbox);
    for (const name of new Set(Object.values(tools))) {
      const host = own?.[name] ?? this.opts.hostTools?.[name];
      if (host) out[name] = host;
      else {
        const forward: HostToolHandler = async (args, report) => {
          const r = await this.callTool(sandbox, name, args);
          if (r.result.egress?.length) report?.({ egress: r.result.egress });
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
    const request = {
      sandbox,
      language: 'python',
      code,
      bodyStartLine: 1,
      tools: { [tool]: tool },
      timeoutMs: 60_000,
    } as const;
    let result: ExecutionResult;
    if (this.opts.specFor(sandbox, 'python').egress) {
      let pool: SandboxPool;
      try {
        pool = this.pool(sandbox, 'python', 'tools');
      } catch (e) {
        const message = errorMessage(e);
        return { result: infraResult(message, 'python', this.opts.factory.isolation) };
      }
      result = await pool.run({
        code,
        language: 'python',
        tools: request.tools,
        timeoutMs: request.timeoutMs,
        maxOutputBytes: this.opts.maxOutputBytes,
        ...(this.opts.maxToolCalls ? { maxToolCalls: this.opts.maxToolCalls } : {}),
        ...(this.opts.hostTools ? { hostTools: this.opts.hostTools } : {}),
        redact: Object.values(pool.spec.credentials),
      });
      // The tool's outbound requests belong to its own trace entry too.
      const own = [...result.toolCalls].reverse().find((t) => t.name === tool);
      if (own && result.egress?.length) own.egress = result.egress;
    } else result = await this.execute(request);
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
      const role = key.endsWith(':tools') ? 'tools' : 'script';
      last = await p.reload(this.specOf(sandbox, p.spec.runtime, role));
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
    return [...this.pools].map(([key, p]) =>
      key.endsWith(':tools') ? { ...p.status(), sandbox: `${p.spec.name} tools (egress)` } : p.status(),
    );
  }

  /** The ids of a started pool's workers and standbys (container ids, or process ids). */
  workerIds(sandbox: string, runtime: RuntimeId = 'python'): WorkerIds | undefined {
    return this.pools.get(`${sandbox}:${runtime}`)?.workerIds();
  }

  /** The ids of a sandbox's egress tool containers, once started. */
  toolsWorkerIds(sandbox: string): WorkerIds | undefined {
    return this.pools.get(`${sandbox}:python:tools`)?.workerIds();
  }

  /** Shutdown began: no pool is made and no worker started from now on (see SandboxPool.stopSpawning). */
  stopSpawning(): void {
    this.stopping = true;
    for (const p of this.pools.values()) p.stopSpawning();
  }

  async dispose(): Promise<void> {
    this.stopSpawning();
    await Promise.all([...this.pools.values()].map((p) => p.dispose()));
    this.pools.clear();
  }
}

/**
 * Frames come back in lines of the assembled script; report them in lines of the body. A frame before
 * the body is in a skill the script called (its function is defined in the preamble, `assembleScript`):
 * it is reported in lines of that skill's source, named by `skill` (it read `line -3` before). The
 * worker's own validation messages (`line 6: ...`) are mapped the same way.
 */
export function mapFrames(r: ExecutionResult, bodyStartLine: number, code = ''): ExecutionResult {
  if (!r.error || bodyStartLine <= 1) return r;
  const toBody = (line: number) => line - bodyStartLine + 1;
  const lines = code.split('\n');
  const inSkill = (line: number): { skill: string; line: number } | undefined => {
    for (let i = Math.min(line, bodyStartLine) - 1; i >= 1; i--) {
      const m = SKILL_MARK.exec(lines[i - 1] ?? '');
      if (m?.[1]) return { skill: m[1], line: line - i };
    }
    return undefined;
  };
  const mapFrame = (f: TraceFrame): TraceFrame => {
    // tools.py frames keep their own lines.
    if (f.file) return f;
    if (f.line >= bodyStartLine || f.line < 1) return { ...f, line: toBody(f.line) };
    const at = inSkill(f.line);
    return at ? { ...f, line: at.line, skill: at.skill } : { ...f, line: toBody(f.line) };
  };
  const message =
    r.exitReason === 'rejected' && r.error.type === 'ValidationError'
      ? r.error.message.replace(/\bline (\d+)/g, (_m, n: string) => `line ${toBody(Number(n))}`)
      : r.error.message;
  return {
    ...r,
    error: {
      ...r.error,
      message,
      frames: r.error.frames.map(mapFrame),
    },
  };
}

/** A gate whose asks name the call's line in the script's body (with its text), not the assembled one. */
function bodyLines(gate: ApprovalGate, code: string, bodyStartLine: number): ApprovalGate {
  const lines = code.split('\n');
  return {
    tools: gate.tools,
    ask: (call, signal) => {
      const { line, ...rest } = call;
      const body = line !== undefined ? line - bodyStartLine + 1 : undefined;
      return gate.ask(
        body !== undefined && body >= 1 && line! <= lines.length
          ? { ...rest, line: body, text: lines[line! - 1]!.trim() }
          : rest,
        signal,
      );
    },
  };
}
