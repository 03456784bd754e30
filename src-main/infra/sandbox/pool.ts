/**
 * A warm pool of workers per sandbox: min/max size, a queue with timeout when all are busy
 * (backpressure), checkout/return released on every path, recycling after N jobs and after any
 * timeout/OOM/crash, health checks and idle reaping. Workers come from a backend (Docker or process).
 */
import { createHash } from 'node:crypto';
import type { ExecutionResult, IsolationLevel } from '../../core/sandbox/execution.ts';
import type { RuntimeId } from '../../core/sandbox/runtimes.ts';
import type { JobRequest, ReadyInfo, WorkerConnection } from './connection.ts';

export interface SandboxSpec {
  name: string;
  runtime: RuntimeId;
  toolsSource: string;
  hostTools: { name: string }[];
  /** Credential name -> value (values go to the worker's environment only). */
  credentials: Record<string, string>;
}

export interface PoolLimits {
  minSize: number;
  maxSize: number;
  maxJobsPerWorker: number;
  idleMs: number;
  queueTimeoutMs: number;
}

export interface WorkerFactory {
  readonly isolation: IsolationLevel;
  /** Starts a worker for the spec (not yet loaded). */
  spawn(spec: SandboxSpec): Promise<{ conn: WorkerConnection; id: string }>;
}

interface PooledWorker {
  conn: WorkerConnection;
  id: string;
  toolsHash: string;
  lastUsed: number;
  busy: boolean;
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
  size: number;
  idle: number;
  busy: number;
  queued: number;
  starting: number;
  replaced: number;
  jobs: number;
}

const hashOf = (spec: SandboxSpec) =>
  createHash('sha256')
    .update(spec.toolsSource)
    .update(JSON.stringify(spec.hostTools))
    .update(JSON.stringify(Object.keys(spec.credentials)))
    .digest('hex');

export class SandboxPool {
  spec: SandboxSpec;
  private readonly factory: WorkerFactory;
  private readonly limits: PoolLimits;
  private readonly workers: PooledWorker[] = [];
  private readonly waiters: Waiter[] = [];
  private starting = 0;
  private replaced = 0;
  private jobs = 0;
  private disposed = false;
  private reaper: NodeJS.Timeout;
  lastReady: ReadyInfo | undefined;

  constructor(spec: SandboxSpec, factory: WorkerFactory, limits: PoolLimits) {
    this.spec = spec;
    this.factory = factory;
    this.limits = limits;
    this.reaper = setInterval(() => void this.maintain(), Math.max(1000, Math.min(limits.idleMs, 30_000)));
    this.reaper.unref();
  }

  status(): PoolStatus {
    return {
      sandbox: this.spec.name,
      runtime: this.spec.runtime,
      size: this.workers.length,
      idle: this.workers.filter((w) => !w.busy).length,
      busy: this.workers.filter((w) => w.busy).length,
      queued: this.waiters.length,
      starting: this.starting,
      replaced: this.replaced,
      jobs: this.jobs,
    };
  }

  /** Fills the pool to its minimum size. */
  async warm(): Promise<void> {
    const need = this.limits.minSize - this.workers.length - this.starting;
    await Promise.all(
      Array.from({ length: Math.max(0, need) }, () => this.add().then((w) => this.release(w))),
    );
  }

  /** New tools source: idle workers reload now, busy ones when they come back. */
  async reload(spec: SandboxSpec): Promise<ReadyInfo | undefined> {
    this.spec = spec;
    const hash = hashOf(spec);
    const idle = this.workers.filter((w) => !w.busy && w.toolsHash !== hash);
    await Promise.all(idle.map((w) => this.load(w).catch(() => this.destroy(w))));
    return this.lastReady;
  }

  private async load(w: PooledWorker): Promise<void> {
    const info = await w.conn.load({
      source: this.spec.toolsSource,
      hostTools: this.spec.hostTools,
      credentials: Object.keys(this.spec.credentials),
    });
    w.toolsHash = hashOf(this.spec);
    this.lastReady = info;
  }

  private async add(): Promise<PooledWorker> {
    this.starting++;
    try {
      const { conn, id } = await this.factory.spawn(this.spec);
      const w: PooledWorker = { conn, id, toolsHash: '', lastUsed: Date.now(), busy: true };
      try {
        await this.load(w);
      } catch (e) {
        await conn.kill('load failed').catch(() => {});
        throw e;
      }
      this.workers.push(w);
      return w;
    } finally {
      this.starting--;
    }
  }

  private async checkout(): Promise<PooledWorker> {
    if (this.disposed) throw new PoolExhaustedError('the sandbox pool is shut down');
    const hash = hashOf(this.spec);
    const idle = this.workers.find((w) => !w.busy && w.conn.alive);
    if (idle) {
      idle.busy = true;
      if (idle.toolsHash !== hash) {
        try {
          await this.load(idle);
        } catch (e) {
          this.destroy(idle);
          throw e;
        }
      }
      return idle;
    }
    if (this.workers.length + this.starting < this.limits.maxSize) return this.add();
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

  /** Hands a worker back: to a waiter, to the idle list, or (broken/worn out) replaced. */
  private release(w: PooledWorker): void {
    w.lastUsed = Date.now();
    if (this.disposed || !w.conn.alive || w.conn.jobs >= this.limits.maxJobsPerWorker) {
      this.destroy(w);
      void this.refill();
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) {
      clearTimeout(waiter.timer);
      w.busy = true;
      const hash = hashOf(this.spec);
      if (w.toolsHash !== hash)
        this.load(w).then(
          () => waiter.resolve(w),
          (e: Error) => (this.destroy(w), waiter.reject(e)),
        );
      else waiter.resolve(w);
      return;
    }
    w.busy = false;
  }

  private destroy(w: PooledWorker): void {
    const i = this.workers.indexOf(w);
    if (i >= 0) this.workers.splice(i, 1);
    this.replaced++;
    void w.conn.kill('recycled').catch(() => {});
  }

  /** Keeps the minimum size and serves waiters after a worker was destroyed. */
  private async refill(): Promise<void> {
    if (this.disposed) return;
    while (this.waiters.length > 0 && this.workers.length + this.starting < this.limits.maxSize) {
      const waiter = this.waiters.shift() as Waiter;
      clearTimeout(waiter.timer);
      this.add().then(waiter.resolve, waiter.reject);
    }
    if (this.workers.length + this.starting < this.limits.minSize) await this.warm().catch(() => {});
  }

  /** Health check and idle reaping. */
  private async maintain(): Promise<void> {
    if (this.disposed) return;
    const now = Date.now();
    for (const w of [...this.workers]) {
      if (w.busy) continue;
      if (!w.conn.alive) this.destroy(w);
      else if (now - w.lastUsed > this.limits.idleMs && this.workers.length > this.limits.minSize)
        this.destroy(w);
      else if (!(await w.conn.ping())) this.destroy(w);
    }
    await this.refill();
  }

  /** Runs one job on a pooled worker; the worker is returned (or replaced) on every path. */
  async run(job: JobRequest): Promise<ExecutionResult> {
    let w: PooledWorker;
    try {
      w = await this.checkout();
    } catch (e) {
      return infraResult(
        this.factory.isolation,
        e instanceof Error ? e.message : String(e),
        this.spec.runtime,
      );
    }
    this.jobs++;
    try {
      const { workerBroken, ...result } = await w.conn.run(job);
      if (workerBroken) await w.conn.kill('broken after a job').catch(() => {});
      return result;
    } finally {
      this.release(w);
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    clearInterval(this.reaper);
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new PoolExhaustedError('the sandbox pool is shut down'));
    }
    await Promise.all(this.workers.splice(0).map((w) => w.conn.kill('shutdown').catch(() => {})));
  }
}

export function infraResult(isolation: IsolationLevel, message: string, runtime: string): ExecutionResult {
  return {
    success: false,
    intermediates: [],
    logs: [],
    toolCalls: [],
    exitReason: 'infra',
    isolation,
    durationMs: 0,
    runtime,
    error: { type: 'Infra', message, frames: [] },
  };
}
