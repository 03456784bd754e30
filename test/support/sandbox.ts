/**
 * Set-up shared by the sandbox tests: a worker factory per isolation level (each failing with the fix in
 * words when its engine is missing: no test skips), a backend over one, and a Python job on it.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import Docker from 'dockerode';
import { imagePaths } from '../../src-main/app/sandbox-factory.ts';
import type { ExecutionResult, IsolationLevel } from '../../src-main/core/sandbox/execution.ts';
import { SandboxBackend } from '../../src-main/infra/sandbox/backend.ts';
import type { BackendOptions } from '../../src-main/infra/sandbox/backend.ts';
import { DockerWorkerFactory } from '../../src-main/infra/sandbox/docker.ts';
import type { ContainerLimits } from '../../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../../src-main/infra/sandbox/images.ts';
import type { PoolLimits, WorkerFactory } from '../../src-main/infra/sandbox/pool.ts';
import { ProcessWorkerFactory } from '../../src-main/infra/sandbox/process.ts';
import type { ProcessOptions } from '../../src-main/infra/sandbox/process.ts';

export type TestFactory = WorkerFactory & { dispose(): Promise<void> };

/** The container limits of the sandbox tests. */
export const TEST_LIMITS: ContainerLimits = { memoryMb: 128, cpus: 1, pids: 64, tmpfsMb: 8 };

/** Fails, naming the fix, when no Docker engine answers. */
export async function requireDocker(docker: Docker = new Docker()): Promise<void> {
  try {
    await docker.ping();
  } catch (e) {
    throw new Error(
      `no Docker engine answers (${(e as Error).message}): install docker.io and start dockerd (.ci/run does both)`,
    );
  }
}

/**
 * A started Docker worker factory building its images from the worker sources; `runtime: 'runsc'` is
 * gVisor (a missing runsc runtime is an error: scripts/ensure-env.sh registers it).
 */
export async function dockerFactory(
  opts: {
    docker?: Docker;
    runtime?: string;
    limits?: ContainerLimits;
    wallsOff?: string[];
    init?: boolean;
  } = {},
): Promise<DockerWorkerFactory> {
  const docker = opts.docker ?? new Docker();
  await requireDocker(docker);
  const paths = imagePaths();
  const f = new DockerWorkerFactory(
    docker,
    (rt) => buildImage(docker, rt, paths),
    opts.limits ?? TEST_LIMITS,
    {
      ...(opts.runtime ? { runtime: opts.runtime } : {}),
      ...(opts.wallsOff ? { wallsOff: opts.wallsOff } : {}),
      ...(opts.init ? { init: true } : {}),
    },
  );
  await f.start();
  return f;
}

/** A process-level worker factory that must be bubblewrap (unless `noBubblewrap` asks for the plain level). */
export function bubblewrapFactory(opts: Partial<ProcessOptions> = {}): ProcessWorkerFactory {
  const { memoryMb, pids, tmpfsMb } = TEST_LIMITS;
  const f = new ProcessWorkerFactory({ ...imagePaths(), memoryMb, pids, tmpfsMb, ...opts });
  if (f.isolation !== 'bubblewrap' && !opts.noBubblewrap)
    throw new Error('bubblewrap is not usable here: apt-get install bubblewrap (.ci/run does)');
  return f;
}

/** The isolation levels a suite runs on, as `describe.each` rows: name, level, factory maker. */
export const ISOLATION_LEVELS = {
  docker: ['docker', 'docker', () => dockerFactory()],
  gvisor: ['gvisor', 'gvisor', () => dockerFactory({ runtime: 'runsc' })],
  bubblewrap: ['process (bubblewrap)', 'bubblewrap', async () => bubblewrapFactory()],
} satisfies Record<string, [string, IsolationLevel, () => Promise<TestFactory>]>;

/** A backend over one factory with the tests' pool (one worker kept, up to two) and output cap. */
export function testBackend(
  factory: WorkerFactory,
  opts: {
    toolsSource: string;
    factoryFor?: BackendOptions['factoryFor'];
    pool?: Partial<PoolLimits>;
    hostTools?: BackendOptions['hostTools'];
    /** (a function: read again each time the backend asks for the sandbox's spec, e.g. on a reload) */
    credentials?: Record<string, string> | (() => Record<string, string>);
  },
): SandboxBackend {
  const hostTools = opts.hostTools ?? {};
  return new SandboxBackend({
    factory,
    ...(opts.factoryFor ? { factoryFor: opts.factoryFor } : {}),
    pool: {
      minSize: 1,
      maxSize: 2,
      maxJobsPerWorker: 1000,
      idleMs: 60_000,
      queueTimeoutMs: 30_000,
      ...opts.pool,
    },
    maxOutputBytes: 50 * 1024,
    specFor: (name, runtime) => ({
      name,
      runtime,
      toolsSource: opts.toolsSource,
      hostTools: Object.keys(hostTools).map((name) => ({ name })),
      credentials: (typeof opts.credentials === 'function' ? opts.credentials() : opts.credentials) ?? {},
    }),
    hostTools,
  });
}

/**
 * One worker at most, over a factory made before the describe's tests (and disposed after them), and a
 * Python job on it in the sandbox `fixture` with `tools`: the tests whose next job must meet the same
 * worker as the last (what one job leaves for the next).
 */
export function oneWorker(
  make: () => Promise<TestFactory>,
  toolsSource: string,
  tools: string[],
): (code: string, timeoutMs?: number) => Promise<ExecutionResult> {
  let backend: SandboxBackend | undefined;
  let factory: TestFactory | undefined;
  beforeAll(async () => {
    factory = await make();
    backend = testBackend(factory, { toolsSource, pool: { minSize: 1, maxSize: 1, standby: 0 } });
  }, 300_000);
  afterAll(async () => {
    await backend?.dispose();
    await factory?.dispose();
  });
  return (code, timeoutMs = 30_000) =>
    runPython(backend as SandboxBackend, code, { sandbox: 'fixture', tools, timeoutMs });
}

/** Runs a Python script on the backend with the given tools (script name = tool name). */
export function runPython(
  backend: SandboxBackend,
  code: string,
  opts: { sandbox: string; tools: string[]; timeoutMs: number },
): Promise<ExecutionResult> {
  return backend.execute({
    sandbox: opts.sandbox,
    language: 'python',
    code,
    bodyStartLine: 1,
    tools: Object.fromEntries(opts.tools.map((t) => [t, t])),
    timeoutMs: opts.timeoutMs,
  });
}

/** Every devpts instance mounted on the host (as `major:minor`): none of them is a sandbox's or a job's. */
export function hostDevpts(): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((l) => l.split(' - ')[1]?.startsWith('devpts '))
    .map((l) => l.split(' ')[2] ?? '');
}
