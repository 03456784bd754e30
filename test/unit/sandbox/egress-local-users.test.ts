/**
 * Another user of the host as the attacker against a sandbox's egress proxy. Its socket must be open to
 * the container's user (65534), so it is 0666; in a folder every user could list (`/tmp/toolsmith-egress-*`)
 * anyone could connect, fill the proxy's connections and send requests to the allowed hosts that the
 * running job's trace records as its own. Here uid 12345 (no container's, no Toolsmith's) looks in the
 * listener's folder in /tmp, as `ls /tmp` shows it, and sends a request through every socket it finds;
 * then it, and uid 65534 (the uid the container's user is on the host: `nobody`), are given the socket's
 * exact path, as tool code reads it in `/proc/self/mountinfo` (the bind mount's source) and could hand it
 * on: the path is no secret, the folder above it (0700, Toolsmith's own) is what keeps them out.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EgressRecord } from '../../../src-main/core/sandbox/execution.ts';
import { EgressListener, parseAllow } from '../../../src-main/infra/sandbox/egress.ts';

let server: Server;
let port: number;
let hits = 0;
let proxy: EgressListener;
const records: EgressRecord[] = [];

beforeAll(async () => {
  server = createServer((_req, res) => {
    hits++;
    res.end('reached');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
  proxy = await EgressListener.start(parseAllow([`127.0.0.1:${port}`]));
  proxy.onRecord = (r) => records.push(r);
});
afterAll(async () => {
  await proxy?.close();
  server?.close();
});

/** Runs `sh -c script` as uid/gid 12345 (or `uid`); its output and exit status. */
const asAnotherUser = (script: string, uid = 12345) =>
  new Promise<{ code: number | null; out: string }>((resolve) => {
    const p = spawn('sh', ['-c', script], { uid, gid: uid, cwd: '/' });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (out += d.toString()));
    p.on('close', (code) => resolve({ code, out }));
  });

describe("a sandbox's egress proxy, from another user of the host", () => {
  it('finds no socket to connect to: nothing reaches the allowed host, nothing is recorded', async () => {
    // The listener's folder in /tmp, as any user lists it (only this listener's: other processes' are not touched).
    // ($TMPDIR's, or /tmp's when a long $TMPDIR leaves a socket's path no room: socket-folder.ts)
    const top = dirname(proxy.dir);
    expect(basename(top)).toMatch(/^toolsmith-egress-/);
    expect([tmpdir(), '/tmp']).toContain(dirname(top));
    const r = await asAnotherUser(
      `for s in $(find '${top}' -name proxy.sock 2>/dev/null); do echo "found $s"; ` +
        `curl -s --max-time 5 --unix-socket "$s" --request-target http://127.0.0.1:${port}/from-another-user http://127.0.0.1:${port}/; echo; done`,
    );
    expect(r.out).not.toContain('reached');
    expect(r.out).not.toContain('found');
    expect(hits).toBe(0);
    expect(records).toEqual([]);
    // The container's way still works: the socket is where the container mounts it, open to its user.
    expect(existsSync(join(proxy.dir, 'proxy.sock'))).toBe(true);
  });

  it.each([
    ['another user (uid 12345)', 12345],
    ["the container user's uid on the host (65534, nobody)", 65534],
  ])(
    "%s given the socket's exact path cannot connect: nothing reaches the allowed host, nothing is recorded",
    async (_who, uid) => {
      const sock = join(proxy.dir, 'proxy.sock');
      // The path is right: the socket is there (as Toolsmith's own user sees it).
      expect(statSync(sock).isSocket()).toBe(true);
      const connect =
        'import socket, sys\n' +
        's = socket.socket(socket.AF_UNIX)\n' +
        'try:\n' +
        '    s.connect(sys.argv[1])\n' +
        '    print("connected")\n' +
        'except OSError as e:\n' +
        '    print(type(e).__name__)\n';
      const r = await asAnotherUser(
        `/usr/bin/python3 -I -c '${connect}' '${sock}'; ` +
          `curl -s --max-time 5 --unix-socket '${sock}' --request-target http://127.0.0.1:${port}/leaked http://127.0.0.1:${port}/; echo`,
        uid,
      );
      expect(r.out).toContain('PermissionError');
      expect(r.out).not.toContain('connected');
      expect(r.out).not.toContain('reached');
      expect(hits).toBe(0);
      expect(records).toEqual([]);
    },
  );
});
