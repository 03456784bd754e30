/**
 * A warm pool of workers per sandbox: min/max size, a queue with timeout when all are busy
 * (backpressure), checkout/return released on every path, recycling after N jobs and after any
 * timeout/OOM/crash, health checks and idle reaping. Workers come from a backend (Docker or process).
 *
 * Beside the pool's workers it keeps `standby` more workers started, loaded and idle. Whenever the pool
 * needs a worker (one broke, was recycled, died while idle, or demand grew) a standby is promoted at
 * once and a new standby is started in the background: replacing a worker costs no spawn on the path
 * of a job. A standby is never counted as a worker of the pool (size, idle, busy) and is only handed a
 * job once it has loaded the sandbox's current tools.
 */
import { createHash } from 'node:crypto';
import { failedResult, infraResult } from '../../core/sandbox/execution.ts';
import type { ExecutionResult, IsolationLevel } from '../../core/sandbox/execution.ts';
import type { RuntimeId } from '../../core/sandbox/runtimes.ts';
import type { JobRequest, ReadyInfo, WorkerConnection } from './connection.ts';
import { errorMessage } from '../../core/errors.ts';

export interface SandboxSpec {
  name: string;
  runtime: RuntimeId;
  toolsSource: string;
  hostTools: { name: string }[];
  /** Credential name -> value (values go to the worker's environment only). */
  credentials: Record<string, string>;
  /** The sandbox's own tools are forwarded to the host (they run in its egress tool containers). */
  forwardTools?: boolean;
  /** Outbound access for tool code through the host's proxy (tool containers only; docs/sandboxes.md). */
  egress?: { allow: string[] };
  /** The sandbox's folder (its requirements.txt / package.json make a derived image). */
  dir?: string;
}

export interface PoolLimits {
  minSize: number;
  maxSize: number;
  maxJobsPerWorker: number;
  idleMs: number;
  queueTimeoutMs: number;
  /** Workers kept started and loaded beside the pool, promoted when one is needed (default 0: none). */
  standby?: number;
}

export interface WorkerFactory {
  readonly isolation: IsolationLevel;
  /** Starts a worker for the spec (not yet loaded); an aborted signal gives up and removes it. */
  spawn(spec: SandboxSpec, signal?: AbortSignal): Promise<{ conn: WorkerConnection; id: string }>;
}

interface PooledWorker {
  conn: WorkerConnection;
  id: string;
  toolsHash: string;
  /** A load in progress (the first one, or a reload after tools.py changed). */
  loading: Promise<void> | undefined;
  lastUsed: number;
  /** When it was last handed back (performance.now(): which of two workers finished first). */
  freedAt: number;
  busy: boolean;
  /** Destroyed (removed from the pool, being killed). */
  gone: boolean;
}

interface Waiter {
  resolve: (w: PooledWorker) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

export class PoolExhaustedError extends Error {
  override name = 'PoolExhaustedError';
}

export interface PoolStatus {
  sandbox: string;
  runtime: string;
  /** Workers of the pool (idle + busy); standbys are not counted. */
  size: number;
  idle: number;
  busy: number;
  queued: number;
  starting: number;
  /** Standbys started, loaded and ready to be promoted. */
  standby: number;
  /** Standbys being started. */
  standbyStarting: number;
  /** How many standbys the pool keeps (its configuration). */
  standbyTarget: number;
  /** Standbys promoted to workers so far. */
  promoted: number;
  replaced: number;
  /**
   * The last worker replaced: when (ISO time) and why (the worker's own reason when its connection
   * closed, e.g. its `stopping` after a failed cleanup; else the pool's: worn out, idle, no answer).
   */
  lastReplaced?: { at: string; reason: string };
  jobs: number;
  /** Jobs sent once more to another worker: the one they were sent to stopped before it took them. */
  resent: number;
}

export interface WorkerIds {
  workers: string[];
  standbys: string[];
}

const hashOf = (spec: SandboxSpec) =>
  createHash('sha256')
    .update(spec.toolsSource)
    .update(JSON.stringify(spec.hostTools))
    .update(JSON.stringify(Object.keys(spec.credentials)))
    .update(spec.forwardTools ? 'forward' : '')
    .digest('hex');

/**
 * A worker that has run a job is never loaded with new tools: its load forks a new fork server from the
 * worker's own memory, where what earlier jobs passed through it (their scripts, inputs, tool results,
 * output) still lies in freed heap and stack, and every later job's process would be a copy of it
 * (docs/security.md, "Every job alone"). It is replaced by a fresh worker (or a standby).
 */
const worn = (w: PooledWorker) => w.conn.jobs > 0;
const TOOLS_CHANGED =
  'its tools changed after it had run a job (a worker that ran a job is replaced, not reloaded)';
const NO_PONG = 'it did not answer a ping';
const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

export class SandboxPool {
  private currentSpec: SandboxSpec;
  /** hashOf(currentSpec), computed when the spec changes (not per job). */
  private hash: string;
  private readonly factory: WorkerFactory;
  private readonly limits: PoolLimits;
  private readonly workers: PooledWorker[] = [];
  private readonly standbys: PooledWorker[] = [];
  private readonly waiters: Waiter[] = [];
  /** Spawns in flight (workers and standbys): shutdown waits for them and removes what they made. */
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly shutdown = new AbortController();
  private starting = 0;
  private standbyStarting = 0;
  private replaced = 0;
  private resent = 0;
  private lastReplaced: { at: string; reason: () => string } | undefined;
  private promoted = 0;
  private jobs = 0;
  private lastJob = Date.now();
  private disposed = false;
  /** Shutdown began (before running jobs are cancelled): no worker or standby is started any more. */
  private stopping = false;
  private maintaining = false;
  private reaper: NodeJS.Timeout;
  lastReady: ReadyInfo | undefined;

  constructor(spec: SandboxSpec, factory: WorkerFactory, limits: PoolLimits) {
    this.currentSpec = spec;
    this.hash = hashOf(spec);
    this.factory = factory;
    this.limits = limits;
    this.reaper = setInterval(() => void this.maintain(), Math.max(1000, Math.min(limits.idleMs, 30_000)));
    this.reaper.unref();
  }

  get spec(): SandboxSpec {
    return this.currentSpec;
  }

  private get standbyTarget(): number {
    return Math.max(0, this.limits.standby ?? 0);
  }

  status(): PoolStatus {
    let busy = 0;
    for (const w of this.workers) if (w.busy) busy++;
    return {
      sandbox: this.currentSpec.name,
      runtime: this.currentSpec.runtime,
      size: this.workers.length,
      idle: this.workers.length - busy,
      busy,
      queued: this.waiters.length,
      starting: this.starting,
      standby: this.standbys.length,
      standbyStarting: this.standbyStarting,
      standbyTarget: this.standbyTarget,
      promoted: this.promoted,
      replaced: this.replaced,
      ...(this.lastReplaced
        ? { lastReplaced: { at: this.lastReplaced.at, reason: this.lastReplaced.reason() } }
        : {}),
      jobs: this.jobs,
      resent: this.resent,
    };
  }

  /** The ids (container ids or process ids) of the pool's workers and of its standbys. */
  workerIds(): WorkerIds {
    return { workers: this.workers.map((w) => w.id), standbys: this.standbys.map((w) => w.id) };
  }

  /** Fills the pool to its minimum size, then starts its standbys (in the background). */
  async warm(): Promise<void> {
    const need = this.limits.minSize - this.workers.length - this.starting;
    await Promise.all(
      Array.from({ length: Math.max(0, need) }, () => this.grow().then((w) => this.release(w))),
    );
    this.fillStandby();
  }

  /**
   * New tools source: idle workers and standbys reload now, busy ones before their next job. A worker
   * that has run a job is replaced instead (`worn`), now or before its next job.
   */
  async reload(spec: SandboxSpec): Promise<ReadyInfo | undefined> {
    this.currentSpec = spec;
    this.hash = hashOf(spec);
    const idle = [...this.workers.filter((w) => !w.busy), ...this.standbys].filter(
      (w) => w.toolsHash !== this.hash,
    );
    const replaced = idle.filter((w) => worn(w));
    for (const w of replaced) this.destroy(w, TOOLS_CHANGED);
    await Promise.all(
      idle
        .filter((w) => !w.gone)
        .map((w) =>
          this.load(w).catch((e: unknown) =>
            this.destroy(w, `loading the new tools failed: ${errorText(e)}`),
          ),
        ),
    );
    // (the replacements up to the minimum size: their load answers with the new tools, returned here)
    if (replaced.length > 0) await this.warm().catch(() => {});
    this.refill();
    return this.lastReady;
  }

  /**
   * Loads the current tools into the worker, again and again until what it loaded is what the pool has
   * now (tools.py may change while a load is on its way); one load at a time per worker.
   */
  private load(w: PooledWorker): Promise<void> {
    w.loading ??= (async () => {
      try {
        while (w.toolsHash !== this.hash) {
          const spec = this.currentSpec;
          const hash = this.hash;
          const info = await w.conn.load({
            source: spec.toolsSource,
            hostTools: spec.hostTools,
            credentials: Object.keys(spec.credentials),
            ...(spec.forwardTools ? { forwardTools: true } : {}),
          });
          w.toolsHash = hash;
          this.lastReady = info;
        }
      } finally {
        w.loading = undefined;
      }
    })();
    return w.loading;
  }

  /**
   * The worker with the current tools loaded (reloaded first if needed), or destroyed if that fails. One
   * that has run a job and has old tools is replaced (`worn`): the new worker, or a standby, is returned.
   */
  private async prepare(w: PooledWorker): Promise<PooledWorker> {
    if (w.toolsHash === this.hash && !w.loading) return w;
    if (w.toolsHash !== this.hash && worn(w)) {
      this.destroy(w, TOOLS_CHANGED);
      const next = this.grow();
      this.refill();
      return next;
    }
    try {
      await this.load(w);
    } catch (e) {
      this.destroy(w, `loading the tools failed: ${errorText(e)}`);
      this.refill();
      throw e;
    }
    return w;
  }

  /**
   * Starts a worker and loads the tools, then hands it to `adopt` (synchronously, so that a shutdown
   * cannot slip in between); after a shutdown it is removed instead. Shutdown waits for these.
   */
  private spawnWorker(adopt: (w: PooledWorker) => void): Promise<PooledWorker> {
    if (this.stopping || this.disposed)
      return Promise.reject(new PoolExhaustedError('the sandbox pool is shutting down'));
    const made = (async () => {
      const { conn, id } = await this.factory.spawn(this.currentSpec, this.shutdown.signal);
      const w: PooledWorker = {
        conn,
        id,
        toolsHash: '',
        loading: undefined,
        lastUsed: Date.now(),
        freedAt: performance.now(),
        busy: true,
        gone: false,
      };
      try {
        if (this.disposed) throw new PoolExhaustedError('the sandbox pool is shut down');
        await this.load(w);
        if (this.disposed) throw new PoolExhaustedError('the sandbox pool is shut down');
      } catch (e) {
        await conn.kill(this.disposed ? 'shutdown' : 'load failed').catch(() => {});
        throw e;
      }
      conn.onClosed(() => this.closed(w));
      adopt(w);
      return w;
    })();
    this.inflight.add(made);
    void made.then(
      () => this.inflight.delete(made),
      () => this.inflight.delete(made),
    );
    return made;
  }

  /** A new worker of the pool, busy: the standby at once when there is one, else a new one. */
  private grow(): Promise<PooledWorker> {
    let standby = this.standbys.shift();
    // A standby whose connection closed (its engine restarted, its container was removed) is replaced.
    while (standby && !standby.conn.alive) {
      this.destroy(standby, 'the standby had stopped');
      standby = this.standbys.shift();
    }
    if (standby) {
      standby.busy = true;
      this.workers.push(standby);
      this.promoted++;
      this.fillStandby();
      return this.prepare(standby);
    }
    this.starting++;
    return this.spawnWorker((w) => {
      this.starting--;
      this.workers.push(w);
      this.fillStandby();
    }).catch((e: unknown) => {
      this.starting--; // (adopt is the last step: a failure means it never ran)
      throw e;
    });
  }

  /** Starts standbys up to the target, in the background, while the pool has workers. */
  private fillStandby(): void {
    if (this.disposed || this.stopping || this.workers.length + this.starting === 0) return;
    while (this.standbys.length + this.standbyStarting < this.standbyTarget) {
      this.standbyStarting++;
      this.spawnWorker((w) => {
        this.standbyStarting--;
        w.busy = false;
        w.lastUsed = Date.now();
        this.standbys.push(w);
        this.serveWaiters();
      }).catch(() => {
        // Not adopted: started again by the next health check (every few seconds), not in a loop.
        this.standbyStarting--;
      });
    }
  }

  private async checkout(): Promise<PooledWorker> {
    if (this.disposed) throw new PoolExhaustedError('the sandbox pool is shut down');
    // The first idle worker whose next job's process is ready (or that does not tell): consecutive jobs
    // with a pause between them meet the same warm worker. A job sent right after another finds that
    // worker still making its next process (a fork and the walls, ~3x a bare fork here); it goes to
    // another idle worker whose process is ready, else to the one that has been making its own longest,
    // so back-to-back jobs alternate and the making of one worker's process overlaps the other's job
    // (docs/scaling.md, "Which worker a job goes to").
    let pick: PooledWorker | undefined;
    for (const w of this.workers) {
      if (w.busy || !w.conn.alive) continue;
      if (w.conn.nextReady !== false) {
        pick = w;
        break;
      }
      if (!pick || w.freedAt < pick.freedAt) pick = w;
    }
    if (pick) {
      pick.busy = true;
      return this.prepare(pick);
    }
    if (this.workers.length + this.starting < this.limits.maxSize) return this.grow();
    return new Promise<PooledWorker>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(
            new PoolExhaustedError(
              `all ${this.limits.maxSize} sandbox workers stayed busy for ${this.limits.queueTimeoutMs} ms`,
            ),
          );
        }, this.limits.queueTimeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /**
   * A worker for a job, or undefined once the job's `signal` aborts first: a job cancelled (a stop signal,
   * a cancelled run) while its worker is being made or queued ends at once; the worker, once it comes, goes
   * back to the pool. Before, the job waited for the worker (an engine that hangs on the container's
   * making held it until the process's bound).
   */
  private async checkoutUnlessCancelled(signal?: AbortSignal): Promise<PooledWorker | undefined> {
    if (!signal) return this.checkout();
    const got = this.checkout();
    let onAbort: () => void = () => {};
    const cancelled = new Promise<undefined>((resolve) => {
      onAbort = () => resolve(undefined);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const w = await Promise.race([got, cancelled]);
      if (!w)
        got.then(
          (late) => this.release(late),
          () => {},
        );
      return w;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Hands a worker back: to a waiter, to the idle list, or (broken/worn out) replaced. */
  private release(w: PooledWorker): void {
    w.lastUsed = Date.now();
    w.freedAt = performance.now();
    if (this.disposed || !w.conn.alive || w.conn.jobs >= this.limits.maxJobsPerWorker) {
      this.destroy(
        w,
        this.disposed
          ? 'the pool was closed'
          : w.conn.alive
            ? `it had run ${w.conn.jobs} jobs (the most one worker runs)`
            : 'it stopped',
      );
      this.refill();
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) {
      clearTimeout(waiter.timer);
      w.busy = true;
      this.prepare(w).then(waiter.resolve, waiter.reject);
      return;
    }
    w.busy = false;
  }

  /** A worker's connection closed: an idle worker or a standby is replaced now, a busy one after its job. */
  private closed(w: PooledWorker): void {
    if (this.disposed || w.busy || w.gone) return;
    this.destroy(w, 'it stopped');
    this.refill();
  }

  /**
   * Removes a worker and ends it. `why` is the pool's reason; a worker whose connection had closed
   * first is remembered with the connection's own (read when the status is asked: its stderr comes later).
   */
  private destroy(w: PooledWorker, why: string): void {
    if (w.gone) return;
    w.gone = true;
    const conn = w.conn;
    const closed = !conn.alive;
    const at = new Date().toISOString();
    this.lastReplaced = { at, reason: () => (closed ? (conn.closeReason ?? why) : why) };
    let i = this.workers.indexOf(w);
    if (i >= 0) this.workers.splice(i, 1);
    i = this.standbys.indexOf(w);
    if (i >= 0) this.standbys.splice(i, 1);
    this.replaced++;
    void w.conn.kill('recycled').catch(() => {});
  }

  /** Serves waiters while there is room (a standby first). */
  private serveWaiters(): void {
    while (this.waiters.length > 0 && this.workers.length + this.starting < this.limits.maxSize) {
      const waiter = this.waiters.shift() as Waiter;
      clearTimeout(waiter.timer);
      this.grow().then(waiter.resolve, waiter.reject);
    }
  }

  /** Keeps the minimum size and the standbys, and serves waiters, after a worker was destroyed. */
  private refill(): void {
    if (this.disposed || this.stopping) return;
    this.serveWaiters();
    while (this.workers.length + this.starting < this.limits.minSize) {
      this.grow().then(
        (w) => this.release(w),
        () => {},
      );
    }
    this.fillStandby();
  }

  /** Health check and idle reaping (standbys too). */
  private async maintain(): Promise<void> {
    if (this.disposed || this.maintaining) return;
    this.maintaining = true;
    try {
      const now = Date.now();
      // Idle (not busy, not loading) and still in the pool: checked again after every wait.
      const idle = (w: PooledWorker) => !w.busy && !w.loading && !w.gone;
      for (const w of [...this.workers]) {
        if (!idle(w)) continue;
        if (!w.conn.alive) this.destroy(w, 'it stopped');
        else if (now - w.lastUsed > this.limits.idleMs && this.workers.length > this.limits.minSize)
          this.destroy(
            w,
            `idle for ${Math.round((now - w.lastUsed) / 1000)} s (the pool shrinks to its minimum)`,
          );
        else if (!(await w.conn.ping()) && idle(w)) this.destroy(w, NO_PONG);
      }
      // A standby lives as long as the pool has workers: once idle reaping took them all (minimum
      // size 0) and no job came for idleMs, the standbys go too, until the next job.
      const poolIdle =
        this.workers.length + this.starting === 0 && Date.now() - this.lastJob > this.limits.idleMs;
      for (const s of [...this.standbys]) {
        if (!idle(s) || !this.standbys.includes(s)) continue;
        if (!s.conn.alive || poolIdle)
          this.destroy(s, poolIdle ? 'the pool was idle (its standbys go too)' : 'it stopped');
        else if (!(await s.conn.ping()) && idle(s) && this.standbys.includes(s)) this.destroy(s, NO_PONG);
      }
      this.refill();
    } finally {
      this.maintaining = false;
    }
  }

  /** Runs one job on a pooled worker; the worker is returned (or replaced) on every path. */
  async run(job: JobRequest): Promise<ExecutionResult> {
    // A job whose request never reached its worker (a standby whose engine restarted under it: the write
    // fails with EPIPE), or that its worker said it stopped before taking (`stopping`), ran nothing, so it
    // goes once more to another worker; a job that may have run never does. When both workers stopped,
    // its error names both reasons.
    let firstStopped: string | undefined;
    for (let attempt = 0; ; attempt++) {
      let w: PooledWorker | undefined;
      try {
        w = await this.checkoutUnlessCancelled(job.signal);
      } catch (e) {
        return infraResult(errorMessage(e), this.currentSpec.runtime, this.factory.isolation);
      }
      if (!w) {
        const why = job.signal?.reason;
        return failedResult(
          'error',
          {
            type: 'Cancelled',
            message: `the run was cancelled${typeof why === 'string' ? ` (${why})` : ''} while it waited for its sandbox worker`,
          },
          this.currentSpec.runtime,
          this.factory.isolation,
        );
      }
      this.jobs++;
      this.lastJob = Date.now();
      let again = false;
      try {
        const { workerBroken, undelivered, stopped, ...result } = await w.conn.run(job);
        // The result goes back at once: the broken worker is marked closed now (release replaces it) and
        // its container is removed in the background (a `docker rm -f` costs tens of ms).
        if (workerBroken) void w.conn.kill('broken after a job').catch(() => {});
        again = !!undelivered && attempt === 0 && !job.signal?.aborted && !this.disposed;
        if (!again) {
          if (firstStopped === undefined || stopped === undefined || !result.error) return result;
          return {
            ...result,
            error: {
              ...result.error,
              message: `the job never ran: the two sandbox workers it was sent to stopped before they took it (the first: ${firstStopped}; the second: ${stopped}); the script was not at fault`,
            },
          };
        }
        firstStopped = stopped;
        this.resent++;
      } finally {
        this.lastJob = Date.now();
        this.release(w);
      }
    }
  }

  /**
   * Shutdown began: from now on nothing is started (no worker, no standby, no replacement of a worker
   * its cancelled job broke), so the containers that dispose removes are all there will be.
   */
  stopSpawning(): void {
    this.stopping = true;
  }

  async dispose(): Promise<void> {
    this.stopping = true;
    this.disposed = true;
    this.shutdown.abort();
    clearInterval(this.reaper);
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new PoolExhaustedError('the sandbox pool is shut down'));
    }
    const all = [...this.workers.splice(0), ...this.standbys.splice(0)];
    await Promise.all(all.map((w) => w.conn.kill('shutdown').catch(() => {})));
    // Workers still starting remove themselves once their spawn settles (they see the pool shut down).
    await Promise.allSettled([...this.inflight]);
  }
}
