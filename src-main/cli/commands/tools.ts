import type { Command } from 'commander';
import { kitToolView } from '../../core/kits/kit.ts';
import { openAiFunctionSchema, toolJsonSchema } from '../../core/tools/schema.ts';
import { toolsPrompt } from '../../core/tools/prompt.ts';
import { json, languageArg, oneOf } from '../context.ts';
import { visible } from '../../core/text/visible.ts';
import type { CliContext } from '../context.ts';

export function registerTools(program: Command, ctx: CliContext): void {
  program
    .command('tools')
    .description(
      "print a sandbox's tools as the LLM reads them (xml), as OpenAI function schemas, or as JSON",
    )
    .requiredOption('--sandbox <name>', 'the sandbox')
    .option('--kit <name>', 'only the tools of this kit (by alias)')
    .option(
      '--format <format>',
      'xml | openai | json',
      oneOf('--format', ['xml', 'openai', 'json'] as const),
      'xml',
    )
    .option(
      '--language <language>',
      'python | js | ts: the signatures as its scripts write the calls, and whose skills follow the tools',
      languageArg('--language'),
      'python',
    )
    .action(
      (
        opts: {
          sandbox: string;
          kit?: string;
          format: 'xml' | 'openai' | 'json';
          language: 'python' | 'js' | 'ts';
        },
        cmd: Command,
      ) => {
        const svc = ctx.service(cmd);
        const registry = svc.catalog.registry(opts.sandbox);
        // The skills offered to scripts (tests passing, every tool they call in the kit) come after the tools.
        const skills = svc.execution.scriptContext(opts.sandbox, opts.kit, opts.language).skills ?? [];
        const tools = [
          ...(opts.kit ? kitToolView(svc.catalog.kit(opts.kit)) : registry.tools),
          ...skills.map((s) => s.tool),
        ];
        for (const p of registry.problems)
          ctx.err(`tools.py:${p.line}:${p.column}: ${p.rule}: ${visible(p.message)}\n`);
        // The XML in the language's own call syntax: a JS/TS script passes one object of named arguments.
        if (opts.format === 'xml')
          ctx.out(
            opts.language !== 'python'
              ? toolsPrompt(tools, opts.language)
              : opts.kit || skills.length
                ? toolsPrompt(tools)
                : registry.prompt(),
          );
        else if (opts.format === 'openai') ctx.out(json(tools.map(openAiFunctionSchema)));
        else ctx.out(json(tools.map((t) => ({ ...t, schema: toolJsonSchema(t) }))));
      },
    );
}
