/**
 * The Unix sockets Toolsmith listens on for its containers (a tool container's egress proxy, a worker's
 * protocol socket) under a person's long $TMPDIR: a socket's path holds at most 107 bytes, and with a
 * $TMPDIR of 40 bytes or more the egress proxy's listen failed ("listen EINVAL: invalid argument"), so no
 * tool with network rules could start (found with TMPDIR="/work/qa16-env/tmp dir/nested one"). Their
 * folder is then made in /tmp (src-main/infra/sandbox/socket-folder.ts); a $TMPDIR with room is used.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EgressListener } from '../../../src-main/infra/sandbox/egress.ts';
import { ProtocolSocket } from '../../../src-main/infra/sandbox/protocol-socket.ts';
import { SOCKET_PATH_MAX } from '../../../src-main/infra/sandbox/socket-folder.ts';

const was = process.env['TMPDIR'];
const made: string[] = [];
afterEach(() => {
  process.env['TMPDIR'] = was;
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A $TMPDIR of `length` bytes, as a person's may be (a space in it too); made in /tmp (short). */
function tmpdirOf(length: number): string {
  const top = mkdtempSync('/tmp/long tmp-');
  made.push(top);
  const dir = join(top, 'x'.repeat(length - top.length - 1));
  mkdirSync(dir);
  expect(dir.length).toBe(length);
  process.env['TMPDIR'] = dir;
  return dir;
}

const connects = (path: string) =>
  new Promise<boolean>((resolve) => {
    const s = connect(path, () => (s.destroy(), resolve(true)));
    s.on('error', () => resolve(false));
  });

describe('the sockets for containers under a long $TMPDIR', () => {
  it('the egress proxy listens (in /tmp), on a path that fits, and is reachable', async () => {
    tmpdirOf(60);
    const l = await EgressListener.start([]);
    try {
      const sock = join(l.dir, 'proxy.sock');
      expect(Buffer.byteLength(sock)).toBeLessThanOrEqual(SOCKET_PATH_MAX);
      expect(dirname(dirname(l.dir))).toBe('/tmp');
      expect(await connects(sock)).toBe(true);
    } finally {
      await l.close();
    }
    expect(existsSync(l.dir)).toBe(false);
  });

  it('the protocol socket listens (in /tmp), on a path that fits, and is reachable', async () => {
    tmpdirOf(80);
    const p = await ProtocolSocket.start();
    try {
      expect(Buffer.byteLength(p.path)).toBeLessThanOrEqual(SOCKET_PATH_MAX);
      expect(dirname(p.dir)).toBe('/tmp');
      expect(await connects(p.path)).toBe(true);
    } finally {
      p.close();
    }
    expect(existsSync(p.dir)).toBe(false);
  });

  it('a $TMPDIR with room is where they are made, as before', async () => {
    const dir = tmpdirOf(36);
    const l = await EgressListener.start([]);
    const p = await ProtocolSocket.start();
    try {
      expect(dirname(dirname(l.dir))).toBe(dir);
      expect(dirname(p.dir)).toBe(dir);
    } finally {
      await l.close();
      p.close();
    }
  });
});
