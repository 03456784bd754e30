/**
 * The engine's socket path holds something that is not a socket (a regular file left by a copy or a
 * wrong bind mount; a folder): DOCKER_HOST points there. The status and the fallback reason say that
 * path is not a socket and what to do, never "no Docker engine answered". (No script runs here: the
 * process fallback it chooses would run on this host.)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let dir: string;
let ws: string;
const saved = process.env['DOCKER_HOST'];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-sockfile-'));
  ws = tempWorkspace();
  writeFileSync(join(dir, 'file.sock'), 'not a socket\n');
  mkdirSync(join(dir, 'folder.sock'));
});
afterAll(() => {
  if (saved === undefined) delete process.env['DOCKER_HOST'];
  else process.env['DOCKER_HOST'] = saved;
  removeWorkspace(ws);
  rmSync(dir, { recursive: true, force: true });
});

describe('a Docker socket path that is not a socket', () => {
  it.each([
    ['file.sock', 'a regular file'],
    ['folder.sock', 'a folder'],
  ])(
    '%s: the status and the fallback reason say it is %s, not a socket',
    async (name, kind) => {
      const socket = join(dir, name);
      process.env['DOCKER_HOST'] = `unix://${socket}`;
      const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
      try {
        const status = await (await svc.execution.sandbox()).status();
        expect(status.docker.available).toBe(false);
        const said = `the Docker socket ${socket} (DOCKER_HOST) is ${kind}, not a socket, so no engine can answer there`;
        expect(status.docker.error).toContain(said);
        expect(status.isolationReason).toContain(said);
        expect(status.isolationReason).not.toMatch(/no Docker engine answered/);
      } finally {
        await svc.close();
      }
    },
    60_000,
  );
});
