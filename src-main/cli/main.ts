/**
 * The `toolsmith` command. Usage errors exit 2 with a one-line reason; `--help` works on every verb.
 * Exit codes: 0 success, 1 a negative answer (invalid script, failed run), 2 usage, 3 other errors.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { ToolsmithError } from '../app/errors.ts';
import { createContext, UsageError } from './context.ts';
import { onUnhandledStop, signalExitCode } from './signals.ts';
import type { CliContext } from './context.ts';

const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

type Register = (program: Command, ctx: CliContext) => void;

/**
 * Each verb's module, loaded only when that verb runs (all of them for the top-level help): a one-shot
 * verb pays for its own imports, not for every SDK the others use.
 */
const VERBS: [string[], () => Promise<Register>][] = [
  [['validate'], async () => (await import('./commands/validate.ts')).registerValidate],
  [['prompt'], async () => (await import('./commands/prompt.ts')).registerPrompt],
  [['tools'], async () => (await import('./commands/tools.ts')).registerTools],
  [['kit'], async () => (await import('./commands/kit.ts')).registerKit],
  [['sandboxes'], async () => (await import('./commands/sandboxes.ts')).registerSandboxes],
  [['serve'], async () => (await import('./commands/serve.ts')).registerServe],
  [['run'], async () => (await import('./commands/run.ts')).registerRun],
  [['runs'], async () => (await import('./commands/run.ts')).registerRuns],
  [['template'], async () => (await import('./commands/template.ts')).registerTemplate],
  [['mcp'], async () => (await import('./commands/mcp.ts')).registerMcp],
  [['exec', 'pool', 'tool'], async () => (await import('./commands/exec.ts')).registerExec],
  [['image'], async () => (await import('./commands/image.ts')).registerImage],
  [['init'], async () => (await import('./commands/init.ts')).registerInit],
  [['eval'], async () => (await import('./commands/eval.ts')).registerEval],
  [['mcp-servers'], async () => (await import('./commands/mcp-servers.ts')).registerMcpServers],
];

/** The verb in `argv` (the first word that is not an option or the global option's value). */
export function verbOf(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '-w' || a === '--workspace') {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    return a;
  }
  return undefined;
}

/** The program with the verbs `argv` needs (every verb when it names none, or an unknown one). */
/** Verbs that open no service (or only on a slow path, loading it themselves). */
const LIGHT = new Set(['init', 'image', 'sandboxes']);

export async function buildProgram(ctx: CliContext, argv: string[] = []): Promise<Command> {
  const verb = verbOf(argv);
  const one = VERBS.find(([names]) => verb !== undefined && names.includes(verb));
  const help = argv.includes('--help') || argv.includes('-h');
  if (one && !help && !LIGHT.has(verb ?? '')) await ctx.loadService();
  const registers = await Promise.all((one ? [one] : VERBS).map(([, load]) => load()));
  const program = new Command('toolsmith')
    .description('Build, test and debug the tools and scripts that LLM agents run')
    .version(version)
    .option(
      '-w, --workspace <dir>',
      'workspace folder (default: the current folder when it holds .toolsmith/, else the sample workspace)',
    )
    .showHelpAfterError(false)
    .configureOutput({ writeOut: ctx.out, writeErr: ctx.err, outputError: () => {} });
  program.exitOverride();
  for (const register of registers) register(program, ctx);
  // Connects the MCP servers of the sandbox a verb uses first, so MCP tools are listed like native ones.
  program.hook('preAction', async (_p, action) => {
    if (LIGHT.has(verb ?? '')) return;
    await (await import('./commands/mcp-servers.ts')).prepareMcpForCommand(ctx, action);
  });
  for (const cmd of allCommands(program)) {
    cmd.exitOverride();
    cmd.configureOutput({ writeOut: ctx.out, writeErr: ctx.err, outputError: () => {} });
  }
  return program;
}

function allCommands(c: Command): Command[] {
  return c.commands.flatMap((s) => [s, ...allCommands(s)]);
}

const firstLine = (s: string) => s.split('\n')[0]?.replace(/^error: /, '') ?? s;

export async function main(
  argv: string[],
  out: (t: string) => void = (t) => process.stdout.write(t),
  err: (t: string) => void = (t) => process.stderr.write(t),
): Promise<number> {
  const ctx = createContext(out, err);
  // A stop signal before a command handles its own (or for a verb with nothing to cancel): close the
  // service (pools' containers removed, runs recorded) and exit 128+n.
  const offStop = onUnhandledStop((sig) => {
    void ctx
      .close()
      .catch(() => {})
      .finally(() => process.exit(signalExitCode(sig)));
  });
  try {
    const program = await buildProgram(ctx, argv);
    if (argv.length === 0) {
      out(program.helpInformation());
      return 0;
    }
    await program.parseAsync(argv, { from: 'user' });
    await ctx.close();
    offStop();
    return ctx.exitCode;
  } catch (e) {
    await ctx.close().catch(() => {});
    offStop();
    if (e instanceof CommanderError) {
      if (
        e.code === 'commander.helpDisplayed' ||
        e.code === 'commander.version' ||
        e.code === 'commander.help'
      )
        return 0;
      err(`toolsmith: ${firstLine(e.message)}\n`);
      return 2;
    }
    if (e instanceof UsageError || e instanceof InvalidArgumentError) {
      err(`toolsmith: ${firstLine(e.message)}\n`);
      return 2;
    }
    if (e instanceof ToolsmithError) {
      err(`toolsmith: ${e.message}\n`);
      return e.code === 'invalid_argument' || e.code === 'not_found' ? 2 : 3;
    }
    err(`toolsmith: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return 3;
  }
}
