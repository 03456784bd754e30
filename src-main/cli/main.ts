/**
 * The `toolsmith` command. Usage errors exit 2 with a one-line reason; `--help` works on every verb.
 * Exit codes: 0 success, 1 a negative answer (invalid script, failed run), 2 usage, 3 other errors.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { ToolsmithError } from '../app/errors.ts';
import { registerEval } from './commands/eval.ts';
import { registerExec } from './commands/exec.ts';
import { registerKit } from './commands/kit.ts';
import { registerMcp } from './commands/mcp.ts';
import { prepareMcpForCommand, registerMcpServers } from './commands/mcp-servers.ts';
import { registerRun, registerRuns } from './commands/run.ts';
import { registerTemplate } from './commands/template.ts';
import { registerPrompt } from './commands/prompt.ts';
import { registerSandboxes } from './commands/sandboxes.ts';
import { registerServe } from './commands/serve.ts';
import { registerTools } from './commands/tools.ts';
import { registerValidate } from './commands/validate.ts';
import { createContext, UsageError } from './context.ts';
import type { CliContext } from './context.ts';

const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export function buildProgram(ctx: CliContext): Command {
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
  registerValidate(program, ctx);
  registerPrompt(program, ctx);
  registerTools(program, ctx);
  registerKit(program, ctx);
  registerSandboxes(program, ctx);
  registerServe(program, ctx);
  registerRun(program, ctx);
  registerRuns(program, ctx);
  registerTemplate(program, ctx);
  registerMcp(program, ctx);
  registerExec(program, ctx);
  registerEval(program, ctx);
  registerMcpServers(program, ctx);
  program.hook('preAction', (_p, action) => prepareMcpForCommand(ctx, action));
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
  const program = buildProgram(ctx);
  try {
    if (argv.length === 0) {
      out(program.helpInformation());
      return 0;
    }
    await program.parseAsync(argv, { from: 'user' });
    await ctx.close();
    return ctx.exitCode;
  } catch (e) {
    await ctx.close().catch(() => {});
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
