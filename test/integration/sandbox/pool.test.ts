/** Pool behaviour and container hardening against the real Docker engine, plus the plain process level. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { POLL_MS } from '../../support/budgets.ts';
import { imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { DockerWorkerFactory, POOL_LABEL } from '../../../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../../../src-main/infra/sandbox/images.ts';
import type { RuntimeImage } from '../../../src-main/infra/sandbox/images.ts';
import {
  Installation,
  INSTALLATION_LABEL,
  INSTANCE_LABEL,
} from '../../../src-main/infra/sandbox/installation.ts';
import type { ToolResponse } from '../../../src-main/core/tools/model.ts';
import { ProcessWorkerFactory } from '../../../src-main/infra/sandbox/process.ts';
import { dockerSeccompProfile } from '../../../src-main/infra/sandbox/seccomp.ts';
import { repoRoot } from '../../support/workspace.ts';

const docker = new Docker();
const toolsSource = readFileSync(join(repoRoot, 'test/fixtures/sandbox/tools.py'), 'utf8');
const image = (rt: RuntimeImage) => buildImage(docker, rt, imagePaths());
const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

function backend(
  factory: DockerWorkerFactory | ProcessWorkerFactory,
  pool: Partial<{ minSize: number; maxSize: number; maxJobsPerWorker: number; queueTimeoutMs: number }> = {},
  source = () => toolsSource,
) {
  const b = new SandboxBackend({
    factory,
    pool: { minSize: 1, maxSize: 1, maxJobsPerWorker: 1000, idleMs: 60_000, queueTimeoutMs: 30_000, ...pool },
    maxOutputBytes: 50 * 1024,
    specFor: (name, runtime) => ({ name, runtime, toolsSource: source(), hostTools: [], credentials: {} }),
  });
  cleanup.push(() => b.dispose());
  return b;
}
const run = (b: SandboxBackend, code: string, timeoutMs = 10_000) =>
  b.execute({
    sandbox: 's',
    language: 'python',
    code,
    bodyStartLine: 1,
    tools: { add: 'add', state: 'state' },
    timeoutMs,
  });

describe('docker pool', () => {
  it('removes leftovers of a crashed earlier process (of this installation) at start', async () => {
    const tag = await image('python');
    const installation = new Installation(mkdtempSync(join(tmpdir(), 'toolsmith-install-')));
    const orphan = await docker.createContainer({
      Image: tag,
      // An instance of this installation that is not running (never registered, or its process died).
      Labels: {
        [POOL_LABEL]: '1',
        [INSTALLATION_LABEL]: installation.id,
        [INSTANCE_LABEL]: 'a-crashed-instance',
        'toolsmith.owner': '999999999',
      },
    });
    const f = new DockerWorkerFactory(docker, image, undefined, { installation });
    cleanup.push(() => f.dispose());
    expect(await f.start()).toBeGreaterThanOrEqual(1);
    await expect(docker.getContainer(orphan.id).inspect()).rejects.toThrow();
  });

  it('every container runs with the limits on', async () => {
    const f = new DockerWorkerFactory(docker, image, { memoryMb: 96, cpus: 0.5, pids: 32, tmpfsMb: 4 });
    cleanup.push(() => f.dispose());
    await f.start();
    const { conn, id } = await f.spawn({
      name: 's',
      runtime: 'python',
      toolsSource,
      hostTools: [],
      credentials: {},
    });
    const info = await docker.getContainer(id).inspect();
    await conn.kill('inspected');
    expect(info.Config.User).toBe('65534:65534');
    expect(info.HostConfig).toMatchObject({
      NetworkMode: 'none',
      ReadonlyRootfs: true,
      Memory: 96 * 1024 * 1024,
      MemorySwap: 96 * 1024 * 1024,
      PidsLimit: 32,
      NanoCpus: 5e8,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges', `seccomp=${dockerSeccompProfile()}`],
      // The worker is pid 1; a job mounts a /proc of its own (docs/security.md, "Jobs alone").
      Init: false,
      MaskedPaths: [],
      ReadonlyPaths: [],
      LogConfig: { Type: 'none' },
    });
    expect(info.HostConfig.Tmpfs?.['/tmp']).toMatch(/size=4m/);
  });

  it('backpressure: a full pool queues, then times out with an infra result', async () => {
    const f = new DockerWorkerFactory(docker, image);
    cleanup.push(() => f.dispose());
    const b = backend(f, { minSize: 0, maxSize: 1, queueTimeoutMs: 300 });
    const slow = run(b, 'x = 0\nfor i in range(10**8):\n    x += i\nemit_result(x)\n', 1500);
    // The one worker has taken the slow job: the next one queues.
    await vi.waitFor(() => expect(b.status()[0]?.busy).toBe(1), { timeout: POLL_MS, interval: 10 });
    const queued = await run(b, 'emit_result(1)\n');
    expect(queued).toMatchObject({
      success: false,
      exitReason: 'infra',
      error: { message: expect.stringMatching(/all 1 sandbox workers stayed busy for 300 ms/) },
    });
    expect((await slow).exitReason).toBe('timeout');
    expect((await run(b, 'emit_result(2)\n')).data).toBe(2);
  });

  it('recycles a worker after N jobs and hot-reloads changed tools', async () => {
    const f = new DockerWorkerFactory(docker, image);
    cleanup.push(() => f.dispose());
    let source = toolsSource;
    const b = backend(f, { maxJobsPerWorker: 2 }, () => source);
    for (let i = 0; i < 5; i++) expect((await run(b, 'emit_result(add(a=1).data)\n')).data).toBe(2);
    expect(b.status()[0]?.replaced).toBeGreaterThanOrEqual(2);
    expect(b.status()[0]?.lastReplaced?.reason).toBe('it had run 2 jobs (the most one worker runs)');
    source = toolsSource.replace('data=a + b', 'data=(a + b) * 100');
    // The new tools reach the warm workers (how fast is measured in bench/, not asserted here).
    await b.reload('s');
    expect((await run(b, 'emit_result(add(a=1).data)\n')).data).toBe(200);
    // (the worker that had run a job was replaced, not reloaded, and the status says so)
    expect(b.status()[0]?.lastReplaced?.reason).toMatch(/^its tools changed after it had run a job/);
    expect(Date.parse(b.status()[0]?.lastReplaced?.at ?? '')).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe('docker pool maintenance', () => {
  it('reaps idle workers down to the minimum, and replaces a worker that died while idle', async () => {
    const f = new DockerWorkerFactory(docker, image);
    cleanup.push(() => f.dispose());
    // The host tool `hold` answers once the test opens it: both jobs hold their workers until the pool
    // has been seen at two workers. (With jobs that only slept, a worker whose container started first
    // could be idle past idleMs, and reaped, before the other's job had ended on a loaded machine.)
    const held: (() => void)[] = [];
    const hold = (): Promise<ToolResponse> =>
      new Promise((resolve) => held.push(() => resolve({ success: true, data: null })));
    const b = new SandboxBackend({
      factory: f,
      pool: { minSize: 1, maxSize: 2, maxJobsPerWorker: 1000, idleMs: 1000, queueTimeoutMs: 30_000 },
      maxOutputBytes: 50 * 1024,
      specFor: (name, runtime) => ({
        name,
        runtime,
        toolsSource,
        hostTools: [{ name: 'hold' }],
        credentials: {},
      }),
      hostTools: { hold },
    });
    cleanup.push(() => b.dispose());
    const holding = (n: number) =>
      b.execute({
        sandbox: 's',
        language: 'python',
        code: `hold()\nemit_result(${n})\n`,
        bodyStartLine: 1,
        tools: { hold: 'hold' },
        timeoutMs: 60_000,
      });
    const both = Promise.all([holding(1), holding(2)]);
    await expect.poll(() => [held.length, b.status()[0]?.size, b.status()[0]?.busy]).toEqual([2, 2, 2]);
    for (const open of held) open();
    expect((await both).map((r) => r.data)).toEqual([1, 2]);
    // Idle reaping: past idleMs the extra worker goes, the minimum stays.
    await expect.poll(() => b.status()[0]?.size, { interval: 200 }).toBe(1);
    expect(b.status()[0]?.lastReplaced?.reason).toMatch(
      /^idle for \d+ s \(the pool shrinks to its minimum\)$/,
    );
    // Health check: the idle worker's container is killed from outside; the pool notices and refills.
    const before = b.status()[0]?.replaced ?? 0;
    const mine = await docker.listContainers({
      filters: { label: [`${POOL_LABEL}=1`, `toolsmith.owner=${process.pid}`, 'toolsmith.sandbox=s'] },
    });
    expect(mine.length).toBeGreaterThan(0);
    for (const c of mine)
      await docker
        .getContainer(c.Id)
        .kill()
        .catch(() => {});
    await expect
      .poll(() => (b.status()[0]?.replaced ?? 0) > before && b.status()[0]?.size === 1, { interval: 200 })
      .toBe(true);
    // (the worker's own end, as its connection heard it, not the pool's words)
    expect(b.status()[0]?.lastReplaced?.reason).toMatch(/^the worker (closed its output|stream closed)/);
    expect((await run(b, 'emit_result(3)\n')).data).toBe(3);
  }, 60_000);
});

describe('plain process level (no bubblewrap)', () => {
  it('records isolation "process", runs as nobody, and still enforces the memory and output limits', async () => {
    const f = new ProcessWorkerFactory({
      ...imagePaths(),
      memoryMb: 128,
      pids: 64,
      tmpfsMb: 8,
      noBubblewrap: true,
    });
    expect(f.isolation).toBe('process');
    const b = backend(f);
    const ok = await run(b, 'emit_result(add(a=2).data)\n');
    expect(ok).toMatchObject({ success: true, data: 3, isolation: 'process' });
    expect((await run(b, 'x = "a" * (2 * 10**9)\nemit_result(1)\n')).exitReason).toBe('oom');
    expect((await run(b, 'while True:\n    print("y" * 500)\n')).exitReason).toBe('output_limit');
    expect((await run(b, 'while True:\n    pass\n', 1000)).exitReason).toBe('timeout');
  }, 60_000);
});
