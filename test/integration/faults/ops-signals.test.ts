/**
 * SIGTERM (what `timeout`, CI runners and service managers send) ends `run`, `exec` and `eval` the way
 * Ctrl-C does: the run is cancelled and recorded with the signal, the process exits 128+15, and no
 * container of the installation is left.
 */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { SuiteStore } from '../../../src-main/infra/store/suite-store.ts';
import { SPIN_FOREVER } from '../../support/suite-oracle.ts';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { cliProcess, installationContainers } from './support/processes.ts';

const fx = useScriptedWorkspace({
  docker: true,
  eachTest: (llm) => (llm.fallback = { text: SPIN_FOREVER }),
});

/** Waits until a container of the test's installation is running. */
const someRunning = () =>
  vi.waitFor(
    async () => expect((await installationContainers(fx.data)).some((c) => c.State === 'running')).toBe(true),
    { timeout: 90_000, interval: 200 },
  );

/** How many valid scripts the workspace's runs recorded (read while the CLI writes; the store is shared). */
const validScripts = () => {
  const store = new RunStore(join(fx.ws, '.toolsmith', 'runs.db'));
  try {
    return store
      .list({})
      .runs.flatMap((r) => store.events(r.id))
      .filter((e) => e.type === 'validation' && e.data.valid).length;
  } finally {
    store.close();
  }
};

describe('SIGTERM is handled like SIGINT', () => {
  it('run: cancelled and recorded with the signal, exit 143, no container left', async () => {
    const p = cliProcess(fx.ws, fx.data, [
      'run',
      'spin forever',
      '--sandbox',
      'ecommerce',
      '--timeout',
      '300',
    ]);
    await someRunning();
    await vi.waitFor(() => expect(fx.llm.requests.length).toBeGreaterThan(0), { timeout: 60_000 });
    // The run recorded a valid script: it is on its way into the container (or spinning there already).
    await vi.waitFor(() => expect(validScripts()).toBeGreaterThan(0), { timeout: 90_000, interval: 200 });
    p.child.kill('SIGTERM');
    const r = await p.done;
    expect(r.code).toBe(143);
    const store = new RunStore(join(fx.ws, '.toolsmith', 'runs.db'));
    const runs = store.list({}).runs;
    store.close();
    expect(runs[0]).toMatchObject({ status: 'cancelled', error: 'cancelled: the process received SIGTERM' });
    expect(await installationContainers(fx.data)).toEqual([]);
  }, 180_000);

  it('exec: the job is aborted, exit 143, no container left', async () => {
    const p = cliProcess(fx.ws, fx.data, ['exec', '--sandbox', 'ecommerce', '--timeout', '300', '-'], {});
    p.child.stdin?.end('while True:\n    pass\nemit_result(1)\n');
    await someRunning();
    p.child.kill('SIGTERM');
    const r = await p.done;
    expect(r.code).toBe(143);
    expect(await installationContainers(fx.data)).toEqual([]);
  }, 180_000);

  it('eval: the suite run is cancelled, exit 143, no container left', async () => {
    const p = cliProcess(fx.ws, fx.data, [
      'eval',
      'ecommerce',
      '--models',
      'local:spin',
      '--concurrency',
      '2',
    ]);
    await someRunning();
    p.child.kill('SIGTERM');
    const r = await p.done;
    expect(r.code).toBe(143);
    const store = new RunStore(join(fx.ws, '.toolsmith', 'runs.db'));
    const suites = new SuiteStore(store);
    const last = suites.list('ecommerce').at(0);
    const cancelled = store.list({ status: 'cancelled' }).runs;
    const interrupted = store.list({ status: 'interrupted' }).runs;
    store.close();
    expect(last?.status).toBe('cancelled');
    expect(interrupted).toEqual([]);
    expect(cancelled.some((x) => x.error === 'cancelled: the process received SIGTERM')).toBe(true);
    expect(await installationContainers(fx.data)).toEqual([]);
  }, 180_000);
});
