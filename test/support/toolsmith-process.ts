/**
 * `toolsmith --workspace WS ...` as the integration tests start it: the CLI as installed (`cliBin()`) run
 * by the repo's Node, as a real process.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { cliBin } from './cli-bin.ts';
import { repoRoot } from './workspace.ts';

/** The repo's Node (Node 24, from node_modules), which every Toolsmith process of the tests runs on. */
export const nodeBin = join(repoRoot, 'node_modules/.bin/node');

/** The command and arguments of `toolsmith --workspace WS ARGS`. */
export const toolsmithArgv = (ws: string, args: string[]): [string, string[]] => [
  nodeBin,
  [cliBin(), '--workspace', ws, ...args],
];

export interface ToolsmithOutput {
  /** The exit code; -1 when a signal ended the process. */
  code: number;
  out: string;
  err: string;
}

/**
 * Runs `toolsmith --workspace WS ARGS` to its end: exit code and output. `env` is added to this
 * process's environment. Without `input` its stdin is /dev/null; with it, a pipe that is given `input`
 * and closed (`''`: a closed pipe at once).
 */
export function runToolsmith(
  ws: string,
  args: string[],
  env: Record<string, string> = {},
  input?: string,
): Promise<ToolsmithOutput> {
  const [cmd, argv] = toolsmithArgv(ws, args);
  return new Promise((resolve) => {
    const environment = { ...process.env, ...env };
    const p =
      input === undefined
        ? spawn(cmd, argv, { env: environment, stdio: ['ignore', 'pipe', 'pipe'] })
        : spawn(cmd, argv, { env: environment, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    if (input !== undefined) p.stdin?.end(input);
    p.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}
