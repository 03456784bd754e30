/**
 * A Python worker that ends before it is ready (it cannot read its own files, an import fails) says why,
 * on every level: its exit status and the last lines of its stderr are in the job's infra error. On
 * Docker (runc) the worker connects to its protocol socket first thing, and one that exited before it
 * did was only "the worker exited before it connected to its protocol socket"; on gVisor and bubblewrap
 * the stderr was there, but not how the process ended ("the worker closed its output").
 *
 * The broken workers are copies: on Docker an image of this file's own made from the python image (a
 * container created, never started, one module put back at mode 000 owned by root, committed under a
 * test tag and removed at the end: no shared image changes); on the process level a temporary copy of
 * sandbox-images/ whose worker imports a module that does not exist (that backend normalises the
 * copy's modes, so a mode cannot break it).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import { DockerWorkerFactory } from '../../../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../../../src-main/infra/sandbox/images.ts';
import type { WorkerFactory } from '../../../src-main/infra/sandbox/pool.ts';
import {
  bubblewrapFactory,
  requireDocker,
  runPython,
  TEST_LIMITS,
  testBackend,
} from '../../support/sandbox.ts';

const docker = new Docker();
const tmp = mkdtempSync(join(tmpdir(), 'toolsmith-early-exit-'));
const REPO = 'toolsmith-test-early-exit';
let broken: string | undefined;

/** The python image with toolsmith_worker/hygiene.py unreadable to the worker (mode 000, root's). */
async function unreadableModuleImage(): Promise<string> {
  const base = await buildImage(docker, 'python', imagePaths());
  const stage = join(tmp, 'stage');
  mkdirSync(join(stage, 'toolsmith_worker'), { recursive: true });
  const module = 'toolsmith_worker/hygiene.py';
  writeFileSync(join(stage, module), readFileSync(join(imagePaths().imagesDir, 'python', module)));
  const tar = join(tmp, 'module.tar');
  const made = spawnSync('tar', ['-C', stage, '--owner=0', '--group=0', '--mode=000', '-cf', tar, module], {
    encoding: 'utf8',
  });
  expect(made.status, made.stderr).toBe(0);
  const c = await docker.createContainer({ Image: base, Labels: { 'toolsmith.test': 'early-exit' } });
  try {
    await c.putArchive(readFileSync(tar), { path: '/opt/toolsmith' });
    const tag = randomBytes(6).toString('hex');
    await c.commit({ repo: REPO, tag });
    return `${REPO}:${tag}`;
  } finally {
    await c.remove({ force: true });
  }
}

beforeAll(async () => {
  await requireDocker(docker);
  broken = await unreadableModuleImage();
}, 600_000);
afterAll(async () => {
  if (broken) await docker.getImage(broken).remove({ force: true });
  rmSync(tmp, { recursive: true, force: true });
}, 60_000);

/** The infra error of a job on a backend over `factory` whose workers cannot start. */
async function jobError(factory: WorkerFactory): Promise<string> {
  const b = testBackend(factory, { toolsSource: '', pool: { minSize: 0 } });
  try {
    const r = await runPython(b, 'emit_result(1)\n', { sandbox: 's', tools: [], timeoutMs: 60_000 });
    expect(r.success).toBe(false);
    expect(r.error?.type).toBe('Infra');
    return r.error?.message ?? '';
  } finally {
    await b.dispose();
  }
}

const PERMISSION =
  /PermissionError: \[Errno 13\] Permission denied: '\/opt\/toolsmith\/toolsmith_worker\/hygiene\.py'/;

describe('a Python worker that exits before it is ready says why', () => {
  it('docker (runc, the protocol socket): its exit status and its stderr, not only that it exited', async () => {
    const f = new DockerWorkerFactory(docker, async () => broken!, TEST_LIMITS);
    await f.start();
    try {
      const msg = await jobError(f);
      expect(msg).toMatch(
        /the worker exited \(exit status 1\) before it connected to its protocol socket; the worker's stderr ended with:\n/,
      );
      expect(msg).toMatch(PERMISSION);
    } finally {
      await f.dispose();
    }
  }, 180_000);

  it('gvisor (runsc): its exit status beside its stderr', async () => {
    const f = new DockerWorkerFactory(docker, async () => broken!, TEST_LIMITS, { runtime: 'runsc' });
    await f.start();
    try {
      const msg = await jobError(f);
      expect(msg).toMatch(
        /the worker (closed its output|stream closed) \(exit status 1\)|container exited with status 1/,
      );
      expect(msg).toMatch(/the worker's stderr ended with:\n/);
      expect(msg).toMatch(PERMISSION);
    } finally {
      await f.dispose();
    }
  }, 180_000);

  it('process (bubblewrap): its exit status beside its stderr', async () => {
    const images = join(tmp, 'images');
    cpSync(imagePaths().imagesDir, images, { recursive: true });
    const module = join(images, 'python/toolsmith_worker/hygiene.py');
    writeFileSync(
      module,
      `import toolsmith_no_such_module  # broken on purpose\n${readFileSync(module, 'utf8')}`,
    );
    const msg = await jobError(bubblewrapFactory({ imagesDir: images }));
    expect(msg).toMatch(
      /the worker (closed its output|stream closed) \(exit status 1\)|worker process exited \(1\)/,
    );
    expect(msg).toMatch(/the worker's stderr ended with:\n/);
    expect(msg).toMatch(/ModuleNotFoundError: No module named 'toolsmith_no_such_module'/);
  }, 180_000);
});
