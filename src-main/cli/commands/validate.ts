import { readFileSync, readSync } from 'node:fs';
import type { Command } from 'commander';
import { languageOfFile } from '../../core/lang/validate-lazy.ts';
import { loadCliValidator } from '../validator-bundle.ts';
import type { ScriptLanguage } from '../../core/lang/violation.ts';
import { NO_SANDBOX_HINT, languageArg, UsageError } from '../context.ts';
import { snapshotKey } from '../sandboxes-cache.ts';
import { hasUnknownCall, snapshotTools, validationText, workspaceDirOf } from '../validate-early.ts';
import type { CliContext } from '../context.ts';
import { errnoWords, errorMessage } from '../../core/errors.ts';

/**
 * Standard input whole. Once anything has touched `process.stdin` (the service's terminal approval does),
 * Node has made a pipe's descriptor non-blocking, and `readFileSync(0)` failed with EAGAIN whenever the
 * writer was slower than the command's start (`(sleep 1; cat f.py) | toolsmith exec -`): wait for it.
 */
export function readStdin(fd = 0): string {
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(64 * 1024);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buf, 0, buf.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        Atomics.wait(pause, 0, 0, 10);
        continue;
      }
      if (code === 'EOF') break; // Windows: the pipe's end
      throw e;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function readInput(file: string): string {
  try {
    return file === '-' ? readStdin() : readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${file}: ${code ? errnoWords(code) : errorMessage(e)}`);
  }
}

export function registerValidate(program: Command, ctx: CliContext): void {
  program
    .command('validate')
    .description('check a script statically; exit 0 when valid, 1 when not')
    .argument('<file>', 'script file, or - for standard input')
    .option(
      '--lang <lang>',
      'python | js | ts (default: from the file name, else python)',
      languageArg('--lang'),
    )
    .option(
      '--sandbox <name>',
      "allow the tools of this sandbox (default without --tools: the workspace's default sandbox)",
    )
    .option(
      '--kit <name>',
      'only the tools of this kit of the sandbox (by alias; default sandbox without --sandbox)',
    )
    .option('--tools <a,b>', 'allow exactly these tool names (instead of --sandbox)')
    .option('--strict', 'restricted subset: no def/class/while/try, calls only to tools and builtins')
    .option('--json', 'print {"valid": bool, "violations": [...]}')
    .action(
      async (
        file: string,
        opts: {
          lang?: ScriptLanguage;
          sandbox?: string;
          kit?: string;
          tools?: string;
          strict?: boolean;
          json?: boolean;
        },
        cmd: Command,
      ) => {
        if (opts.sandbox && opts.tools) throw new UsageError('use either --sandbox or --tools, not both');
        if (opts.kit && opts.tools)
          throw new UsageError('--kit picks tools of a sandbox: use it without --tools');
        const code = readInput(file);
        const language = opts.lang ?? (file === '-' ? undefined : languageOfFile(file)) ?? 'python';
        const tools = opts.tools
          ?.split(',')
          .map((t) => t.trim())
          .filter(Boolean);
        const strict = !!opts.strict;
        // A light verb: with --tools, or a workspace unchanged since the last snapshot
        // (sandboxes-cache.ts), the script is checked without opening the service.
        const fast =
          (tools && { tools }) ??
          (opts.kit ? undefined : snapshotTools(workspaceOption(cmd), opts.sandbox, language));
        let result = fast ? (await loadCliValidator(language))(code, { ...fast, strict }) : undefined;
        // From the snapshot, a name it does not know may be a tool the script may not call or a skill it
        // is not offered: the service says which, and why.
        if (result && !tools && hasUnknownCall(result)) result = undefined;
        if (!result) {
          const dir = workspaceDir(cmd);
          const key = dir ? snapshotKey(dir) : undefined;
          await ctx.loadService();
          const svc = ctx.service(cmd);
          // Without --sandbox a script is checked against the tools it would run with: the
          // workspace's default sandbox (its config's default_sandbox, else the first sandbox).
          // (a kit is a sandbox's: with --kit a sandbox is needed)
          const sandbox = opts.kit
            ? sandboxOf(ctx, cmd, opts.sandbox)
            : (opts.sandbox ?? defaultSandbox(ctx, cmd));
          const { prepareMcpForCommand } = await import('./mcp-servers.ts');
          if (sandbox) await prepareMcpForCommand(ctx, cmd, [sandbox]);
          // Refreshes the snapshot the next call answers from (never for workspaces with MCP servers).
          if (key) (await import('../sandboxes-snapshot.ts')).snapshotFromService(svc, key, dir);
          result = sandbox
            ? svc.execution.validate({
                code,
                language,
                sandbox,
                ...(opts.kit ? { kit: opts.kit } : {}),
                strict,
              })
            : (await loadCliValidator(language))(code, { tools: [], strict });
        }
        ctx.out(validationText(file, language, result, !!opts.json));
        ctx.exitCode = result.valid ? 0 : 1;
      },
    );
}

const workspaceOption = (cmd: Command): string | undefined =>
  cmd.optsWithGlobals<{ workspace?: string }>().workspace;

/** The workspace folder `--workspace` (or the current folder) names; undefined when it does not exist. */
const workspaceDir = (cmd: Command): string | undefined => workspaceDirOf(workspaceOption(cmd));

/** The workspace's default sandbox: `default_sandbox` in its config, else its first sandbox. */
export function defaultSandbox(ctx: CliContext, cmd: Command): string | undefined {
  return ctx.service(cmd).workspace.defaultSandbox();
}

/** `--sandbox`, else the workspace's default sandbox (as `validate` takes it); a usage error without either. */
export function sandboxOf(ctx: CliContext, cmd: Command, given: string | undefined): string {
  const name = given ?? defaultSandbox(ctx, cmd);
  if (name === undefined) {
    // With no sandbox at all, naming one with --sandbox cannot help: say how one is made.
    if (ctx.service(cmd).workspace.sandboxNames().length === 0)
      throw new UsageError(`the workspace has no sandboxes: ${NO_SANDBOX_HINT}`);
    throw new UsageError('--sandbox <name> is needed: the workspace has no sandbox to default to');
  }
  return name;
}
