/**
 * Docker engines: the local one (DOCKER_HOST or the default socket), a remote one over tcp with TLS, a
 * Podman service's Docker-compatible API on a unix socket; and a pool over several engines that places
 * each new worker on the engine with the lowest load (live workers / capacity). An engine that does not
 * answer is an error, never a silent fall back to another engine or isolation level.
 */
import { readFileSync } from 'node:fs';
import Docker from 'dockerode';
import type { DockerWorkerFactory } from './docker.ts';
import type { WorkerConnection } from './connection.ts';
import type { SandboxSpec, WorkerFactory } from './pool.ts';
import { errorMessage } from '../../core/errors.ts';

export interface EngineConfig {
  /** `unix:///path.sock`, `tcp://host:port` (TLS), or absent: DOCKER_HOST / the default socket. */
  host?: string;
  tls_ca?: string;
  tls_cert?: string;
  tls_key?: string;
  /** Workers this engine takes at most at once (placement divides live workers by this). */
  max_workers: number;
  kind?: 'docker' | 'podman';
}

export class EngineError extends Error {
  override name = 'EngineError';
}

/** A dockerode client for the engine (TLS certificates read now: a missing file is an error here). */
export function dockerFor(
  name: string,
  e: Pick<EngineConfig, 'host' | 'tls_ca' | 'tls_cert' | 'tls_key'>,
): Docker {
  if (!e.host) return new Docker();
  let url: URL;
  try {
    url = new URL(e.host);
  } catch {
    throw new EngineError(
      `engine '${name}': host ${JSON.stringify(e.host)} is not a URL (unix:///... or tcp://host:port)`,
    );
  }
  if (url.protocol === 'unix:') return new Docker({ socketPath: url.pathname });
  if (url.protocol !== 'tcp:' && url.protocol !== 'https:')
    throw new EngineError(`engine '${name}': unsupported host ${e.host} (unix:///... or tcp://host:port)`);
  const missing = (['tls_ca', 'tls_cert', 'tls_key'] as const).filter((k) => !e[k]);
  if (missing.length)
    throw new EngineError(
      `engine '${name}': a tcp engine needs TLS (client certificates): set ${missing.join(', ')}`,
    );
  const read = (k: 'tls_ca' | 'tls_cert' | 'tls_key') => {
    try {
      return readFileSync(e[k] as string);
    } catch (err) {
      throw new EngineError(`engine '${name}': cannot read ${k} ${e[k]}: ${errorMessage(err)}`);
    }
  };
  return new Docker({
    host: url.hostname,
    port: Number(url.port || 2376),
    protocol: 'https',
    ca: read('tls_ca'),
    cert: read('tls_cert'),
    key: read('tls_key'),
  });
}

export interface PlacedEngine {
  name: string;
  factory: DockerWorkerFactory;
  maxWorkers: number;
}

/**
 * One worker factory over several engines (all of one isolation level): each spawn goes to the engine
 * with the lowest load, live workers (and spawns in flight) divided by its capacity; ties go to the
 * engine listed first. A spawn on a full or broken engine is not retried elsewhere: it fails with the
 * engine's name.
 */
export class MultiEngineFactory implements WorkerFactory {
  readonly isolation: 'docker' | 'gvisor';
  readonly engines: PlacedEngine[];
  private readonly pending = new Map<string, number>();
  /** Where each worker went (worker id -> engine name). */
  readonly placement = new Map<string, string>();

  constructor(engines: PlacedEngine[]) {
    if (engines.length === 0) throw new EngineError('no engines given');
    const levels = new Set(engines.map((e) => e.factory.isolation));
    if (levels.size > 1)
      throw new EngineError(
        `engines of one pool must share one isolation level (got ${[...levels].join(', ')})`,
      );
    this.engines = engines;
    this.isolation = engines[0]?.factory.isolation ?? 'docker';
  }

  /**
   * Starts every engine (all must answer); `stop` (the service's close began) cancels what a start still
   * waits on (DockerWorkerFactory.start), the error's `cause` then the factory's StartStopped.
   */
  async start(stop?: AbortSignal): Promise<number> {
    let removed = 0;
    for (const e of this.engines) {
      try {
        removed += await e.factory.start(stop);
      } catch (err) {
        throw new EngineError(`engine '${e.name}' is not usable: ${errorMessage(err)}`, { cause: err });
      }
    }
    return removed;
  }

  load(e: PlacedEngine): number {
    return e.factory.live + (this.pending.get(e.name) ?? 0);
  }

  /** The engine the next worker goes to. */
  pick(): PlacedEngine {
    let best: PlacedEngine | undefined;
    let bestLoad = Infinity;
    for (const e of this.engines) {
      const l = this.load(e) / e.maxWorkers;
      if (l < bestLoad) {
        best = e;
        bestLoad = l;
      }
    }
    const chosen = best as PlacedEngine;
    if (this.load(chosen) >= chosen.maxWorkers)
      throw new EngineError(
        `every engine is full (${this.engines.map((e) => `${e.name} ${this.load(e)}/${e.maxWorkers}`).join(', ')})`,
      );
    return chosen;
  }

  async spawn(spec: SandboxSpec, signal?: AbortSignal): Promise<{ conn: WorkerConnection; id: string }> {
    const e = this.pick();
    this.pending.set(e.name, (this.pending.get(e.name) ?? 0) + 1);
    try {
      const made = await e.factory.spawn(spec, signal);
      this.placement.set(made.id, e.name);
      made.conn.onClosed(() => this.placement.delete(made.id));
      return made;
    } catch (err) {
      throw new EngineError(`engine '${e.name}': ${errorMessage(err)}`);
    } finally {
      this.pending.set(e.name, (this.pending.get(e.name) ?? 1) - 1);
    }
  }

  async dispose(): Promise<void> {
    await Promise.all(this.engines.map((e) => e.factory.dispose()));
  }
}
