/** Starts `toolsmith mcp --http` as a real process and reads its URL and token from stderr. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { toolsmithArgv } from '../../../support/toolsmith-process.ts';

export interface McpHttpProcess {
  url: string;
  port: number;
  /** The token printed on stderr, when it was generated (not with --token-env). */
  token: string | undefined;
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * An SDK client named `name` (version 1.0.0, no capabilities) connected over Streamable HTTP to the
 * server at `url`, with `token` as its bearer token.
 */
export async function connectMcpHttp(url: string, token: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** Servers started here and still running: ended when the file's worker exits, whatever the file did. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

/**
 * Starts `toolsmith mcp --http` (`bin`: the launcher, by default the command as installed) and waits for its outcome: the URL line (started) or its exit (the
 * reason is on stderr). No clock of its own: a start that takes long on a loaded machine is waited for
 * (the calling hook's budget ends one that hangs); a fixed 60 s here once killed a server still starting
 * beside other files, and the whole file failed with "did not start".
 */
export function startMcpHttpProcess(
  ws: string,
  args: string[] = [],
  env: Record<string, string> = {},
  bin?: string,
): Promise<McpHttpProcess> {
  const [cmd, argv] = toolsmithArgv(ws, ['mcp', '--http', ...args], bin);
  const child: ChildProcess = spawn(cmd, argv, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  live.add(child);
  let err = '';
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      live.delete(child);
      resolve();
    }),
  );
  return new Promise((resolve, reject) => {
    child.once('exit', (code, signal) =>
      reject(
        new Error(`toolsmith mcp --http exited (${signal ?? code}) before it listened; stderr:\n${err}`),
      ),
    );
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      const url = /Streamable HTTP on (\S+)/.exec(err)?.[1];
      if (!url || !/workspace: /.test(err)) return;
      resolve({
        url,
        port: Number(new URL(url).port),
        token: /bearer token \(shown once\): (\S+)/.exec(err)?.[1],
        stderr: () => err,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}
