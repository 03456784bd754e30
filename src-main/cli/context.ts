import { terminalAsk } from './approval.ts';
import type { Command } from 'commander';
import type { ToolsmithService } from '../app/service.ts';
import type * as ServiceModule from '../app/service.ts';
import type * as ConfigWordsModule from './config-words.ts';
import type { WorkspaceReader } from '../app/workspace-reader.ts';
import { resolveWorkspaceDir, workspaceProblem } from '../infra/workspace/init.ts';
import { commandHint } from './invocation.ts';
import { stopReason, stopSignal } from './signals.ts';
import { integerRangeMessage } from '../core/records/vocabulary.ts';
import { configSecretNames } from '../app/env-secrets.ts';
import { sweepLeftovers } from './sweep.ts';

/** Thrown for bad command-line usage: printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** What every command gets: the output streams and the lazily opened service. */
export interface CliContext {
  out: (text: string) => void;
  err: (text: string) => void;
  service(cmd: Command): ToolsmithService;
  /**
   * Loads the service's module (validators, stores, config schemas). main() does it before every verb
   * but the light ones (`init`, `image`, help), which call it only when they need the service.
   */
  loadService(): Promise<void>;
  /** Set to 1 by a command whose answer is negative (invalid script, failed run). */
  exitCode: number;
  /** Disposes the service (pool containers, store) if a command opened it. */
  close(): Promise<void>;
  /** The service, when a command opened it. */
  opened(): ToolsmithService | undefined;
  /**
   * The workspace opened to be read only (app/workspace-reader.ts), for the listing verbs main() loads
   * no service for (`runs list`, `template list`, `skill list`, `mcp-servers list`: READERS in main.ts): the same
   * workspace checks, config rules and sweep of leftovers as `service()` (no sweep for `runs list` and
   * `template list`: STORE_VERBS), none of its other modules.
   */
  reader(cmd: Command): Promise<WorkspaceReader>;
  /** The read-only workspace, when a listing verb opened it. */
  openedReader(): WorkspaceReader | undefined;
  /** The workspace folder `cmd` names (not checked: `service` and `reader` check it as they open it). */
  workspaceDir(cmd: Command): string;
  /** The config's warnings the service said on `err` as it opened, in order (cli/pool-status-early.ts). */
  configWarningsSaid(): readonly string[];
}

/** Commands whose process serves many jobs, or shows the pool as a server would run it. */
const LONG_LIVED = new Set(['mcp', 'serve', 'status', 'eval']);

/**
 * Verbs that read the workspace and never start a sandbox: they skip the sweep of leftover containers
 * (it loads Docker's client and asks the engine; the next verb that runs a sandbox sweeps).
 */
const NO_SANDBOX = new Set(['tools', 'kit', 'prompt']);

/**
 * The verbs answered before main loads when the config's digest is kept (store-verbs.ts). They only read
 * the workspace and the run store, so they skip the sweep too, on both paths (the next verb that may run
 * a sandbox sweeps: `exec`, `run`, `serve`, `mcp`, `pool status`...).
 */
const STORE_VERBS = new Set(['runs list', 'template list']);

/** `runs list` for the `list` command under `runs`. */
const verbPath = (cmd: Command): string => `${cmd.parent?.name()} ${cmd.name()}`;

/** The top-level verb a (sub)command belongs to (`kit` for `kit list`). */
function verbOfCommand(cmd: Command): string {
  let c = cmd;
  while (c.parent?.parent) c = c.parent;
  return c.name();
}

export function createContext(out: (t: string) => void, err: (t: string) => void): CliContext {
  let service: ToolsmithService | undefined;
  let reader: WorkspaceReader | undefined;
  let serviceModule: typeof ServiceModule | undefined;
  let configWordsModule: typeof ConfigWordsModule | undefined;
  /** Leftover containers of this installation's dead processes, removed at every start (see close). */
  let pruning: Promise<unknown> | undefined;
  /** Aborted by a close after a stop signal: the sweep's wait on an engine that has not answered ends. */
  const sweepStop = new AbortController();
  /** The config's warnings said as the service opened. */
  const warningsSaid: string[] = [];
  /** Traces that could not be sent, each said once (an `eval` of many runs meets the same collector). */
  const telemetryFailures = new Set<string>();
  /** The workspace folder `cmd` names; checked (`opening`) before anything opens it. */
  const workspaceOf = (cmd: Command, opening: boolean): string => {
    const opts = cmd.optsWithGlobals<{ workspace?: string }>();
    const dir = resolveWorkspaceDir(opts.workspace);
    // Opening a folder writes its run store and logs into .toolsmith/: a folder that is not a
    // workspace (a mistyped path, an empty folder, a file) is refused before anything is written.
    if (opening) {
      const problem = workspaceProblem(dir, opts.workspace ?? dir, commandHint);
      if (problem) throw new UsageError(opts.workspace !== undefined ? `--workspace ${problem}` : problem);
    }
    return dir;
  };
  /** The sweep of leftover containers, started once, for a verb that may run a sandbox. */
  const sweep = (cmd: Command): void => {
    if (
      !pruning &&
      process.env['TOOLSMITH_BACKEND'] !== 'process' &&
      cmd.name() !== 'prune' &&
      !NO_SANDBOX.has(verbOfCommand(cmd)) &&
      !STORE_VERBS.has(verbPath(cmd))
    )
      // Docker's client loads only when the engine lists a leftover (cli/sweep.ts).
      pruning = sweepLeftovers(err, sweepStop.signal);
  };
  return {
    out,
    err,
    exitCode: 0,
    opened: () => service,
    openedReader: () => reader,
    workspaceDir: (cmd) => workspaceOf(cmd, false),
    configWarningsSaid: () => warningsSaid,
    async loadService() {
      serviceModule ??= await import('../app/service.ts');
      configWordsModule ??= await import('./config-words.ts');
    },
    async close() {
      const s = service;
      service = undefined;
      const sig = stopSignal();
      if (sig) sweepStop.abort();
      await s?.close(sig ? stopReason(sig) : undefined);
      const r = reader;
      reader = undefined;
      await r?.close();
      await pruning;
    },
    async reader(cmd: Command) {
      if (reader) return reader;
      const dir = workspaceOf(cmd, true);
      const [{ WorkspaceReader }, { configWords }, digests] = await Promise.all([
        import('../app/workspace-reader.ts'),
        import('./config-words.ts'),
        import('./config-digest.ts'),
      ]);
      sweep(cmd);
      const { onConfigWarning, onInvalidConfig } = configWords(cmd, err);
      // `runs list` and `template list`: what opening the config said and learned, kept for the next
      // start to answer before main loads (config-digest.ts, store-verbs.ts); the key is taken before
      // the files are read, so a change made meanwhile misses. Not for an invalid config.
      const key = STORE_VERBS.has(verbPath(cmd)) ? digests.configDigestKey(dir) : undefined;
      const warnings: string[] = [];
      let invalid = false;
      reader = WorkspaceReader.open(dir, {
        ...(onConfigWarning
          ? {
              onConfigWarning: (line: string) => {
                warnings.push(line);
                onConfigWarning(line);
              },
            }
          : {}),
        ...(onInvalidConfig
          ? {
              onInvalidConfig: (message: string) => {
                invalid = true;
                onInvalidConfig(message);
              },
            }
          : {}),
      });
      if (key && !invalid)
        digests.keepConfigDigest(dir, key, { warnings, secrets: configSecretNames(reader.config) });
      return reader;
    },
    service(cmd: Command) {
      const dir = workspaceOf(cmd, !service);
      if (!serviceModule) throw new Error('the service module is not loaded (call ctx.loadService() first)');
      if (!service) sweep(cmd);
      service ??= serviceModule.ToolsmithService.open(dir, {
        // Docker's client (and its gRPC and SSH modules) loads only when a verb needs a sandbox.
        sandboxFactory: async (s) => (await import('../app/sandbox-factory.ts')).createSandboxManager(s),
        // Servers and `pool status` (which shows the pool as configured) keep standby workers.
        oneShot: !LONG_LIVED.has(cmd.name()),
        // Servers follow hand edits of the workspace's files (app/watch.ts).
        watch: cmd.name() === 'serve' || cmd.name() === 'mcp',
        // A run's trace that the collector did not take: said on stderr (stdout and the exit code are the
        // command's own).
        onTelemetryFailure: (line) => {
          if (telemetryFailures.has(line)) return;
          telemetryFailures.add(line);
          err(`telemetry: ${line}\n`);
        },
        ...(configWordsModule?.configWords(cmd, (t) => (warningsSaid.push(t), err(t))) ?? {}),
        // A setting that was ignored (an OTEL_* endpoint without http:// or https://): said once.
        onTelemetryWarning: (line) => {
          if (telemetryFailures.has(line)) return;
          telemetryFailures.add(line);
          err(`telemetry: warning: ${line}\n`);
        },
        // Tool calls that need approval: the browser's dialog (serve), the MCP client's elicitation (mcp,
        // per request), else this terminal (cli/approval.ts).
        ...(cmd.name() === 'serve'
          ? { askApproval: 'workbench' as const }
          : cmd.name() === 'mcp'
            ? {}
            : { askApproval: terminalAsk() }),
      });
      return service;
    },
  };
}

export function parseIntOption(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new UsageError(integerRangeMessage(name, min, max, value));
    return n;
  };
}

export function oneOf<T extends string>(
  name: string,
  values: readonly T[],
  hint?: (value: string) => string,
) {
  return (value: string): T => {
    if (!(values as readonly string[]).includes(value))
      throw new UsageError(
        `${name} must be one of ${values.join(', ')}, got ${JSON.stringify(value)}${hint?.(value) ?? ''}`,
      );
    return value as T;
  };
}

const RUNTIME_IDS = ['python', 'node', 'bun', 'deno'] as const;
const LANGUAGES = ['python', 'js', 'ts'] as const;

/**
 * A script language option (`--lang`, `--language`): a runtime given instead (`--lang bun`) is told
 * which flag picks it. Before, it said only "must be one of python, js, ts".
 */
export const languageArg = (name: string, runtimeFlag?: string) =>
  oneOf(name, LANGUAGES, (v) =>
    (RUNTIME_IDS as readonly string[]).includes(v)
      ? ` (${v} is a runtime, not a language: its scripts are js or ts; ${runtimeFlag ? `pick the runtime with ${runtimeFlag} ${v}` : `toolsmith exec FILE --runtime ${v} runs a script on it`})`
      : '',
  );

/**
 * A runtime option (`--runtime`): a language given instead (`--runtime ts`) is told where a language
 * comes from. Before, it said only "must be one of python, node, bun, deno".
 */
export const runtimeArg = (name: string, languageFrom: string) =>
  oneOf(name, RUNTIME_IDS, (v) =>
    ['js', 'ts', 'javascript', 'typescript'].includes(v)
      ? ` (${v} is a language, not a runtime: ${languageFrom}; js and ts run on node, bun or deno)`
      : '',
  );

/**
 * `--timeout-ms` and `--retries`, the LLM requests' `timeout_ms` and `max_retries` for one `run` or
 * `eval` (`retriesNote`: what the help adds, e.g. that it is not PLAN's `--max-retries`).
 */
export function llmRequestOptions(cmd: Command, retriesNote = ''): Command {
  return cmd
    .option(
      '--timeout-ms <ms>',
      "LLM requests: how long to wait for the response to start (the provider's timeout_ms, default 30000); a longer one raises idle_timeout_ms and total_timeout_ms with it (for a slow local server)",
      parseIntOption('--timeout-ms', 1, 600_000),
    )
    .option(
      '--retries <n>',
      `LLM requests: retries of a timeout, a 429, a 5xx or a dropped connection (the provider's max_retries, default 2)${retriesNote}`,
      parseIntOption('--retries', 0, 10),
    );
}

/**
 * `--lang` and `--language` are one option on every verb that takes a script language: `shown` is the
 * one its help lists, the other is accepted (hidden) and means the same. Both given with different
 * values is a usage error. Call after the shown option is declared.
 */
export function languageAlias(cmd: Command, shown: 'lang' | 'language'): Command {
  const other = shown === 'lang' ? 'language' : 'lang';
  cmd.addOption(
    cmd
      .createOption(`--${other} <${other}>`)
      .hideHelp()
      .argParser(languageArg(`--${other}`)),
  );
  return cmd.hook('preAction', (c) => {
    const v = c.getOptionValue(other) as string | undefined;
    if (v === undefined) return;
    if (c.getOptionValueSource(shown) === 'cli' && c.getOptionValue(shown) !== v)
      throw new UsageError(
        `--lang and --language are the same option: give it once (got ${c.getOptionValue(shown)} and ${v})`,
      );
    c.setOptionValueWithSource(shown, v, 'cli');
  });
}

export const json = (v: unknown): string => JSON.stringify(v, null, 2) + '\n';

/** How a sandbox is made (the CLI has no verb for it): said where an empty workspace leaves a person. */
export const NO_SANDBOX_HINT =
  'a sandbox is a folder sandboxes/NAME/ with a tools.py (docs/tools.md), or create one in the workbench (toolsmith serve, Workspace view)';
