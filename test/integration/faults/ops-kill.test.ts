/**
 * SIGKILL (nothing can be handled) of the CLI and of `serve` mid-run: the run reads `interrupted` with
 * its reason (the process's pid, the host, when it was last seen); the killed process's container, still
 * spinning, is listed and removed by `toolsmith pool prune`, or removed by the next start of a verb of
 * the same installation that may run a sandbox (not `runs list`, `template list`: they make none). Each
 * test has its own installation (TOOLSMITH_DATA_DIR): nobody else's containers are ever listed or removed.
 */
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { SPIN_FOREVER } from '../../support/suite-oracle.ts';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { cliProcess, installationContainers, startServe } from './support/processes.ts';

// Each test its own installation: nobody else's containers are ever listed or removed.
const fx = useScriptedWorkspace({
  docker: true,
  dataPerTest: true,
  eachTest: (llm) => (llm.fallback = { text: SPIN_FOREVER }),
});

const spinning = () =>
  vi.waitFor(
    async () => expect((await installationContainers(fx.data)).some((c) => c.State === 'running')).toBe(true),
    { timeout: 90_000, interval: 200 },
  );

function lastRun() {
  const store = new RunStore(join(fx.ws, '.toolsmith', 'runs.db'));
  try {
    return store.list({}).runs[0];
  } finally {
    store.close();
  }
}

describe('a process killed with SIGKILL mid-run', () => {
  it('CLI run: the run reads interrupted with its reason; pool prune lists and removes the container', async () => {
    const p = cliProcess(fx.ws, fx.data, ['run', 'spin', '--sandbox', 'ecommerce', '--timeout', '300']);
    await spinning();
    await vi.waitFor(() => expect(fx.llm.requests.length).toBeGreaterThan(0), { timeout: 60_000 });
    const pid = p.child.pid!;
    p.child.kill('SIGKILL');
    await p.done;
    const run = lastRun();
    expect(run?.status).toBe('interrupted');
    expect(run?.error).toMatch(
      new RegExp(`^its process \\(pid ${pid} on .+\\) ended before the run finished; last seen \\d{4}-`),
    );
    // The container is still there (nothing could remove it) ...
    expect((await installationContainers(fx.data)).length).toBeGreaterThan(0);
    // ... until `pool prune`, which names it and its process.
    const dry = await cliProcess(fx.ws, fx.data, ['pool', 'prune', '--dry-run', '--json']).done;
    expect(dry.code).toBe(0);
    const listed = JSON.parse(dry.out) as { leftovers: { ownerPid: number; sandbox: string }[] };
    expect(listed.leftovers.length).toBeGreaterThan(0);
    expect(listed.leftovers.every((c) => c.ownerPid === pid && c.sandbox === 'ecommerce')).toBe(true);
    const pruned = await cliProcess(fx.ws, fx.data, ['pool', 'prune']).done;
    expect(pruned.code).toBe(0);
    expect(pruned.out).toMatch(/removed [0-9a-f]{12} .* made by pid \d+/);
    expect(await installationContainers(fx.data)).toEqual([]);
    const again = await cliProcess(fx.ws, fx.data, ['pool', 'prune']).done;
    expect(again.out).toBe('no leftover containers\n');
  }, 240_000);

  it('serve: the run reads interrupted; the next start of a verb that may run a sandbox removes the container', async () => {
    const p = cliProcess(fx.ws, fx.data, [
      'serve',
      '--port',
      '0',
      '--renderer',
      join(fx.data, 'no-renderer'),
    ]);
    await vi.waitFor(() => expect(p.out()).toMatch(/\?token=/), { timeout: 60_000 });
    const url = new URL(/(http:\/\/\S+)/.exec(p.out())![1]!);
    const token = url.searchParams.get('token')!;
    const res = await fetch(`${url.origin}/api/runs.start`, {
      method: 'POST',
      headers: { origin: url.origin, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ task: 'spin', sandbox: 'ecommerce', timeoutS: 300 }),
    });
    const started = (await res.json()) as { ok: boolean; value: { runId: string } };
    expect(started.ok).toBe(true);
    await spinning();
    const pid = p.child.pid!;
    p.child.kill('SIGKILL');
    await p.done;
    const store = new RunStore(join(fx.ws, '.toolsmith', 'runs.db'));
    const rec = store.get(started.value.runId);
    store.close();
    expect(rec?.status).toBe('interrupted');
    expect(rec?.error).toMatch(new RegExp(`pid ${pid} on `));
    expect((await installationContainers(fx.data)).length).toBeGreaterThan(0);
    // `runs list` makes no container and sweeps none (docs/reliability.md): the run reads interrupted,
    // the container stays ...
    const list = await cliProcess(fx.ws, fx.data, ['runs', 'list', '--status', 'interrupted']).done;
    expect(list.code).toBe(0);
    expect(list.out).toContain('interrupted');
    expect(list.err).not.toMatch(/removed \d+ container/);
    expect((await installationContainers(fx.data)).length).toBeGreaterThan(0);
    // ... until the next start of a verb that may run a sandbox (here: pool status), which removes it.
    // (Two removers race in that start: the verb's sweep, which says "removed N container(s) ...", and
    // the sandbox factory's own start, which removes leftovers without a word; whichever lists it first
    // removes it. The line is therefore not asserted here: the container being gone is.)
    const status = await cliProcess(fx.ws, fx.data, ['pool', 'status']).done;
    expect(status.code).toBe(0);
    expect(await installationContainers(fx.data)).toEqual([]);
  }, 240_000);
});

describe('pool status of the installation', () => {
  it("shows another process's live pool by owner and sandbox, and what a killed one left", async () => {
    const p = cliProcess(fx.ws, fx.data, ['run', 'spin', '--sandbox', 'ecommerce', '--timeout', '300']);
    await spinning();
    const pid = p.child.pid!;
    const live = await cliProcess(fx.ws, fx.data, ['pool', 'status']).done;
    expect(live.code).toBe(0);
    expect(live.out).toContain('no pool in this process');
    expect(live.out).toMatch(/containers of this installation \(every Toolsmith process\): \d+/);
    expect(live.out).toMatch(
      new RegExp(`pid ${pid} sandbox ecommerce: \\d+ container\\(s\\) \\([^)]*running[^)]*\\)\\n`),
    );
    p.child.kill('SIGKILL');
    await p.done;
    const left = await cliProcess(fx.ws, fx.data, ['pool', 'status']).done;
    // (every start prunes leftovers: a verb that starts the service would already have removed them;
    // `pool status` lists before anything else runs, or finds them gone)
    expect(left.out).toMatch(
      new RegExp(
        `pid ${pid} sandbox ecommerce: .* left by a stopped process: toolsmith pool prune|no container of this installation is running`,
      ),
    );
    await cliProcess(fx.ws, fx.data, ['pool', 'prune']).done;
    expect(await installationContainers(fx.data)).toEqual([]);
  }, 240_000);
});

describe('the data folder removed under a live serve', () => {
  it('serve writes its installation id and its entry back: no new installation is made, and its live container is never taken for a leftover', async () => {
    const serve = await startServe(fx.ws, fx.data);
    try {
      await serve.call('runs.start', { task: 'spin', sandbox: 'ecommerce', timeoutS: 300 });
      await spinning();
      const id = readFileSync(join(fx.data, 'installation-id'), 'utf8').trim();
      // The folder goes at once, as for a person's `rm -rf` seen between two of serve's looks: removed in
      // place file by file, a look could fall between the id's removal and the folder's (under load), and
      // serve then rightly says only that the id file was removed, and writes into the folder being removed.
      const gone = `${fx.data}.gone`;
      renameSync(fx.data, gone);
      rmSync(gone, { recursive: true, force: true });
      // Before: nothing was said, the next process made a new installation id, and serve's containers
      // (labelled with the old one) belonged to no installation.
      await vi.waitFor(
        () =>
          expect(serve.err()).toMatch(
            new RegExp(
              `the data folder .+? was removed while this process \\(pid ${serve.child.pid}\\) runs; it wrote back its installation id ${id} \\(the one its sandbox containers are labelled with\\) and its entry as a running instance`,
            ),
          ),
        { timeout: 10_000, interval: 100 },
      );
      expect(readFileSync(join(fx.data, 'installation-id'), 'utf8').trim()).toBe(id);
      // Another process of the installation: serve's container is live, not a leftover.
      const dry = await cliProcess(fx.ws, fx.data, ['pool', 'prune', '--dry-run', '--json']).done;
      expect(dry.code, dry.err).toBe(0);
      expect((JSON.parse(dry.out) as { leftovers: unknown[] }).leftovers).toEqual([]);
      expect(readFileSync(join(fx.data, 'installation-id'), 'utf8').trim()).toBe(id);
      expect((await installationContainers(fx.data)).some((c) => c.State === 'running')).toBe(true);
    } finally {
      await serve.stop();
    }
    // serve's SIGTERM removed its container: none is left under the installation it wrote back.
    await vi.waitFor(async () => expect(await installationContainers(fx.data)).toEqual([]), {
      timeout: 30_000,
      interval: 500,
    });
  }, 240_000);
});
