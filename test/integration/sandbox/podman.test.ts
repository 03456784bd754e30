/**
 * Podman's Docker-compatible API as an engine: `podman system service` on a socket of its own, started
 * here (Debian's podman 4.3; scripts/ensure-env.sh installs it), the sandbox image copied in with
 * `docker save | podman load`. Jobs, host and sandbox tool calls, a killed worker replaced, the
 * installation's labels, and the per-sandbox config (`[engines.X] kind = "podman"`).
 */
import { execSync, spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src-main/app/config.ts';
import { SandboxFactories } from '../../../src-main/app/isolation.ts';
import { imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import type { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { DockerWorkerFactory, POOL_LABEL } from '../../../src-main/infra/sandbox/docker.ts';
import { dockerFor } from '../../../src-main/infra/sandbox/engines.ts';
import { buildImage } from '../../../src-main/infra/sandbox/images.ts';
import { Installation, INSTALLATION_LABEL } from '../../../src-main/infra/sandbox/installation.ts';
import type { WorkerFactory } from '../../../src-main/infra/sandbox/pool.ts';
import Docker from 'dockerode';
import { testBackend } from '../../support/sandbox.ts';
import { repoRoot } from '../../support/workspace.ts';

const toolsSource = readFileSync(join(repoRoot, 'test/fixtures/sandbox/tools.py'), 'utf8');
const paths = imagePaths();
const limits = { memoryMb: 128, cpus: 1, pids: 64, tmpfsMb: 8 };
const dir = mkdtempSync('/tmp/tsp-');
const socket = join(dir, 'podman.sock');
let service: ChildProcess | undefined;
let tag: string;
let podman: Docker;
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  if (spawnSync('podman', ['--version']).status !== 0)
    throw new Error('podman is not installed: apt-get install podman catatonit (scripts/ensure-env.sh does)');
  const local = new Docker();
  tag = await buildImage(local, 'python', paths);
  service = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], { stdio: 'ignore' });
  podman = dockerFor('podman', { host: `unix://${socket}` });
  const end = Date.now() + 30_000;
  for (;;) {
    try {
      await podman.ping();
      break;
    } catch (e) {
      if (Date.now() > end) throw new Error(`podman system service did not answer: ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  execSync(`docker save ${tag} | podman load`, { stdio: 'ignore' });
}, 300_000);

// (The installations' keepers are stopped before the folder goes: a factory given an installation does
// not unregister it, and a registered one wrote its id and entry back into the removed folder, which every
// run left behind as /tmp/tsp-*.)
afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => {});
  service?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

const backend = (factory: WorkerFactory, factoryFor?: (s: string) => WorkerFactory) => {
  const b = testBackend(factory, {
    toolsSource,
    ...(factoryFor ? { factoryFor } : {}),
    pool: { standby: 1 },
    hostTools: { weather: (a) => ({ success: true, data: { city: String(a['city']), celsius: 21 } }) },
  });
  cleanup.push(() => b.dispose());
  return b;
};
const run = (b: SandboxBackend, code: string, sandbox = 's') =>
  b.execute({
    sandbox,
    language: 'python',
    code,
    bodyStartLine: 1,
    tools: { add: 'add', weather: 'weather', kill_worker: 'kill_worker' },
    timeoutMs: 20_000,
  });

describe('Podman as an engine', () => {
  it('runs jobs with sandbox and host tools; a killed worker is replaced; containers carry the installation', async () => {
    const installation = new Installation(join(dir, 'install-a'));
    cleanup.push(async () => installation.unregister());
    const f = new DockerWorkerFactory(podman, async () => tag, limits, {
      installation,
      engine: 'podman',
      podman: true,
      // The job breaks its worker below, which a job alone in its namespaces cannot reach
      // (containment-jobns.test.ts): the per-job namespaces are off for this pool.
      wallsOff: ['nojobns'],
    });
    cleanup.push(() => f.dispose());
    await f.start();
    const b = backend(f);
    const r = await run(
      b,
      'w = weather(city="Oslo")\nemit_result({"sum": add(a=40, b=2).data, "w": w.data})\n',
    );
    expect(r).toMatchObject({
      success: true,
      data: { sum: 42, w: { city: 'Oslo', celsius: 21 } },
      isolation: 'docker',
    });
    const mine = await podman.listContainers({
      all: true,
      filters: { label: [`${POOL_LABEL}=1`, `${INSTALLATION_LABEL}=${installation.id}`] },
    });
    expect(mine.length).toBeGreaterThanOrEqual(1);
    expect(mine[0]?.Labels['toolsmith.engine']).toBe('podman');
    const killed = await run(b, 'kill_worker()\nemit_result(1)\n');
    expect(killed.exitReason).toBe('crashed');
    expect(await run(b, 'emit_result(add(a=1, b=1).data)\n')).toMatchObject({ success: true, data: 2 });
    await b.dispose();
    await f.dispose();
    expect(
      await podman.listContainers({
        all: true,
        filters: { label: [`${INSTALLATION_LABEL}=${installation.id}`] },
      }),
    ).toEqual([]);
  }, 180_000);

  it('configured per sandbox: [engines.X] kind = "podman"', async () => {
    const config = parseConfig({
      engines: { pod: { host: `unix://${socket}`, kind: 'podman' } },
      sandboxes: { s: { engines: ['pod'] } },
    });
    const installation = new Installation(join(dir, 'install-b'));
    cleanup.push(async () => installation.unregister());
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
      localDocker: new Docker(),
      image: async () => tag,
    });
    cleanup.push(() => own.dispose());
    const f = own.factoryFor('s');
    if (!f) throw new Error('no factory for s');
    const b = backend(f);
    expect(await run(b, 'emit_result(add(a=2, b=3).data)\n')).toMatchObject({
      success: true,
      data: 5,
      isolation: 'docker',
    });
  }, 120_000);
});
