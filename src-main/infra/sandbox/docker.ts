/**
 * Docker workers: one hardened container per worker (no network, read-only root, tmpfs /tmp with a size,
 * memory without swap, pids and CPU limits, all capabilities dropped, no-new-privileges, non-root, init,
 * no logging), attached before start, watched for exit and OOM. Leftovers of a crashed earlier process
 * are found by label and removed.
 */
import { PassThrough } from 'node:stream';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { RuntimeId } from '../../core/sandbox/runtimes.ts';
import { WorkerConnection } from './connection.ts';
import { EGRESS_MOUNT, EgressListener, egressEnv, parseAllow } from './egress.ts';
import type { SandboxSpec, WorkerFactory } from './pool.ts';

export const POOL_LABEL = 'toolsmith.pool';

export interface ContainerLimits {
  memoryMb: number;
  cpus: number;
  pids: number;
  tmpfsMb: number;
}

export const DEFAULT_LIMITS: ContainerLimits = { memoryMb: 256, cpus: 1, pids: 64, tmpfsMb: 16 };

export const credentialEnv = (name: string) => `TOOLSMITH_CRED_${name.replace(/\W/g, '_').toUpperCase()}`;

/** The HostConfig every sandbox container gets: the limits are on by default. */
export function hostConfig(l: ContainerLimits): Docker.HostConfig {
  const memory = l.memoryMb * 1024 * 1024;
  return {
    NetworkMode: 'none',
    ReadonlyRootfs: true,
    Tmpfs: { '/tmp': `rw,nosuid,nodev,noexec,size=${l.tmpfsMb}m,mode=1777` },
    Memory: memory,
    MemorySwap: memory,
    PidsLimit: l.pids,
    NanoCpus: Math.round(l.cpus * 1e9),
    CapDrop: ['ALL'],
    SecurityOpt: ['no-new-privileges'],
    Init: true,
    LogConfig: { Type: 'none', Config: {} },
    AutoRemove: false,
  };
}

export class DockerWorkerFactory implements WorkerFactory {
  readonly isolation = 'docker' as const;
  readonly docker: Docker;
  private readonly image: (runtime: RuntimeId, spec?: SandboxSpec) => Promise<string>;
  private readonly limits: ContainerLimits;
  private readonly conns = new Map<string, WorkerConnection>();
  private readonly proxies = new Set<EgressListener>();
  private events: NodeJS.ReadableStream | undefined;

  constructor(
    docker: Docker,
    image: (runtime: RuntimeId, spec?: SandboxSpec) => Promise<string>,
    limits: ContainerLimits = DEFAULT_LIMITS,
  ) {
    this.docker = docker;
    this.image = image;
    this.limits = limits;
  }

  /** Removes containers left by a Toolsmith process that no longer runs; subscribes to OOM events. */
  async start(): Promise<number> {
    const leftovers = await this.docker.listContainers({
      all: true,
      filters: { label: [`${POOL_LABEL}=1`] },
    });
    let removed = 0;
    for (const c of leftovers) {
      const owner = Number(c.Labels['toolsmith.owner'] ?? 0);
      if (owner && owner !== process.pid && pidAlive(owner)) continue;
      await this.docker
        .getContainer(c.Id)
        .remove({ force: true })
        .catch(() => {});
      removed++;
    }
    this.events = (await this.docker.getEvents({
      filters: { type: ['container'], event: ['oom'], label: [`${POOL_LABEL}=1`] },
    })) as NodeJS.ReadableStream;
    this.events.on('data', (buf: Buffer) => {
      for (const line of buf.toString().split('\n')) {
        if (!line.trim()) continue;
        try {
          const e = JSON.parse(line) as { id?: string; Actor?: { ID?: string } };
          const conn = this.conns.get(e.id ?? e.Actor?.ID ?? '');
          if (conn) conn.oomKilled = true;
        } catch {
          /* not an event line */
        }
      }
    });
    this.events.on('error', () => {});
    return removed;
  }

  async spawn(spec: SandboxSpec, signal?: AbortSignal): Promise<{ conn: WorkerConnection; id: string }> {
    const image = await this.image(spec.runtime, spec);
    signal?.throwIfAborted();
    // A tool container with egress: still no network; its one way out is the host proxy's socket.
    if (spec.egress && (this.docker.modem as { host?: string }).host)
      throw new Error(
        `sandbox ${spec.name} has egress, whose proxy socket can only be mounted by a local Docker engine (this one is remote)`,
      );
    const egress = spec.egress ? await EgressListener.start(parseAllow(spec.egress.allow)) : undefined;
    if (egress) this.proxies.add(egress);
    const hc = hostConfig(this.limits);
    if (egress) hc.Binds = [`${egress.dir}:${EGRESS_MOUNT}:ro`];
    const container = await this.docker.createContainer({
      Image: image,
      OpenStdin: true,
      StdinOnce: false,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      User: '65534:65534',
      WorkingDir: '/tmp',
      Env: [
        // /tmp is the container's own tmpfs: the worker empties it after every job.
        'TOOLSMITH_PRIVATE_TMP=1',
        ...Object.entries(spec.credentials).map(([k, v]) => `${credentialEnv(k)}=${v}`),
        ...(egress ? egressEnv() : []),
      ],
      Labels: { [POOL_LABEL]: '1', 'toolsmith.owner': String(process.pid), 'toolsmith.sandbox': spec.name },
      HostConfig: hc,
    }); // (if this throws, the proxy stays in `proxies` until dispose)
    const remove = async () => {
      this.conns.delete(container.id);
      await container.remove({ force: true }).catch(() => {});
      if (egress && this.proxies.delete(egress)) await egress.close();
    };
    let stream: NodeJS.ReadWriteStream | undefined;
    try {
      signal?.throwIfAborted();
      stream = await container.attach({
        stream: true,
        stdin: true,
        stdout: true,
        stderr: true,
        hijack: true,
      });
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      this.docker.modem.demuxStream(stream, stdout, stderr);
      stderr.resume(); // the worker's own stderr is not part of the protocol
      stream.on('end', () => stdout.end());
      stream.on('error', () => {});
      const conn = new WorkerConnection(stream as unknown as Duplex, stdout, 'docker', remove);
      this.conns.set(container.id, conn);
      if (egress) {
        egress.onRecord = (r) => conn.recordEgress(r);
        conn.egressInFlight = () => egress.inFlight();
      }
      const exited = container.wait({ condition: 'next-exit' });
      exited.catch(() => {}); // (a spawn given up before start: the container is removed below)
      signal?.throwIfAborted();
      await container.start();
      signal?.throwIfAborted();
      void exited.then(
        async (r: { StatusCode?: number }) => {
          const state = await container.inspect().then(
            (i) => i.State,
            () => undefined,
          );
          if (state?.OOMKilled) conn.oomKilled = true;
          conn.markClosed(
            `container exited with status ${r.StatusCode ?? '?'}${state?.OOMKilled ? ' (OOM killed)' : ''}`,
          );
          await remove();
        },
        () => conn.markClosed('container wait failed'),
      );
      return { conn, id: container.id };
    } catch (e) {
      (stream as unknown as Duplex | undefined)?.destroy();
      await remove();
      throw e;
    }
  }

  async dispose(): Promise<void> {
    (this.events as unknown as { destroy?: () => void } | undefined)?.destroy?.();
    const mine = await this.docker
      .listContainers({
        all: true,
        filters: { label: [`${POOL_LABEL}=1`, `toolsmith.owner=${process.pid}`] },
      })
      .catch(() => []);
    await Promise.all(
      mine.map((c) =>
        this.docker
          .getContainer(c.Id)
          .remove({ force: true })
          .catch(() => {}),
      ),
    );
    await Promise.all([...this.proxies].map((p) => p.close()));
    this.proxies.clear();
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
