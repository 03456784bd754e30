/**
 * The CLI as a real process for fault tests, each with its own installation (TOOLSMITH_DATA_DIR in a
 * temp folder): only containers labelled with that installation are ever listed or removed, never
 * other people's on the shared engine.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll } from 'vitest';
import { toolsmithArgv } from '../../../support/toolsmith-process.ts';

/**
 * Every process started here that is still running when its test file ends is stopped (SIGTERM, then
 * SIGKILL after 10 s): a test that failed between starting a second `serve` and stopping it left that
 * serve running after the run, holding its deleted workspace's store open (found at load 16 with
 * `-shm deleted under serve while another serve writes`). Its containers, if any, go with the file's
 * home (isolated-file-home.ts).
 */
const started = new Set<ChildProcess>();
afterAll(async () => {
  await Promise.all(
    [...started].map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }),
  );
});

export interface CliProcess {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>;
}

export function cliProcess(
  ws: string,
  dataDir: string,
  args: string[],
  env: Record<string, string> = {},
): CliProcess {
  const child = spawn(...toolsmithArgv(ws, args), {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, TOOLSMITH_DATA_DIR: dataDir, ...env },
  });
  started.add(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>(
    (resolve) => child.on('close', (code, signal) => resolve({ code, signal, out, err })),
  );
  return { child, out: () => out, err: () => err, done };
}

/** The containers of the installation in `dataDir` (all states), on the default engine. */
export async function installationContainers(dataDir: string): Promise<Docker.ContainerInfo[]> {
  const file = join(dataDir, 'installation-id');
  if (!existsSync(file)) return [];
  const id = readFileSync(file, 'utf8').trim();
  return new Docker().listContainers({ all: true, filters: { label: [`toolsmith.installation=${id}`] } });
}

/**
 * The ids of the containers of the installation in `dataDir` that the engine created from `since` (its
 * clock, in seconds with a fraction) until now: read from the engine's event log, so containers already
 * removed count too.
 */
export async function installationCreatesSince(dataDir: string, since: number): Promise<string[]> {
  const id = readFileSync(join(dataDir, 'installation-id'), 'utf8').trim();
  const docker = new Docker();
  const now = await engineNow();
  const stream = await docker.getEvents({
    since: Math.round(since * 1000) / 1000,
    until: Math.round((now + 1) * 1000) / 1000,
    filters: JSON.stringify({
      type: ['container'],
      event: ['create'],
      label: [`toolsmith.installation=${id}`],
    }),
  } as Docker.GetEventsOptions);
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { id: string }).id);
}

/** The engine's clock now, in seconds with a fraction (what `installationCreatesSince` takes). */
export async function engineNow(): Promise<number> {
  return Date.parse((await new Docker().info()).SystemTime) / 1000;
}

/**
 * The detached `toolsmith pool prune --after-pid` processes an `mcp` server of the installation
 * `dataDir` handed its removals to (found by their command line and environment in /proc): they keep
 * using the installation's folder a few seconds after the last container is gone (three quiet passes),
 * so a test waits for them before its folder is removed (ENOTEMPTY otherwise).
 */
export function handedOverPrunes(dataDir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (!argv.includes('--after-pid')) continue;
      const env = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      if (env.includes(`TOOLSMITH_DATA_DIR=${dataDir}`)) pids.push(Number(name));
    } catch {
      /* gone meanwhile, or not ours to read */
    }
  }
  return pids;
}

export { requireDocker } from '../../../support/sandbox.ts';

export interface ServeProcess extends CliProcess {
  /** Calls one contract method over HTTP; the answer's value, or throws its error. */
  call: <T>(method: string, params: unknown) => Promise<T>;
  /** Starts a run and waits until it is no longer running; its id and status. */
  runToEnd: (task: string) => Promise<{ runId: string; status: string; error: string | null }>;
  stop: () => Promise<void>;
}

/** `toolsmith serve` on a free port (no renderer), ready to answer the contract over HTTP. */
export async function startServe(
  ws: string,
  dataDir: string,
  env: Record<string, string> = {},
): Promise<ServeProcess> {
  const p = cliProcess(
    ws,
    dataDir,
    ['serve', '--port', '0', '--renderer', join(dataDir, 'no-renderer')],
    env,
  );
  const deadline = Date.now() + 60_000;
  while (!/\?token=/.test(p.out())) {
    if (p.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`serve did not start: ${p.err()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = new URL(/(http:\/\/\S+)/.exec(p.out())![1]!);
  const token = url.searchParams.get('token')!;
  const call = async <T>(method: string, params: unknown): Promise<T> => {
    const res = await fetch(`${url.origin}/api/${method}`, {
      method: 'POST',
      headers: { origin: url.origin, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(params),
    });
    const body = (await res.json()) as { ok: boolean; value?: T; error?: { message: string } };
    if (!body.ok) throw new Error(`${method}: ${body.error?.message ?? res.status}`);
    return body.value as T;
  };
  const runToEnd = async (task: string) => {
    const { runId } = await call<{ runId: string }>('runs.start', { task, sandbox: 'ecommerce' });
    for (;;) {
      const run = await call<{ status: string; error: string | null }>('runs.get', { runId });
      if (run.status !== 'running') return { runId, status: run.status, error: run.error };
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async () => {
    p.child.kill('SIGTERM');
    await p.done;
  };
  return { ...p, call, runToEnd, stop };
}
