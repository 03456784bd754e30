/**
 * The Docker images built by a person whose umask is 077, from a clone made under it (the repository's
 * sandbox-images/ files 0600, its folders 0700): the modes in the image are the recipe's, not the
 * builder's, so the worker (uid 65534) reads /opt/toolsmith and runs Python and JS jobs. Before, the
 * staged build context kept the builder's modes: the Python worker could not open worker.py and the node
 * image's /usr was 0700.
 *
 * The images are built under a namespace of this file's own (never the shared `toolsmith/` tags other
 * processes on the machine use) with a cache folder of its own (the fork server's C loop is compiled
 * there under the umask too), and removed at the end. The debootstrap'ed root is the shared cache's when
 * there is one (read only): debootstrap sets umask 022 itself, so that root's modes never depend on the
 * builder's.
 */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import type { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { DockerWorkerFactory } from '../../../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../../../src-main/infra/sandbox/images.ts';
import type { ImagePaths } from '../../../src-main/infra/sandbox/images.ts';
import { requireDocker, runPython, TEST_LIMITS, testBackend } from '../../support/sandbox.ts';

const TOOLS = `
@tool(grade=(0, 0))
def add(a: int, b: int = 1) -> ToolResponse:
    """Add two numbers."""
    return ToolResponse(success=True, data=a + b)
`;

const NAMESPACE = `toolsmith-test-umask-${randomBytes(4).toString('hex')}`;
const docker = new Docker();
const tmp = mkdtempSync(join(tmpdir(), 'toolsmith-image-umask-'));
const tags: Record<string, string> = {};
let factory: DockerWorkerFactory | undefined;
let b: SandboxBackend | undefined;

/** Folders 0700 and files 0600, as a clone made under `umask 077` has them. */
function asClonedUnder077(dir: string): void {
  chmodSync(dir, 0o700);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) asClonedUnder077(p);
    else if (e.isFile()) chmodSync(p, 0o600);
  }
}

/** The mode of `path` in `image` (from a container made, never started, and removed). */
async function modeIn(image: string, path: string): Promise<number> {
  const c = await docker.createContainer({ Image: image, Labels: { 'toolsmith.test': NAMESPACE } });
  try {
    const stream = await c.getArchive({ path });
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const header = Buffer.concat(chunks).subarray(0, 512);
    return parseInt(header.subarray(100, 108).toString('ascii').replace(/\0.*$/, '').trim(), 8);
  } finally {
    await c.remove({ force: true });
  }
}

beforeAll(async () => {
  await requireDocker(docker);
  const real = imagePaths();
  const imagesDir = join(tmp, 'sandbox-images');
  cpSync(real.imagesDir, imagesDir, { recursive: true });
  asClonedUnder077(imagesDir);
  const cacheDir = join(tmp, 'cache');
  mkdirSync(cacheDir);
  const root = join(homedir(), '.cache', 'toolsmith', 'bookworm-python-minbase');
  if (existsSync(join(root, '.toolsmith-complete')))
    symlinkSync(root, join(cacheDir, 'bookworm-python-minbase'));
  const paths: ImagePaths = { ...real, imagesDir, cacheDir, namespace: NAMESPACE };
  // The whole build (context, copies, the C loop's compile) runs under the person's umask.
  const before = process.umask(0o077);
  try {
    tags['python'] = await buildImage(docker, 'python', paths);
    tags['node'] = await buildImage(docker, 'node', paths);
  } finally {
    process.umask(before);
  }
  factory = new DockerWorkerFactory(
    docker,
    async (rt) => {
      const tag = tags[rt];
      if (!tag) throw new Error(`no ${rt} image in this test`);
      return tag;
    },
    TEST_LIMITS,
  );
  await factory.start();
  b = testBackend(factory, { toolsSource: TOOLS });
}, 600_000);

afterAll(async () => {
  try {
    await b?.dispose();
    await factory?.dispose();
  } finally {
    // This file's images only, those built on the base first.
    const mine = await docker.listImages({ filters: JSON.stringify({ reference: [`${NAMESPACE}/*`] }) });
    const named = mine.flatMap((i) => i.RepoTags ?? []).filter((t) => t.startsWith(`${NAMESPACE}/`));
    for (const t of named.sort((x, y) => Number(x.includes('-base:')) - Number(y.includes('-base:'))))
      await docker.getImage(t).remove();
    rmSync(tmp, { recursive: true, force: true });
  }
}, 120_000);

describe('sandbox images built under umask 077', () => {
  it('are built under their own namespace', () => {
    expect(tags['python']).toMatch(new RegExp(`^${NAMESPACE}/python:`));
    expect(tags['node']).toMatch(new RegExp(`^${NAMESPACE}/node:`));
  });

  it('run a Python job', async () => {
    const r = await runPython(b!, 'emit_result(add(a=41).data)\n', {
      sandbox: 's',
      tools: ['add'],
      timeoutMs: 60_000,
    });
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ success: true, data: 42, isolation: 'docker' });
  });

  it('run a JS job', async () => {
    const r = await b!.execute({
      sandbox: 's',
      language: 'js',
      code: 'emitResult(6 * 7);\n',
      bodyStartLine: 1,
      tools: {},
      timeoutMs: 60_000,
    });
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ success: true, data: 42, isolation: 'docker' });
  });

  it('keep the modes the recipe sets: node execute-only, /tmp sticky, the worker readable', async () => {
    expect((await modeIn(tags['node']!, '/usr/local/bin/node')) & 0o7777).toBe(0o711);
    expect((await modeIn(tags['node']!, '/tmp')) & 0o7777).toBe(0o1777);
    expect((await modeIn(tags['node']!, '/opt/toolsmith/worker.mjs')) & 0o7777).toBe(0o644);
    expect((await modeIn(tags['python']!, '/opt/toolsmith/toolsmith_worker')) & 0o7777).toBe(0o755);
    expect((await modeIn(tags['python']!, '/opt/toolsmith/worker.py')) & 0o7777).toBe(0o644);
  });
});
