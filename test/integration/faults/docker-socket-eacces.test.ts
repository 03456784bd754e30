/**
 * A Docker socket this user may not open (mode 000, as for a user outside the docker group): a real
 * engine-like HTTP server listens on it, and `toolsmith pool status` runs as a user other than root
 * (`nobody` when the tests run as root), for whom connect() fails with EACCES. The status, the fallback
 * reason and `TOOLSMITH_BACKEND=docker`'s refusal (in the status) name the socket and the permission problem (add the
 * user to the docker group), never "no Docker engine answered". (No script runs: the process fallback
 * it chooses would run on this host.)
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, toolsmithArgv } from '../../support/toolsmith-process.ts';
import type { ToolsmithOutput } from '../../support/toolsmith-process.ts';
import { copyWorkspace, sampleWorkspace } from '../../support/workspace.ts';

const NOBODY = 65534;
let dir: string;
let socket: string;
let server: Server;
let asked = 0;

/** Who runs the CLI: nobody when the tests run as root, else this user (who is not root either). */
const asUser = process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : {};

/** Hands a folder and everything in it to the user who runs the CLI (nothing to do as that user). */
function giveAway(path: string): void {
  if (!('uid' in asUser)) return;
  chownSync(path, NOBODY, NOBODY);
  for (const e of readdirSync(path, { withFileTypes: true }))
    if (e.isDirectory()) giveAway(join(path, e.name));
    else chownSync(join(path, e.name), NOBODY, NOBODY);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-eacces-'));
  chmodSync(dir, 0o755);
  for (const sub of ['ws', 'data', 'home']) mkdirSync(join(dir, sub));
  copyWorkspace(sampleWorkspace, join(dir, 'ws'));
  for (const sub of ['ws', 'data', 'home']) giveAway(join(dir, sub));
  socket = join(dir, 'docker.sock');
  server = createServer((req, res) => {
    asked++;
    res.writeHead(200, { 'content-type': 'text/plain', 'api-version': '1.43' });
    res.end(req.url?.endsWith('/_ping') ? 'OK' : '{}');
  });
  await new Promise<void>((r) => server.listen(socket, r));
  chmodSync(socket, 0o000);
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** `toolsmith pool status --json` as the other user, DOCKER_HOST at the socket. */
function poolStatus(env: Record<string, string> = {}): Promise<ToolsmithOutput> {
  return runCommand(...toolsmithArgv(join(dir, 'ws'), ['pool', 'status', '--json']), {
    ...asUser,
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: join(dir, 'home'),
      TOOLSMITH_DATA_DIR: join(dir, 'data'),
      DOCKER_HOST: `unix://${socket}`,
      ...env,
    },
  });
}

const said = () =>
  `the Docker socket ${socket} (DOCKER_HOST) cannot be opened by this user (EACCES: permission denied): add the user to the docker group and log in again, or point DOCKER_HOST at a socket you may use`;

describe('a Docker socket this user may not open', () => {
  it('the socket answers whoever may open it', async () => {
    // A working engine stand-in: only the socket's mode keeps the other user out.
    chmodSync(socket, 0o666);
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const req = request({ socketPath: socket, path: '/_ping' }, (res) => {
          let b = '';
          res.on('data', (d: Buffer) => (b += d.toString()));
          res.on('end', () => resolve(b));
        });
        req.on('error', reject);
        req.end();
      });
      expect(body).toBe('OK');
    } finally {
      chmodSync(socket, 0o000);
    }
  });

  it('the status and the fallback reason name the socket and the permission problem', async () => {
    const before = asked;
    const r = await poolStatus();
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const s = JSON.parse(r.out) as {
      docker: { available: boolean; error?: string; hint?: string };
      isolationReason?: string;
    };
    expect(s.docker.available).toBe(false);
    expect(s.docker.error).toBe(said());
    expect(s.docker.hint).toMatch(/^Docker need not be installed again: fix the socket as the error says\./);
    expect(s.isolationReason?.startsWith(`${said()} at `)).toBe(true);
    expect(s.isolationReason).toContain('the process fallback');
    expect(s.isolationReason).not.toMatch(/no Docker engine answered/);
    // The kernel refused the connection: the server never saw the request.
    expect(asked).toBe(before);
  }, 60_000);

  it('with TOOLSMITH_BACKEND=docker nothing falls back, and the status names the socket and the problem', async () => {
    const r = await poolStatus({ TOOLSMITH_BACKEND: 'docker' });
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const s = JSON.parse(r.out) as { docker: { available: boolean; error?: string; hint?: string } };
    expect(s.docker.available).toBe(false);
    expect(s.docker.error).toBe(`TOOLSMITH_BACKEND=docker but ${said()}`);
    expect(s.docker.hint).toBe('Docker need not be installed again: fix the socket as the error says.');
  }, 60_000);
});
