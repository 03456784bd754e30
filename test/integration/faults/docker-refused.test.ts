/**
 * A Docker socket that answers 403 (an authorization plugin, a socket proxy that refuses this user): a
 * real HTTP server on a unix socket set as DOCKER_HOST. The service says that socket refused access with
 * HTTP 403 and what it said, never "no Docker engine answered". (No script runs here: the process
 * fallback it chooses would run on this host.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let dir: string;
let ws: string;
let server: Server;
let asked = 0;
const saved = process.env['DOCKER_HOST'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-authz-'));
  ws = tempWorkspace();
  server = createServer((req, res) => {
    asked++;
    res.writeHead(403, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        message: `authorization denied by plugin opa: ${req.method} ${req.url} is not allowed`,
      }),
    );
  });
  await new Promise<void>((r) => server.listen(join(dir, 'docker.sock'), r));
  process.env['DOCKER_HOST'] = `unix://${join(dir, 'docker.sock')}`;
});
afterAll(async () => {
  if (saved === undefined) delete process.env['DOCKER_HOST'];
  else process.env['DOCKER_HOST'] = saved;
  await new Promise((r) => server.close(r));
  removeWorkspace(ws);
  rmSync(dir, { recursive: true, force: true });
});

describe('a Docker socket that answers 403', () => {
  it('the status and the fallback reason name the socket, the 403 and what it said', async () => {
    const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
    try {
      const status = await (await svc.execution.sandbox()).status();
      expect(asked).toBeGreaterThan(0);
      expect(status.docker.available).toBe(false);
      const socket = join(dir, 'docker.sock');
      const named = new RegExp(
        `the Docker socket \\(unix://${socket.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\) answered HTTP 403 Forbidden \\(authorization denied by plugin opa: GET /.*version is not allowed\\)`,
      );
      expect(status.docker.error).toMatch(named);
      expect(status.isolationReason).toMatch(named);
      expect(status.isolationReason).not.toMatch(/no Docker engine answered/);
      expect(status.docker.hint).toMatch(
        /^Docker need not be installed again: fix the socket as the error says\./,
      );
    } finally {
      await svc.close();
    }
  }, 60_000);
});
