/**
 * The sweep of leftover containers that every CLI verb's service start runs (cli/context.ts), first
 * without Docker's client: one request to the local engine's socket lists this installation's
 * containers, and when none of them was left by a stopped process (the usual case) nothing more loads.
 * No engine on the socket (none installed, or stopped) is nothing to sweep, as the full sweep's failure
 * was, and neither is an engine that takes the connection and does not answer (the next start sweeps).
 * Anything else (a leftover to remove, a remote DOCKER_HOST, an answer this cannot read) takes the full
 * sweep of app/prune.ts, which lists again and removes: dockerode and its modules are ~1 MB of the
 * CLI's bundle and ~80 ms of CPU to load on a slow machine, which `runs list`,
 * `template list` or `skill list` paid at every start for a sweep that found nothing
 * (docs/scaling.md, "CLI start").
 */
import { dockerSocket } from '../infra/sandbox/image-check.ts';
// (the installation's core, not installation.ts: see installation-core.ts)
import {
  INSTALLATION_LABEL,
  INSTANCE_LABEL,
  instanceEntryRunning,
  readOrCreateId,
  userDataDir,
} from '../infra/sandbox/installation-core.ts';
import type { Leftover } from '../infra/sandbox/installation.ts';

// Not an ES import of the builtin (its namespace reads every export): see infra/sandbox/image-check.ts.
const { createConnection } = process.getBuiltinModule('node:net');

/** A container as the engine lists it (`GET /containers/json`). */
export interface ListedContainer {
  Id: string;
  Names: string[];
  Labels?: Record<string, string> | null;
  State: string;
  Created: number;
}

/**
 * The engine's answer to `GET path` on its unix socket, its body parsed as JSON (HTTP/1.0: the engine
 * answers without chunks and closes); `no engine` when nothing listens on that socket (no such file, or
 * the connection refused: Docker's client would fail on the same socket); `no answer` when the socket
 * said nothing for `timeoutMs` (an engine that took the connection and hangs); `stopped` when `stop`
 * aborted first (the process is stopping); undefined when it cannot tell (not a unix socket, a status other than 200,
 * a body that is not JSON).
 */
function getOnSocket(
  path: string,
  timeoutMs: number,
  stop?: AbortSignal,
): Promise<{ body: unknown } | 'no engine' | 'no answer' | 'stopped' | undefined> {
  const socketPath = dockerSocket();
  if (!socketPath) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const done = (answer: { body: unknown } | 'no engine' | 'no answer' | 'stopped' | undefined) => {
      if (settled) return;
      settled = true;
      resolve(answer);
      socket.destroy();
    };
    const socket = createConnection(socketPath, () =>
      socket.write(`GET ${path} HTTP/1.0\r\nHost: docker\r\n\r\n`),
    );
    socket.setTimeout(timeoutMs, () => done('no answer'));
    if (stop?.aborted) done('stopped');
    else stop?.addEventListener('abort', () => done('stopped'), { once: true });
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', (e: NodeJS.ErrnoException) =>
      done(
        // (Windows: Docker's client uses a named pipe, not this path: only a Unix socket tells.)
        process.platform !== 'win32' && (e.code === 'ENOENT' || e.code === 'ECONNREFUSED')
          ? 'no engine'
          : undefined,
      ),
    );
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return done(undefined);
      const head = text.slice(0, split);
      if (!/^HTTP\/1\.[01] 200 /.test(head) || /^transfer-encoding:/im.test(head)) return done(undefined);
      try {
        done({ body: JSON.parse(text.slice(split + 4)) as unknown });
      } catch {
        done(undefined);
      }
    });
  });
}

/**
 * The leftover sweep cancelled by a stop while `cut` (`GET /containers/json`, `DELETE /containers/…`)
 * waited on the engine: the light sweep's listing (here) or the full sweep's requests (app/prune.ts).
 */
export class SweepStopped extends Error {
  readonly cut: string[];
  constructor(cut: string[]) {
    super(
      `the Docker engine (${process.env['DOCKER_HOST'] ?? 'the default socket'}) had not answered the leftover sweep${cut.length ? ` (${cut.join(', ')})` : ''} when the process began to stop: not swept now (the next start sweeps)`,
    );
    this.name = 'SweepStopped';
    this.cut = cut;
  }
}

/**
 * The engine's `GET /containers/json?all=1` filtered by `labels` (getOnSocket); undefined when it cannot
 * tell, a body that is not a JSON array included.
 */
export async function listContainersOnSocket(
  labels: string[],
  timeoutMs = 5000,
  stop?: AbortSignal,
): Promise<ListedContainer[] | 'no engine' | 'no answer' | 'stopped' | undefined> {
  const query = `all=1&filters=${encodeURIComponent(JSON.stringify({ label: labels }))}`;
  const got = await getOnSocket(`/containers/json?${query}`, timeoutMs, stop);
  if (got === 'no engine' || got === 'no answer' || got === 'stopped') return got;
  return Array.isArray(got?.body) ? (got.body as ListedContainer[]) : undefined;
}

/**
 * The engine's version (`GET /version`, what Docker's client's `version()` asks), or undefined when it
 * cannot tell (getOnSocket: no engine, no answer within `timeoutMs`, a refusal, not a unix socket).
 */
export async function engineVersionOnSocket(timeoutMs: number): Promise<string | undefined> {
  const got = await getOnSocket('/version', timeoutMs);
  const v =
    typeof got === 'string' ? undefined : (got?.body as { Version?: unknown } | null | undefined)?.Version;
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * What `pruneLeftoverContainers` (app/prune.ts) does at a verb's start, loading Docker's client only when
 * the engine lists a container of this installation whose process no longer runs, or cannot be asked
 * without it. The rules are the full sweep's (infra/sandbox/installation.ts `pruneLeftovers`): a container
 * labelled with another installation, or made by an instance that still runs, is never a leftover.
 */
export async function pruneLeftoverContainersLight(stop?: AbortSignal): Promise<Leftover[]> {
  // (the id as `new Installation()` reads it, made when there is none; this process registers no instance)
  const dir = userDataDir();
  const id = readOrCreateId(dir);
  // `stop`: a stop signal ends the listing's wait: not swept now, said as the full sweep says it (before,
  // a light sweep cut by a stop said nothing).
  const listed = await listContainersOnSocket(
    ['toolsmith.pool=1', `${INSTALLATION_LABEL}=${id}`],
    undefined,
    stop,
  );
  // No engine: the full sweep would fail on the same socket (and say nothing), so there is nothing to do.
  // An engine that took the connection and said nothing for 5 s: not swept now (the next start sweeps).
  // Docker's client, which waits without end, held every verb open after its answer (`runs list`, `pool
  // status`: never ended).
  if (listed === 'stopped') throw new SweepStopped(['GET /containers/json']);
  if (listed === 'no engine' || listed === 'no answer') return [];
  const nothingLeft =
    listed !== undefined &&
    listed.every(
      (c) =>
        c.Labels?.[INSTALLATION_LABEL] !== id || instanceEntryRunning(dir, c.Labels[INSTANCE_LABEL] ?? ''),
    );
  if (nothingLeft) return [];
  // (`stop` cancels Docker's client too: an engine that listed a leftover and hangs on its removal held
  // the close of a stop signal until the 3 s grace; it rejects now, naming what it waited on)
  return (await import('./prune.ts')).pruneLeftoverContainers(stop ? { stop } : {});
}
