/**
 * JS runtimes on gVisor (docs/sandboxes.md, "Between jobs"), where JS jobs run as plain child processes of
 * the worker (gVisor refuses their namespaces):
 * - a bun job runs as a child process of the worker (the launcher's probe finds the walls refused);
 * - node is refused before any container is made, the error naming why and what to choose instead (runsc
 *   will not load the execute-only node binary; before, the first job failed with runsc's own
 *   "failed to load /usr/local/bin/node: permission denied").
 * - a process a job daemonized, killed by the sweep, is reaped (Docker's init below the worker): before,
 *   it stayed the worker's zombie (bun and node reap only the processes they started), one pid per job
 *   held until the worker was replaced. Written as the attack: TOOLSMITH_TEST_WALLS=jsescape hands the
 *   script its process's powers; the sweep stays on.
 */
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { dockerFactory, testBackend } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';

const SYS = `const sys = (op, ...args) => { const r = JSON.parse(escaped(op, ...args)); if ('error' in r) throw new Error(r.error); return r.ok; };
`;

describe('JS on gVisor', () => {
  const docker = new Docker();
  let factory: TestFactory;
  let backend: SandboxBackend;
  beforeAll(async () => {
    factory = await dockerFactory({ runtime: 'runsc', wallsOff: ['jsescape'] });
    backend = testBackend(factory, { toolsSource: '', pool: { minSize: 1, maxSize: 1, standby: 0 } });
  }, 300_000);
  afterAll(async () => {
    await backend?.dispose();
    await factory?.dispose();
  });
  const run = (runtime: 'node' | 'bun' | 'deno', code: string) =>
    backend.execute({
      sandbox: 'jsgvisor',
      runtime,
      language: 'js',
      code,
      bodyStartLine: 1,
      tools: {},
      timeoutMs: 30_000,
    });
  const mine = () =>
    docker.listContainers({
      all: true,
      filters: { label: ['toolsmith.pool=1', `toolsmith.owner=${process.pid}`] },
    });

  // gVisor refuses mounts in a child user namespace: the worker's launcher probe finds the walls missing
  // and JS jobs run as before, in child processes of the worker (js-jobns.test.ts has the other levels).
  it('a bun job runs in a child process of the worker, not pid 1 of a namespace of its own', async () => {
    const r = await run('bun', `${SYS}emitResult({ pid: sys('pid'), ppid: sys('ppid') });\n`);
    expect(r.error).toBeUndefined();
    const d = r.data as { pid: number; ppid: number };
    expect(d.pid).not.toBe(1);
    // (the worker, below Docker's init, which reaps what a job daemonized)
    expect(d.ppid).not.toBe(1);
  }, 120_000);

  it('node is refused up front: the cause named and what to choose instead, no container started', async () => {
    const before = (await mine()).length;
    const r = await run('node', 'emitResult(1);\n');
    expect(r.exitReason).toBe('infra');
    expect(r.error?.message).toMatch(/node runtime cannot run under gVisor/);
    expect(r.error?.message).toMatch(/execute-only/);
    expect(r.error?.message).toMatch(
      /choose isolation "docker" or "process" for this sandbox, or the bun runtime/,
    );
    expect(r.error?.message).not.toMatch(/OCI runtime/);
    expect((await mine()).length).toBe(before);
  }, 120_000);

  it('bun: 30 jobs that each leave a daemonized survivor leave no zombie behind', async () => {
    const failed: string[] = [];
    for (let i = 0; i < 30; i++) {
      // a detached child of the job (its own session), alive when the job ends: the sweep kills it
      const r = await run(
        'bun',
        `${SYS}sys('leave', '/usr/local/bin/bun', '-e', 'setInterval(() => {}, 1000)');\nemitResult(${i});\n`,
      );
      if (r.data !== i) failed.push(`${i}: ${r.exitReason} ${JSON.stringify(r.error)}`);
    }
    expect(failed).toEqual([]);
    const r = await run(
      'bun',
      `${SYS}const me = sys('pid');
const states = sys('list', '/proc').filter((n) => /^\\d+$/.test(n)).map(Number).filter((p) => p !== me).map((p) => {
  try { const s = sys('read', '/proc/' + p + '/stat'); return { pid: p, state: s.slice(s.lastIndexOf(')') + 2, s.lastIndexOf(')') + 3) }; } catch (e) { return { pid: p, state: 'gone' }; }
});
emitResult(states);\n`,
    );
    expect(r.error).toBeUndefined();
    const states = r.data as { pid: number; state: string }[];
    expect(states.filter((s) => s.state === 'Z')).toEqual([]);
    // the worker and the init above it; no survivor of the earlier jobs either
    expect(states.filter((s) => s.state !== 'gone').length).toBeLessThanOrEqual(2);
    // the init is no way in: its memory cannot be read by a job (gVisor refuses it to the sandbox user)
    const init = await run(
      'bun',
      `${SYS}const t = (f) => { try { return f(); } catch (e) { return 'error: ' + e.message; } };
emitResult({ cmd: sys('read', '/proc/1/cmdline'), mem: t(() => sys('read', '/proc/1/mem').length) });\n`,
    );
    expect(init.error).toBeUndefined();
    const d = init.data as { cmd: string; mem: string };
    expect(d.cmd).toMatch(/docker-init/);
    expect(d.mem).toMatch(/^error: /);
  }, 600_000);

  it('deno runs below the init too', async () => {
    const r = await run('deno', 'emitResult(6 * 7);\n');
    expect(r.error).toBeUndefined();
    expect(r.data).toBe(42);
  }, 300_000);
});
