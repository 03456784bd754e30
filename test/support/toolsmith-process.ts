/**
 * `toolsmith --workspace WS ...` as the integration tests start it: the CLI as installed (`cliBin()`) run
 * by the repo's Node, as a real process.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { join } from 'node:path';
import { cliBin } from './cli-bin.ts';
import { repoRoot } from './workspace.ts';

/** The repo's Node (Node 24, from node_modules), which every Toolsmith process of the tests runs on. */
export const nodeBin = join(repoRoot, 'node_modules/.bin/node');

/**
 * The command and arguments of `toolsmith ARGS` as typed (no --workspace added): `bin` (by default
 * `cliBin()`) on the repo's Node.
 */
export const cliArgv = (args: string[], bin = cliBin()): [string, string[]] => [nodeBin, [bin, ...args]];

/** The command and arguments of `toolsmith --workspace WS ARGS` (`bin`: as for `cliArgv`). */
export const toolsmithArgv = (ws: string, args: string[], bin = cliBin()): [string, string[]] =>
  cliArgv(['--workspace', ws, ...args], bin);

/** `argv` as one POSIX shell command line (each word in single quotes), for `script -c` and `sh -c`. */
export const shellLine = (argv: string[]): string =>
  argv.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');

export interface ToolsmithOutput {
  /** The exit code; -1 when a signal ended the process. */
  code: number;
  out: string;
  err: string;
}

/** What a started process prints on its stdout and stderr (pipes) until it ends, and its exit code. */
export function outputOf(p: ChildProcess): Promise<ToolsmithOutput> {
  return new Promise((resolve) => {
    let out = '';
    let err = '';
    p.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    p.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

/**
 * Runs `cmd ARGS` to its end: exit code and output. `options.env` is its whole environment (default:
 * this process's). Without `input` its stdin is /dev/null; with it, a pipe that is given `input` and
 * closed (`''`: a closed pipe at once).
 */
export function runCommand(
  cmd: string,
  args: string[],
  options: Omit<SpawnOptions, 'stdio'> & { input?: string } = {},
): Promise<ToolsmithOutput> {
  const { input, ...spawnOptions } = options;
  const p = spawn(cmd, args, {
    ...spawnOptions,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  const output = outputOf(p);
  if (input !== undefined) p.stdin?.end(input);
  return output;
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
  return runCommand(cmd, argv, { env: { ...process.env, ...env }, input });
}
