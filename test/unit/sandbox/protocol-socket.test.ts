/**
 * The protocol socket's listener (infra/sandbox/protocol-socket.ts) with real unix sockets: a worker that
 * connects before the host waits for it is still its worker (the container starts the worker while the
 * host is still in `docker start`); the socket takes one connection and is gone after it; a worker that
 * never connects is an error in words, as soon as its container is known to be gone.
 */
import { existsSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ProtocolSocket } from '../../../src-main/infra/sandbox/protocol-socket.ts';

const connect = (path: string) =>
  new Promise<Socket>((resolve, reject) => {
    const s = createConnection(path);
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });

const never = new Promise<never>(() => {});

describe('the protocol socket', () => {
  it('keeps a connection made before accept is called, and takes no second one', async () => {
    const p = await ProtocolSocket.start();
    try {
      expect(statSync(p.dir).mode & 0o777).toBe(0o711);
      // Connected (the host is still busy starting the container): the connection waits for accept.
      const worker = await connect(p.path);
      worker.write('{"type":"hello"}\n');
      const host = await p.accept(2000, never);
      const line = await new Promise<string>((r) => host.once('data', (d: Buffer) => r(d.toString())));
      expect(line).toBe('{"type":"hello"}\n');
      expect(existsSync(p.path)).toBe(false);
      await expect(connect(p.path)).rejects.toMatchObject({ code: 'ENOENT' });
      worker.destroy();
    } finally {
      p.close();
    }
    expect(existsSync(p.dir)).toBe(false);
  });

  it('a worker that never connects: the container gone, or the time up, is an error in words', async () => {
    const p = await ProtocolSocket.start();
    await expect(p.accept(60_000, Promise.resolve(undefined))).rejects.toThrow(
      /the worker exited before it connected to its protocol socket/,
    );
    expect(existsSync(p.path)).toBe(false);
    p.close();
    // How it ended, and what the worker said (its stderr's last lines), when the caller knows them.
    const o = await ProtocolSocket.start();
    await expect(
      o.accept(60_000, Promise.resolve('exit status 1'), undefined, (r) => `${r}; stderr: boom`),
    ).rejects.toThrow(
      /^the worker exited \(exit status 1\) before it connected to its protocol socket; stderr: boom$/,
    );
    o.close();
    const q = await ProtocolSocket.start();
    await expect(q.accept(100, never)).rejects.toThrow(/did not connect to its protocol socket within/);
    q.close();
  });
});
