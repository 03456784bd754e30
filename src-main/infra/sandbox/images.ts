/**
 * Sandbox images, built offline (no container registry is reachable here): the Python image from a
 * debootstrap'ed Debian root (cached), stripped, imported as a base, plus the worker; the Node image from
 * the Node 24 binary of the `node` npm package and its linked libraries, from scratch. Tags carry a hash
 * of their inputs, so an image is rebuilt only when the worker or the recipe changes. Images hold
 * runtimes only: tool code travels to the worker when it starts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type Docker from 'dockerode';

export type RuntimeImage = 'python' | 'node';

const RECIPE_VERSION = '1';
const PYTHON_BASE_EXCLUDES = [
  './usr/share/doc',
  './usr/share/man',
  './usr/share/locale',
  './usr/share/info',
  './var/cache/apt',
  './var/lib/apt/lists',
  './usr/lib/python3.11/test',
  './usr/lib/python3.11/idlelib',
  './usr/lib/python3.11/tkinter',
  './usr/lib/python3.11/ensurepip',
  './usr/lib/python3.11/lib2to3',
  './usr/lib/python3.11/turtledemo',
  './usr/lib/python3.11/pydoc_data',
  './usr/share/zoneinfo',
];

export interface ImagePaths {
  /** The folder holding python/ and node/ (the repository's sandbox-images). */
  imagesDir: string;
  /** The Node 24 binary to put in the node image. */
  nodeBinary: string;
  /** Where the debootstrap'ed root is cached between builds. */
  cacheDir?: string;
}

export type Progress = (line: string) => void;

const sha = (...parts: (string | Buffer)[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex').slice(0, 12);
};

export function imageTag(runtime: RuntimeImage, paths: ImagePaths): string {
  if (runtime === 'python') {
    const worker = readFileSync(join(paths.imagesDir, 'python', 'worker.py'));
    return `toolsmith/python:${sha(RECIPE_VERSION, worker, PYTHON_BASE_EXCLUDES.join(','))}`;
  }
  const worker = readFileSync(join(paths.imagesDir, 'node', 'worker.mjs'));
  const version = spawnSync(paths.nodeBinary, ['--version'], { encoding: 'utf8' }).stdout.trim();
  return `toolsmith/node:${sha(RECIPE_VERSION, worker, version)}`;
}

export async function imageExists(docker: Docker, tag: string): Promise<boolean> {
  try {
    await docker.getImage(tag).inspect();
    return true;
  } catch {
    return false;
  }
}

function run(cmd: string, args: string[], progress: Progress): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const onData = (d: Buffer) => {
      const s = d.toString();
      tail = (tail + s).slice(-4000);
      for (const line of s.split('\n')) if (line.trim()) progress(line.trim());
    };
    p.stdout.on('data', onData);
    p.stderr.on('data', onData);
    p.on('error', reject);
    p.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${cmd} exited with ${code}: ${tail.split('\n').slice(-5).join(' | ')}`)),
    );
  });
}

/** Builds an image from a folder (its Dockerfile) through the Docker API, streaming the build log. */
async function buildFromDir(docker: Docker, dir: string, tag: string, progress: Progress): Promise<void> {
  const tar = spawn('tar', ['-C', dir, '-cf', '-', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stream = await docker.buildImage(tar.stdout, {
    t: tag,
    rm: true,
    forcerm: true,
    labels: { 'toolsmith.image': '1' },
  });
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (err: Error | null, output: { error?: string }[]) => {
        const failed = err ?? output.find((o) => o.error);
        if (failed)
          reject(
            new Error(
              `docker build ${tag} failed: ${err ? err.message : (failed as { error?: string }).error}`,
            ),
          );
        else resolve();
      },
      (e: { stream?: string; status?: string }) => {
        const line = (e.stream ?? e.status ?? '').trim();
        if (line) progress(line);
      },
    );
  });
}

async function pythonBase(docker: Docker, paths: ImagePaths, progress: Progress): Promise<string> {
  const tag = `toolsmith/python-base:${sha(RECIPE_VERSION, PYTHON_BASE_EXCLUDES.join(','))}`;
  if (await imageExists(docker, tag)) return tag;
  const cache = paths.cacheDir ?? join(homedir(), '.cache', 'toolsmith');
  const root = join(cache, 'bookworm-python-minbase');
  if (!existsSync(join(root, '.toolsmith-complete'))) {
    if (spawnSync('which', ['debootstrap']).status !== 0)
      throw new Error('debootstrap is not installed (apt-get install debootstrap)');
    rmSync(root, { recursive: true, force: true });
    mkdirSync(cache, { recursive: true });
    progress(
      `debootstrap --variant=minbase --include=python3 bookworm ${root} (about 90 s, cached afterwards)`,
    );
    await run('debootstrap', ['--variant=minbase', '--include=python3', 'bookworm', root], progress);
    writeFileSync(join(root, '.toolsmith-complete'), new Date().toISOString());
  }
  progress(`importing the stripped root as ${tag}`);
  const tar = spawn(
    'tar',
    [
      '-C',
      root,
      ...PYTHON_BASE_EXCLUDES.map((e) => `--exclude=${e}`),
      '--exclude=./.toolsmith-complete',
      '-cf',
      '-',
      '.',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [repo, version] = tag.split(':') as [string, string];
  const stream = await docker.importImage(tar.stdout as unknown as string, { repo, tag: version });
  await new Promise<void>((resolve, reject) =>
    docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())),
  );
  return tag;
}

/** The libraries a binary links (absolute paths), from ldd. */
function linkedLibraries(binary: string): string[] {
  const out = spawnSync('ldd', [binary], { encoding: 'utf8' }).stdout;
  const libs = new Set<string>();
  for (const line of out.split('\n')) {
    const m = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
    if (m?.[1]) libs.add(m[1]);
  }
  return [...libs];
}

export async function buildImage(
  docker: Docker,
  runtime: RuntimeImage,
  paths: ImagePaths,
  progress: Progress = () => {},
): Promise<string> {
  const tag = imageTag(runtime, paths);
  if (await imageExists(docker, tag)) {
    progress(`${tag} is up to date`);
    return tag;
  }
  const ctx = mkdtempSync(join(tmpdir(), `toolsmith-image-${runtime}-`));
  try {
    if (runtime === 'python') {
      const base = await pythonBase(docker, paths, progress);
      copyFileSync(join(paths.imagesDir, 'python', 'worker.py'), join(ctx, 'worker.py'));
      writeFileSync(
        join(ctx, 'Dockerfile'),
        `FROM ${base}\nCOPY worker.py /opt/toolsmith/worker.py\nUSER 65534:65534\nWORKDIR /tmp\nENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1\nENTRYPOINT ["/usr/bin/python3", "-I", "-u", "/opt/toolsmith/worker.py"]\n`,
      );
    } else {
      const rootfs = join(ctx, 'rootfs');
      mkdirSync(join(rootfs, 'usr/local/bin'), { recursive: true });
      mkdirSync(join(rootfs, 'tmp'), { recursive: true });
      copyFileSync(paths.nodeBinary, join(rootfs, 'usr/local/bin/node'));
      for (const lib of linkedLibraries(paths.nodeBinary)) {
        const dest = join(rootfs, lib);
        mkdirSync(dirname(dest), { recursive: true });
        copyFileSync(realpathSync(lib), dest);
      }
      mkdirSync(join(rootfs, 'opt/toolsmith'), { recursive: true });
      copyFileSync(join(paths.imagesDir, 'node', 'worker.mjs'), join(rootfs, 'opt/toolsmith/worker.mjs'));
      writeFileSync(join(rootfs, 'etc-passwd'), 'nobody:x:65534:65534:nobody:/tmp:/nonexistent\n');
      writeFileSync(
        join(ctx, 'Dockerfile'),
        `FROM scratch\nCOPY rootfs/ /\nUSER 65534:65534\nWORKDIR /tmp\nENTRYPOINT ["/usr/local/bin/node", "--disallow-code-generation-from-strings", "/opt/toolsmith/worker.mjs"]\n`,
      );
    }
    progress(`building ${tag}`);
    await buildFromDir(docker, ctx, tag, progress);
    return tag;
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
}
