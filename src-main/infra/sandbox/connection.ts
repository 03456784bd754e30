/**
 * One worker process (in a container or on the host) and the NDJSON protocol with it. Every line from
 * the worker is untrusted: size-capped, parsed once into a WorkerMessage (worker-messages.ts: anything
 * else is ignored), job-id-checked; the host keeps its own watchdog and output cap. Shared by the Docker
 * and the process backends.
 */
import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import type {
  EgressRecord,
  ExecutionError,
  ExecutionResult,
  ExitReason,
  IsolationLevel,
  SkillCallTrace,
  ToolCallTrace,
} from '../../core/sandbox/execution.ts';
import type { JsonValue, ToolResponse } from '../../core/tools/model.ts';
import { DISCOVERY_CALLS } from '../../core/tools/disclosure.ts';
import type { LiveExecutionEvent, ToolProgress } from '../../core/ports/executor.ts';
import { refusalMessage, type ApprovalGate } from '../../core/tools/approval.ts';
import { StderrTail } from './stderr-tail.ts';
import { Redactor } from '../../core/records/redact.ts';
import { parseWorkerLine, type ToolDescriptor, type WorkerMessage } from './worker-messages.ts';
import { errorMessage } from '../../core/errors.ts';
import {
  jobMessage,
  jobTooLargeMessage,
  MAX_JOB_LINE_BYTES,
  workerLine,
} from '../../core/sandbox/job-line.ts';
import {
  approvalBoundReason,
  capArgs,
  DEFAULT_MAX_APPROVALS,
  DEFAULT_MAX_INTERMEDIATES,
  DEFAULT_MAX_TOOL_CALLS,
  explainOutputLimit,
} from '../../core/sandbox/execution.ts';

export type { ToolDescriptor, WorkerMessage } from './worker-messages.ts';

/** Largest line accepted from a worker; a longer one ends the job (output_limit) and the worker. */
export const MAX_WORKER_LINE = 4 * 1024 * 1024;

/**
 * An error's type and message cut to the job's output limit, saying how much was left out. A script sizes
 * its own error (`raise ValueError("x" * 3_000_000)`) and nothing else counted it against the limit: it
 * went whole into the run store, every MCP answer and agent context, and the LLM's correction prompt.
 */
export function withinOutput(error: ExecutionError, max: number): ExecutionError {
  const cut = (s: string) =>
    s.length <= max
      ? s
      : `${s.slice(0, max)}… (${(s.length - max).toLocaleString('en-US')} more characters: the output limit is ${max} bytes)`;
  return error.message.length <= max && error.type.length <= max
    ? error
    : { ...error, type: cut(error.type), message: cut(error.message) };
}

/**
 * Largest line a worker accepts from the host (`MAX_LINE` in the Python worker, the same in the Node
 * worker): a longer one is dropped unread, so the host refuses to send it and says why. Before, a 3 MB
 * script was dropped and its job waited for the watchdog, and a tool result past it left the script
 * waiting for an answer that never came.
 */
export const MAX_HOST_LINE = MAX_JOB_LINE_BYTES;

/** A message too large for the worker to read (see MAX_HOST_LINE); nothing was sent. */
export class LineTooLarge extends Error {
  override name = 'LineTooLarge';
  readonly bytes: number;
  constructor(bytes: number) {
    // In bytes when both would read the same ("1.0 MB, above the 1.0 MB": a script just under the limit
    // whose job, with its sandbox's tool list, is just over it).
    const [size, limit] = sizesBeside(bytes, MAX_HOST_LINE);
    super(`${size} as a protocol message, above the ${limit} a worker reads`);
    this.bytes = bytes;
  }
}

const sizeOf = (n: number): string =>
  n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`;

/** Two sizes as sizeOf says them, or in bytes when they would read the same. */
export const sizesBeside = (a: number, b: number): [string, string] =>
  sizeOf(a) === sizeOf(b) ? [`${a} bytes`, `${b} bytes`] : [sizeOf(a), sizeOf(b)];

export interface LoadRequest {
  source: string;
  hostTools: { name: string; params?: unknown[] }[];
  credentials: string[];
  /** The sandbox's own tools are called through tool_call too (they run in another container). */
  forwardTools?: boolean;
}

export type HostToolHandler = ((
  args: Record<string, JsonValue>,
  /** Adds to the call's trace (a forwarded sandbox tool's outbound requests). */
  report?: (extra: Pick<ToolCallTrace, 'egress'>) => void,
  ctx?: {
    signal?: AbortSignal;
    /** Progress the tool reports while it runs (an upstream MCP server's), passed on live, not recorded. */
    onProgress?: (p: ToolProgress) => void;
  },
) => Promise<ToolResponse> | ToolResponse) & {
  /** Where the tool really runs (a sandbox tool forwarded from a JS script runs in the Python sandbox). */
  location?: ToolCallTrace['location'];
};

export interface JobRequest {
  code: string;
  /** python | js | ts (the node worker strips TypeScript types). */
  language?: string;
  /** Script-visible name -> tool name. */
  tools: Record<string, string>;
  /** The skills defined in `code`: a tool call made from one is recorded under its name. */
  skills?: readonly string[];
  inputs?: Record<string, JsonValue>;
  timeoutMs: number;
  maxOutputBytes: number;
  /**
   * Tool calls recorded at most (`limits.tool_calls`, default DEFAULT_MAX_TOOL_CALLS): the first ones are
   * kept in the result and sent live, the rest only counted (ExecutionResult.toolCallsNotRecorded). Every
   * call is still answered: the bound is on what the host keeps, not on what the script may do.
   */
  maxToolCalls?: number;
  /**
   * Approval requests put to a person at most (`limits.approvals`, default DEFAULT_MAX_APPROVALS): past
   * them a call that needs approval is refused without asking, and counted
   * (ExecutionResult.approvalsNotAsked).
   */
  maxApprovals?: number;
  /**
   * Intermediates recorded at most (`limits.intermediates`, default DEFAULT_MAX_INTERMEDIATES): past them
   * an intermediate is only counted (ExecutionResult.intermediatesNotRecorded), neither kept nor sent live.
   */
  maxIntermediates?: number;
  /** Host-side tools the script may call, by tool name. */
  hostTools?: Record<string, HostToolHandler>;
  onEvent?: (e: LiveExecutionEvent) => void;
  signal?: AbortSignal;
  /** Secrets to blank out of anything the job reports. */
  redact?: string[];
  /**
   * Tools whose calls wait for a person (core/tools/approval.ts): a host tool is asked here before its
   * handler runs; a sandbox tool's worker asks through a `gate` tool_call before it runs the tool.
   */
  approval?: ApprovalGate;
}

/**
 * Hands a live event to the job's listener. The listener records it (the run store), and may throw: the
 * store closed while the run still emits (its process is stopping), a full disk past what it holds. That
 * must never escape here: this runs in the worker socket's reader (and after a host tool's await), where
 * an exception would end the whole process. The job's own result (its tool calls, logs) is unaffected.
 */
/**
 * The redactor of a job's secrets (its sandbox's credential values): every form `secretForms` knows
 * (URL-encoded, escaped in nested JSON text) becomes `***` in the result and in every live event.
 * Values under 4 characters are left (they would rewrite ordinary text).
 */
const jobRedactors = new WeakMap<JobRequest, Redactor>();
function redactorOf(job: JobRequest): Redactor {
  let r = jobRedactors.get(job);
  if (!r) {
    r = new Redactor('***', 4);
    for (const s of job.redact ?? []) r.add(s);
    jobRedactors.set(job, r);
  }
  return r;
}

function live(job: JobRequest, e: LiveExecutionEvent): void {
  if (!job.onEvent) return;
  try {
    job.onEvent(redactorOf(job).value(e));
  } catch {
    // Dropped: see above.
  }
}

/**
 * A job's result as the connection gives it to the pool: `workerBroken`, the worker must be replaced;
 * `undelivered`, nothing of the job ran (the pool may send it to another worker once); `stopped`, the
 * worker's reason when that was its `stopping` (docs/protocol.md).
 */
export type JobOutcome = ExecutionResult & { workerBroken: boolean; undelivered?: boolean; stopped?: string };

export interface ReadyInfo {
  runtime: string;
  version: string;
  tools: ToolDescriptor[];
  /**
   * The Python worker: whether it made itself a child subreaper (PR_SET_CHILD_SUBREAPER), which it does
   * only where it is not pid 1 and its jobs do not run in pid namespaces of their own.
   */
  subreaper?: boolean;
}

/** What listeners get: the worker's messages, and the host's own word that a line was over MAX_WORKER_LINE. */
type Msg = WorkerMessage | { type: '__oversize' };

export class WorkerGone extends Error {
  override name = 'WorkerGone';
}

export interface ConnectionOptions {
  /**
   * The worker's stderr: its last lines are kept and added to the reason it is gone (a tail the backend
   * started before the connection existed, to say why a worker never connected, is used as it is).
   */
  stderr?: Readable | StderrTail;
  /** Values blanked out of those lines (the sandbox's credential values). */
  redact?: string[];
  /** What this level's limits are made of, recorded in every result (ExecutionResult.isolationDetails). */
  isolationDetails?: string;
  /** How many processes of the worker the kernel's OOM killer has killed so far (a cgroup's counter). */
  oomKills?: () => number;
  /**
   * The backend calls `exited` when the worker's process or container ends: a reason given first (the
   * worker closed its output) waits for that news too, within the stderr's grace, to say how it ended.
   */
  reportsExit?: boolean;
}

/** How long a job's end waits for egress requests whose close is on its way (egress.ts, idle). */
const EGRESS_SETTLE_MS = 200;
/**
 * How long a job's end waits for the host tool calls it started and that were cancelled when it ended
 * (a handler that ignores its abort signal is not waited for longer: its call is recorded as cancelled).
 */
const CALLS_SETTLE_MS = 5000;

/** How long a worker that is gone may take to close its stderr before the reason is given without it. */
/** A time limit in words: "3 s", "1.5 s". */
const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(1))} s`;
export const STDERR_GRACE_MS = 500;
/** How long a job whose worker's stream closed waits for the backend's news of the worker's end. */
const EXIT_NEWS_MS = 3000;

/** Connects to a worker over its stdin/stdout; `kill` ends it (container or process) for good. */
export class WorkerConnection {
  readonly isolation: IsolationLevel;
  private readonly stdin: Writable;
  private buf = '';
  private listeners = new Set<(m: Msg) => void>();
  /** Set as soon as the worker is gone (nothing more is sent to it). */
  private closedReason: string | undefined;
  /** The reason with the worker's last stderr lines, given to waiters once stderr has ended. */
  private finalReason: string | undefined;
  private closeWaiters = new Set<(reason: string) => void>();
  private readonly stderr: StderrTail | undefined;
  /** How the worker's process ended (`exit status 1`, `killed by SIGKILL`), once the backend knows. */
  private exitStatus: string | undefined;
  /** Whether the first reason the worker is gone was its exit (which then already says how it ended). */
  private closedByExit = false;
  private exitHeard: (() => void) | undefined;
  private readonly exitNews: Promise<void> | undefined;
  private readonly isolationDetails: string | undefined;
  private readonly oomKills: (() => number) | undefined;
  private readonly killFn: (reason: string) => Promise<void>;
  jobs = 0;
  ready: ReadyInfo | undefined;
  /**
   * Whether the worker's next job's process is ready (`next_ready`): undefined for a worker that does
   * not tell (its job starts at once), false from a job or a load sent until the worker says so. The
   * pool prefers a ready worker (pool.ts, checkout).
   */
  nextReady: boolean | undefined;
  /** The id of the last job sent (a `next_ready` about an earlier one is stale). */
  private lastJob: string | null = null;
  /** Set when the host saw OOM for this worker (Docker events). */
  oomKilled = false;
  /**
   * Asks the backend whether the worker's environment, not the script, is at fault (the engine stopped
   * answering, the container was paused or removed); resolves to the cause in words, or undefined.
   * Consulted when a job times out or the worker's stream closes mid-job.
   */
  diagnose: (() => Promise<string | undefined>) | undefined;
  /**
   * Resolves once the backend has heard how the worker ended (Docker: the container's exit and its OOM
   * state). The worker's stream can close before that news arrives (gVisor's sentry killed for memory:
   * the socket ends first), and a job's end read then would call an out-of-memory kill a crash.
   */
  exitKnown: (() => Promise<void>) | undefined;

  /** Waits, bounded, for the backend's news of how the worker ended (see exitKnown). */
  private async endKnown(): Promise<void> {
    if (!this.exitKnown) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.exitKnown().catch(() => {}),
        new Promise<void>((r) => {
          timer = setTimeout(r, EXIT_NEWS_MS);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The backend's diagnosis, bounded in time (an engine that hangs is itself the answer). */
  private async environmentFault(): Promise<string | undefined> {
    if (!this.diagnose) return undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.diagnose().catch((e: unknown) => `the engine could not be asked: ${errorMessage(e)}`),
        new Promise<string>((r) => {
          timer = setTimeout(() => r('the Docker engine does not answer (no reply within 3 s)'), 3000);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
  /** The current job's outbound requests (egress proxy), and the requests still open. */
  private egress: EgressRecord[] | undefined;
  egressInFlight: (() => EgressRecord[]) | undefined;
  /** Resolves once the egress proxy has no open request (or after the given ms). */
  egressIdle: ((ms: number) => Promise<void>) | undefined;

  constructor(
    stdin: Writable,
    stdout: Readable,
    isolation: IsolationLevel,
    kill: (reason: string) => Promise<void>,
    opts: ConnectionOptions = {},
  ) {
    this.stdin = stdin;
    this.isolation = isolation;
    this.killFn = kill;
    this.stderr =
      opts.stderr instanceof StderrTail
        ? opts.stderr
        : opts.stderr
          ? new StderrTail(opts.stderr, opts.redact)
          : undefined;
    if (opts.reportsExit) this.exitNews = new Promise<void>((r) => (this.exitHeard = r));
    this.isolationDetails = opts.isolationDetails;
    this.oomKills = opts.oomKills;
    stdout.setEncoding('utf8');
    stdout.on('data', (chunk: string) => this.onData(chunk));
    stdout.on('end', () => this.markClosed('the worker closed its output'));
    stdout.on('error', (e) => this.markClosed(`worker stream error: ${e.message}`));
    // A stream destroyed without an end or an error (its socket torn down) is a closed worker too.
    stdout.on('close', () => this.markClosed('the worker stream closed'));
    stdin.on('error', (e) => this.markClosed(`worker stdin error: ${e.message}`));
    this.listeners.add((m) => {
      if (m.type === 'next_ready' && m.after === this.lastJob) this.nextReady = true;
      // It runs no job from now on: nothing more is sent to it (its end follows).
      if (m.type === 'stopping') this.markClosed(`the worker stopped: ${m.reason}`);
    });
  }

  /** A job or a load is on its way: the worker's next process is not ready until it says so again. */
  private notReady(): void {
    if (this.nextReady !== undefined) this.nextReady = false;
  }

  get alive(): boolean {
    return this.closedReason === undefined;
  }

  /** Why the connection closed (with the worker's last stderr lines once they are in), or undefined. */
  get closeReason(): string | undefined {
    return this.finalReason ?? this.closedReason;
  }

  /**
   * The worker is gone. Waiters hear why once its stderr has ended (bounded by a grace period), with its
   * last stderr lines; `withStderr: false` (the host ended it on purpose) tells them at once.
   */
  markClosed(reason: string, withStderr = true): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    const notify = () => {
      if (this.finalReason !== undefined) return;
      // (its output closed first: how the process ended, when the backend heard it meanwhile)
      const how =
        withStderr && this.exitStatus && !this.closedByExit ? `${reason} (${this.exitStatus})` : reason;
      const r = withStderr && this.stderr ? this.stderr.describe(how) : how;
      this.finalReason = r;
      for (const w of this.closeWaiters) w(r);
      this.closeWaiters.clear();
    };
    if (!withStderr || (!this.stderr && !this.exitNews)) {
      notify();
      return;
    }
    // Both within the one grace period: the stderr's end and the news of the exit come about together.
    const exit = this.exitNews
      ? Promise.race([this.exitNews, new Promise<void>((r) => setTimeout(r, STDERR_GRACE_MS).unref())])
      : undefined;
    void Promise.all([this.stderr?.settled(STDERR_GRACE_MS), exit]).then(notify);
  }

  /**
   * The backend heard the worker's process end: `status` says how (`exit status 1`, `killed by SIGKILL`),
   * `reason` is the whole reason when it is the first news that the worker is gone.
   */
  exited(status: string, reason: string): void {
    this.exitStatus ??= status;
    if (this.closedReason === undefined) this.closedByExit = true;
    this.markClosed(reason);
    this.exitHeard?.();
  }

  /**
   * The OOM killer acted on this worker: Docker's event, or (process backend) its cgroup's counter grew
   * since `since` (the count when the job started: a job whose own child was killed may still succeed).
   */
  private sawOom(since: number): boolean {
    if (!this.oomKilled && this.oomKills && this.oomKills() > since) this.oomKilled = true;
    return this.oomKilled;
  }

  /** The egress proxy saw a request of this worker: it belongs to the job running now (if any). */
  recordEgress(r: EgressRecord): void {
    this.egress?.push(r);
  }

  private onData(chunk: string): void {
    this.buf += chunk;
    // Only the new chunk is searched: the buffer holds no line's end before it (each was taken below),
    // and searching the whole buffer flattened it at every chunk of a long line (quadratic).
    if (!chunk.includes('\n')) {
      if (this.buf.length > MAX_WORKER_LINE) {
        this.buf = '';
        this.emit({ type: '__oversize' });
      }
      return;
    }
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (line.length > MAX_WORKER_LINE) {
        this.emit({ type: '__oversize' });
        continue;
      }
      const msg = parseWorkerLine(line);
      if (msg !== undefined) this.emit(msg); // anything else is ignored, never trusted
    }
  }

  private emit(m: Msg): void {
    for (const l of [...this.listeners]) l(m);
  }

  private send(msg: object, onWriteError?: (e: Error) => void): void {
    if (!this.alive) throw new WorkerGone(this.finalReason ?? this.closedReason ?? 'the worker is gone');
    // U+2028 and U+2029 escaped (core/sandbox/job-line.ts).
    const line = workerLine(msg);
    const bytes = Buffer.byteLength(line);
    if (bytes > MAX_HOST_LINE) throw new LineTooLarge(bytes);
    this.stdin.write(line + '\n', (e) => {
      if (!e) return;
      // Set before the close is told, so that a job hears it was never delivered.
      onWriteError?.(e);
      this.markClosed(`writing to the worker failed: ${e.message}`);
    });
  }

  /**
   * Calls `listener` once when the worker is gone (soon, if it already is); the returned function
   * unsubscribes (a job that ended normally leaves nothing behind).
   */
  onClosed(listener: (reason: string) => void): () => void {
    const reason = this.finalReason;
    if (reason !== undefined) {
      queueMicrotask(() => listener(reason));
      return () => {};
    }
    this.closeWaiters.add(listener);
    return () => this.closeWaiters.delete(listener);
  }

  /** Sends tools.py (and host tools, credential names); resolves with what the worker derived. */
  load(req: LoadRequest, timeoutMs = 15_000): Promise<ReadyInfo> {
    return new Promise<ReadyInfo>((resolve, reject) => {
      const timer = setTimeout(
        () => finish(new Error(`the worker did not answer load within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const finish = (err?: Error, info?: ReadyInfo) => {
        clearTimeout(timer);
        this.listeners.delete(listener);
        stopWatching();
        if (err) reject(err);
        else resolve(info as ReadyInfo);
      };
      const listener = (m: Msg) => {
        if (m.type === 'ready') {
          const info: ReadyInfo = {
            runtime: m.runtime,
            version: m.version,
            tools: m.tools,
            ...(m.subreaper !== undefined ? { subreaper: m.subreaper } : {}),
          };
          this.ready = info;
          finish(undefined, info);
        } else if (m.type === 'load_error') {
          const e = m.error;
          // (its message may quote what tools.py wrote to stderr as it loaded: blanked as the stderr tail is)
          const text = `tools.py failed to load${e.line ? ` (line ${e.line})` : ''}: ${e.type ?? 'Error'}: ${e.message ?? ''}`;
          finish(new Error(this.stderr ? this.stderr.redactText(text) : text));
        }
      };
      this.listeners.add(listener);
      const stopWatching = this.onClosed((r) =>
        finish(new WorkerGone(`the worker died while loading tools: ${r}`)),
      );
      try {
        this.notReady();
        this.send({
          type: 'load',
          source: req.source,
          host_tools: req.hostTools,
          credentials: req.credentials,
          ...(req.forwardTools ? { forward_tools: true } : {}),
        });
      } catch (e) {
        finish(e as Error);
      }
    });
  }

  /** Liveness: a ping answered within the timeout. */
  async ping(timeoutMs = 2000): Promise<boolean> {
    if (!this.alive) return false;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), timeoutMs);
      const done = (v: boolean) => {
        clearTimeout(timer);
        this.listeners.delete(l);
        resolve(v);
      };
      const l = (m: Msg) => m.type === 'pong' && done(true);
      this.listeners.add(l);
      try {
        this.send({ type: 'ping' });
      } catch {
        done(false);
      }
    });
  }

  /**
   * Runs one job. Never throws: every failure is an ExecutionResult. `undelivered`: nothing of the job ran
   * (the pool may send it to another worker); `stopped`: why, when it was the worker's `stopping`.
   */
  run(job: JobRequest): Promise<JobOutcome> {
    const id = randomUUID();
    const started = performance.now();
    const intermediates: JsonValue[] = [];
    const maxIntermediates = job.maxIntermediates ?? DEFAULT_MAX_INTERMEDIATES;
    let intermediatesOver = 0;
    const logs: string[] = [];
    const toolCalls: ToolCallTrace[] = [];
    let data: JsonValue | undefined;
    let hasResult = false;
    let outBytes = 0;
    const egress: EgressRecord[] = [];
    this.egress = egress;
    this.jobs++;
    const oomBase = this.oomKills?.() ?? 0;
    const redactor = redactorOf(job);
    const clean = <T>(v: T): T => redactor.value(v);
    // Host tool calls the job started: a job ends only when each has settled or been cancelled, so every
    // call that ran is in its record and none runs on after it (or into the next job).
    const calls: JobCalls = {
      abort: new AbortController(),
      open: new Map(),
      recording: true,
      max: job.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS,
      over: 0,
      approvals: { max: job.maxApprovals ?? DEFAULT_MAX_APPROVALS, asked: 0, over: 0 },
      skills: new Map(),
    };
    // The job's skill calls in the order they started (bounded as its tool calls are), and those still open.
    const skillCalls: SkillCallTrace[] = [];
    const openSkills = new Set<SkillCallTrace>();
    let skillsOver = 0;
    let skillsOverInWorker = 0;
    // Past the bound only the count goes on; the worker's own count (trace lines it did not relay) comes
    // on the job's done.
    let overInWorker = 0;
    // The job's request never reached the worker (it was gone before, or the write failed): nothing of the
    // script ran, so the pool may run it on another worker.
    let undelivered = false;
    let stopped: string | undefined;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (exitReason: ExitReason, error?: ExecutionError, workerBroken = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.listeners.delete(listener);
        stopWatching();
        job.signal?.removeEventListener('abort', onAbort);
        const durationMs = Math.round(performance.now() - started);
        const proceed = () => {
          calls.recording = false;
          // Calls a handler kept running past the wait: recorded as cancelled, never after the result.
          for (const c of calls.open.values()) if (keeps(calls, toolCalls)) toolCalls.push(c());
          // Requests still open when the job ends: their closes are usually on their way (egress.ts, idle).
          if (this.egressIdle && this.egressInFlight?.().length)
            void this.egressIdle(EGRESS_SETTLE_MS).then(() =>
              complete(exitReason, durationMs, error, workerBroken),
            );
          else complete(exitReason, durationMs, error, workerBroken);
        };
        if (calls.open.size === 0) return proceed();
        calls.abort.abort(new Error('the job ended'));
        let wait: NodeJS.Timeout | undefined;
        void Promise.race([
          Promise.allSettled([...calls.open.keys()]),
          new Promise((r) => {
            wait = setTimeout(r, CALLS_SETTLE_MS);
          }),
        ]).then(() => {
          clearTimeout(wait);
          proceed();
        });
      };
      const complete = (
        exitReason: ExitReason,
        durationMs: number,
        error: ExecutionError | undefined,
        workerBroken: boolean,
      ) => {
        if (this.egress === egress) this.egress = undefined;
        if (this.egressInFlight) egress.push(...this.egressInFlight());
        // A skill call still running when the job ended (a timeout, a crash, a call the script never
        // waited for): it ran until the job's end.
        for (const c of openSkills) {
          c.ms = Math.max(0, round(durationMs - c.at));
          c.unfinished = true;
        }
        openSkills.clear();
        const success = exitReason === 'ok';
        const r: JobOutcome = {
          success,
          intermediates,
          logs,
          toolCalls,
          exitReason,
          isolation: this.isolation,
          ...(this.isolationDetails ? { isolationDetails: this.isolationDetails } : {}),
          durationMs,
          runtime: this.ready?.runtime ?? 'unknown',
          workerBroken,
          ...(hasResult ? { data: data } : {}),
          ...(error
            ? {
                error: withinOutput(
                  explainOutputLimit(
                    error,
                    exitReason,
                    { logs, intermediates, ...(hasResult ? { data } : {}) },
                    job.maxOutputBytes,
                  ),
                  job.maxOutputBytes,
                ),
              }
            : {}),
          ...(egress.length ? { egress } : {}),
          ...(calls.over + overInWorker > 0 ? { toolCallsNotRecorded: calls.over + overInWorker } : {}),
          ...(skillCalls.length ? { skillCalls } : {}),
          ...(skillsOver + skillsOverInWorker > 0
            ? { skillCallsNotRecorded: skillsOver + skillsOverInWorker }
            : {}),
          ...(calls.approvals.over > 0 ? { approvalsNotAsked: calls.approvals.over } : {}),
          ...(intermediatesOver > 0 ? { intermediatesNotRecorded: intermediatesOver } : {}),
          ...(undelivered && !success ? { undelivered } : {}),
          ...(stopped !== undefined && !success ? { stopped } : {}),
        };
        resolve(clean(r));
      };
      const fail = (reason: ExitReason, type: string, message: string, broken: boolean) =>
        finish(reason, { type, message, frames: [] }, broken);
      // The host watchdog: a little longer than the worker's own timeout, then the worker is killed.
      const timer = setTimeout(() => {
        // A paused container or a dead engine also looks like a script that never ends: ask first.
        void this.environmentFault().then((fault) => {
          if (fault) fail('infra', 'Infra', `${fault}; the script was not at fault`, true);
          else
            fail(
              'timeout',
              'Timeout',
              `the script ran past its ${seconds(job.timeoutMs)} limit (host watchdog)`,
              true,
            );
          void this.killFn('watchdog timeout');
        });
      }, job.timeoutMs + 2000);
      const onAbort = () => {
        try {
          this.send({ type: 'cancel', id });
        } catch {
          /* already gone */
        }
        fail('error', 'Cancelled', 'the run was cancelled', false);
      };
      job.signal?.addEventListener('abort', onAbort, { once: true });
      // Cancelled while the job waited for a worker: an aborted signal fires no event any more.
      if (job.signal?.aborted) queueMicrotask(onAbort);
      const capped = (n: number, which: 'prints' | 'emits') => {
        outBytes += n;
        if (outBytes > job.maxOutputBytes) {
          fail(
            'output_limit',
            'OutputLimit',
            `the script's output exceeded ${job.maxOutputBytes} bytes (its ${which})`,
            true,
          );
          void this.killFn('output limit');
          return true;
        }
        return false;
      };
      const listener = (m: Msg) => {
        if (m.type === '__oversize') {
          fail('output_limit', 'OutputLimit', `the worker sent a line over ${MAX_WORKER_LINE} bytes`, true);
          void this.killFn('oversize line');
          return;
        }
        // The worker stopped between jobs after an earlier one, before it took this one: it never ran
        // (the worker starts none after `stopping`), so the pool may send it to another worker once.
        if (m.type === 'stopping' && m.after !== id) {
          undelivered = true;
          stopped = m.reason;
          fail(
            'infra',
            'Infra',
            `the job never ran: its sandbox worker stopped before it took the job (${m.reason}); the script was not at fault`,
            true,
          );
          return;
        }
        if (!('id' in m) || m.id !== id) return; // another job's (or a forged) line
        switch (m.type) {
          case 'emit': {
            const { kind, data: value } = m;
            // (a log line is what the script printed or emit_log'ged: its prints)
            if (capped(JSON.stringify(value).length, kind === 'log' ? 'prints' : 'emits')) return;
            if (kind === 'result') {
              data = value;
              hasResult = true;
            } else if (kind === 'intermediate') {
              // Past the job's bound only their count goes on (each one kept is a run event).
              if (intermediates.length >= maxIntermediates) {
                intermediatesOver++;
                break;
              }
              intermediates.push(value);
              live(job, { type: 'emit', kind: 'intermediate', data: value });
            } else if (kind === 'log') {
              logs.push(String(value));
              live(job, { type: 'emit', kind: 'log', data: String(value) });
            }
            break;
          }
          case 'trace': {
            if (!keeps(calls, toolCalls)) break;
            const t: ToolCallTrace = {
              name: m.name,
              args: capArgs(m.args),
              ms: m.ms,
              location: m.location,
              ...(m.result !== undefined ? { result: capResult(m.result) } : {}),
              ...(m.error !== undefined ? { error: m.error } : {}),
              ...(m.refused ? { refused: true } : {}),
              ...(m.skill && job.skills?.includes(m.skill) ? { skill: m.skill } : {}),
              ...skillCallOf(calls, m),
            };
            toolCalls.push(t);
            live(job, { type: 'tool_call', trace: t });
            break;
          }
          case 'tool_call':
            this.hostCall(id, m, job, toolCalls, calls);
            break;
          case 'skill': {
            if (!m.call) break;
            if (m.phase === 'start') {
              // Only a skill of the job, each call number once; past the bound only counted.
              if (!m.name || !job.skills?.includes(m.name) || calls.skills.has(m.call)) break;
              if (skillCalls.length >= calls.max) {
                skillsOver++;
                break;
              }
              const c: SkillCallTrace = {
                id: m.call,
                name: m.name,
                ...(m.parent && calls.skills.has(m.parent) ? { parent: m.parent } : {}),
                args: capArgs(m.args),
                // The worker's own time of the start (from when the job reached it: never later than the
                // start was, whatever the lines' way to the host), at most when its line came.
                at: Math.max(0, Math.min(m.at ?? Infinity, round(performance.now() - started))),
                ms: 0,
              };
              calls.skills.set(m.call, c);
              skillCalls.push(c);
              openSkills.add(c);
            } else if (m.phase === 'end') {
              const c = calls.skills.get(m.call);
              if (!c || !openSkills.has(c)) break;
              openSkills.delete(c);
              c.ms = round(m.ms);
              if (m.error)
                c.error = {
                  type: cutText(m.error.type, 256),
                  message: cutText(m.error.message, MAX_SKILL_ERROR),
                };
            }
            break;
          }
          case 'done': {
            overInWorker = m.traces_over;
            skillsOverInWorker = m.skills_over;
            if (m.ok) {
              finish('ok');
              break;
            }
            const { reason, error } = m;
            // The reason is what the worker's runtime saw (its own check refused the script, the interpreter
            // raised its MemoryError, the kernel killed for memory), never the error's name: a script
            // can throw anything named ValidationError or MemoryError.
            if (this.sawOom(oomBase) || reason === 'oom')
              finish(
                'oom',
                {
                  ...error,
                  type: 'OutOfMemory',
                  message:
                    error.type === 'OutOfMemory'
                      ? error.message
                      : `the script ran out of memory (${error.type}${error.message ? `: ${error.message}` : ''})`,
                },
                true,
              );
            else if (reason === 'rejected') finish('rejected', error);
            // After a timeout, an output flood or a crash the worker's container is replaced: whatever
            // the job left behind (processes, files, a half-written pipe) never meets the next job.
            else if (reason === 'timeout')
              // The worker's message names no limit: the host knows the job's and says it.
              finish(
                'timeout',
                error.message === 'the script ran past its time limit'
                  ? { ...error, message: `the script ran past its ${seconds(job.timeoutMs)} time limit` }
                  : error,
                true,
              );
            else if (reason === 'output_limit') finish('output_limit', error, true);
            else if (reason === 'crashed') finish('crashed', error, true);
            else finish('error', error);
            break;
          }
          default:
            break;
        }
      };
      this.listeners.add(listener);
      const stopWatching = this.onClosed((why) => {
        void this.endKnown().then(async () => {
          if (this.sawOom(oomBase))
            return fail('oom', 'OutOfMemory', 'the sandbox ran out of memory and was killed', true);
          const fault = await this.environmentFault();
          if (fault) fail('infra', 'Infra', `${fault}; the script was not at fault`, true);
          else fail('crashed', 'Crashed', `the sandbox worker died: ${why}`, true);
        });
      });
      try {
        this.lastJob = id;
        this.notReady();
        this.send(
          jobMessage(id, {
            code: job.code,
            language: job.language ?? 'python',
            tools: job.tools,
            ...(job.skills?.length ? { skills: job.skills } : {}),
            ...(job.approval?.tools.length ? { approve: job.approval.tools } : {}),
            inputs: job.inputs ?? {},
            timeoutMs: job.timeoutMs,
            maxOutputBytes: job.maxOutputBytes,
            maxToolCalls: calls.max,
          }),
          () => (undelivered = true),
        );
      } catch (e) {
        // Refused before sending: the script's fault, the worker is fine and nothing would run elsewhere.
        if (e instanceof LineTooLarge)
          return fail(
            'error',
            'ScriptTooLarge',
            jobTooLargeMessage(e.bytes, Buffer.byteLength(workerLine([job.code])) - 2),
            false,
          );
        undelivered = true;
        fail('crashed', 'Crashed', errorMessage(e), true);
      }
    });
  }

  /** Answers a tool_call for a host-side tool; a tool outside the job's tools is refused and recorded. */
  /** Starts a host tool call of a job, open in `calls` until its trace is made. */
  private hostCall(
    id: string,
    m: Extract<WorkerMessage, { type: 'tool_call' }>,
    job: JobRequest,
    toolCalls: ToolCallTrace[],
    calls: JobCalls,
  ): void {
    const started = performance.now();
    const p = this.hostCallRun(id, m, job, toolCalls, calls).finally(() => calls.open.delete(p));
    calls.open.set(p, () => ({
      name: m.name,
      args: capArgs(m.args),
      ms: round(performance.now() - started),
      location: job.hostTools?.[m.name]?.location ?? 'host',
      error: 'cancelled: still running when the job ended',
    }));
  }

  private async hostCallRun(
    id: string,
    m: Extract<WorkerMessage, { type: 'tool_call' }>,
    job: JobRequest,
    toolCalls: ToolCallTrace[],
    calls: JobCalls,
  ): Promise<void> {
    const { name, call_id: callId, args } = m;
    // The discovery calls (search_tools, describe_tool) are framework helpers every script has.
    const allowed = Object.values(job.tools).includes(name) || DISCOVERY_CALLS.includes(name);
    const handler = job.hostTools?.[name];
    const started = performance.now();
    let reply: Record<string, unknown>;
    let trace: () => ToolCallTrace;
    let extra: Pick<ToolCallTrace, 'egress'> = {};
    const signal = job.signal ? AbortSignal.any([job.signal, calls.abort.signal]) : calls.abort.signal;
    // A call that waits for a person: asked before anything runs; the job's timeout keeps running.
    const gated = allowed && !!job.approval?.tools.includes(name);
    const refusal = gated
      ? await this.approve(m, job.approval!, signal, calls.approvals, redactorOf(job))
      : undefined;
    if (m.gate) {
      // A sandbox tool's own worker asks before running it: an answer, and a trace only for a refusal (an
      // approved call is traced by the worker when the tool has run).
      if (!gated) {
        const error = `refused: ${name} needs no approval in this run`;
        this.reply({ type: 'tool_result', id, call_id: callId, error, refused: true });
        return;
      }
      this.reply(
        refusal
          ? { type: 'tool_result', id, call_id: callId, error: refusal, refused: true }
          : { type: 'tool_result', id, call_id: callId, response: { success: true } },
      );
      if (refusal && calls.recording) {
        const t: ToolCallTrace = {
          name,
          args: capArgs(args),
          ms: round(performance.now() - started),
          location: 'sandbox',
          error: refusal,
          refused: true,
        };
        if (m.skill && job.skills?.includes(m.skill)) t.skill = m.skill;
        Object.assign(t, skillCallOf(calls, m));
        if (keeps(calls, toolCalls)) {
          toolCalls.push(t);
          live(job, { type: 'tool_call', trace: t });
        }
      }
      return;
    }
    if (refusal) {
      const location = handler?.location ?? 'host';
      reply = { type: 'tool_result', id, call_id: callId, error: refusal, refused: true };
      trace = () => ({
        name,
        args: capArgs(args),
        ms: round(performance.now() - started),
        location,
        error: refusal,
        refused: true,
      });
    } else if (!allowed || !handler) {
      const error = allowed
        ? `no host handler for ${name}`
        : `refused: ${name} is not one of this run's tools`;
      reply = { type: 'tool_result', id, call_id: callId, error };
      trace = () => ({ name, args: capArgs(args), ms: 0, location: 'host', error, refused: !allowed });
    } else {
      const location = handler.location ?? 'host';
      try {
        const response = await handler(
          args,
          (x) => {
            extra = { ...extra, ...x };
          },
          {
            signal,
            ...(job.onEvent
              ? {
                  onProgress: (p: ToolProgress) => {
                    if (calls.recording) live(job, { type: 'tool_progress', name, progress: p });
                  },
                }
              : {}),
          },
        );
        const ms = round(performance.now() - started);
        reply = { type: 'tool_result', id, call_id: callId, response };
        trace = () => ({ name, args: capArgs(args), ms, location, result: capResult(response) });
      } catch (e) {
        const ms = round(performance.now() - started);
        const error = errorMessage(e);
        reply = { type: 'tool_result', id, call_id: callId, error };
        trace = () => ({ name, args: capArgs(args), ms, location, error });
      }
    }
    // The script waits for the reply: it goes out first, and the call's trace is made and recorded right
    // after it (the trace's copy of the result and the live event are host work the script need not
    // wait for; the trace is in the job's list before any later line of the worker is read).
    try {
      this.send(reply);
    } catch (e) {
      // Else the job ends through onClose. Too large: the script waits for an answer, so it gets the
      // refusal instead of a result it could not read, and the trace says the same.
      if (e instanceof LineTooLarge) {
        const error = `the result of ${name} is ${e.message}; ask the tool for less (a page, a filter, fewer fields)`;
        const made = trace;
        trace = () => {
          const t = made();
          delete t.result;
          return { ...t, error };
        };
        this.reply({ type: 'tool_result', id, call_id: callId, error });
      }
    }
    if (!calls.recording) return; // recorded as cancelled when its job ended
    if (!keeps(calls, toolCalls)) return;
    const t = trace();
    if (extra.egress?.length) t.egress = extra.egress;
    if (m.skill && job.skills?.includes(m.skill)) t.skill = m.skill;
    Object.assign(t, skillCallOf(calls, m));
    toolCalls.push(t);
    live(job, { type: 'tool_call', trace: t });
  }

  private reply(msg: Record<string, unknown>): void {
    try {
      this.send(msg);
    } catch {
      /* the job ends through onClose */
    }
  }

  /**
   * Puts a gated call to a person: undefined when approved, else the error the script sees. Past the job's
   * bound of approval requests nobody is asked: the call is refused, naming the bound, and counted.
   */
  private async approve(
    m: Extract<WorkerMessage, { type: 'tool_call' }>,
    gate: ApprovalGate,
    signal: AbortSignal,
    bound: JobCalls['approvals'],
    redactor: Redactor,
  ): Promise<string | undefined> {
    if (bound.asked >= bound.max) {
      bound.over++;
      return refusalMessage(m.name, { approved: false, via: 'none', reason: approvalBoundReason(bound.max) });
    }
    bound.asked++;
    try {
      const a = await gate.ask(
        {
          tool: m.name,
          ...(m.alias && m.alias !== m.name ? { alias: m.alias } : {}),
          // Shown to the person (and an MCP client): a credential among them reads ***.
          args: redactor.value(m.args),
          ...(m.line ? { line: m.line } : {}),
        },
        signal,
      );
      return a.approved ? undefined : refusalMessage(m.name, a);
    } catch (e) {
      return refusalMessage(m.name, { approved: false, via: 'none', reason: errorMessage(e) });
    }
  }

  async kill(reason: string): Promise<void> {
    this.markClosed(reason, false);
    await this.killFn(reason);
  }
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** A job's host tool calls: aborted when it ends, each open one with the trace it gets if cut off. */
interface JobCalls {
  abort: AbortController;
  open: Map<Promise<void>, () => ToolCallTrace>;
  recording: boolean;
  /** Tool calls recorded at most (JobRequest.maxToolCalls). */
  max: number;
  /** Tool calls past `max`: counted, not recorded. */
  over: number;
  /** Approval requests: put to a person at most `max` (JobRequest.maxApprovals), the rest refused and counted. */
  approvals: { max: number; asked: number; over: number };
  /** The job's recorded skill calls by number. */
  skills: Map<number, SkillCallTrace>;
}

/** The longest exception message a skill call's record keeps (the job's own error is cut to its output limit). */
const MAX_SKILL_ERROR = 16_384;

const cutText = (v: string, max: number): string =>
  v.length <= max ? v : `${v.slice(0, max)}… (${v.length - max} more characters)`;

/**
 * The skill call a tool call names (`skill_call`), when it is a recorded call of the skill the call is
 * made in: anything else the worker says is dropped.
 */
function skillCallOf(
  calls: JobCalls,
  m: { skill?: string | undefined; skill_call?: number | undefined },
): Pick<ToolCallTrace, 'skillCall'> {
  if (!m.skill || !m.skill_call) return {};
  return calls.skills.get(m.skill_call)?.name === m.skill ? { skillCall: m.skill_call } : {};
}

/** Whether one more tool call of the job is recorded; when not, it is counted. */
function keeps(calls: JobCalls, toolCalls: readonly ToolCallTrace[]): boolean {
  if (toolCalls.length < calls.max) return true;
  calls.over++;
  return false;
}

// Tool arguments kept in traces are capped (core/sandbox/execution.ts; also the record of an approval).
export { capArgs };

/** Tool results kept in traces are capped (the script itself saw the whole value). */
export function capResult(r: ToolResponse, max = 16_384): ToolResponse {
  const s = JSON.stringify(r.data ?? null);
  if (s.length <= max) return r;
  return {
    success: r.success,
    ...(r.message !== undefined ? { message: r.message } : {}),
    data: `${s.slice(0, max)}… (${s.length} characters, truncated in the trace)`,
  };
}
