/**
 * `toolsmith mcp --http` stopped (SIGTERM) as a real process with a script running and a standby ready:
 * closing its sessions cancels the call, and the pool must not replace the ended worker or start a new
 * standby once shutdown began (the front end calls the service's beginShutdown before it closes its
 * sessions, as the stdio path does). Counted in the engine's event log: no container created after
 * the stop, none left.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { connectMcpHttp, startMcpHttpProcess } from '../mcp/support/mcp-http-process.ts';
import { engineNow, installationContainers, installationCreatesSince } from './support/processes.ts';

const fx = useScriptedWorkspace({ docker: true, dataPerTest: true });
const TOKEN = 'a-test-token-that-is-long-enough-0123456789';
const SPIN = 'while True:\n    pass\nemit_result(1)\n';

describe('mcp --http: stop', () => {
  it('SIGTERM with a script running and a standby ready: no container is created once shutdown began', async () => {
    const config = join(fx.ws, '.toolsmith/config.toml');
    const before = readFileSync(config, 'utf8');
    // One job per container: the job that the stop cancels ends its worker, which the pool would replace.
    writeFileSync(
      config,
      before
        .replace('standby = 0', 'standby = 1')
        .replace('max_jobs_per_container = 500', 'max_jobs_per_container = 1'),
    );
    onTestFinished(() => writeFileSync(config, before));
    const server = await startMcpHttpProcess(fx.ws, ['--token-env', 'TS_MCP_TOKEN'], {
      TS_MCP_TOKEN: TOKEN,
      TOOLSMITH_DATA_DIR: fx.data,
    });
    onTestFinished(() => server.stop());
    const client = await connectMcpHttp(server.url, TOKEN, 'stop');
    const call = client
      .callTool({ name: 'code', arguments: { code: SPIN } }, undefined, { timeout: 600_000 })
      .catch((e: unknown) => e);
    // The script runs in one container, the standby waits in another.
    await vi.waitFor(
      async () =>
        expect((await installationContainers(fx.data)).filter((x) => x.State === 'running')).toHaveLength(2),
      { timeout: 120_000, interval: 100 },
    );
    const began = await engineNow();
    await server.stop();
    // The call's stream was cut by the stop: closing the client ends it here.
    await client.close().catch(() => {});
    await call;
    expect(await installationCreatesSince(fx.data, began)).toEqual([]);
    expect(await installationContainers(fx.data)).toEqual([]);
  }, 240_000);
});
