/**
 * Docker workers: one hardened container per worker (no network, read-only root, tmpfs /tmp with a size,
 * a 1 MiB /dev/shm, no SysV IPC or POSIX message queues, memory without swap, pids and CPU limits, all capabilities dropped, no-new-privileges, non-root, init,
 * no logging), attached before start, watched for exit and OOM. With the OCI runtime `runsc` the container
 * runs under gVisor (isolation `gvisor`), else under runc (`docker`). Every container is labelled with
 * its installation and instance (installation.ts): leftovers of a crashed earlier process of this
 * installation are removed at start, containers of other installations never.
 */
import { PassThrough } from 'node:stream';
import type { Duplex, Readable } from 'node:stream';
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { RuntimeId } from '../../core/sandbox/runtimes.ts';
import { STDERR_GRACE_MS, WorkerConnection } from './connection.ts';
import { exitStatusText, StderrTail } from './stderr-tail.ts';
import { dockerSeccompProfile } from './seccomp.ts';
import { EGRESS_MOUNT, EgressListener, egressEnv, parseAllow } from './egress.ts';
import { PROTOCOL_MOUNT, PROTOCOL_SOCKET_ENV, ProtocolSocket } from './protocol-socket.ts';
import { cancelledByStop } from './docker-cancel.ts';
import { Installation, INSTALLATION_LABEL, INSTANCE_LABEL, pruneLeftovers } from './installation.ts';
import type { SandboxSpec, WorkerFactory } from './pool.ts';
import { errorMessage } from '../../core/errors.ts';
import { ownPlace } from '../test-run-guard.ts';

export const POOL_LABEL = 'toolsmith.pool';

/** How long a started worker may take to connect to its protocol socket (a cold start on a busy host). */
const PROTOCOL_CONNECT_MS = 30_000;

export interface ContainerLimits {
  memoryMb: number;
  cpus: number;
  pids: number;
  tmpfsMb: number;
}

/**
 * Host tasks of the gVisor sandbox kernel counted in the container's pids limit beside the script's. On
 * the ptrace platform these are the sentry's threads (~25), its gofer's (~13) and, for every address
 * space alive or kept in runsc's pool of stub processes, one host thread per sentry thread that ran in
 * it (up to ~26 each): ~120-170 for a bun worker running trivial jobs, 255 for a bun job running seven
 * bun programs at once (measured, runsc 20221219). When the limit is hit the sentry cannot make a thread
 * and the whole sandbox dies (runsc exits 2: "failed to create new OS thread", "error initializing first
 * thread"), so this leaves room for a job of a few processes; with 96 a bun job whose daemon another
 * process connected to ended the sandbox about one time in twenty (docs/scaling.md, "gVisor's host tasks").
 */
export const GVISOR_PIDS = 384;

/**
 * /dev/shm of every sandbox (MiB): small, because its pages count against the memory limit like any
 * tmpfs and a job's files there are emptied after the job anyway (docs/sandboxes.md, "Between jobs").
 */
export const SHM_MB = 1;

/**
 * SysV IPC and POSIX message queues live in the container's IPC namespace, shared by every job of the
 * container: nothing may create them (runc applies these; gVisor ignores them, and the worker's seccomp
 * filter refuses the calls on every level).
 */
export const NO_IPC_SYSCTLS: Record<string, string> = {
  'kernel.shmmax': '0',
  'kernel.shmall': '0',
  'kernel.msgmni': '0',
  'kernel.sem': '0 0 0 0',
  'fs.mqueue.queues_max': '0',
};

export const DEFAULT_LIMITS: ContainerLimits = { memoryMb: 256, cpus: 1, pids: 64, tmpfsMb: 16 };

export const credentialEnv = (name: string) => `TOOLSMITH_CRED_${name.replace(/\W/g, '_').toUpperCase()}`;

/**
 * Podman's Docker-compatible API reads `seccomp=` as a path on the engine's machine (Docker's takes the
 * profile itself): the same profile, written once to a private folder of the user's cache, named by its
 * hash (a local engine only: Podman here listens on a local socket).
 */
export function podmanSeccompFile(): string {
  const profile = dockerSeccompProfile();
  const dir = ownPlace(
    join(process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'toolsmith', 'seccomp'),
  );
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${createHash('sha256').update(profile).digest('hex').slice(0, 16)}.json`);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, profile, { mode: 0o600 });
  renameSync(tmp, file);
  return file;
}

/**
 * What a gVisor Python worker starts with (as root, every other capability dropped): it becomes 65534 at
 * once, keeps these for its fork server, which moves each job to a uid of its own with none of them.
 * SYS_ADMIN and SYS_CHROOT are the sandbox kernel's (gVisor's sentry), never the host's: with them each
 * job's process mounts a /proc of its own pid namespace and fresh writable mounts in a tree of its own,
 * chroots into it and drops them (docs/security.md, "A tree of its own (gVisor)").
 * Not on runc: there the container's root is the host's and its /proc is unmasked (a job mounts its own).
 */
export const JOB_UID_CAPS = ['SETUID', 'SETGID', 'KILL', 'SYS_ADMIN', 'SYS_CHROOT'] as const;
/**
 * gVisor, Python only: CAP_DAC_OVERRIDE beside JOB_UID_CAPS, kept permitted by the worker alone (its fork
 * server and every job give it up) and effective only while its wipe unlinks a POSIX message queue a job
 * left: runsc mounts no /dev/mqueue, the worker mounts one (hygiene.mount_mqueue), and gVisor makes it
 * mode 0555 whatever is asked, so without it no one removes a queue there (docs/security.md, "Every job
 * alone"). A capability of the sentry's kernel, which the host never sees.
 */
export const PYTHON_WIPE_CAPS = ['DAC_OVERRIDE'] as const;

/** Why a node sandbox is refused on gVisor, and what to choose instead. */
export function nodeOnGvisor(sandbox: string): string {
  return `sandbox ${sandbox}: the node runtime cannot run under gVisor (isolation "gvisor"): runsc will not load the node binary, which is execute-only for the sandbox user so that no job can read a node process's memory; choose isolation "docker" or "process" for this sandbox, or the bun runtime`;
}

/** The HostConfig every sandbox container gets: the limits are on by default. */
export function hostConfig(l: ContainerLimits): Docker.HostConfig {
  const memory = l.memoryMb * 1024 * 1024;
  return {
    NetworkMode: 'none',
    ReadonlyRootfs: true,
    Tmpfs: { '/tmp': `rw,nosuid,nodev,noexec,size=${l.tmpfsMb}m,mode=1777` },
    ShmSize: SHM_MB * 1024 * 1024,
    Sysctls: { ...NO_IPC_SYSCTLS },
    Memory: memory,
    MemorySwap: memory,
    PidsLimit: l.pids,
    NanoCpus: Math.round(l.cpus * 1e9),
    CapDrop: ['ALL'],
    // Toolsmith's own profile (Docker's default minus what a job never needs), which lets the fork server
    // give each job namespaces of its own (docs/security.md, "Jobs alone").
    SecurityOpt: ['no-new-privileges', `seccomp=${dockerSeccompProfile()}`],
    // No path of /proc is masked or read-only: the kernel lets a job mount a /proc of its own pid
    // namespace only where the sandbox's /proc is fully visible. The container's user holds no
    // capability and is not root, so the unmasked files stay unreadable and unwritable to it.
    MaskedPaths: [],
    ReadonlyPaths: [],
    // The worker is pid 1 (no docker-init): it is not dumpable, so no process of the container can read
    // or write its memory, environment or fds (docs/security.md, "Jobs alone"). The Python worker reaps
    // every orphan; a node worker only its own children (docs/sandboxes.md, "A node worker reaps only its
    // own children": where jobs are walled, their orphans die with the job's pid namespace).
    Init: false,
    LogConfig: { Type: 'none', Config: {} },
    AutoRemove: false,
  };
}

export interface DockerFactoryOptions {
  /** The OCI runtime: `runsc` runs the containers under gVisor; absent: the engine's default (runc). */
  runtime?: string;
  /** Who owns the containers (default: this user's installation, a new instance). */
  installation?: Installation;
  /** The engine's name, recorded on each container (several engines in one pool). */
  engine?: string;
  /**
   * Podman's Docker-compatible API: it raises the containers' nofile/nproc rlimits to values a host
   * with lower hard limits refuses, so they are given explicitly.
   */
  podman?: boolean;
  /**
   * Tests only: walls the worker leaves out (`TOOLSMITH_TEST_WALLS`: nojobns, nosweep, nowipe,
   * noseccomp, noipcfilter, launchplain: JS jobs' processes without namespaces, the launcher kept), so
   * that each remaining wall is attacked alone; also faults made on purpose (launcherstall: the JS jobs'
   * launcher never ends its job).
   */
  wallsOff?: string[];
  /**
   * Tests only: the containers start with Docker's init as their pid 1 (`--init`), the worker below it,
   * as a person's own engine settings or a pod sharing its process namespace could make it
   * (docs/sandboxes.md, "Between jobs": when the worker is a child subreaper).
   */
  init?: boolean;
}

/** The rlimits a Podman engine's containers get (nproc counts the sandbox user's processes host-wide). */
export const PODMAN_ULIMITS = [
  { Name: 'nofile', Soft: 1024, Hard: 1024 },
  { Name: 'nproc', Soft: 4096, Hard: 4096 },
];

/** How long a container killed by SIGKILL waits for the engine's late word that it was an OOM kill. */
const LATE_OOM_MS = 1000;

export class DockerWorkerFactory implements WorkerFactory {
  readonly isolation: 'docker' | 'gvisor';
  readonly docker: Docker;
  readonly installation: Installation;
  readonly engine: string;
  private readonly runtime: string | undefined;
  private readonly podman: boolean;
  private readonly wallsOff: string[];
  private readonly init: boolean;
  private readonly image: (runtime: RuntimeId, spec?: SandboxSpec) => Promise<string>;
  private readonly limits: ContainerLimits;
  private readonly conns = new Map<string, WorkerConnection>();
  private readonly proxies = new Set<EgressListener>();
  private events: NodeJS.ReadableStream | undefined;
  /** This factory's own id (dispose removes its containers only: factories may share an instance). */
  private readonly factoryId = randomUUID();
  private readonly ownsInstallation: boolean;
  /** The service's close began (given at `start`): what a spawn or the dispose waits on is bounded by it. */
  private stop: AbortSignal | undefined;
  /**
   * Spawns a stop gave up (what the engine had not answered, the container they had made and whether
   * its removal was answered): said by the service's close (app/sandbox-factory.ts).
   */
  readonly stoppedSpawns: StoppedSpawn[] = [];
  /** What the dispose after a stop gave up on (its listing, its removals): said as the spawns are. */
  readonly stoppedDispose: string[] = [];
  /** Containers whose removal after a stop went unanswered: left for the next start's sweep. */
  private readonly unanswered = new Set<string>();
  /**
   * Whether a container's create was ever asked: the only request that makes a container labelled with
   * this factory, so a factory that asked none has nothing for its dispose to list or remove.
   */
  private createAsked = false;

  constructor(
    docker: Docker,
    image: (runtime: RuntimeId, spec?: SandboxSpec) => Promise<string>,
    limits: ContainerLimits = DEFAULT_LIMITS,
    opts: DockerFactoryOptions = {},
  ) {
    this.docker = docker;
    this.image = image;
    this.limits = limits;
    this.runtime = opts.runtime;
    this.podman = !!opts.podman;
    this.wallsOff = opts.wallsOff ?? [];
    this.init = opts.init === true;
    this.isolation = opts.runtime === 'runsc' ? 'gvisor' : 'docker';
    this.ownsInstallation = !opts.installation;
    this.installation = opts.installation ?? new Installation();
    this.engine = opts.engine ?? 'local';
  }

  /** Workers of this factory alive now (the load placement counts). */
  get live(): number {
    return this.conns.size;
  }

  /**
   * Checks that the engine answers (and has the runtime), registers this instance, removes leftovers of
   * this installation's processes that no longer run, subscribes to OOM events. Returns how many
   * leftovers it removed. A broken engine or a missing runtime is an error. `stop` (the service's close
   * began) cancels the requests still waiting on the engine (docker-cancel.ts): the start rejects at
   * once, `stopped` naming them, and nothing was created on the engine. Before, an engine that answered
   * its version and then hung held the start, and a stop signal's close with it, until the process's
   * bound (3 s, or a command's 18 s).
   */
  async start(stop?: AbortSignal): Promise<number> {
    this.stop = stop;
    const cancel = stop ? cancelledByStop(this.docker, stop) : undefined;
    const docker = cancel?.docker ?? this.docker;
    const stopped = () => {
      if (stop?.aborted) throw new StartStopped(this.engine, cancel?.cut ?? []);
    };
    try {
      await withTimeout(docker.ping(), 5000, `the Docker engine '${this.engine}' does not answer`);
      if (this.runtime) {
        const info = (await docker.info()) as { Runtimes?: Record<string, unknown> };
        if (!info.Runtimes?.[this.runtime])
          throw new Error(
            `the Docker engine '${this.engine}' has no '${this.runtime}' runtime (it has: ${Object.keys(info.Runtimes ?? {}).join(', ')})${this.runtime === 'runsc' ? ': install runsc (Debian: apt-get install runsc) and register it in /etc/docker/daemon.json (scripts/ensure-env.sh does both)' : ''}`,
          );
      }
      stopped();
      this.installation.register();
      const removed = (await pruneLeftovers(docker, this.installation).catch(() => [])).length;
      stopped();
      this.events = await docker.getEvents({
        filters: { type: ['container'], event: ['oom'], label: [`${POOL_LABEL}=1`] },
      });
      this.listenEvents(this.events);
      return removed;
    } catch (e) {
      stopped();
      throw e;
    }
  }

  private listenEvents(events: NodeJS.ReadableStream): void {
    events.on('data', (buf: Buffer) => {
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
    events.on('error', () => {});
  }

  async spawn(spec: SandboxSpec, signal?: AbortSignal): Promise<{ conn: WorkerConnection; id: string }> {
    // Refused before any image or container is made: runsc's loader reads a program as the user that runs
    // it, and the node binary is execute-only for that user (what keeps its processes non-dumpable), so
    // the container would fail at its start with runsc's own "permission denied" (docs/sandboxes.md).
    if (this.isolation === 'gvisor' && spec.runtime === 'node') throw new Error(nodeOnGvisor(spec.name));
    const image = await this.image(spec.runtime, spec);
    signal?.throwIfAborted();
    // The requests that make the container (its create, attach and start) and the wait for its worker's
    // hello end when the pool is disposed or the service's close begins (docker-cancel.ts): an engine that
    // hangs on one of them no longer holds a stop until the process's bound (3 s, or a command's 18 s).
    // What outlives the making (the container's wait, inspections, its removal) goes through `this.docker`.
    const stop = signal && this.stop ? AbortSignal.any([signal, this.stop]) : (signal ?? this.stop);
    const making = stop ? cancelledByStop(this.docker, stop) : undefined;
    const maker = making?.docker ?? this.docker;
    // A tool container with egress: still no network; its one way out is the host proxy's socket.
    if (spec.egress && (this.docker.modem as { host?: string }).host)
      throw new Error(
        `sandbox ${spec.name} has egress, whose proxy socket can only be mounted by a local Docker engine (this one is remote)`,
      );
    const egress = spec.egress ? await EgressListener.start(parseAllow(spec.egress.allow)) : undefined;
    if (egress) this.proxies.add(egress);
    // The protocol over a unix socket, not the attached stream (protocol-socket.ts): Python workers on a
    // local engine under runc. gVisor does not let a sandbox connect to a host socket, a remote engine
    // cannot mount one, and the other runtimes' workers speak on stdin/stdout only.
    const proto =
      spec.runtime === 'python' &&
      !this.runtime &&
      !this.podman &&
      !(this.docker.modem as { host?: string }).host
        ? await ProtocolSocket.start()
        : undefined;
    // gVisor, Python: the worker starts as root holding only CAP_SETUID, CAP_SETGID and CAP_KILL, becomes
    // 65534 at once and runs each job under a uid of its own (docs/security.md, "A uid of its own").
    // gVisor, bun and deno: the worker stays root with those capabilities (gVisor has no ambient
    // capabilities, so a worker of 65534 could not hand them to the job launcher it execs), and the
    // launcher roots each job as the Python one: a tree of its own, a uid of its own, no capability
    // (worker.mjs jobLauncher). (node is refused on gVisor above.)
    const jobUids = this.isolation === 'gvisor';
    const hc = hostConfig(this.limits);
    // gVisor, JS: bun's and deno's jobs were plain child processes of the worker before they were rooted
    // (and are again where the launcher is not used), and the worker reaps only the processes it started:
    // a process a job daemonized, killed by the sweep, stayed its zombie holding a pid until the worker
    // was replaced. Docker's init (pid 1, the worker below it) reaps them, and a rooted job's pid 1 a
    // killed launcher leaves. Not on runc, where JS jobs run in pid namespaces of their own (the launcher
    // reaps each) and a job could ptrace or read docker-init's memory (it is dumpable); gVisor refuses
    // both to the sandbox user, and a rooted job sees no process outside its own namespace.
    if (this.init || (this.isolation === 'gvisor' && spec.runtime !== 'python')) hc.Init = true;
    const binds = [
      ...(egress ? [`${egress.dir}:${EGRESS_MOUNT}:ro`] : []),
      ...(proto ? [`${proto.dir}:${PROTOCOL_MOUNT}:ro`] : []),
    ];
    if (binds.length) hc.Binds = binds;
    this.createAsked = true;
    const created = await maker
      .createContainer({
        Image: image,
        OpenStdin: true,
        StdinOnce: false,
        AttachStdin: true,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
        // No network at all (HostConfig's NetworkMode none): with the network disabled in the config too,
        // the engine adds no prestart hook to set one up (Docker re-executes dockerd for it on every
        // start): 560 -> 320 ms and 640 -> 370 ms of CPU per container here (docs/scaling.md). The
        // container's loopback is still up (the runtime brings it up in every new network namespace).
        NetworkDisabled: true,
        User: jobUids ? '0:0' : '65534:65534',
        WorkingDir: '/tmp',
        Env: [
          // /tmp is the container's own tmpfs: the worker empties it after every job.
          'TOOLSMITH_PRIVATE_TMP=1',
          ...Object.entries(spec.credentials).map(([k, v]) => `${credentialEnv(k)}=${v}`),
          ...(egress ? egressEnv() : []),
          ...(proto ? [`${PROTOCOL_SOCKET_ENV}=${proto.containerPath}`] : []),
          ...(this.wallsOff.length ? [`TOOLSMITH_TEST_WALLS=${this.wallsOff.join(',')}`] : []),
        ],
        Labels: {
          [POOL_LABEL]: '1',
          [INSTALLATION_LABEL]: this.installation.id,
          [INSTANCE_LABEL]: this.installation.instance,
          // Informational only (never used to decide what to remove).
          'toolsmith.owner': String(process.pid),
          'toolsmith.sandbox': spec.name,
          'toolsmith.engine': this.engine,
          'toolsmith.factory': this.factoryId,
        },
        HostConfig: {
          ...hc,
          ...(this.runtime ? { Runtime: this.runtime } : {}),
          // Under gVisor the container's host cgroup also holds the sandbox kernel itself (the sentry's and
          // gofer's threads: ~40 when idle, more under load; with 64 in all the worker cannot even fork);
          // the script's own processes are still bounded, by the rest.
          ...(this.isolation === 'gvisor' ? { PidsLimit: this.limits.pids + GVISOR_PIDS } : {}),
          ...(jobUids
            ? { CapAdd: [...JOB_UID_CAPS, ...(spec.runtime === 'python' ? PYTHON_WIPE_CAPS : [])] }
            : {}),
          ...(this.podman
            ? {
                Ulimits: PODMAN_ULIMITS,
                SecurityOpt: ['no-new-privileges', `seccomp=${podmanSeccompFile()}`],
              }
            : {}),
        },
      })
      .catch((e: unknown) => {
        proto?.close();
        // (a container the engine makes after the cut is labelled: the next start's sweep removes it)
        if (stop?.aborted) {
          this.stoppedSpawns.push({ cut: making?.cut ?? [] });
          throw new SpawnStopped(this.engine, making?.cut ?? []);
        }
        throw e;
      }); // (if this throws, the proxy stays in `proxies` until dispose)
    const container = this.docker.getContainer(created.id);
    /** Ended when the spawn gives up: the container's wait is no longer asked. */
    const giveUpWait = new AbortController();
    /** Removes the container; `withinMs`: gives up on an engine that has not answered by then (false). */
    const remove = async (withinMs?: number): Promise<boolean> => {
      this.conns.delete(container.id);
      const answered = await container
        .remove({ force: true, ...(withinMs ? { abortSignal: AbortSignal.timeout(withinMs) } : {}) })
        .then(
          () => true,
          (e: unknown) => (e as { statusCode?: number }).statusCode !== undefined,
        );
      proto?.close();
      if (egress && this.proxies.delete(egress)) await egress.close();
      return answered;
    };
    let stream: NodeJS.ReadWriteStream | undefined;
    try {
      signal?.throwIfAborted();
      stream = await maker.getContainer(container.id).attach({
        stream: true,
        stdin: true,
        stdout: true,
        stderr: true,
        hijack: true,
      });
      // The engine's end is watched from the moment the stream exists. A protocol-socket worker (below)
      // connects to the host without the engine: an engine killed between the container's start and that
      // connection ended this stream before a listener added after the connection could hear it, and the
      // worker ran later jobs in a container its engine no longer watched (its exit, an OOM kill and its
      // removal go through the engine) until it was recycled (docs/reliability.md).
      // The stream also ends when the container exits (the worker's own output closed): only an engine
      // that no longer answers ends the wait for the worker here; an exit is said by the wait's `how`.
      let attachEnded = false;
      /** Set while a protocol-socket worker is awaited (the only time the stream's end is asked about). */
      let awaitingWorker = false;
      const engineEnded = new AbortController();
      const cid = container.id.slice(0, 12);
      /** The engine asked now: undefined when it answers, else why not. */
      const engineSilent = async (): Promise<string | undefined> => {
        let timer: NodeJS.Timeout | undefined;
        return Promise.race([
          this.docker.ping().then(
            () => undefined,
            (e: unknown) => errorMessage(e),
          ),
          new Promise<string>((r) => (timer = setTimeout(() => r('no answer to a ping within 3 s'), 3000))),
        ]).finally(() => clearTimeout(timer));
      };
      const engineGone = (when: string, gone: string) =>
        new Error(
          `the Docker engine '${this.engine}' ended the attached stream of container ${cid} ${when} its worker connected, and no longer answers: ${gone}`,
        );
      const askEngine = () =>
        void engineSilent().then((gone) => {
          if (gone) engineEnded.abort(engineGone('before', gone));
        });
      const onAttachEnd = () => {
        if (attachEnded) return;
        attachEnded = true;
        if (awaitingWorker) askEngine();
      };
      stream.on('end', onAttachEnd);
      stream.on('close', onAttachEnd);
      // dockerode sends the attach options as a request body too, and Podman passes that body on to the
      // container's stdin: a newline ends it as a line of its own, which the worker ignores (as it does
      // an empty line on Docker).
      stream.write('\n');
      // An engine over TCP: the protocol's small lines (a tool call and its reply) go out at once, not
      // held back by Nagle's algorithm waiting for the previous segment's ack (a no-op on a Unix socket).
      (stream as unknown as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      this.docker.modem.demuxStream(stream, stdout, stderr);
      // The worker's own stderr is not part of the protocol: its last lines go into the reason the worker
      // is gone (connection.ts), with the credential values blanked.
      stream.on('end', () => {
        stdout.end();
        stderr.end();
      });
      stream.on('error', () => {});
      const exited = container.wait({ condition: 'next-exit', abortSignal: giveUpWait.signal });
      exited.catch(() => {}); // (a spawn given up before start: the container is removed below)
      // Set once the engine reports the container exited on its own (its worker ended: a script's doing
      // or a crash, not the engine's): the removal that follows is this factory's own, not a fault.
      let ownExit = false;
      let exitHeard: () => void = () => {};
      const exitNews = new Promise<void>((r) => (exitHeard = r));
      let channel: [Duplex, NodeJS.ReadableStream] = [stream as unknown as Duplex, stdout];
      // Kept from the start: a worker that ends before it connects (it cannot read its files, an import
      // fails) says why in its stderr, and the connection keeps the same tail afterwards.
      const tail = new StderrTail(stderr, Object.values(spec.credentials));
      if (proto) {
        signal?.throwIfAborted();
        await maker.getContainer(container.id).start();
        // The worker connects first thing; its stdout on the attached stream stays empty.
        stdout.resume();
        const how = exited.then(async (r: { StatusCode?: number }) => {
          await tail.settled(STDERR_GRACE_MS);
          return exitStatusText(r.StatusCode);
        });
        awaitingWorker = true;
        if (attachEnded) askEngine();
        const socket = await proto
          .accept(
            PROTOCOL_CONNECT_MS,
            how,
            stop ? AbortSignal.any([stop, engineEnded.signal]) : engineEnded.signal,
            (why) => tail.describe(why),
          )
          .catch((e: unknown) => {
            throw engineEnded.signal.aborted && !stop?.aborted ? (engineEnded.signal.reason as Error) : e;
          })
          .finally(() => (awaitingWorker = false));
        // Connected as the stream ended: the container is not used either.
        if (attachEnded) {
          const gone = await engineSilent();
          throw gone
            ? engineGone('as', gone)
            : new Error(
                `the attached stream of container ${cid} ended as its worker connected (the Docker engine '${this.engine}' restarted, or the container exited): the container is not used`,
              );
        }
        channel = [socket, socket];
      }
      const conn = new WorkerConnection(
        channel[0],
        channel[1] as Readable,
        this.isolation,
        () => remove().then(() => {}),
        {
          stderr: tail,
          reportsExit: true,
        },
      );
      this.conns.set(container.id, conn);
      if (proto) {
        // The protocol no longer passes through the engine, but the engine still owns the container: its
        // attached stream ending (the engine died or restarted) ends the worker as it did when the
        // protocol was on that stream, and the job's end asks the engine what happened (diagnose). The
        // stream had not ended when the worker connected (checked above, in the same turn).
        const lost = () => conn.markClosed('the Docker engine ended the attached stream of the container');
        stream.on('end', lost);
        stream.on('close', lost);
      }
      // A job that times out or loses its stream: was it the engine, or the container's state?
      conn.diagnose = async () => {
        try {
          await this.docker.ping();
        } catch (e) {
          return `the Docker engine '${this.engine}' stopped answering during the job (${errorMessage(e)})`;
        }
        try {
          const s = (await container.inspect()).State;
          if (s.Paused)
            return `the sandbox container ${container.id.slice(0, 12)} was paused (docker pause) on engine '${this.engine}'`;
          if ((s.Status === 'removing' || s.Status === 'dead') && !ownExit)
            return `the sandbox container ${container.id.slice(0, 12)} was ${s.Status === 'dead' ? 'found dead' : 'being removed'} by engine '${this.engine}'`;
        } catch (e) {
          // (checked after the answer: the container may have exited, and been removed here, meanwhile)
          if (ownExit) return undefined;
          if ((e as { statusCode?: number }).statusCode === 404)
            return `the sandbox container ${container.id.slice(0, 12)} was removed from engine '${this.engine}' during the job`;
          return `the Docker engine '${this.engine}' could not report the container (${errorMessage(e)})`;
        }
        return undefined;
      };
      if (egress) {
        egress.onRecord = (r) => conn.recordEgress(r);
        conn.egressInFlight = () => egress.inFlight();
        conn.egressIdle = (ms) => egress.idle(ms);
      }
      if (!proto) {
        signal?.throwIfAborted();
        await maker.getContainer(container.id).start();
      }
      signal?.throwIfAborted();
      void exited.then(
        async (r: { StatusCode?: number }) => {
          const state = await container.inspect().then(
            (i) => i.State,
            () => undefined,
          );
          if (state?.OOMKilled) conn.oomKilled = true;
          if (state?.Status === 'exited') ownExit = true;
          // Killed (SIGKILL) with no OOM said yet: the engine may hear of an OOM kill after the exit (the
          // runtime's OOM event can come second; under gVisor the cgroup kills the sentry itself). Its
          // `oom` event sets conn.oomKilled while the container is still ours: wait for it a moment.
          if (!conn.oomKilled && (r.StatusCode === 137 || state?.ExitCode === 137)) {
            const until = Date.now() + LATE_OOM_MS;
            while (!conn.oomKilled && Date.now() < until) await new Promise((w) => setTimeout(w, 50));
          }
          exitHeard();
          conn.exited(
            `${exitStatusText(r.StatusCode)}${conn.oomKilled ? ', OOM killed' : ''}`,
            `container exited with status ${r.StatusCode ?? '?'}${conn.oomKilled ? ' (OOM killed)' : ''}`,
          );
          await remove();
        },
        () => {
          exitHeard();
          conn.markClosed('container wait failed');
        },
      );
      conn.exitKnown = () => exitNews;
      return { conn, id: container.id };
    } catch (e) {
      (stream as unknown as Duplex | undefined)?.destroy();
      giveUpWait.abort();
      if (!stop?.aborted) {
        await remove();
        throw e;
      }
      // Given up by a stop: the container made is removed, within a bound (an engine that hung on its
      // making may not answer its removal either: left, labelled, for the next start's sweep).
      const removed = await remove(REMOVE_AFTER_STOP_MS);
      if (!removed) this.unanswered.add(container.id);
      this.stoppedSpawns.push({ cut: making?.cut ?? [], container: container.id, removed });
      throw new SpawnStopped(this.engine, making?.cut ?? []);
    }
  }

  /**
   * Removes this factory's containers (listed by their labels) and closes its proxies. After a stop that
   * gave up a spawn (the engine had not made a container, or its worker had not connected, when the
   * service's close began) each request to the engine is given REMOVE_AFTER_STOP_MS: an engine that does
   * not answer by then leaves them, labelled, for the next start's sweep (`stoppedDispose` says so), and a
   * container whose removal already went unanswered is not asked again. Before, the listing and the
   * removals waited without end, holding a stop's close until the process's bound.
   */
  async dispose(): Promise<void> {
    (this.events as unknown as { destroy?: () => void } | undefined)?.destroy?.();
    // (no create asked, no container of this factory: the engine is not asked. A factory whose start a
    // stop gave up on an engine that hangs, a sandbox's own one, held the close on this listing)
    if (!this.createAsked) {
      await Promise.all([...this.proxies].map((p) => p.close()));
      this.proxies.clear();
      if (this.ownsInstallation) this.installation.unregister();
      return;
    }
    // (only once a stop gave up a spawn of this factory: the engine may hang. Any other close, on an
    // engine that answered all it was asked, waits for its removals as before: only time tells a slow
    // engine from a hung one, and a signal's grace bounds that wait)
    const bound = this.stop?.aborted && this.stoppedSpawns.length > 0 ? REMOVE_AFTER_STOP_MS : undefined;
    const within = () => (bound ? { abortSignal: AbortSignal.timeout(bound) } : {});
    const mine = await this.docker
      .listContainers({
        all: true,
        filters: {
          label: [
            `${POOL_LABEL}=1`,
            `${INSTALLATION_LABEL}=${this.installation.id}`,
            `${INSTANCE_LABEL}=${this.installation.instance}`,
            `toolsmith.factory=${this.factoryId}`,
          ],
        },
        ...within(),
      })
      .catch((e: unknown) => {
        if (bound && (e as { statusCode?: number }).statusCode === undefined)
          this.stoppedDispose.push(
            `had not answered the listing of this process's sandbox containers (GET /containers/json) within ${bound / 1000} s of the stop: any are left for the next start's sweep`,
          );
        return [];
      });
    let unanswered = 0;
    await Promise.all(
      mine
        .filter((c) => !this.unanswered.has(c.Id))
        .map((c) =>
          this.docker
            .getContainer(c.Id)
            .remove({ force: true, ...within() })
            .catch((e: unknown) => {
              if (bound && (e as { statusCode?: number }).statusCode === undefined) unanswered++;
            }),
        ),
    );
    if (unanswered)
      this.stoppedDispose.push(
        `had not answered the removal of ${unanswered} sandbox container(s) within ${REMOVE_AFTER_STOP_MS / 1000} s of the stop: left for the next start's sweep`,
      );
    await Promise.all([...this.proxies].map((p) => p.close()));
    this.proxies.clear();
    if (this.ownsInstallation) this.installation.unregister();
  }
}

/**
 * The factory's start cancelled by a stop (the service's close began) while it waited on the engine:
 * `cut` names the requests the engine had not answered.
 */
export class StartStopped extends Error {
  readonly engine: string;
  readonly cut: string[];
  constructor(engine: string, cut: string[]) {
    super(
      `the Docker engine '${engine}' had not answered the sandbox backend's start${cut.length ? ` (${cut.join(', ')})` : ''} when the service began to close: no longer waited for`,
    );
    this.name = 'StartStopped';
    this.engine = engine;
    this.cut = cut;
  }
}

/**
 * How long a removal (or the dispose's listing) asked after a stop waits for the engine: a working engine
 * answers a `docker rm -f` in tens to hundreds of ms; one that hung on the container's making mostly hangs
 * on its removal too, and the close must not wait on it until the process's bound (docs/reliability.md).
 */
export const REMOVE_AFTER_STOP_MS = 1000;

/** A spawn a stop gave up: what the engine had not answered, and the container it had made, if any. */
export interface StoppedSpawn {
  cut: string[];
  container?: string;
  /** Whether the engine answered the container's removal within REMOVE_AFTER_STOP_MS. */
  removed?: boolean;
}

/** A worker's making given up because the pool closed or the service's close began. */
export class SpawnStopped extends Error {
  constructor(engine: string, cut: string[]) {
    super(
      `the sandbox container's making on the Docker engine '${engine}' was given up: the service began to close${cut.length ? ` (${cut.join(', ')} not answered)` : ''}`,
    );
    this.name = 'SpawnStopped';
  }
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_r, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
      }),
    ]);
  } catch (e) {
    const msg = errorMessage(e);
    throw new Error(msg.startsWith(what) ? msg : `${what}: ${msg}`);
  } finally {
    clearTimeout(timer);
  }
}
