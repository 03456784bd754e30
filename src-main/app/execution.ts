/**
 * Script execution for every front end: the sandbox backend (started on first use, retired when the
 * config changes), validating a script against the tools it may call, building a prompt, and running a
 * script directly (`toolsmith exec`, MCP `execute_code`). Built once by the composition root
 * (app/service.ts) with the plain `ExecutionDeps` below.
 */
import { validateScript } from '../core/lang/validate.ts';
import type { ScriptLanguage, ValidateOptions, ValidationResult } from '../core/lang/violation.ts';
import type {
  ScriptGenerator,
  BuiltPrompt,
  PromptOptions,
  SandboxContext,
} from '../core/script/generator.ts';
import type { OfferedSkill } from '../core/skills/offered.ts';
import type { SandboxTool } from '../core/tools/extract.ts';
import type { Tool } from '../core/tools/model.ts';
import { failedResult, infraResult } from '../core/sandbox/execution.ts';
import type { ExecutionResult } from '../core/sandbox/execution.ts';
import { runtimeOf } from '../core/sandbox/runtimes.ts';
import { JOB_TIMEOUT_DEFAULT_MS, JOB_TIMEOUT_MAX_MS, jobTooLarge } from '../core/sandbox/job-line.ts';
import type { JobSizeRequest } from '../core/ports/executor.ts';
import { DEFAULT_MAX_TOOL_CALLS } from '../core/sandbox/execution.ts';
import type { RuntimeId } from '../core/sandbox/runtimes.ts';
import { assembleIn, sandboxContext, scriptCallShapes, scriptToolNames } from '../core/script/context.ts';
import type { ScriptContext } from '../core/script/context.ts';
import { languageOfTag, otherLanguageFence } from '../core/script/assemble.ts';
import { LANGUAGE_NAMES } from '../core/script/generator.ts';
import { errorMessage } from '../core/errors.ts';
import type { ParallelValidator } from '../infra/validate/parallel.ts';
import type { LiveExecutionEvent } from '../core/ports/executor.ts';
import type { ApprovalAsk } from '../core/tools/approval.ts';
import { directGate } from './approval.ts';
import type { ConfigDeps } from './deps.ts';
import { ToolsmithError } from './errors.ts';
import type { SandboxManager } from './sandbox.ts';

export interface ValidateRequest {
  code: string;
  language: ScriptLanguage;
  /** Tools come from this sandbox (optionally narrowed to a kit)... */
  sandbox?: string;
  kit?: string;
  /** ...or are named explicitly. */
  tools?: string[];
  strict?: boolean;
}

export interface ExecuteRequest {
  sandbox: string;
  kit?: string;
  language: ScriptLanguage;
  /** python | node | bun | deno, given explicitly (default: python or node by the language). */
  runtime?: RuntimeId;
  body: string;
  timeoutMs?: number;
  validate?: boolean;
  /** Aborts the job (a client that cancelled its call). */
  signal?: AbortSignal;
  /** The job's live events (tool calls, logs, tools' progress). */
  onEvent?: (e: LiveExecutionEvent) => void;
  /** Who answers calls that need approval (an MCP client's elicitation); else `askApproval`. */
  ask?: ApprovalAsk;
  /** Who reads a rejection: a model (MCP `execute_code`: "return the whole corrected script"), or a person. */
  reader?: 'model' | 'person';
}

/**
 * A rejected script whose code is a fenced block tagged another language (a ```ts block run as
 * JavaScript, a ```javascript one run as Python) says so: its syntax error reads `the script's code is a
 * ```ts block, but it was run as JavaScript (syntax error: ...)`, and code that parses anyway gets a
 * `wrong-language` violation ahead of its others. Before, the error was the run's language's bare syntax
 * error (Python's "Statements must be separated by newlines or semicolons" for a ```ts block). JavaScript
 * is TypeScript: a ```js block run as TypeScript is its language.
 */
export function otherLanguageCode(
  text: string,
  language: ScriptLanguage,
  v: ValidationResult,
): ValidationResult {
  const other = otherLanguageFence(text, language);
  if (v.valid || !other) return v;
  const name = LANGUAGE_NAMES[language];
  const its = languageOfTag(other);
  const wrong = `the script's code is a \`\`\`${other} block, but it was run as ${name}`;
  const fix = its ? `run it as ${LANGUAGE_NAMES[its]}, or write it in ${name}` : `write it in ${name}`;
  if (v.violations.some((x) => x.rule === 'syntax'))
    return {
      valid: false,
      violations: v.violations.map((x) =>
        x.rule === 'syntax' ? { ...x, message: `${wrong} (${x.message}): ${fix}` } : x,
      ),
    };
  if (language === 'ts' && its === 'js') return v;
  return {
    valid: false,
    violations: [
      { rule: 'wrong-language', message: `${wrong}: ${fix}`, line: 1, column: 1, endLine: 1, endColumn: 1 },
      ...v.violations,
    ],
  };
}

/** What script execution needs: plain functions and values, never the service. */
export interface ExecutionDeps extends ConfigDeps {
  readonly generator: ScriptGenerator;
  /** Long scripts validated on two threads in long-lived processes; absent in one-shot CLI verbs. */
  readonly validator: ParallelValidator | undefined;
  /** The script context of a sandbox without its skills (app/catalog.ts). */
  toolContext(sandbox: string, kit: string | undefined, language: ScriptLanguage): ScriptContext;
  /** The sandbox's tools a script with `allowed` tools may not call, each with why. */
  excludedTools(sandbox: string, allowed: readonly string[]): Record<string, string>;
  /** The skills offered to scripts of a context (app/skills.ts). */
  offeredSkills(ctx: ScriptContext): OfferedSkill[];
  /**
   * The workspace's skills a script of this sandbox and language with `callable` names may not call, each
   * with why (app/skills.ts `notOffered`).
   */
  unofferedSkills(
    sandbox: string,
    language: ScriptLanguage,
    callable: readonly string[],
  ): Record<string, string>;
  /** Connects a sandbox's MCP servers; the ones that could not be reached, each with why. */
  prepareMcp(sandbox: string): Promise<{ server: string; error: string }[]>;
  /** Starts a sandbox backend (rejects, saying why, when none can start). */
  startBackend(): Promise<SandboxManager>;
  /** Who answers tool calls that need approval when the request names no one (app/approval.ts). */
  askApproval(): ApprovalAsk | undefined;
}

export class ScriptExecution {
  private readonly deps: ExecutionDeps;
  private sandboxPromise: Promise<SandboxManager> | undefined;
  /** The sandbox manager once made (shutdown tells it at once that nothing may start any more). */
  private sandboxMade: SandboxManager | undefined;
  private closing = false;
  private readonly shutdown = new AbortController();
  /**
   * Aborted when shutdown begins: a backend still starting (its engine probe) gives up, so that a stop
   * during start is not held by an engine that took the connection and never answers.
   */
  readonly stopping: AbortSignal = this.shutdown.signal;

  constructor(deps: ExecutionDeps) {
    this.deps = deps;
  }

  /** The sandbox manager (Docker pool, or the process fallback), created on first use. */
  sandbox(): Promise<SandboxManager> {
    if (!this.sandboxPromise) {
      const made = this.deps.startBackend();
      this.sandboxPromise = made;
      made.then(
        (m) => {
          if (this.closing) m.stopSpawning?.();
          if (this.sandboxPromise === made) this.sandboxMade = m;
        },
        () => {
          if (this.sandboxPromise === made) this.sandboxPromise = undefined;
        },
      );
    }
    return this.sandboxPromise;
  }

  /**
   * Shutdown began: the jobs cancelled next (by close, or by a front end closing its sessions first) must
   * not make their pools start replacements or standbys: containers started now would outlive the
   * process, or make it miss its stop grace. Nothing is started from here on.
   */
  beginShutdown(): void {
    this.closing = true;
    this.sandboxMade?.stopSpawning?.();
    this.shutdown.abort();
  }

  /**
   * The sandbox backend for a job, or the result the job ends with without one: `infra` when none can
   * start, cancelled when the job's `signal` aborts while the backend is still starting (a stop signal,
   * a cancelled run: the job does not wait for an engine that takes the connection and never answers;
   * the backend goes on starting until the service's shutdown ends it).
   */
  async backendFor(
    signal: AbortSignal | undefined,
    runtime: string,
  ): Promise<SandboxManager | ExecutionResult> {
    const starting = this.sandbox();
    let onAbort: (() => void) | undefined;
    try {
      return await Promise.race([
        starting,
        new Promise<ExecutionResult>((resolve) => {
          if (!signal) return;
          onAbort = () =>
            resolve(
              failedResult(
                'error',
                {
                  type: 'Cancelled',
                  message: `the run was cancelled${typeof signal.reason === 'string' ? ` (${signal.reason})` : ''} before a sandbox backend started`,
                },
                runtime,
              ),
            );
          if (signal.aborted) onAbort();
          else signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } catch (e) {
      // No engine, no image, no backend: a result that says so, never an exception.
      return infraResult(errorMessage(e), runtime);
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  /** The sandbox manager when one was started (or is starting), without starting one. */
  startedSandbox(): Promise<SandboxManager | undefined> {
    return this.sandboxPromise ? this.sandboxPromise.catch(() => undefined) : Promise.resolve(undefined);
  }

  /**
   * New jobs go to a new sandbox backend (made on their first use); the current one is disposed once its
   * running jobs end. Used when the config changed and when a Docker engine appeared while the process
   * fallback ran.
   */
  retireSandbox(): void {
    const retired = this.sandboxPromise;
    if (!retired) return;
    this.sandboxPromise = undefined;
    this.sandboxMade = undefined;
    void retired.then((m) => m.retire?.() ?? m.dispose()).catch(() => {});
  }

  /**
   * Retires the backend and, unless shutting down, makes the next one at once: after the Docker engine
   * went away, the fallback and its engine probe start without waiting for a job.
   */
  replaceSandbox(): void {
    this.retireSandbox();
    if (!this.closing) void this.sandbox().catch(() => {});
  }

  /** Disposes the sandbox backend (its containers removed) and the validation threads. */
  async close(): Promise<void> {
    await this.deps.validator?.close();
    const s = this.sandboxPromise;
    this.sandboxPromise = undefined;
    this.sandboxMade = undefined;
    if (s) await (await s.catch(() => undefined))?.dispose();
  }

  /**
   * Validates a script: every validation in the service goes through here (see `validator`). With the
   * script's sandbox, a call of a name nobody has is checked against the workspace's skills: one the
   * script is not offered is reported with why (`skill-not-offered`). Only such a script pays for it
   * (reading every skill file), validated a second time.
   */
  validateCode(
    code: string,
    language: ScriptLanguage,
    options: ValidateOptions,
    sandbox?: string,
  ): ValidationResult {
    const v = this.validateOnce(code, language, options);
    if (sandbox === undefined || !v.violations.some((x) => x.rule === 'unknown-function')) return v;
    const unoffered = this.deps.unofferedSkills(sandbox, language, options.tools);
    return Object.keys(unoffered).length ? this.validateOnce(code, language, { ...options, unoffered }) : v;
  }

  private validateOnce(code: string, language: ScriptLanguage, options: ValidateOptions): ValidationResult {
    return this.deps.validator
      ? this.deps.validator.validate(code, language, options)
      : validateScript(code, language, options);
  }

  /**
   * The one script context of a sandbox, kit and language (see app/catalog.ts), with the skills offered
   * to its scripts (app/skills.ts).
   */
  scriptContext(sandbox: string, kitName: string | undefined, language: ScriptLanguage): ScriptContext {
    const ctx = this.deps.toolContext(sandbox, kitName, language);
    const skills = this.deps.offeredSkills(ctx);
    return skills.length ? { ...ctx, skills } : ctx;
  }

  /**
   * A sandbox's tools as scripts see them, then its offered skills: what manuals, search and describe
   * show. With a language, the skills its scripts may call; without one (MCP, whose `code` tool takes
   * both), the skills of every language, each saying which scripts call it.
   */
  manualTools(sandbox: string, kit?: string, language?: ScriptLanguage): SandboxTool[] {
    if (language) {
      const ctx = this.scriptContext(sandbox, kit, language);
      return [...ctx.tools, ...(ctx.skills ?? []).map((s) => s.tool)];
    }
    const python = this.scriptContext(sandbox, kit, 'python');
    const callers = new Map<string, { tool: SandboxTool; languages: string[] }>();
    for (const l of ['python', 'js', 'ts'] as const)
      for (const s of (l === 'python' ? python : this.scriptContext(sandbox, kit, l)).skills ?? []) {
        const seen = callers.get(s.name);
        if (seen) seen.languages.push(l);
        else callers.set(s.name, { tool: s.tool, languages: [l] });
      }
    return [
      ...python.tools,
      ...[...callers.values()].map(({ tool, languages }) => ({
        ...tool,
        description: `${tool.description}\n(A skill: ${languages.join(' and ')} scripts call it.)`,
      })),
    ];
  }

  /** The manual entries of a sandbox's offered skills among `names` (a job's run-time lookups). */
  skillManual(sandbox: string, names: readonly string[], language: ScriptLanguage = 'python'): Tool[] {
    return (
      this.deps
        // A TS job may reach the worker as JS (types stripped on the host): JS and TS skills both.
        .offeredSkills(this.deps.toolContext(sandbox, undefined, language === 'python' ? 'python' : 'ts'))
        .filter((s) => names.includes(s.name))
        .map((s) => s.tool)
    );
  }

  validate(req: ValidateRequest): ValidationResult {
    let tools: string[] = req.tools ?? [];
    let shapes: ValidateOptions['shapes'];
    let toolMap = Object.fromEntries(tools.map((t) => [t, t]));
    let code = req.code;
    let skills: string[] | undefined;
    if (req.sandbox) {
      const ctx = this.scriptContext(req.sandbox, req.kit, req.language);
      tools = scriptToolNames(ctx);
      shapes = scriptCallShapes(ctx);
      toolMap = ctx.toolMap;
      code = assembleIn(ctx, req.code).code;
      if (ctx.skills?.length) skills = ctx.skills.map((s) => s.name);
    }
    // A script whose job could never reach a worker is told so, not validated (seconds for 1 MB).
    const tooLarge = this.jobTooLarge({
      language: req.language,
      code,
      tools: toolMap,
      ...(skills ? { skills } : {}),
    });
    if (tooLarge)
      return {
        valid: false,
        violations: [
          { rule: 'script-too-large', message: tooLarge, line: 1, column: 1, endLine: 1, endColumn: 1 },
        ],
      };
    return this.validateCode(
      req.code,
      req.language,
      {
        tools,
        strict: req.strict ?? false,
        ...(req.sandbox ? { excluded: this.deps.excludedTools(req.sandbox, tools) } : {}),
        ...(shapes ? { shapes } : {}),
      },
      req.sandbox,
    );
  }

  /** The MCP server's code tool description over these sandboxes (the generator's words, one place). */
  codeToolDescription(
    sandboxes: readonly SandboxContext[],
    defaultSandbox: string,
    kits: readonly { name: string; sandbox: string }[] = [],
  ): string {
    return this.deps.generator.codeToolDescription(sandboxes, defaultSandbox, kits);
  }

  buildPrompt(
    task: string,
    sandbox: string,
    options: PromptOptions & { kit?: string; language?: ScriptLanguage } = {},
  ): BuiltPrompt {
    if (!task.trim()) throw new ToolsmithError('invalid_argument', 'the task is empty');
    const ctx = this.scriptContext(sandbox, options.kit, options.language ?? 'python');
    return this.deps.generator.buildPrompt(task, sandboxContext(ctx), options);
  }

  /**
   * Why a job would be refused for its size (undefined when it fits): the whole line the worker would
   * read (core/sandbox/job-line.ts), with the limits the sandbox backend sends (app/sandbox-factory.ts).
   */
  jobTooLarge(req: JobSizeRequest): string | undefined {
    const limits = this.deps.config.limits;
    return jobTooLarge({
      code: req.code,
      language: req.language,
      tools: req.tools,
      ...(req.skills ? { skills: req.skills } : {}),
      ...(req.approve ? { approve: req.approve } : {}),
      ...(req.inputs ? { inputs: req.inputs } : {}),
      timeoutMs: Math.min(req.timeoutMs ?? JOB_TIMEOUT_DEFAULT_MS, JOB_TIMEOUT_MAX_MS),
      maxOutputBytes: limits.output_kb * 1024,
      maxToolCalls: limits.tool_calls || DEFAULT_MAX_TOOL_CALLS,
    });
  }

  /** Runs a script directly (no LLM, not recorded): `toolsmith exec` and MCP `execute_code`. */
  async executeScript(req: ExecuteRequest): Promise<ExecutionResult> {
    const runtime = runtimeOf(req);
    const mcpDown = await this.deps.prepareMcp(req.sandbox);
    if (mcpDown.length > 0) return infraResult(mcpDown.map((f) => f.error).join('; '), runtime);
    const ctx = this.scriptContext(req.sandbox, req.kit, req.language);
    const script = assembleIn(ctx, req.body);
    const timeoutMs = Math.min(req.timeoutMs ?? this.deps.config.limits.timeout_s * 1000, 600_000);
    const gate = directGate(this.deps.config.approval, ctx, this.deps.askApproval(), req.ask);
    const job = {
      sandbox: req.sandbox,
      language: req.language,
      ...(req.runtime ? { runtime: req.runtime } : {}),
      code: script.code,
      bodyStartLine: script.bodyStartLine,
      tools: ctx.toolMap,
      // The skills the script may call, as a run's job names them: the worker records their tool calls
      // under their name, checks a JS/TS skill again and names a skill's endless recursion.
      ...(ctx.skills?.length ? { skills: ctx.skills.map((s) => s.name) } : {}),
      timeoutMs,
      ...(req.signal ? { signal: req.signal } : {}),
      ...(req.onEvent ? { onEvent: req.onEvent } : {}),
      ...gate,
    };
    // Refused before validating it (seconds for a 1 MB script: `exec` answered after 6 s that the worker
    // refused it), counting the whole job line the worker would read, not the script alone.
    const tooLarge = this.jobTooLarge({ ...job, ...(gate.approval ? { approve: gate.approval.tools } : {}) });
    if (tooLarge) return failedResult('error', { type: 'ScriptTooLarge', message: tooLarge }, runtime);
    if (req.validate !== false) {
      const v = this.validateCode(
        script.body,
        req.language,
        {
          tools: scriptToolNames(ctx),
          excluded: this.deps.excludedTools(req.sandbox, scriptToolNames(ctx)),
          shapes: scriptCallShapes(ctx),
        },
        req.sandbox,
      );
      if (!v.valid)
        return failedResult(
          'rejected',
          {
            type: 'ValidationError',
            message: this.deps.generator.validationErrorMessage(
              otherLanguageCode(req.body, req.language, v).violations,
              req.reader,
            ),
          },
          runtime,
        );
    }
    const sandbox = await this.backendFor(req.signal, runtime);
    if (!('executor' in sandbox)) return sandbox;
    const result = await sandbox.executor.execute(job);
    return this.explainUnoffered(result, req, ctx);
  }

  /**
   * A script run without validation that names a skill it is not offered fails as Python's `NameError:
   * name 'x' is not defined` (JS: `ReferenceError: x is not defined`): the error then says why.
   */
  private explainUnoffered(
    result: ExecutionResult,
    req: ExecuteRequest,
    ctx: ScriptContext,
  ): ExecutionResult {
    const e = result.error;
    if (!e || (e.type !== 'NameError' && e.type !== 'ReferenceError')) return result;
    const name = /^(?:name '([A-Za-z_]\w*)'|([A-Za-z_$][\w$]*)) is not defined/.exec(e.message);
    const skill = name?.[1] ?? name?.[2];
    if (!skill) return result;
    const why = this.deps.unofferedSkills(req.sandbox, req.language, scriptToolNames(ctx))[skill];
    if (why === undefined) return result;
    return {
      ...result,
      error: { ...e, message: `${e.message}: ${skill}() is a skill this script is not offered: ${why}` },
    };
  }
}
