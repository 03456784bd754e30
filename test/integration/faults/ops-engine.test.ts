/**
 * The Docker engine comes and goes under a long-lived service (a second dockerd of the test's own, on
 * its own socket; the machine's shared engine is never touched):
 * - started while no engine answers, the service runs the process fallback, says so (and why) in every
 *   result and in the status, and switches to Docker once the engine answers;
 * - the engine killed mid-job: the job's result names the engine, not the script; restarted (and seen
 *   by the probe of the fallback that ran meanwhile), the next job runs in Docker again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSandboxManager, imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { PushEvent } from '../../../src-main/contract/api.ts';
import { buildImage } from '../../../src-main/infra/sandbox/images.ts';
import { waitSpinning } from '../../support/spinning.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { startSecondDockerd } from '../sandbox/support/second-dockerd.ts';
import type { SecondEngine } from '../sandbox/support/second-dockerd.ts';

let engineDir: string;
let dataDir: string;
let ws: string;
let second: SecondEngine | undefined;
let svc: ToolsmithService;
let tag: string;
const saved = { DOCKER_HOST: process.env['DOCKER_HOST'], DATA: process.env['TOOLSMITH_DATA_DIR'] };
const events: PushEvent[] = [];

beforeAll(async () => {
  try {
    await new Docker().ping();
  } catch (e) {
    throw new Error(`no Docker engine answers (${(e as Error).message}): start dockerd (.ci/run does)`);
  }
  tag = await buildImage(new Docker(), 'python', imagePaths());
  engineDir = mkdtempSync('/tmp/tsd-');
  dataDir = mkdtempSync(join(tmpdir(), 'toolsmith-data-'));
  process.env['DOCKER_HOST'] = `unix://${join(engineDir, 'docker.sock')}`;
  process.env['TOOLSMITH_DATA_DIR'] = dataDir;
  ws = tempWorkspace();
  svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
  svc.onPush((e) => events.push(e));
});

afterAll(async () => {
  await svc?.close();
  await second?.stop();
  rmSync(engineDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
  removeWorkspace(ws);
  for (const [k, v] of [
    ['DOCKER_HOST', saved.DOCKER_HOST],
    ['TOOLSMITH_DATA_DIR', saved.DATA],
  ] as const)
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

const run = (body: string, timeoutMs = 60_000) =>
  svc.execution.executeScript({ sandbox: 'ecommerce', language: 'python', body, timeoutMs });

/**
 * Waits until the job spins in a container of `client`: the pool gave it to a worker, and the script is
 * in the container and running.
 */
/** Until the pool has a job in a worker (busy). */
async function busy(): Promise<void> {
  await vi.waitFor(async () => expect((await svc.system.status()).pools.some((p) => p.busy > 0)).toBe(true), {
    timeout: 60_000,
    interval: 100,
  });
}

async function spinning(client: Docker): Promise<void> {
  await busy();
  await waitSpinning(client, () => client.listContainers());
}

// The tests are steps of one story on one second engine and one service, in this order: never shuffled
// (`--sequence.shuffle`), which would start the story in its middle.
describe('a long-lived service follows the Docker engine', { shuffle: false }, () => {
  it('starts on the fallback, says why, and moves new jobs to Docker once the engine answers', async () => {
    const first = await run('emit_result(1)\n');
    expect(first.success).toBe(true);
    expect(first.isolation).not.toBe('docker');
    expect(first.isolationReason).toMatch(/no Docker engine answered \(unix:\/\/.*docker\.sock\) at /);
    expect(first.isolationReason).toContain('new jobs go to Docker once it answers');
    const status = await svc.system.status();
    expect(status.isolationReason).toBe(first.isolationReason);

    second = await startSecondDockerd([tag], {
      dir: engineDir,
      ...(saved.DOCKER_HOST ? { sourceHost: saved.DOCKER_HOST } : {}),
    });
    await vi.waitFor(() => expect(events.some((e) => e.type === 'engine_changed')).toBe(true), {
      timeout: 90_000,
      interval: 250,
    });
    const next = await run('emit_result(2)\n');
    expect(next.error).toBeUndefined();
    expect(next.isolation).toBe('docker');
    expect(next.isolationReason).toBeUndefined();
    expect((await svc.system.status()).isolation).toBe('docker');
  }, 240_000);

  it('names the engine when it dies mid-job, and runs in Docker again once it is back', async () => {
    expect(second).toBeDefined();
    const engine = second!;
    const job = run('while True:\n    pass\nemit_result(0)\n', 120_000);
    // The job is running in a container of the second engine: kill the engine under it.
    const client = new Docker({ socketPath: engine.socket });
    await spinning(client);
    await engine.kill();
    const r = await job;
    expect(r.success).toBe(false);
    expect(r.exitReason).toBe('infra');
    expect(r.error?.message).toMatch(/Docker engine .* (stopped answering|does not answer)/);
    expect(r.error?.message).not.toMatch(/the worker closed its output/);

    // The engine gone, new jobs went to the process fallback (docker-engine-lost.test.ts): once the
    // restarted engine answers the probe, they go back to Docker.
    const backBefore = events.filter((e) => e.type === 'engine_changed' && e.isolation === 'docker').length;
    await engine.restart();
    await vi.waitFor(
      () =>
        expect(events.filter((e) => e.type === 'engine_changed' && e.isolation === 'docker').length).toBe(
          backBefore + 1,
        ),
      { timeout: 90_000, interval: 250 },
    );
    const after = await run('emit_result(3)\n');
    expect(after.error).toBeUndefined();
    expect(after.data).toBe(3);
    expect(after.isolation).toBe('docker');

    // A `docker pause`d worker: the timeout names the pause, not the script.
    const client2 = new Docker({ socketPath: engine.socket });
    // Paused as soon as the job is in its worker (not after a CPU second of spinning, which on a loaded
    // machine could take most of the job's limit: it then ended as a plain timeout before the pause).
    const spin = run('while True:\n    pass\nemit_result(0)\n', 20_000);
    await busy();
    for (const c of await client2.listContainers())
      await client2
        .getContainer(c.Id)
        .pause()
        .catch(() => {});
    const paused = await spin;
    expect(paused.exitReason).toBe('infra');
    expect(paused.error?.message).toMatch(/was paused \(docker pause\)/);
  }, 300_000);
});
