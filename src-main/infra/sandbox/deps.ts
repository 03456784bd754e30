/**
 * Per-sandbox dependencies: `requirements.txt` (python) and `package.json` (node) in the sandbox folder
 * make a derived image FROM the runtime image, tagged with a hash of the base tag and the files (an
 * unchanged sandbox is never rebuilt).
 *
 * - python: pip runs inside the build container (never on the host), from Debian's pip wheel
 *   (`python3-pip-whl`), wheels only (`--only-binary=:all:`: no setup.py runs), from the sandbox's
 *   `wheels/` folder and, when one answers, the package index; with none (offline machines) the build
 *   has no network at all and a missing package is an error naming it.
 * - node: `npm ci`/`npm install --ignore-scripts` on the host into a temporary folder (no package code
 *   runs), copied into the image at /opt/toolsmith/node_modules.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { RuntimeId } from '../../core/sandbox/runtimes.ts';
import { dockerBuild, imageExists } from './images.ts';
import type { Progress } from './images.ts';
import { errorMessage } from '../../core/errors.ts';
import { NotAFileError, readRegularFile } from '../workspace/regular-file.ts';

const DEPS_RECIPE = '1';

/** A dependency build failed for a reason the user can fix (a missing package, a bad file). */
export class DependencyError extends Error {
  override name = 'DependencyError';
  readonly missing: string[];
  constructor(message: string, missing: string[] = []) {
    super(message);
    this.missing = missing;
  }
}

export interface SandboxDeps {
  sandbox: string;
  dir: string;
  kind: 'python' | 'node';
  /** What the tag's hash covers: file name -> content. */
  files: [string, Buffer][];
}

/**
 * A dependency file's bytes: only a regular file is read (a named pipe in its place would block the
 * process at every worker start); anything else is the sandbox's problem, named.
 */
function readDepFile(file: string): Buffer;
function readDepFile(file: string, encoding: 'utf8'): string;
function readDepFile(file: string, encoding?: 'utf8'): Buffer | string {
  try {
    return encoding ? readRegularFile(file, encoding) : readRegularFile(file);
  } catch (e) {
    if (e instanceof NotAFileError)
      throw new DependencyError(`${e.message}; move it away and put the file back`);
    throw e;
  }
}

const meaningful = (text: string) => text.split('\n').some((l) => l.replace(/#.*/, '').trim() !== '');

/** The sandbox's dependency files for a runtime, or undefined when it has none (the runtime image is used). */
export function sandboxDeps(sandbox: string, dir: string, runtime: RuntimeId): SandboxDeps | undefined {
  if (runtime === 'python') {
    const req = join(dir, 'requirements.txt');
    if (!existsSync(req) || !meaningful(readDepFile(req, 'utf8'))) return undefined;
    const files: [string, Buffer][] = [['requirements.txt', readDepFile(req)]];
    for (const w of wheels(dir)) files.push([`wheels/${w}`, readDepFile(join(dir, 'wheels', w))]);
    return { sandbox, dir, kind: 'python', files };
  }
  if (runtime === 'node') {
    const pkg = join(dir, 'package.json');
    if (!existsSync(pkg)) return undefined;
    let parsed: { dependencies?: Record<string, string> };
    try {
      parsed = JSON.parse(readDepFile(pkg, 'utf8')) as typeof parsed;
    } catch (e) {
      throw new DependencyError(`sandbox ${sandbox}: package.json is not JSON: ${errorMessage(e)}`);
    }
    if (!parsed.dependencies || !Object.keys(parsed.dependencies).length) return undefined;
    const files: [string, Buffer][] = [['package.json', readDepFile(pkg)]];
    const lock = join(dir, 'package-lock.json');
    if (existsSync(lock)) files.push(['package-lock.json', readDepFile(lock)]);
    return { sandbox, dir, kind: 'node', files };
  }
  return undefined;
}

function wheels(dir: string): string[] {
  const w = join(dir, 'wheels');
  if (!existsSync(w)) return [];
  return readdirSync(w)
    .filter((f) => f.endsWith('.whl'))
    .sort();
}

/** `toolsmith/<kind>-deps:<hash of the base tag and the files>`. */
export function depsTag(base: string, deps: SandboxDeps): string {
  const h = createHash('sha256').update(DEPS_RECIPE).update(base);
  for (const [name, content] of deps.files) h.update(`\0${name}\0`).update(content);
  return `toolsmith/${deps.kind}-deps:${h.digest('hex').slice(0, 16)}`;
}

/** Debian's pip wheel (python3-pip-whl), run inside the build container straight from the wheel. */
export function pipWheel(): string {
  const fromEnv = process.env['TOOLSMITH_PIP_WHEEL'];
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  const dir = '/usr/share/python-wheels';
  const found = existsSync(dir) ? readdirSync(dir).find((f) => /^pip-.*\.whl$/.test(f)) : undefined;
  if (!found)
    throw new DependencyError(
      "installing requirements.txt needs pip's wheel: apt-get install python3-pip-whl (or set TOOLSMITH_PIP_WHEEL to a pip-*.whl)",
    );
  return join(dir, found);
}

/** Whether PyPI answers from this machine (3 s); offline builds run with no network at all. */
export async function pypiAnswers(timeoutMs = 3000): Promise<boolean> {
  try {
    const r = await fetch('https://pypi.org/simple/pip/', {
      method: 'HEAD',
      signal: AbortSignal.timeout(timeoutMs),
    });
    return r.ok;
  } catch {
    return false;
  }
}

/** Builds (or finds) the sandbox's derived image; returns its tag. */
export async function buildDepsImage(
  docker: Docker,
  base: string,
  deps: SandboxDeps,
  progress: Progress = () => {},
): Promise<string> {
  const tag = depsTag(base, deps);
  if (await imageExists(docker, tag)) {
    progress(`${tag} (dependencies of sandbox ${deps.sandbox}) is up to date`);
    return tag;
  }
  const ctx = mkdtempSync(join(tmpdir(), `toolsmith-deps-${deps.kind}-`));
  try {
    return deps.kind === 'python'
      ? await buildPython(docker, base, deps, tag, ctx, progress)
      : await buildNode(docker, base, deps, tag, ctx, progress);
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
}

/** The labels of a derived (dependencies) image. */
const DEPS_LABELS = { 'toolsmith.image': '1', 'toolsmith.deps': '1' };

async function buildPython(
  docker: Docker,
  base: string,
  deps: SandboxDeps,
  tag: string,
  ctx: string,
  progress: Progress,
): Promise<string> {
  const pip = pipWheel();
  copyFileSync(join(deps.dir, 'requirements.txt'), join(ctx, 'requirements.txt'));
  copyFileSync(pip, join(ctx, 'pip.whl'));
  mkdirSync(join(ctx, 'wheels'));
  for (const w of wheels(deps.dir)) copyFileSync(join(deps.dir, 'wheels', w), join(ctx, 'wheels', w));
  const online = await pypiAnswers();
  progress(
    online
      ? `installing requirements.txt of ${deps.sandbox} from wheels/ and the package index`
      : `installing requirements.txt of ${deps.sandbox} offline from wheels/ (no package index answers)`,
  );
  const pipArgs = [
    ...(online ? [] : ['--no-index']),
    '--find-links /tmp/deps/wheels',
    '--only-binary=:all:',
    '--no-cache-dir',
    '--disable-pip-version-check',
    '--no-warn-script-location',
    '--root-user-action=ignore',
    '--progress-bar off',
  ].join(' ');
  writeFileSync(
    join(ctx, 'Dockerfile'),
    [
      `FROM ${base}`,
      'USER 0:0',
      'COPY requirements.txt pip.whl /tmp/deps/',
      'COPY wheels/ /tmp/deps/wheels/',
      // purelib (Debian: /usr/local/lib/python3.X/dist-packages) is on sys.path even under `python3 -I`
      `RUN python3 /tmp/deps/pip.whl/pip install ${pipArgs} --target "$(python3 -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" -r /tmp/deps/requirements.txt && rm -rf /tmp/deps`,
      'USER 65534:65534',
      '',
    ].join('\n'),
  );
  const log: string[] = [];
  try {
    await dockerBuild(
      docker,
      ctx,
      tag,
      (l) => {
        log.push(l);
        progress(l);
      },
      { networkmode: online ? 'default' : 'none', labels: DEPS_LABELS },
    );
  } catch (e) {
    const missing = [
      ...new Set(
        log.flatMap((l) => {
          const m = /No matching distribution found for (\S+)/.exec(l);
          return m?.[1] ? [m[1]] : [];
        }),
      ),
    ];
    if (missing.length)
      throw new DependencyError(
        `sandbox ${deps.sandbox}: requirements.txt needs ${missing.map((m) => `"${m}"`).join(', ')}, which ${missing.length > 1 ? 'have' : 'has'} no wheel in sandboxes/${deps.sandbox}/wheels/ and ${online ? 'is not on the package index either' : 'no package index answers here (PyPI is not reachable from this machine)'}: put the wheel (and its dependencies' wheels) in sandboxes/${deps.sandbox}/wheels/`,
        missing,
      );
    const pipError = log.filter((l) => /^ERROR:/.test(l)).join(' | ');
    throw new DependencyError(
      `sandbox ${deps.sandbox}: installing requirements.txt failed: ${pipError || errorMessage(e)}`,
    );
  }
  return tag;
}

/**
 * The proxy npm takes from the environment (its `https-proxy`/`proxy` settings default to these, the
 * registry being HTTPS): its host and port (never a user or password the URL holds) and which variable
 * set it. An .npmrc's proxy is not read here.
 */
function npmProxy(env: NodeJS.ProcessEnv): { host: string; hostname: string; from: string } | undefined {
  for (const from of [
    'npm_config_https_proxy',
    'npm_config_proxy',
    'HTTPS_PROXY',
    'https_proxy',
    'HTTP_PROXY',
    'http_proxy',
  ]) {
    const value = env[from];
    if (!value) continue;
    try {
      const u = new URL(value);
      return { host: u.host, hostname: u.hostname, from };
    } catch {
      return { host: '(a value that is not a URL)', hostname: '', from };
    }
  }
  return undefined;
}

async function buildNode(
  docker: Docker,
  base: string,
  deps: SandboxDeps,
  tag: string,
  ctx: string,
  progress: Progress,
): Promise<string> {
  const work = join(ctx, 'work');
  mkdirSync(work);
  for (const [name] of deps.files) copyFileSync(join(deps.dir, name), join(work, name));
  const locked = deps.files.some(([n]) => n === 'package-lock.json');
  // npm's own log level (its errors name the missing package): a caller's `npm run -s` or an .npmrc
  // with loglevel=silent would silence them, and the error below could then name no cause.
  const quiet = ['--no-audit', '--no-fund', '--loglevel=notice'];
  const args = locked
    ? ['ci', '--ignore-scripts', '--omit=dev', ...quiet]
    : ['install', '--ignore-scripts', '--omit=dev', ...quiet, '--no-package-lock'];
  progress(`npm ${args.join(' ')} for sandbox ${deps.sandbox} (no install scripts run)`);
  const out: string[] = [];
  const { code, signal } = await new Promise<{ code: number; signal: string | null }>((resolve, reject) => {
    const p = spawn('npm', args, { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    const onData = (d: Buffer) => {
      for (const line of d.toString().split('\n'))
        if (line.trim()) {
          out.push(line.trim());
          progress(line.trim());
        }
    };
    p.stdout.on('data', onData);
    p.stderr.on('data', onData);
    p.on('error', reject);
    p.on('close', (c, sig) => resolve({ code: c ?? 1, signal: sig }));
  });
  if (code !== 0) {
    const text = out.join('\n');
    const missing = [
      ...new Set(
        [
          ...text.matchAll(
            /404 Not Found - GET https?:\/\/\S+?\/((?:@[^/\s]+(?:\/|%2[fF]))?[^/\s]+?)(?:\s|$)/gm,
          ),
          ...text.matchAll(
            /'((?:@[^/\s']+\/)?[^@\s']+)(?:@[^'\s]*)?' (?:is not in this registry|could not be found)/g,
          ),
          ...text.matchAll(/No matching version found for (\S+)\./g),
        ].map((m) => decodeURIComponent(m[1] ?? '')),
      ),
    ].filter(Boolean);
    if (missing.length)
      throw new DependencyError(
        `sandbox ${deps.sandbox}: package.json needs ${missing.map((m) => `"${m}"`).join(', ')}, which the npm registry does not have`,
        missing,
      );
    if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH/.test(text)) {
      // npm's own reason ("request to URL failed, reason: connect ECONNREFUSED HOST:PORT"), not its last
      // lines (a closing brace, the log file's path); and the proxy npm went through, when one is set.
      const reason = out
        .find((l) => /request to \S+ failed, reason: /.test(l))
        ?.replace(/^npm (?:error|ERR!)\s*(?:FetchError:\s*)?/, '');
      const proxy = npmProxy(process.env);
      throw new DependencyError(
        `sandbox ${deps.sandbox}: the npm registry does not answer, so package.json cannot be installed: ${
          reason ??
          out
            .filter((l) => /error/i.test(l))
            .slice(-3)
            .join(' | ')
        }${
          !proxy
            ? ''
            : proxy.hostname && reason?.includes(proxy.hostname)
              ? ` (${proxy.host} is the proxy npm goes through, from $${proxy.from}: check it is up and reaches the registry)`
              : ` (npm's proxy, from $${proxy.from}: ${proxy.host})`
        }`,
      );
    }
    // What ended it when npm said nothing of its own (a signal, a crash before its first line).
    const how = signal ? `ended by ${signal}` : `exited with code ${code}`;
    throw new DependencyError(
      `sandbox ${deps.sandbox}: npm ${args[0]} failed (${how})${out.length ? `: ${out.slice(-5).join(' | ')}` : ', printing nothing'}`,
    );
  }
  cpSync(join(work, 'node_modules'), join(ctx, 'node_modules'), { recursive: true });
  rmSync(work, { recursive: true, force: true });
  writeFileSync(
    join(ctx, 'Dockerfile'),
    [
      `FROM ${base}`,
      'COPY node_modules/ /opt/toolsmith/node_modules/',
      'ENV NODE_PATH=/opt/toolsmith/node_modules',
      '',
    ].join('\n'),
  );
  await dockerBuild(docker, ctx, tag, progress, { networkmode: 'none', labels: DEPS_LABELS });
  return tag;
}
