import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { LOOPBACK_HOSTS, MIN_TOKEN_LENGTH } from '../../mcp/mcp-http-limits.ts';
import { oneOf, parseIntOption, UsageError } from '../context.ts';
import type { CliContext } from '../context.ts';
import { MCP_DESCRIPTION } from '../../mcp/mcp-tool-names.ts';
import { signalExitCode, stopReason, stopSignal, untilStopped } from '../signals.ts';

interface McpOptions {
  http?: boolean;
  port?: number;
  host?: (typeof LOOPBACK_HOSTS)[number];
  tokenEnv?: string;
  sessionIdle?: number;
  maxSessions?: number;
}

export function registerMcp(program: Command, ctx: CliContext): void {
  program
    .command('mcp')
    .description(MCP_DESCRIPTION)
    .option('--http', 'serve Streamable HTTP on 127.0.0.1 instead of stdio (bearer token, Origin checked)')
    .option('--port <n>', 'with --http: port (default: a free one)', parseIntOption('--port', 0, 65535))
    .option('--host <addr>', 'with --http: loopback address to listen on', oneOf('--host', LOOPBACK_HOSTS))
    .option(
      '--token-env <VAR>',
      'with --http: take the bearer token from this environment variable (default: a random one, printed once on stderr)',
    )
    .option(
      '--session-idle <seconds>',
      'with --http: close a session with no request open for this long (default 1800)',
      parseIntOption('--session-idle', 1, 7 * 24 * 3600),
    )
    .option(
      '--max-sessions <n>',
      'with --http: at most this many sessions; a new one displaces the longest-idle that has made a call, else is refused (503, Retry-After) (default 64)',
      parseIntOption('--max-sessions', 1, 10_000),
    )
    .action(async (opts: McpOptions, cmd: Command) => {
      if (!opts.http) {
        const flags = {
          port: '--port',
          host: '--host',
          tokenEnv: '--token-env',
          sessionIdle: '--session-idle',
          maxSessions: '--max-sessions',
        } as const;
        const stray = (Object.keys(flags) as (keyof typeof flags)[]).filter((k) => opts[k] !== undefined);
        if (stray[0]) throw new UsageError(`${flags[stray[0]]} needs --http`);
        // Loaded here: the MCP SDK's server modules cost every other verb's start time otherwise.
        const { serveMcpStdio } = await import('../../mcp/mcp.ts');
        const stopped = await serveMcpStdio(ctx.service(cmd), () => untilStopped().then(stopReason), {
          stopBudgetMs: stopBudgetMs(),
        });
        if (stopped === 'unfinished') {
          // The runs are cancelled (and, unless the machine is very slow, recorded), but containers are
          // still being removed: a detached `toolsmith pool prune --after-pid` finishes that once this
          // process is gone, and this one exits within the client's grace instead of being killed.
          handOverRemoval();
          const sig = stopSignal();
          process.exit(sig ? signalExitCode(sig) : 0);
        }
        // Everything it started is closed (runs recorded, containers removed, upstream servers ended):
        // exit now, not when the last idle handle (an HTTP keep-alive to the engine) lets go. A client
        // closing its input gives the server 2 s before it sends SIGTERM. Stopped by a signal, the exit
        // code says so (128+n), like every other verb: 0 means it ended on its own, its input closed.
        await ctx.close();
        const sig = stopSignal();
        process.exit(sig ? signalExitCode(sig) : ctx.exitCode);
      }
      let token: string;
      if (opts.tokenEnv !== undefined) {
        const value = process.env[opts.tokenEnv];
        if (!value) throw new UsageError(`--token-env ${opts.tokenEnv}: the variable is not set or empty`);
        if (value.length < MIN_TOKEN_LENGTH)
          throw new UsageError(
            `--token-env ${opts.tokenEnv}: the token must be at least ${MIN_TOKEN_LENGTH} characters long`,
          );
        token = value;
      } else token = randomBytes(32).toString('base64url');
      const svc = ctx.service(cmd);
      const { startMcpHttp } = await import('../../mcp/mcp-http.ts');
      const server = await startMcpHttp(svc, {
        token,
        ...(opts.port !== undefined ? { port: opts.port } : {}),
        ...(opts.host !== undefined ? { host: opts.host } : {}),
        ...(opts.sessionIdle !== undefined ? { sessionIdleMs: opts.sessionIdle * 1000 } : {}),
        ...(opts.maxSessions !== undefined ? { maxSessions: opts.maxSessions } : {}),
      });
      ctx.err(
        `toolsmith mcp: Streamable HTTP on ${server.url}\n` +
          (opts.tokenEnv !== undefined
            ? `bearer token: from $${opts.tokenEnv}\n`
            : `bearer token (shown once): ${token}\n`) +
          `workspace: ${svc.workspaceDir}\n`,
      );
      await untilStopped();
      await server.close();
    });
}

/**
 * How long `mcp` on stdio spends stopping before it hands the rest to a detached process: MCP clients
 * (the SDK's StdioClientTransport, desktop clients, the Inspector) close the input, wait 2 s, then send
 * SIGTERM (and SIGKILL 2 s later); 1.2 s leaves room for a slow exit. `TOOLSMITH_MCP_STOP_BUDGET_MS`
 * sets it (0: always hand over, as the tests of that path do).
 */
const STOP_BUDGET_MS = 1_200;
function stopBudgetMs(): number {
  const v = Number(process.env['TOOLSMITH_MCP_STOP_BUDGET_MS']);
  return process.env['TOOLSMITH_MCP_STOP_BUDGET_MS'] !== undefined && Number.isFinite(v) && v >= 0
    ? v
    : STOP_BUDGET_MS;
}

/** Starts `toolsmith pool prune --after-pid <this pid>` on this process's Node and entry, detached. */
function handOverRemoval(): void {
  try {
    const child = spawn(
      process.execPath,
      [...process.execArgv, process.argv[1] ?? '', 'pool', 'prune', '--after-pid', String(process.pid)],
      { detached: true, stdio: 'ignore', env: process.env },
    );
    child.on('error', () => {});
    child.unref();
  } catch {
    /* the next start's sweep removes the leftovers (pool prune too) */
  }
}
