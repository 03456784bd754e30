/**
 * Sandbox images, built offline (no container registry is reachable here): the Python image from a
 * debootstrap'ed Debian root (cached), stripped, imported as a base, plus the worker; the Node image from
 * the Node 24 binary of the `node` npm package and its linked libraries, from scratch; the bun and deno
 * images the same way from their pinned npm packages (downloaded on first build, cached in
 * ~/.cache/toolsmith/npm), running the Node worker unchanged. Tags carry a hash of their inputs, so an
 * image is rebuilt only when the worker or the recipe changes. Images hold runtimes only: tool code
 * travels to the worker when it starts.
 */
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type Docker from 'dockerode';
import { RUNTIMES } from '../../core/sandbox/runtimes.ts';
import type { RuntimeId } from '../../core/sandbox/runtimes.ts';
import { normaliseModes } from './modes.ts';
import { StopCut, stopOf } from './docker-cancel.ts';

// Builtins by process.getBuiltinModule, not ES imports: an ES import builds the module's namespace
// (node:fs's reads every export, its lazy `promises` too), ~3-5 ms of a one-shot verb's ~25 ms start
// (docs/scaling.md, "CLI start"). node:crypto and node:child_process when a hash is made or a process
// started, not at this module's load: `pool status` of a settled install takes its tags from a memo
// (cli/image-tag-memo.ts) and loads neither (~12-15 ms of CPU for node:crypto's ~18 modules).
const crypto = () => process.getBuiltinModule('node:crypto');
const childProcess = () => process.getBuiltinModule('node:child_process');
const {
  accessSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} = process.getBuiltinModule('node:fs');

export type RuntimeImage = RuntimeId;

/**
 * The runtimes whose binary comes from the npm registry when their image is built (never a dependency of
 * the project: ~100 MB each). Exact versions and the registry's integrity are pinned: a tarball that
 * does not match is refused.
 */
export const NPM_RUNTIMES = {
  bun: {
    package: '@oven/bun-linux-x64',
    version: '1.4.5',
    integrity:
      'sha512-IWX9BELoGHAUtMonkeSaNaZwXzRk+oDw6Mk+HBFXd3KHYIBNBsIGRupMZPcgNoDbJpLu6gAJjIoIVPZtt1aJ1g==',
    /** The binary inside the package. */
    binary: 'bin/bun',
    env: { BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0', NO_COLOR: '1' } as Record<string, string>,
  },
  deno: {
    package: '@deno/linux-x64-glibc',
    version: '2.9.6',
    integrity:
      'sha512-3md4TKLCuzsLDmfOoC5KN7NAZaxSVkMgm64vg6foD00JBADCpYS2/5QqXfzgnP5ZQz3iLP9vBQJtEgc116OAoQ==',
    binary: 'deno',
    env: {
      DENO_DIR: '/tmp/.deno',
      DENO_NO_UPDATE_CHECK: '1',
      DENO_NO_PROMPT: '1',
      NO_COLOR: '1',
    } as Record<string, string>,
  },
} as const;
export type NpmRuntime = keyof typeof NPM_RUNTIMES;
const isNpmRuntime = (r: RuntimeImage): r is NpmRuntime => r === 'bun' || r === 'deno';

/** The image's entrypoint: the registry's command (src-main/core/sandbox/runtimes.ts), binary absolute. */
function entrypoint(runtime: NpmRuntime): string[] {
  const command = RUNTIMES.find((r) => r.id === runtime)?.command ?? [];
  return [`/usr/local/bin/${runtime}`, ...command.slice(1)];
}

const RECIPE_VERSION = '1';
/**
 * The images' modes are the recipe's (normaliseModes), whatever the builder's umask or the clone's modes:
 * part of the tags, so an image built before, under `umask 077` (its worker unreadable by uid 65534), is
 * not taken for a good one.
 */
const MODES = 'modes: folders 0755, files 0644 or 0755';
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
  /** Where the debootstrap'ed root and the bun/deno npm packages are cached between builds. */
  cacheDir?: string;
  /** The tags' namespace, `toolsmith` unless given (a test builds images of its own under another). */
  namespace?: string;
}

export type Progress = (line: string) => void;

const sha = (...parts: (string | Buffer)[]) => {
  const h = crypto().createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex').slice(0, 12);
};

/** The Python worker's package folder, beside its entry worker.py (docs/protocol.md). */
export const PYTHON_WORKER_PACKAGE = 'toolsmith_worker';

/**
 * The Python worker's files, relative to sandbox-images/python, in a stable order: the entry worker.py,
 * then every .py file of its package (sorted by name; caches left out). The image and the process
 * backend hold exactly these, under /opt/toolsmith (resp. the backend's folder).
 */
export function pythonWorkerFiles(imagesDir: string): string[] {
  const pkg = join(imagesDir, 'python', PYTHON_WORKER_PACKAGE);
  const modules = readdirSync(pkg)
    .filter((f) => f.endsWith('.py'))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return ['worker.py', ...modules.map((f) => `${PYTHON_WORKER_PACKAGE}/${f}`)];
}

/** The fork server's loop in C (docs/scaling.md, "The fork server's loop in C"), its source. */
export const FORK_LOOP_SOURCE = 'native/forkloop.c';
/** Where the built loop goes, beside the package's modules (forkloop.py loads it from there). */
export const FORK_LOOP_LIBRARY = `${PYTHON_WORKER_PACKAGE}/_forkloop.so`;

const FORK_LOOP_FLAGS = ['-O2', '-fPIC', '-shared', '-U_FORTIFY_SOURCE', '-Wall', '-Wl,-z,now'];

/**
 * The fork server's C loop, built once per source, compiler, flags and machine with the host's C compiler
 * (`$CC`, which may carry arguments, else `cc`) into the cache: its path, or undefined when it cannot be
 * built here (no compiler, a compiler that fails, not a Linux host), with the reason in `why`; the worker
 * then serves every request from its Python loop (about 18% more CPU a job, docs/scaling.md). Each answer,
 * a failure too, is kept for the process: image tags ask often. The library needs only symbols every
 * glibc since 2.9 has (test/unit/sandbox/fork-loop-build.test.ts), so one built here runs in the Debian
 * image and under bubblewrap alike.
 */
export function buildForkLoop(
  imagesDir: string,
  cacheDir = join(homedir(), '.cache', 'toolsmith'),
): { path?: string; why?: string } {
  if (process.platform !== 'linux') return { why: `not built on ${process.platform} (a Linux library)` };
  const source = join(imagesDir, 'python', FORK_LOOP_SOURCE);
  const text = readFileSync(source);
  const [cc, ...ccArgs] = hostCc();
  const out = join(cacheDir, 'forkloop', `${sha(text, process.arch, cc, ...ccArgs, ...FORK_LOOP_FLAGS)}.so`);
  return compileOnce(out, [cc, ...ccArgs, ...FORK_LOOP_FLAGS], source, cc);
}

/** The host's C compiler and its arguments: `$CC` (which may carry arguments), else `cc`. */
function hostCc(): [string, ...string[]] {
  const [cc = 'cc', ...args] = (process.env['CC'] || 'cc').trim().split(/\s+/);
  return [cc, ...args];
}

const cBuilds = new Map<string, { path?: string; why?: string }>();

/**
 * `source` compiled by `command` (the compiler, then its arguments) into `out` in the cache, once: a file
 * already there is used; each answer, a failure too (`why`: `what` exited N and the compiler's first
 * line), is kept for the process (image tags ask often). Whole or not at all: built under a name of its
 * own, then renamed, so a build beside this one finds one or the other.
 */
function compileOnce(
  out: string,
  command: string[],
  source: string,
  what: string,
): { path?: string; why?: string } {
  const known = cBuilds.get(out);
  if (known) return known;
  const done = (r: { path?: string; why?: string }) => (cBuilds.set(out, r), r);
  if (existsSync(out)) return done({ path: out });
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.${crypto().randomBytes(4).toString('hex')}.tmp`;
  const [cc, ...args] = command as [string, ...string[]];
  const r = childProcess().spawnSync(cc, [...args, '-o', tmp, source], { encoding: 'utf8', timeout: 60_000 });
  if (r.error || r.status !== 0) {
    rmSync(tmp, { force: true });
    const first = (r.stderr ?? '').trim().split('\n')[0];
    return done({ why: r.error ? `${cc}: ${r.error.message}` : `${what} exited ${r.status}: ${first}` });
  }
  try {
    renameSync(tmp, out);
  } catch (e) {
    rmSync(tmp, { force: true });
    if (!existsSync(out)) throw e;
  }
  return done({ path: out });
}

/** The JS jobs' launcher into namespaces of their own (docs/sandboxes.md, "Between jobs"), its source. */
export const JOB_LAUNCHER_SOURCE = 'native/jobns-launch.c';
/** The launcher's name beside the node worker (worker.mjs starts each job through it). */
export const JOB_LAUNCHER = 'jobns-launch';
const JOB_LAUNCHER_FLAGS = ['-O2', '-static', '-Wall'];

/**
 * The JS jobs' launcher (sandbox-images/node/native/jobns-launch.c, which includes the fork server's
 * forkloop.c for `ts_enter`: the Python job's walls, made by the same code), built once per source,
 * compiler, flags and machine with the host's C compiler (`$CC`, else `cc`) as a static binary (the node,
 * bun and deno images hold no C library a program could link but the runtime's): its path, or undefined
 * with the reason in `why` (no compiler, no static C library: Debian's libc6-dev has libc.a). Without it
 * JS jobs run as before, in plain child processes (the sweep alone keeps them apart).
 */
export function buildJobLauncher(
  imagesDir: string,
  cacheDir = join(homedir(), '.cache', 'toolsmith'),
): { path?: string; why?: string } {
  if (process.platform !== 'linux') return { why: `not built on ${process.platform} (a Linux program)` };
  const source = join(imagesDir, 'node', JOB_LAUNCHER_SOURCE);
  const included = join(imagesDir, 'python', FORK_LOOP_SOURCE);
  const [cc, ...ccArgs] = hostCc();
  const out = join(
    cacheDir,
    'jobns-launch',
    sha(readFileSync(source), readFileSync(included), process.arch, cc, ...ccArgs, ...JOB_LAUNCHER_FLAGS),
  );
  return compileOnce(
    out,
    [cc, ...ccArgs, ...JOB_LAUNCHER_FLAGS, `-I${dirname(included)}`],
    source,
    `${cc} -static`,
  );
}

/**
 * Copies the Python worker's files (pythonWorkerFiles) from sandbox-images/python into dir, and the fork
 * server's C loop when `forkLoop` (buildForkLoop's path) is given.
 */
export function copyPythonWorker(imagesDir: string, dir: string, forkLoop?: string): void {
  mkdirSync(join(dir, PYTHON_WORKER_PACKAGE), { recursive: true });
  for (const f of pythonWorkerFiles(imagesDir)) copyFileSync(join(imagesDir, 'python', f), join(dir, f));
  if (forkLoop) copyFileSync(forkLoop, join(dir, FORK_LOOP_LIBRARY));
}

/** The node worker's files (node, bun, deno): the worker, its skill re-check and the check's parser. */
export const NODE_WORKER_FILES: readonly string[] = ['worker.mjs', 'skill-check.mjs', 'acorn.mjs'];

/**
 * Copies the node worker's files into `dir` (a folder of their own: worker.mjs imports beside it), and the
 * JS jobs' launcher when `launcher` (buildJobLauncher's path) is given.
 */
export function copyNodeWorker(imagesDir: string, dir: string, launcher?: string): void {
  mkdirSync(dir, { recursive: true });
  for (const f of NODE_WORKER_FILES) copyFileSync(join(imagesDir, 'node', f), join(dir, f));
  if (launcher) copyFileSync(launcher, join(dir, JOB_LAUNCHER));
}

/**
 * The Python worker's command. `-S`: no site-packages folder is processed as it starts, so no `.pth`
 * file of a sandbox's dependencies (a wheel may carry one: its `import` lines run) runs in the worker; each
 * job's process adds those folders itself, behind its walls (child.py `add_site_dirs`).
 */
export const PYTHON_ENTRYPOINT = ['/usr/bin/python3', '-I', '-S', '-u', '/opt/toolsmith/worker.py'];

export function imageTag(runtime: RuntimeImage, paths: ImagePaths): string {
  if (runtime === 'python') {
    // Every file of the worker, each by its path and its content, in a stable order.
    const worker = pythonWorkerFiles(paths.imagesDir).flatMap((f) => [
      `${f}\0`,
      readFileSync(join(paths.imagesDir, 'python', f)),
    ]);
    // (the fork server's C loop as built here, or its absence)
    const loop = buildForkLoop(paths.imagesDir, cacheRoot(paths)).path;
    return `${ns(paths)}/python:${sha(RECIPE_VERSION, ...worker, PYTHON_BASE_EXCLUDES.join(','), JSON.stringify(PYTHON_ENTRYPOINT), loop ? readFileSync(loop) : 'no c loop', MODES)}`;
  }
  const worker = NODE_WORKER_FILES.flatMap((f) => [`${f}\0`, readFileSync(join(paths.imagesDir, 'node', f))]);
  // (the JS jobs' launcher as built here, or its absence: node, bun and deno images)
  const launcher = buildJobLauncher(paths.imagesDir, cacheRoot(paths)).path;
  if (isNpmRuntime(runtime)) {
    const r = NPM_RUNTIMES[runtime];
    return `${ns(paths)}/${runtime}:${sha(RECIPE_VERSION, ...worker, r.package, r.version, r.integrity, JSON.stringify(entrypoint(runtime)), JSON.stringify(r.env), launcher ? readFileSync(launcher) : 'no job launcher', '/mnt for job trees', MODES)}`;
  }
  const version = nodeVersion(paths.nodeBinary);
  // (the binary execute-only, /tmp 1777 and the sandbox user in /etc/passwd are part of the recipe)
  return `${ns(paths)}/node:${sha(RECIPE_VERSION, ...worker, version, 'node 0711, /tmp 1777, /etc/passwd nobody', launcher ? readFileSync(launcher) : 'no job launcher', MODES)}`;
}

/**
 * What `imageTag(runtime, paths)` is computed from, told without reading a byte or hashing (a memo of
 * tags keyed by it: cli/image-tag-memo.ts): `texts`, everything it depends on that is not a file's bytes
 * (the runtime, the namespace and folders, the machine, `$CC`, the worker's file names, for the node
 * image which binary it gets and the running Node); `files`, every file whose bytes it hashes or whose
 * name it hashes the bytes of (the worker's files and the C sources, and the node binary whose version
 * it asks). Not the built C loop or launcher: their path is a hash of the sources (`imageTagBuilt`).
 * The recipe's own constants are the code's (the memo's key holds the code's stamp).
 */
export function imageTagInputs(
  runtime: RuntimeImage,
  paths: ImagePaths,
): { texts: string[]; files: string[] } {
  const common = [runtime, ns(paths), paths.imagesDir, cacheRoot(paths), process.arch, hostCc().join(' ')];
  const forkLoop = join(paths.imagesDir, 'python', FORK_LOOP_SOURCE);
  if (runtime === 'python') {
    const worker = pythonWorkerFiles(paths.imagesDir);
    return {
      texts: [...common, ...worker],
      files: [...worker.map((f) => join(paths.imagesDir, 'python', f)), forkLoop],
    };
  }
  const files = [
    ...NODE_WORKER_FILES.map((f) => join(paths.imagesDir, 'node', f)),
    join(paths.imagesDir, 'node', JOB_LAUNCHER_SOURCE),
    forkLoop,
  ];
  if (runtime !== 'node') return { texts: [...common, ...NODE_WORKER_FILES], files };
  // (nodeVersion: the running Node's own version when the binary is that Node, else the binary's answer)
  let real: string;
  try {
    real = realpathSync(paths.nodeBinary);
  } catch {
    real = '';
  }
  return {
    texts: [
      ...common,
      ...NODE_WORKER_FILES,
      paths.nodeBinary,
      real,
      realpathSync(process.execPath),
      process.version,
    ],
    files: [...files, paths.nodeBinary],
  };
}

/**
 * The C builds `imageTag(runtime, paths)` hashed, as it found them (the fork server's loop for python,
 * the JS jobs' launcher for the others): their paths, or undefined when one is not built (no compiler,
 * a failed build: its absence is part of the tag, and a compiler that appears would build it).
 */
export function imageTagBuilt(runtime: RuntimeImage, paths: ImagePaths): string[] | undefined {
  const built =
    runtime === 'python'
      ? buildForkLoop(paths.imagesDir, cacheRoot(paths))
      : buildJobLauncher(paths.imagesDir, cacheRoot(paths));
  return built.path === undefined ? undefined : [built.path];
}

/**
 * `node --version` of the binary the node image gets: the running Node's own when it is that binary (no
 * process started: ~100 ms of a one-shot verb's wall time on a machine where a process start is slow,
 * `pool status` among them), else asked once per process.
 */
export function nodeVersion(binary: string): string {
  let known = nodeVersions.get(binary);
  if (known === undefined) {
    let same = false;
    try {
      same = realpathSync(binary) === realpathSync(process.execPath);
    } catch {
      /* (a binary that is not there: asked below, which says nothing either) */
    }
    known = same
      ? process.version
      : (childProcess().spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout ?? '').trim();
    nodeVersions.set(binary, known);
  }
  return known;
}
const nodeVersions = new Map<string, string>();

const ns = (paths: ImagePaths) => paths.namespace ?? 'toolsmith';
const cacheRoot = (paths: ImagePaths) => paths.cacheDir ?? join(homedir(), '.cache', 'toolsmith');

/**
 * The bun or deno binary of its pinned npm package, downloaded once per machine with `npm pack` (the
 * registry npm is configured for), its integrity checked, unpacked under <cache>/npm/<pkg>-<version>.
 */
export async function npmRuntimeBinary(
  runtime: NpmRuntime,
  paths: ImagePaths,
  progress: Progress = () => {},
): Promise<string> {
  const r = NPM_RUNTIMES[runtime];
  const dir = join(cacheRoot(paths), 'npm', `${r.package.replace(/[@/]/g, '_')}-${r.version}`);
  const binary = join(dir, 'package', r.binary);
  if (existsSync(join(dir, '.toolsmith-complete'))) return binary;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  progress(`npm pack ${r.package}@${r.version} (downloaded once, cached in ${dir})`);
  await run('npm', ['pack', `${r.package}@${r.version}`, '--pack-destination', dir, '--silent'], progress);
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack ${r.package}@${r.version} left no tarball in ${dir}`);
  const integrity = `sha512-${crypto()
    .createHash('sha512')
    .update(readFileSync(join(dir, tarball)))
    .digest('base64')}`;
  if (integrity !== r.integrity) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${r.package}@${r.version}: integrity ${integrity} is not the pinned ${r.integrity}`);
  }
  await run('tar', ['-xzf', join(dir, tarball), '-C', dir], progress);
  rmSync(join(dir, tarball));
  const version = childProcess().spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout ?? '';
  if (!version.includes(r.version))
    throw new Error(`${binary} --version answered ${JSON.stringify(version.trim())}, not ${r.version}`);
  writeFileSync(join(dir, '.toolsmith-complete'), new Date().toISOString());
  return binary;
}

/**
 * Whether the engine has the image `tag`. A check cut by a stop (`docker` made by cancelledByStop) is no
 * answer: it rejects (`StopCut`), where any other failure reads as "not there" (the build that follows
 * says the engine's own error).
 */
export async function imageExists(docker: Docker, tag: string): Promise<boolean> {
  try {
    await docker.getImage(tag).inspect();
    return true;
  } catch (e) {
    if (e instanceof StopCut) throw e;
    return false;
  }
}

/** The folders of system programs, looked in after PATH (cron's and many CI runners' PATH lacks them). */
export const SBIN_DIRS: readonly string[] = ['/usr/local/sbin', '/usr/sbin', '/sbin'];

/**
 * A system program (`debootstrap`, `dockerd`) on PATH, else in the sbin folders, which a PATH of
 * `/usr/bin:/bin` (cron's, many CI runners', a service's) leaves out while Debian installs these there:
 * its path, or undefined with where it was looked for (`looked`, for the error). `childPath` is the PATH
 * to run it with: PATH plus the sbin folders it lacks, since such a program runs others from there
 * (debootstrap runs chroot, in /usr/sbin).
 */
export function sbinTool(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): { path?: string; looked: string; childPath: string } {
  const onPath = (env['PATH'] ?? '').split(':').filter(Boolean);
  const extra = SBIN_DIRS.filter((d) => !onPath.includes(d));
  const childPath = [...onPath, ...extra].join(':');
  const looked = `looked for on PATH ${env['PATH'] ?? '(unset)'}${extra.length ? ` and in ${extra.join(', ')}` : ''}`;
  for (const dir of [...onPath, ...extra]) {
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return { path: file, looked, childPath };
    } catch {
      /* (not there, or not a program: the next folder) */
    }
  }
  return { looked, childPath };
}

function run(cmd: string, args: string[], progress: Progress, env?: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = childProcess().spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env } : {}) });
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

/**
 * `docker build` of a folder (its Dockerfile) through the Docker API, streaming the build log to
 * `progress`; `networkmode` none for offline builds. The folder's modes are made the recipe's first
 * (normaliseModes, with `modes` for the paths that need their own): COPY keeps a context's modes, and a
 * context staged under `umask 077` (or copied from a clone made under it) left the worker's files 0600 and
 * folders 0700 in the image, unreadable by the sandbox user. A build that fails leaves none of its own images
 * behind: the classic builder keeps an image for every step that succeeded (untagged once nothing names
 * it), so a failed dependency install left ~115 MB on the engine per attempt. Those step images are
 * removed (`removeStepImages`); an image a step took from the cache and that another image still builds
 * on is refused by the engine and kept.
 */
export async function dockerBuild(
  docker: Docker,
  dir: string,
  tag: string,
  progress: Progress,
  opts: {
    networkmode?: 'none' | 'default';
    labels?: Record<string, string>;
    modes?: Readonly<Record<string, number>>;
  } = {},
): Promise<void> {
  progress(`building ${tag}`);
  normaliseModes(dir, opts.modes);
  const tar = childProcess().spawn('tar', ['-C', dir, '-cf', '-', '.'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stream = await docker.buildImage(tar.stdout, {
    t: tag,
    rm: true,
    forcerm: true,
    ...(opts.networkmode ? { networkmode: opts.networkmode } : {}),
    labels: opts.labels ?? { 'toolsmith.image': '1' },
  });
  const steps: string[] = []; // the image after each step, the FROM image first
  const failure = await new Promise<string | undefined>((resolve) => {
    docker.modem.followProgress(
      stream,
      (err: Error | null, output: { error?: string }[]) =>
        resolve(err?.message ?? output.find((o) => o.error)?.error),
      (e: { stream?: string; status?: string; error?: string }) => {
        for (const raw of (e.stream ?? e.status ?? e.error ?? '').split('\n')) {
          const line = raw.trim();
          if (!line) continue;
          // Docker: " ---> 1d00073c02f5"; Podman: "--> 1d00073c02f"
          const step = /^-{2,3}> ([0-9a-f]{12,64})$/.exec(line);
          if (step?.[1]) steps.push(step[1]);
          progress(line);
        }
      },
    );
  });
  // Cut by a stop (`docker` made by cancelledByStop with `streams`): the engine cancels a build whose
  // client left, and tags an image only once its last step is committed, so nothing is tagged `tag` and
  // the next check builds it again. Its step images are left: untagged, they are that build's cache.
  if (failure === undefined) return;
  if (stopOf(docker)?.aborted) throw new StopCut(`docker build ${tag} was cut by a stop: not tagged`);
  await removeStepImages(docker, steps.slice(1));
  throw new Error(`docker build ${tag} failed: ${failure}`);
}

/**
 * Removes the images a failed build made, last step first (the engine also removes a removed image's
 * untagged parents that nothing else builds on). Only untagged images: a step's id can be a tagged
 * image's (the FROM image, or a step whose cached result is a tagged image), which stays.
 */
async function removeStepImages(docker: Docker, ids: string[]): Promise<void> {
  for (const id of [...ids].reverse()) {
    const img = docker.getImage(id);
    const tags = await img
      .inspect()
      .then((i) => (i.RepoTags ?? []).filter((t) => t !== '<none>:<none>'))
      .catch(() => undefined); // already gone (removed with its child)
    if (!tags || tags.length > 0) continue;
    await img.remove({ noprune: false }).catch(() => {}); // (in use by another image: kept)
  }
}

async function pythonBase(docker: Docker, paths: ImagePaths, progress: Progress): Promise<string> {
  const tag = `${ns(paths)}/python-base:${sha(RECIPE_VERSION, PYTHON_BASE_EXCLUDES.join(','))}`;
  if (await imageExists(docker, tag)) return tag;
  const cache = cacheRoot(paths);
  const root = join(cache, 'bookworm-python-minbase');
  if (!existsSync(join(root, '.toolsmith-complete'))) {
    const debootstrap = sbinTool('debootstrap');
    if (!debootstrap.path)
      throw new Error(`debootstrap is not installed (${debootstrap.looked}): apt-get install debootstrap`);
    rmSync(root, { recursive: true, force: true });
    mkdirSync(cache, { recursive: true });
    progress(
      `${debootstrap.path} --variant=minbase --include=python3 bookworm ${root} (about 90 s, cached afterwards)`,
    );
    await run(debootstrap.path, ['--variant=minbase', '--include=python3', 'bookworm', root], progress, {
      ...process.env,
      PATH: debootstrap.childPath,
    });
    writeFileSync(join(root, '.toolsmith-complete'), new Date().toISOString());
  }
  progress(`importing the stripped root as ${tag}`);
  const tar = childProcess().spawn(
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
  const stream = await docker.importImage(tar.stdout, { repo, tag: version });
  await new Promise<void>((resolve, reject) =>
    docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())),
  );
  return tag;
}

/** Copies the libraries a binary links (and the dynamic loader) into a root, at their host paths. */
function copyLinkedLibraries(binary: string, rootfs: string): void {
  for (const lib of linkedLibraries(binary)) {
    const dest = join(rootfs, lib);
    mkdirSync(dirname(dest), { recursive: true });
    copyFileSync(realpathSync(lib), dest);
  }
}

/** The libraries a binary links (absolute paths), from ldd. */
function linkedLibraries(binary: string): string[] {
  const out = childProcess().spawnSync('ldd', [binary], { encoding: 'utf8' }).stdout;
  const libs = new Set<string>();
  for (const line of out.split('\n')) {
    const m = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
    if (m?.[1]) libs.add(m[1]);
  }
  return [...libs];
}

/** The JS jobs' launcher for an image (buildJobLauncher), or undefined with the reason told. */
function jobLauncherFor(paths: ImagePaths, progress: Progress): string | undefined {
  const launcher = buildJobLauncher(paths.imagesDir, cacheRoot(paths));
  if (!launcher.path)
    progress(
      `the JS jobs' launcher is not built (${launcher.why}): JS jobs run without namespaces of their own`,
    );
  return launcher.path;
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
  // Paths of the context whose mode is not a plain folder's or file's (see dockerBuild).
  const modes: Record<string, number> = {};
  // (Docker's tmpfs on /tmp takes this folder's mode)
  if (runtime !== 'python') modes['rootfs/tmp'] = 0o1777;
  try {
    if (runtime === 'python') {
      const base = await pythonBase(docker, paths, progress);
      const loop = buildForkLoop(paths.imagesDir, cacheRoot(paths));
      if (!loop.path)
        progress(`the fork server's C loop is not built (${loop.why}): jobs use its Python loop`);
      copyPythonWorker(paths.imagesDir, join(ctx, 'worker'), loop.path);
      writeFileSync(
        join(ctx, 'Dockerfile'),
        `FROM ${base}\nCOPY worker/ /opt/toolsmith/\nUSER 65534:65534\nWORKDIR /tmp\nENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1\nENTRYPOINT ${JSON.stringify(PYTHON_ENTRYPOINT)}\n`,
      );
    } else if (isNpmRuntime(runtime)) {
      // bun / deno: the binary of the pinned npm package and the libraries it links, from scratch, with
      // the node worker unchanged (docs/protocol.md, "bun and deno").
      const r = NPM_RUNTIMES[runtime];
      const binary = await npmRuntimeBinary(runtime, paths, progress);
      const rootfs = join(ctx, 'rootfs');
      mkdirSync(join(rootfs, 'usr/local/bin'), { recursive: true });
      mkdirSync(join(rootfs, 'tmp'), { recursive: true });
      mkdirSync(join(rootfs, 'etc'), { recursive: true });
      copyFileSync(binary, join(rootfs, 'usr/local/bin', runtime));
      modes[`rootfs/usr/local/bin/${runtime}`] = 0o755;
      copyLinkedLibraries(binary, rootfs);
      // With the JS jobs' launcher, as node (deno's worker may run it and deno, nothing else: runtimes.ts),
      // and /mnt, where the launcher mounts the job trees on gVisor (jobns-launch.c, rooted jobs)
      mkdirSync(join(rootfs, 'mnt'));
      copyNodeWorker(paths.imagesDir, join(rootfs, 'opt/toolsmith'), jobLauncherFor(paths, progress));
      writeFileSync(join(rootfs, 'etc/passwd'), 'nobody:x:65534:65534:nobody:/tmp:/nonexistent\n');
      writeFileSync(join(rootfs, 'etc/group'), 'nogroup:x:65534:\n');
      const env = Object.entries({ HOME: '/tmp', ...r.env }).map(([k, v]) => `${k}=${v}`);
      writeFileSync(
        join(ctx, 'Dockerfile'),
        `FROM scratch\nCOPY rootfs/ /\nUSER 65534:65534\nWORKDIR /tmp\nENV ${env.join(' ')}\nENTRYPOINT ${JSON.stringify(entrypoint(runtime))}\n`,
      );
    } else {
      const rootfs = join(ctx, 'rootfs');
      mkdirSync(join(rootfs, 'usr/local/bin'), { recursive: true });
      mkdirSync(join(rootfs, 'tmp'), { recursive: true });
      copyFileSync(paths.nodeBinary, join(rootfs, 'usr/local/bin/node'));
      // Execute-only for the sandbox user: the kernel makes a process of a binary it cannot read
      // non-dumpable, so no job reads the worker's or a later job's memory (docs/sandboxes.md).
      modes['rootfs/usr/local/bin/node'] = 0o711;
      for (const lib of linkedLibraries(paths.nodeBinary)) {
        const dest = join(rootfs, lib);
        mkdirSync(dirname(dest), { recursive: true });
        copyFileSync(realpathSync(lib), dest);
      }
      copyNodeWorker(paths.imagesDir, join(rootfs, 'opt/toolsmith'), jobLauncherFor(paths, progress));
      // The sandbox user by name, as in the bun and deno images (this was written to /etc-passwd: the
      // image had no /etc/passwd, and os.userInfo() failed with ENOENT).
      mkdirSync(join(rootfs, 'etc'), { recursive: true });
      writeFileSync(join(rootfs, 'etc/passwd'), 'nobody:x:65534:65534:nobody:/tmp:/nonexistent\n');
      writeFileSync(join(rootfs, 'etc/group'), 'nogroup:x:65534:\n');
      writeFileSync(
        join(ctx, 'Dockerfile'),
        `FROM scratch\nCOPY rootfs/ /\nUSER 65534:65534\nWORKDIR /tmp\nENTRYPOINT ["/usr/local/bin/node", "--disallow-code-generation-from-strings", "/opt/toolsmith/worker.mjs"]\n`,
      );
    }
    await dockerBuild(docker, ctx, tag, progress, { modes });
    return tag;
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
}
