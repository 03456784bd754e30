/**
 * The pool's standby worker against the real Docker engine: promoted at once when a worker breaks (no
 * spawn on the path of the next job), replaced in the background, health-checked, never handed a job
 * with stale tools, removed on shutdown and by the leftover cleanup of a later process; `standby = 0`
 * keeps the pool as it was.
 *
 * Spawns go through a factory whose spawns (or tools loads) can be held: with spawns held, a job that
 * succeeds cannot have waited for a new worker.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import type { IsolationLevel } from '../../../src-main/core/sandbox/execution.ts';
import { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import type { LoadRequest } from '../../../src-main/infra/sandbox/connection.ts';
import { DockerWorkerFactory, POOL_LABEL } from '../../../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../../../src-main/infra/sandbox/images.ts';
import type { PoolLimits, SandboxSpec, WorkerFactory } from '../../../src-main/infra/sandbox/pool.ts';
import { repoRoot } from '../../support/workspace.ts';

const docker = new Docker();
const toolsSource = readFileSync(join(repoRoot, 'test/fixtures/sandbox/tools.py'), 'utf8');
const image = (rt: 'python' | 'node' | 'bun' | 'deno') => buildImage(docker, rt, imagePaths());

/** A gate: `hold()` closes it, `open()` lets everything waiting through. */
class Gate {
  private wait: Promise<void> | undefined;
  private release: (() => void) | undefined;
  hold(): void {
    this.wait = new Promise((r) => (this.release = r));
  }
  open(): void {
    this.release?.();
    this.wait = undefined;
  }
  get pass(): Promise<void> {
    return this.wait ?? Promise.resolve();
  }
}

/** The Docker factory, with spawns counted and (when held) stopped before or right after loading tools. */
class HeldFactory implements WorkerFactory {
  readonly isolation: IsolationLevel = 'docker';
  // A job alone in its namespaces cannot reach the worker (containment-jobns.test.ts); to break a
  // worker from a job, as these tests do, the per-job namespaces are switched off here.
  readonly inner = new DockerWorkerFactory(docker, image, undefined, { wallsOff: ['nojobns'] });
  spawns = 0;
  /** Holds a spawn before any container exists. */
  readonly beforeSpawn = new Gate();
  /** Holds the first tools load of the next worker after the worker answered it (a slow load). */
  readonly afterFirstLoad = new Gate();
  /** A worker's first load answered (with the tools of that moment) and waits at afterFirstLoad. */
  loadHeld = false;
  private holdNextLoad = false;

  armSlowLoad(): void {
    this.afterFirstLoad.hold();
    this.loadHeld = false;
    this.holdNextLoad = true;
  }

  async spawn(spec: SandboxSpec, signal?: AbortSignal) {
    this.spawns++;
    await this.beforeSpawn.pass;
    const made = await this.inner.spawn(spec, signal);
    if (this.holdNextLoad) {
      this.holdNextLoad = false;
      const conn = made.conn;
      const load = conn.load.bind(conn);
      let first = true;
      conn.load = async (req: LoadRequest, timeoutMs?: number) => {
        const info = await load(req, timeoutMs);
        if (first) {
          first = false;
          this.loadHeld = true;
          await this.afterFirstLoad.pass;
        }
        return info;
      };
    }
    return made;
  }
}

// Each test's pools go when it ends (a later test counts spawns and containers); the factory at the end.
const disposers: (() => Promise<void>)[] = [];
afterEach(async () => {
  factory.beforeSpawn.open();
  factory.afterFirstLoad.open();
  for (const d of disposers.splice(0).reverse()) await d();
});
afterAll(() => factory?.inner.dispose());

function pool(factory: WorkerFactory, limits: Partial<PoolLimits>, source = () => toolsSource) {
  const b = new SandboxBackend({
    factory,
    pool: {
      minSize: 1,
      maxSize: 1,
      maxJobsPerWorker: 1000,
      idleMs: 60_000,
      queueTimeoutMs: 30_000,
      standby: 1,
      ...limits,
    },
    maxOutputBytes: 50 * 1024,
    specFor: (name, runtime) => ({ name, runtime, toolsSource: source(), hostTools: [], credentials: {} }),
  });
  disposers.push(() => b.dispose());
  return b;
}
const run = (b: SandboxBackend, code: string) =>
  b.execute({
    sandbox: 's',
    language: 'python',
    code,
    bodyStartLine: 1,
    tools: { add: 'add', kill_worker: 'kill_worker' },
    timeoutMs: 20_000,
  });
const status = (b: SandboxBackend) => {
  const s = b.status()[0];
  if (!s) throw new Error('no pool');
  return s;
};
const ids = (b: SandboxBackend) => b.workerIds('s') ?? { workers: [], standbys: [] };
const poll = <T>(f: () => T | Promise<T>) => expect.poll(f, { timeout: 30_000, interval: 50 });
const mine = (sandbox: string) =>
  docker.listContainers({
    all: true,
    filters: { label: [`${POOL_LABEL}=1`, `toolsmith.owner=${process.pid}`, `toolsmith.sandbox=${sandbox}`] },
  });

let factory: HeldFactory;
beforeAll(async () => {
  factory = new HeldFactory();
  await factory.inner.start();
}, 600_000);

describe('standby worker', () => {
  it('a killed worker is replaced by the standby at once: the next job needs no spawn; a new standby follows', async () => {
    const b = pool(factory, {});
    await b.warm('s');
    await poll(() => status(b).standby).toBe(1);
    const [active] = ids(b).workers;
    const [standby] = ids(b).standbys;
    expect(active && standby && active !== standby).toBe(true);
    const spawnsBefore = factory.spawns;
    factory.beforeSpawn.hold(); // from now on no new worker can come up
    await docker.getContainer(active as string).kill();
    await poll(() => ids(b).workers).toEqual([standby]);
    const r = await run(b, 'emit_result(add(a=1).data)\n');
    expect(r).toMatchObject({ success: true, data: 2, isolation: 'docker' });
    expect(ids(b).workers).toEqual([standby]);
    expect(status(b)).toMatchObject({ size: 1, busy: 0, standby: 0, standbyStarting: 1, promoted: 1 });
    // The new standby was asked for (and is held): it comes up once spawns may go on.
    expect(factory.spawns).toBe(spawnsBefore + 1);
    factory.beforeSpawn.open();
    await poll(() => status(b).standby).toBe(1);
    const [next] = ids(b).standbys;
    expect([active, standby]).not.toContain(next);
    await poll(async () => (await mine('s')).map((c) => c.Id).sort()).toEqual([standby, next].sort());
  }, 120_000);

  it('a job that crashes its worker: the standby serves the next job without a spawn', async () => {
    const b = pool(factory, {});
    await b.warm('s');
    await poll(() => status(b).standby).toBe(1);
    const [standby] = ids(b).standbys;
    factory.beforeSpawn.hold();
    try {
      const crashed = await run(b, 'kill_worker()\nemit_result(1)\n');
      expect(crashed.exitReason).toBe('crashed');
      const r = await run(b, 'emit_result(add(a=20, b=22).data)\n');
      expect(r).toMatchObject({ success: true, data: 42 });
      expect(ids(b).workers).toEqual([standby]);
      expect(status(b).promoted).toBe(1);
    } finally {
      factory.beforeSpawn.open();
    }
    await poll(() => status(b).standby).toBe(1);
  }, 120_000);

  it('a standby that dies is noticed and started again; it never counts as a worker of the pool', async () => {
    const b = pool(factory, { minSize: 1, maxSize: 2 });
    await b.warm('s');
    await poll(() => status(b).standby).toBe(1);
    expect(status(b)).toMatchObject({ size: 1, idle: 1, busy: 0, standby: 1, standbyTarget: 1 });
    const [standby] = ids(b).standbys;
    const replaced = status(b).replaced;
    await docker.getContainer(standby as string).kill();
    await poll(() => status(b).replaced).toBe(replaced + 1);
    await poll(() => status(b).standby).toBe(1);
    expect(ids(b).standbys).not.toContain(standby);
    expect(status(b).size).toBe(1);
  }, 120_000);

  it('a standby never runs a job with stale tools: reloaded with the pool, and a load that was on its way is redone', async () => {
    let source = toolsSource;
    const b = pool(factory, {}, () => source);
    await b.warm('s');
    await poll(() => status(b).standby).toBe(1);
    // An idle standby reloads with the pool.
    source = toolsSource.replace('data=a + b', 'data=(a + b) * 100');
    await b.reload('s');
    const [standby] = ids(b).standbys;
    await docker.getContainer(ids(b).workers[0] as string).kill();
    await poll(() => ids(b).workers).toEqual([standby]);
    expect((await run(b, 'emit_result(add(a=1).data)\n')).data).toBe(200);
    await poll(() => status(b).standby).toBe(1);

    // A standby whose first load answered with the old tools while tools.py changed: loaded again.
    factory.armSlowLoad();
    await docker.getContainer(ids(b).standbys[0] as string).kill();
    await poll(() => factory.loadHeld).toBe(true);
    expect(status(b)).toMatchObject({ standby: 0, standbyStarting: 1 });
    source = toolsSource.replace('data=a + b', 'data=(a + b) * 1000');
    await b.reload('s');
    factory.afterFirstLoad.open();
    await poll(() => status(b).standby).toBe(1);
    const [late] = ids(b).standbys;
    await docker.getContainer(ids(b).workers[0] as string).kill();
    await poll(() => ids(b).workers).toEqual([late]);
    expect((await run(b, 'emit_result(add(a=1).data)\n')).data).toBe(2000);
  }, 180_000);

  it('shutdown removes the standby, also one that was still starting', async () => {
    const b = new SandboxBackend({
      factory,
      pool: {
        minSize: 1,
        maxSize: 1,
        maxJobsPerWorker: 1000,
        idleMs: 60_000,
        queueTimeoutMs: 30_000,
        standby: 2,
      },
      maxOutputBytes: 50 * 1024,
      specFor: (name, runtime) => ({ name, runtime, toolsSource, hostTools: [], credentials: {} }),
    });
    disposers.push(() => b.dispose());
    await b.warm('s2');
    await poll(() => b.status()[0]?.standby).toBe(2);
    await poll(async () => (await mine('s2')).length).toBe(3);
    // One more standby on its way: its container runs, its tools load is not through yet.
    factory.armSlowLoad();
    await docker.getContainer(b.workerIds('s2')?.standbys[0] as string).kill();
    await poll(() => factory.loadHeld).toBe(true);
    await poll(async () => (await mine('s2')).length).toBe(3);
    expect(b.status()[0]).toMatchObject({ standby: 1, standbyStarting: 1 });
    const disposed = b.dispose();
    factory.afterFirstLoad.open();
    await disposed;
    expect(await mine('s2')).toEqual([]);
  }, 120_000);

  it('leftovers of a process that died are removed at start, its standby included', async () => {
    const child = spawn(
      join(repoRoot, 'node_modules/.bin/node'),
      [join(repoRoot, 'test/integration/sandbox/support/standby-owner.ts')],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`the owner process exited (${code})`)));
    });
    const left = JSON.parse(line) as { workers: string[]; standbys: string[] };
    expect(left.workers).toHaveLength(1);
    expect(left.standbys).toHaveLength(1);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    for (const id of [...left.workers, ...left.standbys]) {
      const info = await docker.getContainer(id).inspect();
      expect(info.Config.Labels).toMatchObject({
        [POOL_LABEL]: '1',
        'toolsmith.owner': String(child.pid),
        'toolsmith.sandbox': 'leftover',
      });
    }
    // (Removes this process's own containers too, like any start: no pool of this file is running now.)
    const later = new DockerWorkerFactory(docker, image);
    disposers.push(async () => {
      (later as unknown as { events?: { destroy?: () => void } }).events?.destroy?.();
    });
    expect(await later.start()).toBeGreaterThanOrEqual(2);
    for (const id of [...left.workers, ...left.standbys])
      await expect(docker.getContainer(id).inspect()).rejects.toThrow();
  }, 180_000);

  it('standby = 0: no standby, and a broken worker is replaced by a new one as before', async () => {
    const b = pool(factory, { standby: 0 });
    await b.warm('s');
    expect((await run(b, 'emit_result(1)\n')).data).toBe(1);
    expect(status(b)).toMatchObject({ size: 1, standby: 0, standbyStarting: 0, standbyTarget: 0 });
    const spawns = factory.spawns;
    const [active] = ids(b).workers;
    expect((await run(b, 'kill_worker()\n')).exitReason).toBe('crashed');
    expect((await run(b, 'emit_result(add(a=2).data)\n')).data).toBe(3);
    expect(factory.spawns).toBe(spawns + 1);
    expect(ids(b).workers).not.toContain(active);
    expect(ids(b).standbys).toEqual([]);
    expect(status(b)).toMatchObject({ standby: 0, standbyStarting: 0, promoted: 0 });
  }, 120_000);

  it('idle reaping takes the standby too when the pool shrinks to nothing; the next job brings both back', async () => {
    const b = pool(factory, { minSize: 0, maxSize: 1, idleMs: 3000 });
    expect((await run(b, 'emit_result(1)\n')).data).toBe(1);
    await poll(() => status(b).standby).toBe(1);
    await poll(() => [status(b).size, status(b).standby]).toEqual([0, 0]);
    // The next job naps while the standby comes back: a worker idle for idleMs would be reaped again
    // (and its standby with it), so on a loaded machine whose standby takes longer than idleMs to
    // start, [1, 1] could come and go between two polls once the job had ended.
    const spawns = factory.spawns;
    const napping = b.execute({
      sandbox: 's',
      language: 'python',
      code: 'nap(seconds=12)\nemit_result(2)\n',
      bodyStartLine: 1,
      tools: { nap: 'nap' },
      timeoutMs: 30_000,
    });
    await poll(() => [status(b).size, status(b).standby]).toEqual([1, 1]);
    expect(factory.spawns).toBe(spawns + 2);
    expect((await napping).data).toBe(2);
  }, 120_000);
});
