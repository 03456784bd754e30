/**
 * Engines: a remote Docker engine over tcp with TLS (a second dockerd on loopback, started here with its
 * own certificates), a pool over two engines with placement by load, configured per sandbox through the
 * app's factories; a broken engine (closed port, untrusted client certificate, missing certificate file,
 * missing runtime) is an error naming it, never a fall back to another engine or level.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src-main/app/config.ts';
import { SandboxFactories } from '../../../src-main/app/isolation.ts';
import { imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { DockerWorkerFactory, POOL_LABEL } from '../../../src-main/infra/sandbox/docker.ts';
import { dockerFor, MultiEngineFactory } from '../../../src-main/infra/sandbox/engines.ts';
import { buildImage, imageTag } from '../../../src-main/infra/sandbox/images.ts';
import { Installation, INSTALLATION_LABEL } from '../../../src-main/infra/sandbox/installation.ts';
import type { WorkerFactory } from '../../../src-main/infra/sandbox/pool.ts';
import { repoRoot } from '../../support/workspace.ts';
import { startSecondDockerd } from './support/second-dockerd.ts';
import type { SecondEngine } from './support/second-dockerd.ts';

const toolsSource = readFileSync(join(repoRoot, 'test/fixtures/sandbox/tools.py'), 'utf8');
const local = new Docker();
const paths = imagePaths();
const limits = { memoryMb: 128, cpus: 1, pids: 64, tmpfsMb: 8 };
let second: SecondEngine;
let remote: Docker;
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  try {
    await local.ping();
  } catch (e) {
    throw new Error(`no Docker engine answers (${(e as Error).message}): start dockerd (.ci/run does)`);
  }
  const tag = await buildImage(local, 'python', paths);
  second = await startSecondDockerd([tag]);
  remote = dockerFor('remote', { host: second.host, ...second.tls });
}, 300_000);

afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => {});
  await second?.stop();
}, 60_000);

/**
 * An installation in the second engine's folder whose keeper is stopped after the test: a factory given
 * an installation does not unregister it, and a registered one writes its id and entry back into a
 * folder removed under it (`Installation.keep`), so every run left /tmp/tsd-* behind with install-a, -c
 * and -d in it, after the engine's stop() had removed the folder.
 */
const installationIn = (dir: string, name: string): Installation => {
  const installation = new Installation(join(dir, name));
  cleanup.push(async () => installation.unregister());
  return installation;
};

const backend = (factory: WorkerFactory, size: number, factoryFor?: (s: string) => WorkerFactory) => {
  const b = new SandboxBackend({
    factory,
    ...(factoryFor ? { factoryFor } : {}),
    pool: {
      minSize: size,
      maxSize: size,
      maxJobsPerWorker: 1000,
      idleMs: 60_000,
      queueTimeoutMs: 30_000,
      standby: 0,
    },
    maxOutputBytes: 50 * 1024,
    specFor: (name, runtime) => ({ name, runtime, toolsSource, hostTools: [], credentials: {} }),
  });
  cleanup.push(() => b.dispose());
  return b;
};
const run = (b: SandboxBackend, sandbox = 's') =>
  b.execute({
    sandbox,
    language: 'python',
    code: 'emit_result(add(a=40, b=2).data)\n',
    bodyStartLine: 1,
    tools: { add: 'add' },
    timeoutMs: 20_000,
  });
const pooled = (d: Docker, installation: Installation) =>
  d.listContainers({
    all: true,
    filters: { label: [`${POOL_LABEL}=1`, `${INSTALLATION_LABEL}=${installation.id}`] },
  });

describe('a remote Docker engine over tcp with TLS', () => {
  it('runs jobs in containers of the remote engine', async () => {
    const installation = installationIn(second.dir, 'install-a');
    const f = new DockerWorkerFactory(remote, async () => imageTag('python', paths), limits, {
      installation,
      engine: 'remote',
    });
    cleanup.push(() => f.dispose());
    await f.start();
    const b = backend(f, 1);
    const r = await run(b);
    expect(r).toMatchObject({ success: true, data: 42, isolation: 'docker' });
    const there = await pooled(remote, installation);
    expect(there).toHaveLength(1);
    expect(there[0]?.Labels['toolsmith.engine']).toBe('remote');
    expect(await pooled(local, installation)).toEqual([]);
    await b.dispose();
    await f.dispose();
    expect(await pooled(remote, installation)).toEqual([]);
  }, 120_000);

  it('a broken remote engine is an error naming it', async () => {
    const installation = installationIn(second.dir, 'install-b');
    const closed = dockerFor('gone', { host: 'tcp://127.0.0.1:1', ...second.tls });
    const f = new DockerWorkerFactory(closed, async () => 'unused', limits, { installation, engine: 'gone' });
    await expect(f.start()).rejects.toThrow(/engine 'gone' does not answer.*ECONNREFUSED/);
    // A client certificate the engine does not trust.
    const untrusted = dockerFor('remote', {
      host: second.host,
      tls_ca: second.tls.tls_ca,
      tls_cert: second.foreign.tls_cert,
      tls_key: second.foreign.tls_key,
    });
    const g = new DockerWorkerFactory(untrusted, async () => 'unused', limits, {
      installation,
      engine: 'remote',
    });
    await expect(g.start()).rejects.toThrow(/engine 'remote' does not answer/);
    expect(() =>
      dockerFor('x', { host: second.host, ...second.tls, tls_key: '/nonexistent/key.pem' }),
    ).toThrow(/engine 'x': cannot read tls_key/);
    expect(() => dockerFor('x', { host: second.host })).toThrow(/needs TLS.*tls_ca, tls_cert, tls_key/);
  }, 60_000);
});

describe('several engines in one pool', () => {
  it('places workers by load: the engine with the lowest share of its capacity gets the next one', async () => {
    const installation = installationIn(second.dir, 'install-c');
    const make = (d: Docker, engine: string) =>
      new DockerWorkerFactory(d, (rt) => buildImage(d, rt, paths), limits, { installation, engine });
    const multi = new MultiEngineFactory([
      { name: 'local', factory: make(local, 'local'), maxWorkers: 2 },
      { name: 'remote', factory: make(remote, 'remote'), maxWorkers: 4 },
    ]);
    cleanup.push(() => multi.dispose());
    await multi.start();
    const b = backend(multi, 3);
    await b.warm('s');
    // 3 workers over capacities 2 and 4: local 0/2, remote 0/4 -> local; then remote (0 < 0.5); then
    // remote again (0.25 < 0.5).
    const placed = [...multi.placement.values()].sort();
    expect(placed).toEqual(['local', 'remote', 'remote']);
    expect((await pooled(local, installation)).length).toBe(1);
    expect((await pooled(remote, installation)).length).toBe(2);
    const rs = await Promise.all(Array.from({ length: 9 }, () => run(b)));
    for (const r of rs) expect(r).toMatchObject({ success: true, data: 42, isolation: 'docker' });
    // A full pool of engines is an error, not a queue on some other engine.
    const full = new MultiEngineFactory([{ name: 'local', factory: make(local, 'local'), maxWorkers: 1 }]);
    cleanup.push(() => full.dispose());
    await full.start();
    const spec = { name: 's', runtime: 'python' as const, toolsSource, hostTools: [], credentials: {} };
    const one = await full.spawn(spec);
    await expect(full.spawn(spec)).rejects.toThrow(/every engine is full \(local 1\/1\)/);
    await one.conn.kill('test over');
  }, 180_000);

  it('configured per sandbox: isolation and engines from the config, errors for what is not available', async () => {
    const config = parseConfig({
      engines: {
        remote: { host: second.host, ...second.tls, max_workers: 4 },
        broken: { host: 'tcp://127.0.0.1:1', ...second.tls },
      },
      sandboxes: {
        spread: { isolation: 'docker', engines: ['local', 'remote'] },
        away: { engines: ['remote'] },
        down: { engines: ['broken'] },
        gv: { isolation: 'gvisor', engines: ['remote'] },
      },
    });
    expect(() => parseConfig({ sandboxes: { s: { engines: ['nowhere'] } } })).toThrow(/no engine 'nowhere'/);
    expect(() => parseConfig({ sandboxes: { s: { isolation: 'vm' } } })).toThrow(/isolation/);
    const installation = installationIn(second.dir, 'install-d');
    const own = new SandboxFactories({
      config,
      installation,
      limits,
      process: {
        imagesDir: paths.imagesDir,
        nodeBinary: paths.nodeBinary,
        memoryMb: 128,
        pids: 64,
        tmpfsMb: 8,
      },
      localDocker: local,
      image: (d, _engine, rt) => buildImage(d, rt, paths),
    });
    cleanup.push(() => own.dispose());
    const fallback = new DockerWorkerFactory(local, (rt) => buildImage(local, rt, paths), limits, {
      installation,
    });
    cleanup.push(() => fallback.dispose());
    const b = backend(fallback, 2, (s) => own.factoryFor(s) ?? fallback);
    expect(own.levelOf('spread')).toBe('docker');
    expect(own.levelOf('away')).toBe('docker');
    expect(own.levelOf('plain')).toBeUndefined();

    const spread = await Promise.all([run(b, 'spread'), run(b, 'spread')]);
    for (const r of spread) expect(r).toMatchObject({ success: true, data: 42, isolation: 'docker' });
    const away = await run(b, 'away');
    expect(away).toMatchObject({ success: true, isolation: 'docker' });
    const onRemote = await pooled(remote, installation);
    expect(onRemote.filter((c) => c.Labels['toolsmith.sandbox'] === 'away')).toHaveLength(1);
    expect(onRemote.filter((c) => c.Labels['toolsmith.sandbox'] === 'spread')).toHaveLength(1);
    const onLocal = await pooled(local, installation);
    expect(onLocal.filter((c) => c.Labels['toolsmith.sandbox'] === 'spread')).toHaveLength(1);

    const down = await run(b, 'down');
    expect(down).toMatchObject({ success: false, exitReason: 'infra', isolation: 'docker' });
    expect(down.error?.message).toMatch(
      /engine 'broken' is not usable: the Docker engine 'broken' does not answer/,
    );
    expect(
      (await pooled(local, installation)).filter((c) => c.Labels['toolsmith.sandbox'] === 'down'),
    ).toEqual([]);
    // The remote engine has no runsc runtime: gvisor configured there is an error, never runc instead.
    const gv = await run(b, 'gv');
    expect(gv).toMatchObject({ success: false, exitReason: 'infra', isolation: 'gvisor' });
    expect(gv.error?.message).toMatch(
      /isolation "gvisor": engine 'remote' is not usable: .*no 'runsc' runtime/,
    );
  }, 240_000);
});
