/**
 * The store's files made unwritable mid-run (`chattr +i` on ext4, as root): the events of a run in
 * flight are held in memory and written once the files can be written again; the run goes on and
 * ends as it would have; `runs.cancel` works meanwhile; a new run is refused naming the file and why.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { cliProcess, startServe } from './support/processes.ts';
import type { ServeProcess } from './support/processes.ts';

const fx = useScriptedWorkspace({ dataPerTest: true, eachTest: () => {} });
const files = () => [join(fx.ws, '.toolsmith', 'runs.db'), join(fx.ws, '.toolsmith', 'runs.db-wal')];
const chattr = (flag: '+i' | '-i') => {
  for (const f of files()) if (existsSync(f)) execFileSync('chattr', [flag, f]);
};
let serve: ServeProcess | undefined;
/** `.toolsmith` bind-mounted read-only on itself (only that folder; the test's own mount). */
let roMount: string | undefined;
afterEach(async () => {
  // The mount first: chattr on a read-only mount fails.
  if (roMount) execFileSync('umount', [roMount]);
  roMount = undefined;
  chattr('-i');
  if (serve && serve.child.exitCode === null) await serve.stop();
  serve = undefined;
});

/** A run as another process reads it from the file. */
async function stored(runId: string): Promise<{ status: string; events: number } | undefined> {
  const r = await cliProcess(fx.ws, fx.data, ['runs', 'export', runId]).done;
  if (r.code !== 0) return undefined;
  const doc = JSON.parse(r.out) as { events: { type: string; data: { status?: string } }[] };
  const fin = doc.events.find((e) => e.type === 'run_finished');
  return { status: fin?.data.status ?? 'running', events: doc.events.length };
}

describe('the store made unwritable mid-run', () => {
  it('holds the run’s events, writes them when the files are writable again; a new run is refused with the reason', async () => {
    if (process.getuid?.() !== 0) throw new Error('chattr needs root');
    serve = await startServe(fx.ws, fx.data);
    fx.llm.push({ text: 'no code', delayMs: 3000 });
    fx.llm.fallback = { text: 'no code' };
    const { runId } = await serve.call<{ runId: string }>('runs.start', {
      task: 'held run',
      sandbox: 'ecommerce',
    });
    await vi.waitFor(() => expect(fx.llm.requests.length).toBeGreaterThan(0), { timeout: 60_000 });
    chattr('+i');
    // The run goes on in the process and ends (its reads include the held events).
    let live: { status: string } | undefined;
    await vi.waitFor(
      async () => {
        live = await serve!.call<{ status: string }>('runs.get', { runId });
        expect(live.status).not.toBe('running');
      },
      { timeout: 60_000, interval: 200 },
    );
    // A new run cannot be recorded: refused, naming the file and the cause.
    await expect(serve.call('runs.start', { task: 'new run', sandbox: 'ecommerce' })).rejects.toThrow(
      /the run store cannot be written: a new run could not be written to .+?runs\.db \(.+? cannot be written: EPERM/,
    );
    chattr('-i');
    // Written once the files can be written: another process reads the whole run.
    const full = await serve.call<{ events: unknown[] }>('runs.export', { runId });
    await vi.waitFor(
      async () => expect(await stored(runId)).toEqual({ status: live!.status, events: full.events.length }),
      { timeout: 30_000, interval: 300 },
    );
  }, 180_000);

  it('runs.cancel works while the store cannot be written; the cancel is recorded afterwards', async () => {
    if (process.getuid?.() !== 0) throw new Error('chattr needs root');
    serve = await startServe(fx.ws, fx.data);
    fx.llm.fallback = { text: 'no code', delayMs: 20_000 };
    const { runId } = await serve.call<{ runId: string }>('runs.start', {
      task: 'to cancel',
      sandbox: 'ecommerce',
    });
    await vi.waitFor(() => expect(fx.llm.requests.length).toBeGreaterThan(0), { timeout: 60_000 });
    chattr('+i');
    expect(await serve.call<{ cancelled: boolean }>('runs.cancel', { runId })).toEqual({ cancelled: true });
    await vi.waitFor(
      async () =>
        expect((await serve!.call<{ status: string }>('runs.get', { runId })).status).toBe('cancelled'),
      { timeout: 30_000, interval: 200 },
    );
    chattr('-i');
    await vi.waitFor(async () => expect((await stored(runId))?.status).toBe('cancelled'), {
      timeout: 30_000,
      interval: 300,
    });
  }, 180_000);

  it('.toolsmith on a read-only mount under serve: runs list and runs show read every run, the log says once why it is not written', async () => {
    if (process.getuid?.() !== 0) throw new Error('mount needs root');
    fx.llm.fallback = { text: 'no code' };
    serve = await startServe(fx.ws, fx.data);
    const { runId } = await serve.call<{ runId: string }>('runs.start', {
      task: 'a run',
      sandbox: 'ecommerce',
    });
    await vi.waitFor(
      async () =>
        expect((await serve!.call<{ status: string }>('runs.get', { runId })).status).toBe('failed'),
      { timeout: 30_000, interval: 100 },
    );
    const dir = join(fx.ws, '.toolsmith');
    execFileSync('mount', ['--bind', dir, dir]);
    roMount = dir;
    execFileSync('mount', ['-o', 'remount,bind,ro', dir]);
    // Before: both exited 3 with only "…/toolsmith.jsonl: open failed: EROFS: read-only file system".
    const log = join(dir, 'logs', 'toolsmith.jsonl');
    const line = `toolsmith: the log ${log} cannot be written (EROFS: read-only file system); this process goes on without writing its log lines; make ${join(dir, 'logs')} writable to keep them\n`;
    const list = await cliProcess(fx.ws, fx.data, ['runs', 'list', '--json']).done;
    expect(list.code, list.err).toBe(0);
    expect(list.err).toBe(line);
    expect((JSON.parse(list.out) as { runs: { id: string }[] }).runs.map((r) => r.id)).toContain(runId);
    const show = await cliProcess(fx.ws, fx.data, ['runs', 'show', runId]).done;
    expect(show.code, show.err).toBe(0);
    expect(show.out).toMatch(new RegExp(`^run ${runId}: failed\ntask: a run\n`));
    expect(show.err).toBe(line);
    // serve goes on meanwhile, and after the mount is gone.
    execFileSync('umount', [dir]);
    roMount = undefined;
    const again = await serve.call<{ runId: string }>('runs.start', {
      task: 'another run',
      sandbox: 'ecommerce',
    });
    await vi.waitFor(async () => expect((await stored(again.runId))?.status).toBe('failed'), {
      timeout: 30_000,
      interval: 300,
    });
  }, 120_000);
});
