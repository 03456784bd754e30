import type { Command } from 'commander';
import type { ScriptLanguage } from '../../core/lang/violation.ts';
import { json, languageArg, parseIntOption, UsageError } from '../context.ts';
import type { CliContext } from '../context.ts';
import { readInput, sandboxOf } from './validate.ts';

export function registerPrompt(program: Command, ctx: CliContext): void {
  program
    .command('prompt')
    .description('print the prompt an LLM gets for a task (first attempt, or a retry)')
    .requiredOption('--task <text>', 'the task')
    .option(
      '--sandbox <name>',
      "the sandbox whose tools the script may call (default: the workspace's default_sandbox, else its first)",
    )
    .option('--kit <name>', 'only the tools of this kit')
    .option('--lang <lang>', 'python | js | ts', languageArg('--lang'), 'python')
    .option(
      '--attempt <n>',
      'attempt number (> 1 with --previous-script makes a retry prompt)',
      parseIntOption('--attempt', 1, 100),
    )
    .option('--previous-script <file>', 'the script of the previous attempt')
    .option('--previous-error <file>', 'the error of the previous attempt (traceback or validation feedback)')
    .option('--json', 'print {kind, attempt, system, user, hints, sections}')
    .action(
      (
        opts: {
          task: string;
          sandbox?: string;
          kit?: string;
          lang: ScriptLanguage;
          attempt?: number;
          previousScript?: string;
          previousError?: string;
          json?: boolean;
        },
        cmd: Command,
      ) => {
        if ((opts.previousScript || opts.previousError) && (opts.attempt ?? 1) < 2) {
          throw new UsageError('--previous-script/--previous-error need --attempt 2 or more');
        }
        if (opts.attempt && opts.attempt > 1 && !opts.previousScript)
          throw new UsageError('--attempt above 1 needs --previous-script');
        const prompt = ctx.service(cmd).execution.buildPrompt(opts.task, sandboxOf(ctx, cmd, opts.sandbox), {
          language: opts.lang,
          ...(opts.kit ? { kit: opts.kit } : {}),
          ...(opts.attempt ? { attempt: opts.attempt } : {}),
          ...(opts.previousScript ? { previousScript: readInput(opts.previousScript) } : {}),
          ...(opts.previousError ? { previousError: readInput(opts.previousError) } : {}),
        });
        if (opts.json) ctx.out(json(prompt));
        else ctx.out(`=== system ===\n${prompt.system}\n\n=== user ===\n${prompt.user}`);
      },
    );
}
