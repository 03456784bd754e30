/**
 * The small static program a JS job that escaped the language runs for the system calls node has no
 * call for (test/fixtures/sandbox/jsprobe.c: SysV IPC, namespaces, survivors, the 32-bit ABI): built
 * once per test file with the host's `cc -static`, and put where a job can run it: in an image made
 * from the node (bun, deno) image at PROBE_IN_IMAGE (docker, gVisor), or copied into the worker's
 * folder (bubblewrap). Each file calls `useProbe()` at its top: it builds the probe before the file's
 * tests and removes its folder after them.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll } from 'vitest';
import { imagePaths } from '../../../../src-main/app/sandbox-factory.ts';
import type { SandboxBackend } from '../../../../src-main/infra/sandbox/backend.ts';
import { DockerWorkerFactory } from '../../../../src-main/infra/sandbox/docker.ts';
import { buildImage, dockerBuild, imageExists } from '../../../../src-main/infra/sandbox/images.ts';
import type { WorkerFactory } from '../../../../src-main/infra/sandbox/pool.ts';
import { bubblewrapFactory, requireDocker, TEST_LIMITS, testBackend } from '../../../support/sandbox.ts';
import { repoRoot } from '../../../support/workspace.ts';

/** Where the probe is in a probe image. */
export const PROBE_IN_IMAGE = '/opt/probe/jsprobe';

let work: string | undefined;

/** The built probe on the host (after `useProbe()`'s beforeAll). */
export function probeBuild(): string {
  if (!work) throw new Error('jsprobe: call useProbe() at the top of the test file');
  return join(work, 'jsprobe');
}

/** Build the probe before this file's tests; remove it after them. */
export function useProbe(): void {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'toolsmith-jsprobe-'));
    chmodSync(work, 0o755);
    const r = spawnSync(
      'cc',
      ['-static', '-O2', '-o', join(work, 'jsprobe'), join(repoRoot, 'test/fixtures/sandbox/jsprobe.c')],
      { encoding: 'utf8' },
    );
    if (r.status !== 0)
      throw new Error(`cc -static jsprobe.c failed (gcc is installed by ensure-env): ${r.stderr}`);
  });
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
    work = undefined;
  });
}

/** A copy of the probe, executable by every uid, in `dir` (a bubblewrap worker's folder): its path there. */
export function copyProbe(dir: string): string {
  const to = join(dir, 'jsprobe');
  copyFileSync(probeBuild(), to);
  chmodSync(to, 0o755);
  return to;
}

/** The node (bun, deno) image with the probe at PROBE_IN_IMAGE, built once per image and probe. */
export async function probeImage(docker: Docker, runtime: 'node' | 'bun' | 'deno'): Promise<string> {
  const build = probeBuild();
  const base = await buildImage(docker, runtime, imagePaths());
  const hash = spawnSync('sha256sum', [build], { encoding: 'utf8' }).stdout.slice(0, 12);
  const tag = `toolsmith-test/${runtime}-jsprobe:${base.split(':')[1]}-${hash}`;
  if (await imageExists(docker, tag)) return tag;
  const ctx = join(build, '..', `ctx-${runtime}`);
  mkdirSync(ctx, { recursive: true });
  copyFileSync(build, join(ctx, 'jsprobe'));
  writeFileSync(join(ctx, 'Dockerfile'), `FROM ${base}\nCOPY jsprobe ${PROBE_IN_IMAGE}\n`);
  await dockerBuild(docker, ctx, tag, () => {}, { labels: { 'toolsmith.test': '1' } });
  return tag;
}

/** A place a JS job runs with the probe at hand: its worker factory and where the probe is there. */
export interface ProbeLevel {
  name: string;
  runtime: 'node' | 'bun' | 'deno';
  make: () => Promise<{ factory: WorkerFactory & { dispose(): Promise<void> }; probe: string }>;
}

/** Docker (runc, or gVisor's runsc) workers of the probe image, with the test switches `wallsOff`. */
export const probeOnDocker = (
  runtime: 'node' | 'bun' | 'deno',
  wallsOff: string[],
  gvisor = false,
): ProbeLevel => ({
  name: `${gvisor ? 'gvisor' : 'docker'}, ${runtime}`,
  runtime,
  make: async () => {
    const docker = new Docker();
    await requireDocker(docker);
    const tag = await probeImage(docker, runtime);
    const factory = new DockerWorkerFactory(docker, async () => tag, TEST_LIMITS, {
      wallsOff,
      ...(gvisor ? { runtime: 'runsc' } : {}),
    });
    await factory.start();
    return { factory, probe: PROBE_IN_IMAGE };
  },
});

/** Bubblewrap (process level) node workers, the probe in the worker's folder (bound into each job's /tmp). */
export const probeOnBubblewrap = (wallsOff: string[]): ProbeLevel => ({
  name: 'process (bubblewrap), node',
  runtime: 'node',
  make: async () => {
    const factory = bubblewrapFactory({ wallsOff });
    const dir = (factory as unknown as { dir: string }).dir;
    copyProbe(dir);
    // Where a job sees it: the worker's folder is bound at /tmp/<its name> in the box (process.ts
    // boxDir), whatever $TMPDIR holds it on the host (a test file's own, a person's nested one).
    return { factory, probe: join('/tmp', basename(dir), 'jsprobe') };
  },
});

/**
 * The level's factory and a one-worker pool of it for the enclosing describe's tests (made before them,
 * disposed after); `get()` gives them once made.
 */
export function useProbeLevel(level: ProbeLevel): () => { backend: SandboxBackend; probe: string } {
  let made: { factory: WorkerFactory & { dispose(): Promise<void> }; probe: string } | undefined;
  let backend: SandboxBackend | undefined;
  beforeAll(async () => {
    made = await level.make();
    backend = testBackend(made.factory, { toolsSource: '', pool: { minSize: 1, maxSize: 1, standby: 0 } });
  }, 300_000);
  afterAll(async () => {
    await backend?.dispose();
    await made?.factory.dispose();
  });
  return () => {
    if (!backend || !made) throw new Error(`${level.name}: the level was not made`);
    return { backend, probe: made.probe };
  };
}
