/**
 * The CLI as a real process for fault tests, each with its own installation (TOOLSMITH_DATA_DIR in a
 * temp folder): only containers labelled with that installation are ever listed or removed, never
 * other people's on the shared engine.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { repoRoot } from '../../../support/workspace.ts';

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
  const child = spawn(
    join(repoRoot, 'node_modules/.bin/node'),
    [join(repoRoot, 'bin/toolsmith.mjs'), '--workspace', ws, ...args],
    { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TOOLSMITH_DATA_DIR: dataDir, ...env } },
  );
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

export { requireDocker } from '../../../support/sandbox.ts';
