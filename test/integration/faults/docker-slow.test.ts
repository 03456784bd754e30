/**
 * A Docker engine that is slow to answer (busy building images or starting containers on a loaded
 * machine) is not a missing one: real HTTP servers on unix sockets set as DOCKER_HOST. One answers its
 * version only after the start probe's first 3 s: the service runs Docker, not the process fallback (it
 * fell back before, so a loaded machine sent jobs to a weaker level). One takes the connection and never
 * answers: after the patience the fallback says exactly that, not "no Docker engine answered". (No
 * script runs here: the process fallback it chooses would run on this host.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxManager, dockerProbe } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let dir: string;
let ws: string;
const servers: Server[] = [];
const saved = { host: process.env['DOCKER_HOST'], patience: process.env['TOOLSMITH_DOCKER_PATIENCE_MS'] };

/** A server on a unix socket in `dir`: `/version` answered after `delayMs` (never, for Infinity). */
async function engine(name: string, delayMs: number): Promise<string> {
  const server = createServer((req, res) => {
    if (!req.url?.endsWith('/version')) {
      res.writeHead(500, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ message: 'not this test engine' }));
    }
    if (delayMs === Infinity) return; // takes the connection, says nothing
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ Version: '99.0.0-slow', ApiVersion: '1.41' }));
    }, delayMs);
  });
  const path = join(dir, `${name}.sock`);
  await new Promise<void>((r) => server.listen(path, r));
  servers.push(server);
  return path;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-slow-engine-'));
  ws = tempWorkspace();
});
afterAll(async () => {
  for (const [k, v] of [
    ['DOCKER_HOST', saved.host],
    ['TOOLSMITH_DOCKER_PATIENCE_MS', saved.patience],
  ] as const)
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  removeWorkspace(ws);
  rmSync(dir, { recursive: true, force: true });
});

describe('a Docker engine slow to answer at start', () => {
  it('one that answers after the first 3 s is the engine: its version, not the fallback', async () => {
    const path = await engine('late', 4500);
    const probed = await dockerProbe(new Docker({ socketPath: path }), 3000, 30_000);
    expect(probed).toEqual({ version: '99.0.0-slow' });
  }, 60_000);

  it('one that takes the connection and never answers is named as such in the fallback reason', async () => {
    const path = await engine('silent', Infinity);
    process.env['DOCKER_HOST'] = `unix://${path}`;
    process.env['TOOLSMITH_DOCKER_PATIENCE_MS'] = '2000';
    const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
    try {
      const status = await (await svc.execution.sandbox()).status();
      expect(status.docker.available).toBe(false);
      const named = `the Docker socket (unix://${path}) took the connection but the engine did not answer its version within 5 s`;
      expect(status.docker.error).toContain(named);
      expect(status.isolationReason).toContain(named);
      expect(status.isolationReason).not.toMatch(/no Docker engine answered/);
    } finally {
      await svc.close();
    }
  }, 60_000);
});
