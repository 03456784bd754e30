/**
 * The worker protocol over a unix socket instead of Docker's attached stdin/stdout: every line between
 * the host and a Python worker in a container of a local Docker engine otherwise goes host -> dockerd ->
 * containerd-shim -> worker and back, which is most of the time a tool call from a script spends
 * outside the tool (~0.4 ms of ~0.5 ms per round trip; `npm run bench:mcp`). The socket skips those
 * processes: the host listens on a socket in a folder bind-mounted into the container (as egress
 * does), the worker connects to it once at start and speaks the same NDJSON protocol on it; its stderr
 * stays on the attached stream.
 *
 * Walls around it: the folder is private to this container (a fresh temporary folder, mounted read-only,
 * not listable by other users: mode 0711) and the socket's name is 128 random bits passed only in the
 * container's environment (which the worker removes before any script runs), so no other local user
 * can find it; the listener takes exactly one connection, then stops listening and unlinks the socket,
 * so nothing started later (a script, another container) can connect to it at all.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { join } from 'node:path';
import { socketFolder } from './socket-folder.ts';

/** Where the socket's folder is mounted in the container. */
export const PROTOCOL_MOUNT = '/run/toolsmith-protocol';
/** The environment variable that gives the worker the socket's path (removed by the worker at start). */
export const PROTOCOL_SOCKET_ENV = 'TOOLSMITH_PROTOCOL_SOCKET';

export class ProtocolSocket {
  readonly dir: string;
  /** The socket's path inside the container. */
  readonly containerPath: string;
  /** Its path on the host. */
  readonly path: string;
  private readonly server: Server;
  private socket: Socket | undefined;

  private connected: ((s: Socket) => void) | undefined;

  private constructor(dir: string, name: string) {
    this.dir = dir;
    this.path = join(dir, name);
    this.containerPath = `${PROTOCOL_MOUNT}/${name}`;
    // From the first moment: the worker may connect before the host gets round to waiting for it.
    this.server = createServer((s) => {
      if (this.socket) {
        s.destroy();
        return;
      }
      this.socket = s;
      s.on('error', () => {}); // (a reset before the connection is wired up ends it through 'close')
      this.stopListening();
      this.connected?.(s);
    });
  }

  static async start(): Promise<ProtocolSocket> {
    // (below it: the socket's 32 hex characters and `.sock`; in /tmp when a long $TMPDIR leaves no room)
    const dir = socketFolder('toolsmith-protocol-', 1 + 32 + '.sock'.length);
    // Others may pass through the folder (the container's user, 65534, must) but not list it.
    chmodSync(dir, 0o711);
    const p = new ProtocolSocket(dir, `${randomBytes(16).toString('hex')}.sock`);
    await new Promise<void>((resolve, reject) => {
      p.server.once('error', reject);
      p.server.listen(p.path, () => resolve());
    });
    chmodSync(p.path, 0o666);
    return p;
  }

  /**
   * The worker's connection: the first one, after which the socket is gone. Rejects when `gone` resolves
   * first (the container exited: to how it ended, `exit status 1`), after `timeoutMs`, or on `signal`,
   * with the reason in words; `describe` adds what the worker said (its stderr's last lines) to it.
   */
  accept(
    timeoutMs: number,
    gone: Promise<string | undefined>,
    signal?: AbortSignal,
    describe: (reason: string) => string = (r) => r,
  ): Promise<Socket> {
    if (this.socket) return Promise.resolve(this.socket);
    return new Promise<Socket>((resolve, reject) => {
      let settled = false;
      const done = (err: Error | undefined, s?: Socket) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.connected = undefined;
        if (err) {
          this.stopListening();
          reject(err);
        } else resolve(s!);
      };
      const onAbort = () => done(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      this.connected = (s) => done(undefined, s);
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer = setTimeout(
        () =>
          done(
            new Error(
              describe(
                `the worker did not connect to its protocol socket within ${Math.round(timeoutMs / 1000)} s`,
              ),
            ),
          ),
        timeoutMs,
      );
      void gone.then(
        (how) =>
          done(
            new Error(
              describe(
                `the worker exited${how ? ` (${how})` : ''} before it connected to its protocol socket`,
              ),
            ),
          ),
        () => {},
      );
    });
  }

  /** No further connection: the listener closes and the socket file is removed. */
  private stopListening(): void {
    if (this.server.listening) this.server.close();
    rmSync(this.path, { force: true });
  }

  close(): void {
    this.socket?.destroy();
    this.stopListening();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
