/**
 * Chooses and builds the sandbox backend for a service: Docker when an engine answers (images built on
 * first use, with progress pushed to front ends), else the process fallback (bubblewrap or plain
 * subprocess) with its weaker isolation recorded in every result. `TOOLSMITH_BACKEND=docker|process`
 * forces one for sandboxes without an isolation level of their own. A sandbox with `isolation` or
 * `engines` gets its own factory (isolation.ts): that level, on those engines, or an error. bun and deno
 * run only in Docker (their binaries live in their images).
 */
import { statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { dirname } from 'node:path';
import Docker from 'dockerode';
import type { Tool } from '../core/tools/model.ts';
import type { ScriptLanguage } from '../core/lang/violation.ts';
import { ToolsmithError } from './errors.ts';
import { discoveryHostTools, mcpHostToolNames, mcpHostTools } from './mcp.ts';
import type { McpToolDeps } from './mcp.ts';
import { SandboxFactories } from './isolation.ts';
import type { SandboxManager } from './sandbox.ts';
import type { PushDeps, WorkspaceDeps } from './deps.ts';
import type { ExecuteRequest } from '../core/ports/executor.ts';
import type { ExecutionResult } from '../core/sandbox/execution.ts';
import { runtimeNotEnabled, runtimeOf } from '../core/sandbox/runtimes.ts';
import type { RuntimeId } from '../core/sandbox/runtimes.ts';
import { SandboxBackend } from '../infra/sandbox/backend.ts';
import { buildDepsImage, DependencyError, depsTag, sandboxDeps } from '../infra/sandbox/deps.ts';
import { cancelledByStop, StopCut } from '../infra/sandbox/docker-cancel.ts';
import { DockerWorkerFactory, REMOVE_AFTER_STOP_MS, StartStopped } from '../infra/sandbox/docker.ts';
import { buildImage, imageExists, imageTag } from '../infra/sandbox/images.ts';
import type { RuntimeImage } from '../infra/sandbox/images.ts';
import { Installation } from '../infra/sandbox/installation.ts';
import { failedResult, infraResult } from '../core/sandbox/execution.ts';
import type { SandboxSpec, WorkerFactory } from '../infra/sandbox/pool.ts';
import { ProcessWorkerFactory } from '../infra/sandbox/process.ts';
import { workspaceGone } from '../infra/workspace/atomic.ts';
import { imagePaths } from './images-light.ts';
import { errorMessage } from '../core/errors.ts';
import { NO_DOCKER_HINT, noDockerHint } from './system.ts';

export { imagePaths } from './images-light.ts';

async function dockerAnswers(docker: Docker, timeoutMs = 3000): Promise<string | undefined> {
  return (await dockerProbe(docker, timeoutMs, 0)).version;
}

/**
 * How long a service's start waits for a local engine that took its connection but has not answered
 * (`TOOLSMITH_DOCKER_PATIENCE_MS`, default 60 s): an engine busy building images or starting containers
 * can take seconds to answer its version, and a slow engine must not send jobs to a weaker level.
 */
function enginePatienceMs(): number {
  const v = Number(process.env['TOOLSMITH_DOCKER_PATIENCE_MS']);
  return Number.isFinite(v) && v >= 0 ? v : 60_000;
}

/**
 * Asks the engine its version. An answer that is an HTTP refusal (an authorization plugin, a socket
 * proxy: 401/403) is a problem of its own, named with the socket and the status, not "no engine". A
 * local socket (unix) that has not answered within `timeoutMs` is a busy engine, not a missing one (a
 * missing engine refuses the connection at once): it is given `patienceMs` more, said on stderr, and
 * one that still says nothing is named as such ("took the connection but did not answer"). `stop` (the
 * service's shutdown began: a stop signal, a window closed) ends the wait at once, the request aborted:
 * `{ stopped: true }`. Before, `exec` stopped by SIGTERM while the probe waited on an engine that never
 * answers went on waiting (the patience, a minute) until the command's bound (18 s) ended the process.
 */
export async function dockerProbe(
  docker: Docker,
  timeoutMs = 3000,
  patienceMs = enginePatienceMs(),
  stop?: AbortSignal,
): Promise<{ version?: string; refused?: string; stopped?: true }> {
  // Given up on (no answer within the wait): the request is aborted, else its connection to an engine
  // that never answers held a one-shot process open after its answer (`pool status`: never ended).
  const giveUp = new AbortController();
  // (dockerode takes an options object first, which its types do not say)
  const version = docker.version.bind(docker) as unknown as (o: {
    abortSignal: AbortSignal;
  }) => Promise<Docker.DockerVersion>;
  const asked = version({ abortSignal: giveUp.signal });
  asked.catch(() => {}); // (a late failure after a timeout is read below or not at all)
  const within = async (ms: number) => {
    let timer: NodeJS.Timeout | undefined;
    let onStop: (() => void) | undefined;
    try {
      return await Promise.race([
        asked,
        new Promise<'timeout' | 'stopped'>((r) => {
          timer = setTimeout(() => r('timeout'), ms);
          if (!stop) return;
          onStop = () => r('stopped');
          if (stop.aborted) onStop();
          else stop.addEventListener('abort', onStop, { once: true });
        }),
      ]);
    } finally {
      clearTimeout(timer);
      if (onStop) stop?.removeEventListener('abort', onStop);
    }
  };
  const stopped = () => {
    giveUp.abort();
    process.stderr.write(
      `toolsmith: the Docker engine (${engineAddress(docker)}) had not answered when the service began to close: no longer waited for\n`,
    );
    return { stopped: true as const };
  };
  try {
    let v = await within(timeoutMs);
    if (v === 'stopped') return stopped();
    if (v === 'timeout' && patienceMs > 0 && localSocket(docker)) {
      process.stderr.write(
        `toolsmith: the Docker engine (${engineAddress(docker)}) has not answered in ${timeoutMs / 1000} s: a busy engine; waiting up to ${Math.round(patienceMs / 1000)} s more before the process fallback\n`,
      );
      v = await within(patienceMs);
      if (v === 'stopped') return stopped();
      if (v === 'timeout') {
        giveUp.abort();
        return {
          refused: `the Docker socket (${engineAddress(docker)}) took the connection but the engine did not answer its version within ${Math.round((timeoutMs + patienceMs) / 1000)} s (a hung or overloaded dockerd: restart it)`,
        };
      }
    }
    if (v === 'timeout') giveUp.abort();
    return v === 'timeout' ? {} : { version: v.Version };
  } catch (e) {
    const status = (e as { statusCode?: number }).statusCode;
    if (status === 401 || status === 403) {
      const json = (e as { json?: unknown }).json as { message?: string } | string | null | undefined;
      const said = (typeof json === 'string' ? json : (json?.message ?? '')).trim().slice(0, 200);
      return {
        refused: `the Docker socket (${process.env['DOCKER_HOST'] ?? 'the default socket'}) answered HTTP ${status} ${status === 403 ? 'Forbidden' : 'Unauthorized'}${said ? ` (${said})` : ''}: an authorization plugin or a proxy in front of the engine refuses this user; ask for access or point DOCKER_HOST at a socket you may use`,
      };
    }
    return { ...socketProblem(docker, e) };
  }
}

/** Whether the engine is asked through a local (unix) socket, which refuses at once when nobody listens. */
function localSocket(docker: Docker): boolean {
  // (docker-modem's own default is a function that finds the socket: local too)
  return !!(docker as unknown as { modem?: { socketPath?: unknown } }).modem?.socketPath;
}

/** Errors of a connection to the engine's socket that mean nothing answers there any more. */
const GONE_CODES = new Set(['ECONNREFUSED', 'ENOENT', 'EPIPE', 'ECONNRESET']);
const GONE_WORDS = new RegExp([...GONE_CODES].join('|'));

/** Where the local engine is asked: DOCKER_HOST, else the client's socket. */
function engineAddress(docker: Docker): string {
  const path = (docker as unknown as { modem?: { socketPath?: unknown } }).modem?.socketPath;
  return process.env['DOCKER_HOST'] ?? (typeof path === 'string' ? `unix://${path}` : 'the default socket');
}

/**
 * Why the engine is gone (`connect ECONNREFUSED /run/docker.sock`): its socket refuses or lost the
 * connection, or is no longer there. Undefined while it answers, and for an engine that is only slow
 * (a timeout is no proof that it went away: a loaded engine must not send jobs to a weaker level).
 */
async function engineGone(docker: Docker, timeoutMs = 3000): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      docker.ping(),
      new Promise<void>((r) => {
        timer = setTimeout(r, timeoutMs);
      }),
    ]);
    return undefined;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return typeof code === 'string' && GONE_CODES.has(code) ? errorMessage(e) : undefined;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A local socket that cannot be an engine's: the path is a regular file or a folder (a stale copy, a
 * bind mount of the wrong thing), or this user may not open it (not in the docker group). Named as
 * such, not as "no engine answered"; undefined for anything else (no file there: no engine).
 */
function socketProblem(docker: Docker, e: unknown): { refused: string } | undefined {
  const path = (docker as unknown as { modem?: { socketPath?: unknown } }).modem?.socketPath;
  if (typeof path !== 'string') return undefined;
  const named = `the Docker socket ${path}${process.env['DOCKER_HOST'] ? ` (DOCKER_HOST)` : ''}`;
  const code = (e as { code?: string }).code;
  if (code === 'EACCES')
    return {
      refused: `${named} cannot be opened by this user (EACCES: permission denied): add the user to the docker group and log in again, or point DOCKER_HOST at a socket you may use`,
    };
  let st: Stats;
  try {
    st = statSync(path);
  } catch {
    return undefined;
  }
  if (st.isSocket()) return undefined;
  const kind = st.isDirectory() ? 'a folder' : st.isFile() ? 'a regular file' : 'not a socket';
  return {
    refused: `${named} is ${kind}, not a socket, so no engine can answer there: remove it and start dockerd (it creates the socket), or point DOCKER_HOST at the engine's socket`,
  };
}

/**
 * What a stop gave up on the engine (the factory's spawns cut by it, its dispose's bounded requests), one
 * line each on stderr: which request the engine had not answered, and whether the container made was
 * removed or left, labelled, for the next start's sweep.
 */
function sayStopped(f: DockerWorkerFactory, at: string): void {
  const left = (id: string) =>
    `the engine did not answer the removal of container ${id.slice(0, 12)} within ${REMOVE_AFTER_STOP_MS / 1000} s: left for the next start's sweep`;
  for (const s of f.stoppedSpawns) {
    const what = s.container ? `; ${s.removed ? 'the container was removed' : left(s.container)}` : '';
    process.stderr.write(
      s.cut.length
        ? `toolsmith: the Docker engine (${at}) had not answered the making of a sandbox container (${s.cut.join(', ')}) when the service began to close: no longer waited for${what}\n`
        : `toolsmith: the sandbox worker of container ${(s.container ?? '').slice(0, 12)} had not connected when the service began to close: no longer waited for${what}\n`,
    );
  }
  for (const d of f.stoppedDispose) process.stderr.write(`toolsmith: the Docker engine (${at}) ${d}\n`);
}

/** A backend's start a stop gave up: which requests the engine at `at` had not answered. */
function sayStartStopped(at: string, cut: string[]): void {
  process.stderr.write(
    `toolsmith: the Docker engine (${at}) had not answered the sandbox backend's start${cut.length ? ` (${cut.join(', ')})` : ''} when the service began to close: no longer waited for\n`,
  );
}

/**
 * bun has no `stripTypeScriptTypes`: its TypeScript is stripped here, the way node strips it in the
 * worker (whitespace in place of types, so lines and columns stay where they were).
 */
function stripForBun(req: ExecuteRequest): ExecuteRequest | ExecutionResult {
  if (req.language !== 'ts') return req;
  try {
    return { ...req, language: 'js', code: stripTypeScriptTypes(req.code, { mode: 'strip' }) };
  } catch (e) {
    const message = errorMessage(e);
    const line = /:(\d+):\d+/.exec(message)?.[1];
    return failedResult(
      'error',
      {
        type: 'SyntaxError',
        message,
        frames: line ? [{ line: Number(line) - req.bodyStartLine + 1, name: '<script>' }] : [],
      },
      'bun',
      'docker',
    );
  }
}

/**
 * What a sandbox backend needs from the service: the workspace (tools.py, sandbox folders), the running
 * config (limits, pool, sandboxes, credentials), image progress pushed to front ends, the sandboxes' MCP
 * tools, and a way to retire itself when a Docker engine appears.
 */
export interface SandboxFactoryDeps extends WorkspaceDeps, PushDeps, McpToolDeps {
  /**
   * Aborted when the service's shutdown begins: what waits on the engine while a backend starts (its
   * probe) gives up at once, so a stop signal during start ends the process within its grace.
   */
  readonly stopping?: AbortSignal;
  /** A one-command process: no standby workers, no engine probe. */
  readonly oneShot: boolean;
  enabledRuntimes(): string[];
  /** Connects a sandbox's MCP servers; the ones that could not be reached, each with why. */
  prepareMcp(sandbox: string): Promise<{ server: string; error: string }[]>;
  /** New jobs go to a new backend; this one is disposed once its running jobs end. */
  retireSandbox(): void;
  /**
   * Why the local engine went away mid-session (`the Docker engine at ... went away (...) at ...`), until
   * a backend finds it answering again; the next backend then runs the process fallback and says so.
   */
  readonly lostEngine?: string | undefined;
  /**
   * Records that the engine went away (`reason`: new jobs go to a new backend, made at once, which
   * falls back as at start and probes the engine), or that it answers again (undefined).
   */
  engineLost?(reason: string | undefined): void;
  /** The manual entries of a sandbox's offered skills among `names` (app/skills.ts). */
  skillManual?(sandbox: string, names: readonly string[], language?: ScriptLanguage): Tool[];
}

export async function createSandboxManager(svc: SandboxFactoryDeps): Promise<SandboxManager> {
  const paths = imagePaths();
  const forced = process.env['TOOLSMITH_BACKEND'];
  const docker = new Docker();
  const probed = forced === 'process' ? {} : await dockerProbe(docker, undefined, undefined, svc.stopping);
  // (the service is closing: no backend is made, and no fallback is chosen for an engine not heard)
  if ('stopped' in probed)
    throw new ToolsmithError(
      'infra',
      'the service closed before the Docker engine answered: no sandbox backend was started',
    );
  const version = probed.version;
  // The engine went away under an earlier backend of this service: said as such while it stays gone.
  const lost = version ? undefined : svc.lostEngine;
  if (version && svc.lostEngine !== undefined) svc.engineLost?.(undefined);
  if (forced === 'docker' && !version)
    throw new ToolsmithError(
      'infra',
      probed.refused
        ? `TOOLSMITH_BACKEND=docker but ${probed.refused}`
        : 'TOOLSMITH_BACKEND=docker but no Docker engine answers: start dockerd (or install docker.io)',
    );
  const limits = svc.config.limits;
  /** Where an engine of this service is asked, for the lines that name it. */
  const addressOf = (engine: string, on: Docker) =>
    engine === 'local' ? engineAddress(on) : (svc.config.engines[engine]?.host ?? engineAddress(on));
  /**
   * The images' check and build go through the service's own client (shared by every pool), tied to the
   * service's close: a request the engine has not answered, and a build's progress stream, end when the
   * close begins (docker-cancel.ts `streams`). Before, an engine that hung there held a stop's close until
   * the process's bound (3 s, or a command's 18 s). What the close cut is said by the dispose
   * (`imageStops`), one line each.
   */
  const imageStops: { engine: string; on: Docker; line: string }[] = [];
  const imageWork = async <T>(
    on: Docker,
    engine: string,
    what: (cut: string) => string,
    work: (client: Docker) => Promise<T>,
  ): Promise<T> => {
    const stop = svc.stopping;
    if (!stop) return work(on);
    const tied = cancelledByStop(on, stop, { streams: true });
    try {
      return await work(tied.docker);
    } catch (e) {
      if (e instanceof StopCut || stop.aborted)
        imageStops.push({ engine, on, line: what(tied.cut.length ? ` (${tied.cut.join(', ')})` : '') });
      throw e;
    }
  };
  const checked = (on: Docker, engine: string, runtime: string, tag: string) =>
    imageWork(
      on,
      engine,
      (cut) =>
        `had not answered the check of the ${runtime} sandbox image ${tag}${cut} when the service began to close: no longer waited for`,
      (client) => imageExists(client, tag),
    );
  const built = (
    on: Docker,
    engine: string,
    runtime: string,
    tag: string,
    build: (c: Docker) => Promise<string>,
  ) =>
    imageWork(
      on,
      engine,
      (cut) =>
        `had not finished the build of the ${runtime} sandbox image ${tag}${cut} when the service began to close: no longer waited for; the build was cut, so the image is not tagged (the next start builds it)`,
      build,
    );
  const building = new Map<string, Promise<string>>();
  const ensureImageOn = (on: Docker, engine: string, runtime: RuntimeImage): Promise<string> => {
    const key = `${engine}:${runtime}`;
    let p = building.get(key);
    if (!p) {
      p = (async () => {
        const tag = imageTag(runtime, paths);
        if (await checked(on, engine, runtime, tag)) return tag;
        svc.push({
          type: 'image_progress',
          runtime,
          line: `image ${tag} is missing: building it now (first use)`,
        });
        process.stderr.write(
          `toolsmith: building the ${runtime} sandbox image ${tag} on engine ${engine} (first use)\n`,
        );
        const made = await built(on, engine, runtime, tag, (client) =>
          buildImage(client, runtime, paths, (line) => svc.push({ type: 'image_progress', runtime, line })),
        );
        svc.push({ type: 'image_progress', runtime, line: `built ${made}`, done: true });
        return made;
      })();
      building.set(key, p);
      p.catch(() => building.delete(key));
    }
    return p;
  };
  const installation = new Installation();
  const containerLimits = {
    memoryMb: limits.memory_mb,
    cpus: limits.cpus,
    pids: limits.pids,
    tmpfsMb: limits.tmpfs_mb,
  };
  const own = new SandboxFactories({
    config: svc.config,
    installation,
    limits: containerLimits,
    process: {
      imagesDir: paths.imagesDir,
      nodeBinary: paths.nodeBinary,
      memoryMb: limits.memory_mb,
      pids: limits.pids,
      tmpfsMb: limits.tmpfs_mb,
    },
    localDocker: docker,
    // Every level and engine runs a sandbox in its derived image when it has dependencies.
    image: (on, engine, runtime, spec) => ensureSandboxImageOn(on, engine, runtime, spec),
    ...(svc.stopping ? { stopping: svc.stopping } : {}),
  });
  // A sandbox with requirements.txt / package.json runs in its derived image (built on first use).
  const depsBuilding = new Map<string, Promise<string>>();
  const ensureSandboxImageOn = async (
    on: Docker,
    engine: string,
    runtime: RuntimeId,
    spec?: SandboxSpec,
  ): Promise<string> => {
    const base = await ensureImageOn(on, engine, runtime);
    const deps = spec?.dir ? sandboxDeps(spec.name, spec.dir, runtime) : undefined;
    if (!deps) return base;
    const tag = depsTag(base, deps);
    const key = `${engine}:${tag}`;
    let p = depsBuilding.get(key);
    if (!p) {
      p = (async () => {
        if (await checked(on, engine, `${runtime} (dependencies of sandbox ${deps.sandbox})`, tag))
          return tag;
        const push = (line: string, extra: { done?: boolean; error?: string } = {}) =>
          svc.push({ type: 'image_progress', runtime, sandbox: spec?.name, line, ...extra });
        push(`image ${tag} (dependencies of sandbox ${deps.sandbox}) is missing: building it now`);
        try {
          const made = await built(
            on,
            engine,
            `${runtime} (dependencies of sandbox ${deps.sandbox})`,
            tag,
            (client) => buildDepsImage(client, base, deps, (line) => push(line)),
          );
          push(`built ${made}`, { done: true });
          return made;
        } catch (e) {
          push('build failed', { done: true, error: errorMessage(e) });
          throw e;
        }
      })();
      depsBuilding.set(key, p);
      p.catch(() => depsBuilding.delete(key));
    }
    return p;
  };
  const ensureSandboxImage = (runtime: RuntimeId, spec?: SandboxSpec) =>
    ensureSandboxImageOn(docker, 'local', runtime, spec);
  let factory: WorkerFactory & { dispose(): Promise<void> };
  if (version) {
    const f = new DockerWorkerFactory(docker, ensureSandboxImage, containerLimits, { installation });
    try {
      // (the service's close cancels what the start still waits on: an engine that answered its version
      // and then hangs no longer holds a stop signal until the process's bound)
      await f.start(svc.stopping);
    } catch (e) {
      // Nothing of this backend runs: its instance is no longer this process's (no container was made).
      installation.unregister();
      if (!(e instanceof StartStopped)) throw e;
      sayStartStopped(engineAddress(docker), e.cut);
      throw new ToolsmithError(
        'infra',
        "the service closed before the Docker engine answered the sandbox backend's start: no sandbox backend was started",
      );
    }
    factory = f;
  } else {
    factory = new ProcessWorkerFactory({
      imagesDir: paths.imagesDir,
      nodeBinary: paths.nodeBinary,
      memoryMb: limits.memory_mb,
      pids: limits.pids,
      tmpfsMb: limits.tmpfs_mb,
    });
  }
  // Why the default level runs: recorded in every result of the fallback and shown by the status.
  const since = new Date().toISOString();
  const probing = !version && forced !== 'process' && !svc.oneShot;
  const fallbackReason = version
    ? undefined
    : forced === 'process'
      ? `TOOLSMITH_BACKEND=process: the process fallback (${factory.isolation}) runs, weaker than a Docker container`
      : `${probed.refused ? `${probed.refused} at ${since}` : (lost ?? `no Docker engine answered (${process.env['DOCKER_HOST'] ?? 'the default socket'}) at ${since}`)}: the process fallback (${factory.isolation}) runs, weaker than a Docker container${probing ? '; the engine is probed and new jobs go to Docker once it answers' : ''}`;
  // On the fallback, a long-lived process probes the engine with backoff; once it answers, this backend
  // is retired (running jobs end here) and the next job makes a Docker one.
  const probe = new AbortController();
  if (probing)
    void (async () => {
      for (let delay = 1000; !probe.signal.aborted; delay = Math.min(delay * 2, 30_000)) {
        await new Promise<void>((r) => {
          const t = setTimeout(r, delay);
          t.unref();
          probe.signal.addEventListener('abort', () => (clearTimeout(t), r()), { once: true });
        });
        if (probe.signal.aborted) return;
        const v = await dockerAnswers(docker);
        if (!v || probe.signal.aborted) continue;
        probe.abort();
        svc.retireSandbox();
        svc.push({
          type: 'engine_changed',
          isolation: 'docker',
          message: `Docker engine ${v} answers: new jobs run in Docker containers (jobs already running finish in the ${factory.isolation} fallback)`,
        });
        return;
      }
    })();
  if (lost && !version)
    svc.push({
      type: 'engine_changed',
      isolation: factory.isolation,
      message: `${lost}: new jobs run in the ${factory.isolation} fallback, weaker than a Docker container, and go back to Docker once it answers`,
    });
  /**
   * A job on the local engine failed as infrastructure: when the engine no longer answers at all (its
   * socket refuses, is gone, or broke the connection), the result says so in one line and what happens
   * next. For the default level, this backend is retired and the next one falls back as at start (with
   * `TOOLSMITH_BACKEND=docker` nothing falls back: jobs fail until the engine answers); a sandbox with a
   * level of its own never falls back, and its result says so.
   */
  let goneCheck: Promise<string | undefined> | undefined;
  let announced = false;
  const engineWentAway = async (sandbox: string, r: ExecutionResult): Promise<ExecutionResult> => {
    const ownLevel = own.levelOf(sandbox);
    const onLocal =
      ownLevel === undefined
        ? !!version
        : ownLevel !== 'process' &&
          (svc.config.sandboxes[sandbox]?.engines ?? ['local']).some(
            (e) => e === 'local' && !svc.config.engines[e],
          );
    if (!onLocal) return r;
    // Jobs failing together ask once; an engine that still answers is asked again by the next failure.
    goneCheck ??= engineGone(docker).then((w) => {
      if (!w) goneCheck = undefined;
      return w;
    });
    const why = await goneCheck;
    if (!why) return r;
    const at = engineAddress(docker);
    const said = r.error?.message ?? '';
    // A failure that does not say how the engine's socket failed (a request cut by the engine's death:
    // `socket hang up`) gets the socket's answer now beside it.
    const cause = !said ? why : GONE_WORDS.test(said) ? said : `${said}; now: ${why}`;
    const what = /stopped answering during the job/.test(said)
      ? `${said}: the Docker engine at ${at} went away`
      : `the Docker engine at ${at} went away (${cause})`;
    const next =
      ownLevel !== undefined
        ? `sandbox ${sandbox} sets isolation = "${ownLevel}", which never falls back to another level: its jobs fail until the engine answers again`
        : forced === 'docker'
          ? 'TOOLSMITH_BACKEND=docker, so nothing falls back: jobs fail until the engine answers again'
          : svc.oneShot
            ? 'later jobs of this command run in the process fallback, weaker than a Docker container; start the engine again (systemctl start docker) for the next commands'
            : 'new jobs run in the process fallback, weaker than a Docker container, and go back to Docker once it answers (it is probed)';
    if (version && !announced) {
      announced = true;
      svc.engineLost?.(`the Docker engine at ${at} went away (${why}) at ${new Date().toISOString()}`);
    }
    return { ...r, error: { ...(r.error ?? { type: 'Infra', frames: [] }), message: `${what}: ${next}` } };
  };
  /** The MCP tool names each sandbox's pools were loaded with (a changed listing reloads them). */
  const mcpNames = new Map<string, string>();
  const specFor = (sandbox: string, runtime: RuntimeId): SandboxSpec => {
    const declared = svc.config.sandboxes[sandbox]?.credentials ?? {};
    const credentials: Record<string, string> = {};
    for (const [name, ref] of Object.entries(declared)) {
      const value = process.env[ref.slice('env:'.length)];
      if (value !== undefined) credentials[name] = value;
    }
    const egress = svc.config.sandboxes[sandbox]?.egress;
    const hostTools = mcpHostToolNames(svc, sandbox);
    mcpNames.set(sandbox, hostTools.map((t) => t.name).join(','));
    return {
      name: sandbox,
      runtime,
      toolsSource: svc.files.readTools(sandbox),
      hostTools,
      credentials,
      dir: dirname(svc.files.toolsFile(sandbox)),
      ...(egress ? { egress: { allow: egress.allow } } : {}),
    };
  };
  const backend = new SandboxBackend({
    factory,
    factoryFor: (sandbox) => own.factoryFor(sandbox) ?? factory,
    pool: {
      minSize: svc.config.pool.min_size,
      maxSize: svc.config.pool.max_size,
      maxJobsPerWorker: svc.config.pool.max_jobs_per_container,
      idleMs: svc.config.pool.idle_seconds * 1000,
      queueTimeoutMs: svc.config.pool.queue_timeout_ms,
      standby: svc.oneShot ? 0 : svc.config.pool.standby,
    },
    maxOutputBytes: limits.output_kb * 1024,
    maxToolCalls: limits.tool_calls,
    maxApprovals: limits.approvals,
    maxIntermediates: limits.intermediates,
    specFor,
    hostToolsFor: (sandbox) => mcpHostTools(svc, sandbox),
    discoveryFor: (sandbox, tools, skills, language) =>
      discoveryHostTools(
        svc,
        sandbox,
        tools,
        skills?.length ? svc.skillManual?.(sandbox, skills, language) : undefined,
        language,
      ),
  });
  const enabled = svc.enabledRuntimes();
  const dispose = async () => {
    probe.abort();
    await backend.dispose();
    await own.dispose();
    await factory.dispose();
    installation.unregister();
    for (const i of imageStops.splice(0))
      process.stderr.write(`toolsmith: the Docker engine (${addressOf(i.engine, i.on)}) ${i.line}\n`);
    if (factory instanceof DockerWorkerFactory) sayStopped(factory, engineAddress(docker));
    // The sandboxes' own factories (isolation.ts) say what a stop gave up in the same words.
    for (const s of own.startsStopped.splice(0)) sayStartStopped(addressOf(s.engine, s.docker), s.cut);
    for (const o of own.dockerMade.splice(0)) sayStopped(o.factory, addressOf(o.engine, o.docker));
  };
  // Jobs (and tool calls) handed to this backend and not yet answered, from the call on: a job still placing itself
  // (its pool not made yet, its container starting) is in no pool's busy or queued count, and a
  // retire that looked only at those disposed the backend under it ("This operation was aborted").
  let jobsInFlight = 0;
  const executeJob = async (req: ExecuteRequest): Promise<ExecutionResult> => {
    jobsInFlight++;
    try {
      return await executor.run(req);
    } finally {
      jobsInFlight--;
    }
  };
  const executor = {
    execute: executeJob,
    run: async (req: ExecuteRequest) => {
      const runtime = runtimeOf(req);
      const level = own.factoryFor(req.sandbox)?.isolation ?? factory.isolation;
      if (!enabled.includes(runtime)) return infraResult(runtimeNotEnabled(runtime, enabled), runtime, level);
      if (!svc.files.sandboxNames().includes(req.sandbox))
        return infraResult(
          // The workspace folder moved or deleted while a run was in flight: its cause, and where it went.
          workspaceGone(svc.files.root, `sandbox ${req.sandbox}'s tools`, 'read')?.message ??
            `no sandbox ${req.sandbox}`,
          runtime,
          level,
        );
      if ((runtime === 'bun' || runtime === 'deno') && (level === 'bubblewrap' || level === 'process'))
        return infraResult(
          `runtime '${runtime}' runs only in Docker (its binary lives in the toolsmith/${runtime} image) and sandbox '${req.sandbox}' runs as a host process (${own.levelOf(req.sandbox) === 'process' ? 'isolation = "process"' : 'no Docker engine answers'}), which runs python and node`,
          runtime,
          level,
        );
      if (Object.keys(svc.config.sandboxes[req.sandbox]?.mcp ?? {}).length > 0) {
        const down = await svc.prepareMcp(req.sandbox);
        if (down.length > 0)
          return infraResult(down.map((d) => d.error).join('; '), runtime, factory.isolation);
      }
      const loaded = mcpNames.get(req.sandbox);
      if (
        loaded !== undefined &&
        loaded !==
          mcpHostToolNames(svc, req.sandbox)
            .map((t) => t.name)
            .join(',')
      )
        await backend.reload(req.sandbox);
      let r: ExecutionResult;
      if (runtime === 'bun') {
        const stripped = stripForBun(req);
        if ('success' in stripped) return stripped;
        r = await backend.execute(stripped);
      } else r = await backend.execute(req);
      return fallbackReason && r.isolation === factory.isolation && level === factory.isolation
        ? { ...r, isolationReason: fallbackReason }
        : r.exitReason === 'infra'
          ? await engineWentAway(req.sandbox, r)
          : r;
    },
  };
  return {
    executor: { execute: executeJob },
    // (a tool tried on its own, placing itself as a job does: counted too)
    callTool: async (sandbox, tool, args) => {
      jobsInFlight++;
      try {
        return await backend.callTool(sandbox, tool, args);
      } finally {
        jobsInFlight--;
      }
    },
    reload: async (sandbox) => {
      await backend.reload(sandbox);
    },
    buildImage: async (runtime, onProgress, sandbox) => {
      if (!version)
        throw new ToolsmithError(
          'infra',
          'no Docker engine answers: install docker.io and start dockerd to build images',
        );
      const base = await built(docker, 'local', runtime, imageTag(runtime, paths), (client) =>
        buildImage(client, runtime, paths, onProgress),
      );
      if (sandbox === undefined) return { tag: base };
      if (!svc.files.sandboxNames().includes(sandbox))
        throw new ToolsmithError(
          'not_found',
          `no sandbox ${sandbox}; available: ${svc.files.sandboxNames().join(', ')}`,
        );
      const dir = dirname(svc.files.toolsFile(sandbox));
      try {
        const deps = sandboxDeps(sandbox, dir, runtime);
        if (!deps) {
          onProgress(
            `sandbox ${sandbox} has no ${runtime === 'python' ? 'requirements.txt' : 'package.json dependencies'}: it runs in ${base}`,
          );
          return { tag: base };
        }
        return {
          tag: await built(
            docker,
            'local',
            `${runtime} (dependencies of sandbox ${sandbox})`,
            depsTag(base, deps),
            (client) => buildDepsImage(client, base, deps, onProgress),
          ),
        };
      } catch (e) {
        if (e instanceof DependencyError)
          throw new ToolsmithError('invalid_config', e.message, { missing: e.missing });
        throw e;
      }
    },
    status: async () => {
      const images = [];
      if (version)
        for (const rt of ['python', 'node', 'bun', 'deno'] as const) {
          if ((rt === 'bun' || rt === 'deno') && !enabled.includes(rt)) continue;
          const tag = imageTag(rt, paths);
          images.push({ runtime: rt, tag, present: await checked(docker, 'local', rt, tag) });
        }
      return {
        docker: version
          ? { available: true, version }
          : forced === 'process'
            ? {
                available: false,
                error: 'not asked: TOOLSMITH_BACKEND=process chose the process fallback',
                hint: 'Unset TOOLSMITH_BACKEND to run scripts in Docker containers.',
              }
            : {
                available: false,
                error: probed.refused ?? lost ?? 'no Docker engine answers',
                hint: `${probed.refused ? noDockerHint(probed.refused) : NO_DOCKER_HINT} Until then scripts run in the process fallback with weaker isolation.`,
              },
        // The default level, then the sandboxes with a level of their own (`docker; gvisor: ecommerce`).
        isolation: [
          factory.isolation,
          ...svc.files.sandboxNames().flatMap((s) => {
            const f = own.factoryFor(s);
            return f ? [`${f.isolation}: ${s}`] : [];
          }),
        ].join('; '),
        ...(fallbackReason ? { isolationReason: fallbackReason } : {}),
        images,
        pools: backend.status().map((p) => ({
          sandbox: `${p.sandbox} (${p.runtime})`,
          size: p.size,
          idle: p.idle,
          busy: p.busy,
          queued: p.queued,
          standby: p.standby,
          standbyStarting: p.standbyStarting,
          standbyTarget: p.standbyTarget,
          replaced: p.replaced,
          ...(p.lastReplaced ? { lastReplaced: p.lastReplaced } : {}),
        })),
      };
    },
    dispose,
    stopSpawning: () => backend.stopSpawning(),
    retire: async () => {
      // A job that waited for this backend to start is handed it in the turn the start ends, and counts
      // itself (executeJob) a few promise steps later; a retire asked while the backend started runs in
      // that same turn. Its first look comes after one macrotask, when every job handed the backend has
      // counted itself (the hand-off is promise steps only: ScriptExecution.executeScript). Before, it saw
      // none and disposed the backend under the job: "the sandbox backend is shutting down".
      await new Promise((r) => setImmediate(r));
      while (jobsInFlight > 0 || backend.status().some((p) => p.busy > 0 || p.queued > 0))
        await new Promise((r) => setTimeout(r, 250));
      await dispose();
    },
  };
}

export { pruneLeftoverContainers } from './prune.ts';
