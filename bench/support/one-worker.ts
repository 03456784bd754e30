/** The pool of the benches that time jobs on one warm worker: one worker, never retired, no standby. */
export const ONE_WORKER_POOL = {
  minSize: 1,
  maxSize: 1,
  maxJobsPerWorker: 100_000,
  idleMs: 600_000,
  queueTimeoutMs: 60_000,
  standby: 0,
} as const;
