/**
 * Per-sandbox isolation levels and engines (`[sandboxes.S] isolation = "process"|"docker"|"gvisor"`,
 * `engines = [...]`): one worker factory per (level, engines), started on first use. A level or engine
 * that is configured but not available makes that sandbox's jobs fail with an infra error naming it,
 * never a fallback to another level or engine; the next job tries again (an engine may come back).
 */
import type Docker from 'dockerode';
import type { Config } from './config.ts';
import type { RuntimeId } from '../core/sandbox/runtimes.ts';
import type { WorkerConnection } from '../infra/sandbox/connection.ts';
import { DockerWorkerFactory, StartStopped } from '../infra/sandbox/docker.ts';
import type { ContainerLimits } from '../infra/sandbox/docker.ts';
import { dockerFor, MultiEngineFactory } from '../infra/sandbox/engines.ts';
import type { Installation } from '../infra/sandbox/installation.ts';
import type { SandboxSpec, WorkerFactory } from '../infra/sandbox/pool.ts';
import { ProcessWorkerFactory } from '../infra/sandbox/process.ts';
import type { ProcessOptions } from '../infra/sandbox/process.ts';
import { errorMessage } from '../core/errors.ts';

export type ConfiguredLevel = 'process' | 'docker' | 'gvisor';
type Disposable = WorkerFactory & { dispose(): Promise<void> };

/** A factory made (and started) on its first spawn; a failed start is retried by the next spawn. */
export class LazyFactory implements WorkerFactory {
  readonly isolation: WorkerFactory['isolation'];
  private readonly make: () => Promise<Disposable>;
  private made: Promise<Disposable> | undefined;

  constructor(isolation: WorkerFactory['isolation'], make: () => Promise<Disposable>) {
    this.isolation = isolation;
    this.make = make;
  }

  ready(): Promise<Disposable> {
    if (!this.made) {
      const p = this.make();
      this.made = p;
      p.catch(() => {
        if (this.made === p) this.made = undefined;
      });
    }
    return this.made;
  }

  async spawn(spec: SandboxSpec, signal?: AbortSignal): Promise<{ conn: WorkerConnection; id: string }> {
    const f = await this.ready();
    return f.spawn(spec, signal);
  }

  async dispose(): Promise<void> {
    const made = this.made;
    this.made = undefined;
    await made?.then((f) => f.dispose()).catch(() => {});
  }
}

export interface LevelDeps {
  config: Config;
  installation: Installation;
  limits: ContainerLimits;
  process: Omit<ProcessOptions, 'noBubblewrap'>;
  /** The local engine's client (DOCKER_HOST or the default socket). */
  localDocker: Docker;
  /** The image for a runtime on an engine (built there when missing). */
  image: (docker: Docker, engine: string, runtime: RuntimeId, spec?: SandboxSpec) => Promise<string>;
  /**
   * Aborted when the service's close begins (app/sandbox-factory.ts): the factories' starts and spawns
   * give up what the engine has not answered, as the default backend's do.
   */
  stopping?: AbortSignal;
}

/** A Docker factory of a sandbox's own, by the engine it runs on (its stop notes are said by the service). */
export interface OwnDockerFactory {
  engine: string;
  docker: Docker;
  factory: DockerWorkerFactory;
}

/** The factories of sandboxes with an explicit isolation level or engines, shared by (level, engines). */
export class SandboxFactories {
  private readonly deps: LevelDeps;
  private readonly byKey = new Map<string, LazyFactory>();
  /** Every Docker factory made (started or not), for the stop notes the service's close says. */
  readonly dockerMade: OwnDockerFactory[] = [];
  /** Starts the service's close gave up: the engine, its client and what it had not answered. */
  readonly startsStopped: { engine: string; docker: Docker; cut: string[] }[] = [];

  constructor(deps: LevelDeps) {
    this.deps = deps;
  }

  /** The sandbox's configured level (undefined: the default backend's). */
  levelOf(sandbox: string): ConfiguredLevel | undefined {
    const sb = this.deps.config.sandboxes[sandbox];
    return sb?.isolation ?? (sb?.engines ? 'docker' : undefined);
  }

  /** The sandbox's own factory, or undefined when it uses the default backend. */
  factoryFor(sandbox: string): LazyFactory | undefined {
    const level = this.levelOf(sandbox);
    if (!level) return undefined;
    const engines = level === 'process' ? [] : (this.deps.config.sandboxes[sandbox]?.engines ?? ['local']);
    const key = `${level}|${engines.join(',')}`;
    let f = this.byKey.get(key);
    if (!f) {
      f = new LazyFactory(level === 'process' ? 'bubblewrap' : level, () => this.make(level, engines));
      this.byKey.set(key, f);
    }
    return f;
  }

  private async make(level: ConfiguredLevel, engines: string[]): Promise<Disposable> {
    const d = this.deps;
    if (level === 'process') {
      const f = new ProcessWorkerFactory(d.process);
      if (f.isolation !== 'bubblewrap')
        throw new Error(
          'isolation "process" needs bubblewrap and it is not usable here: install it (Debian: apt-get install bubblewrap); a plain subprocess is never used in its place',
        );
      return f;
    }
    const placed = engines.map((name) => {
      const cfg = d.config.engines[name];
      const docker = cfg ? dockerFor(name, cfg) : d.localDocker;
      const factory = new DockerWorkerFactory(
        docker,
        (rt, spec) => d.image(docker, name, rt, spec),
        d.limits,
        {
          ...(level === 'gvisor' ? { runtime: 'runsc' } : {}),
          installation: d.installation,
          engine: name,
          ...(cfg?.kind === 'podman' ? { podman: true } : {}),
        },
      );
      this.dockerMade.push({ engine: name, docker, factory });
      return { name, maxWorkers: cfg?.max_workers ?? 8, factory };
    });
    const f = new MultiEngineFactory(placed);
    try {
      // (the service's close cancels what the start still waits on, as for the default backend's)
      await f.start(d.stopping);
    } catch (e) {
      const cause = (e as { cause?: unknown }).cause;
      if (cause instanceof StartStopped) {
        const on = placed.find((p) => p.name === cause.engine);
        if (on) this.startsStopped.push({ engine: on.name, docker: on.factory.docker, cut: cause.cut });
      }
      await f.dispose().catch(() => {});
      throw new Error(`isolation "${level}": ${errorMessage(e)}`);
    }
    return f;
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.byKey.values()].map((f) => f.dispose()));
    this.byKey.clear();
  }
}
