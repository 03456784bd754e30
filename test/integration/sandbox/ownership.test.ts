/**
 * Leftover cleanup removes only containers of its own installation (an id written once in the user data
 * dir and put on every container at create time), and of those only the ones whose Toolsmith process is
 * no longer running. Containers of another installation on the same engine survive, whatever their
 * labels say about process ids (a shared or remote engine: those pids mean nothing here).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import { DockerWorkerFactory, POOL_LABEL } from '../../../src-main/infra/sandbox/docker.ts';
import { buildImage, imageTag } from '../../../src-main/infra/sandbox/images.ts';
import {
  Installation,
  INSTALLATION_LABEL,
  INSTANCE_LABEL,
} from '../../../src-main/infra/sandbox/installation.ts';
import type { SandboxSpec } from '../../../src-main/infra/sandbox/pool.ts';

const docker = new Docker();
const paths = imagePaths();
const spec: SandboxSpec = {
  name: 'owned',
  runtime: 'python',
  toolsSource: '',
  hostTools: [],
  credentials: {},
};
const dirs: string[] = [];
const factories: DockerWorkerFactory[] = [];
const extra: string[] = [];

const dir = () => {
  const d = mkdtempSync(join(tmpdir(), 'toolsmith-install-'));
  dirs.push(d);
  return d;
};
const factory = async (inst: Installation, start = true) => {
  const f = new DockerWorkerFactory(docker, (rt) => buildImage(docker, rt, paths), undefined, {
    installation: inst,
  });
  factories.push(f);
  if (start) await f.start();
  return f;
};
/** A pid no process has now (a process that ran and exited). */
const deadPid = () => spawnSync('true').pid;
/** The instance's process died without cleaning up: its registry entry names a process that is gone. */
/**
 * A process that crashed: its entry names a dead pid, and nothing of it runs any more (its keeper, which
 * writes a removed entry back every 500 ms, stops: a crashed process has no timers).
 */
const crash = (inst: Installation) => {
  inst.unregister();
  writeFileSync(join(inst.dir, 'instances', `${inst.instance}.json`), JSON.stringify({ pid: deadPid() }));
};
const exists = (id: string) =>
  docker
    .getContainer(id)
    .inspect()
    .then(
      () => true,
      () => false,
    );

afterAll(async () => {
  for (const f of factories) await f.dispose().catch(() => {});
  for (const id of extra)
    await docker
      .getContainer(id)
      .remove({ force: true })
      .catch(() => {});
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('installation-owned leftover cleanup', () => {
  it('the installation id is written once in the user data dir and reused', () => {
    const d = dir();
    const a = new Installation(d);
    const b = new Installation(d);
    expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.id).toBe(a.id);
    expect(readFileSync(join(d, 'installation-id'), 'utf8').trim()).toBe(a.id);
    expect(b.instance).not.toBe(a.instance);
    writeFileSync(join(d, 'installation-id'), 'x\n');
    expect(() => new Installation(d)).toThrow(/does not hold an installation id/);
  });

  it('removes its own dead instances’ containers only; other installations and live instances survive', async () => {
    const mine = dir();
    const theirs = dir();
    // This installation: one process that crashed, one that still runs.
    const crashed = new Installation(mine);
    const running = new Installation(mine);
    const c1 = await (await factory(crashed)).spawn(spec);
    const c2 = await (await factory(running)).spawn(spec);
    crash(crashed);
    // Another installation on the same engine, crashed too: its containers are not ours to remove.
    const other = new Installation(theirs);
    const c3 = await (await factory(other)).spawn(spec);
    crash(other);
    // A container of the other installation whose (informational) pid label names a dead local process:
    // cleanup by local pid would take it.
    const tag = imageTag('python', paths);
    const c4 = await docker.createContainer({
      Image: tag,
      Labels: {
        [POOL_LABEL]: '1',
        [INSTALLATION_LABEL]: other.id,
        [INSTANCE_LABEL]: other.instance,
        'toolsmith.owner': String(deadPid()),
      },
      HostConfig: { NetworkMode: 'none' },
    });
    extra.push(c3.id, c4.id);
    const labels = (await docker.getContainer(c1.id).inspect()).Config.Labels;
    expect(labels).toMatchObject({ [INSTALLATION_LABEL]: crashed.id, [INSTANCE_LABEL]: crashed.instance });

    const later = new Installation(mine);
    expect(later.id).toBe(crashed.id);
    const removed = await (await factory(later, false)).start();
    expect(removed).toBe(1);
    expect(await exists(c1.id)).toBe(false);
    expect(await exists(c2.id)).toBe(true);
    expect(await exists(c3.id)).toBe(true);
    expect(await exists(c4.id)).toBe(true);
    // The crashed instance's stale entry is dropped; the running one stays registered.
    expect(existsSync(join(mine, 'instances', `${crashed.instance}.json`))).toBe(false);
    expect(later.runningInstances().sort()).toEqual([running.instance, later.instance].sort());
    // The other installation, started again, takes its own leftovers (and only those).
    const otherLater = await factory(new Installation(theirs), false);
    expect(await otherLater.start()).toBe(2);
    expect(await exists(c3.id)).toBe(false);
    expect(await exists(c4.id)).toBe(false);
    expect(await exists(c2.id)).toBe(true);
    await c2.conn.kill('test over');
  }, 120_000);
});
