import type { Command } from 'commander';
import { ToolsmithError } from '../../app/errors.ts';
import { formatGrade } from '../../core/tools/grade.ts';
import { json, UsageError } from '../context.ts';
import type { CliContext } from '../context.ts';

export function registerKit(program: Command, ctx: CliContext): void {
  const kit = program
    .command('kit')
    .description('list, inspect and create kits (named subsets of tools with aliases)');
  kit
    .command('list')
    .description('list the kits of the workspace with their grade')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }, cmd: Command) => {
      const kits = ctx.service(cmd).catalog.kits();
      if (opts.json) {
        return ctx.out(
          json(
            kits.map((k) => ({
              name: k.name,
              sandbox: k.sandbox,
              file: k.file,
              grade: k.kit?.grade,
              tools: k.kit?.tools.map((t) => t.alias),
              error: k.error,
            })),
          ),
        );
      }
      for (const k of kits) {
        ctx.out(
          `${k.name.padEnd(14)} ${k.sandbox.padEnd(12)} ${k.kit ? `${formatGrade(k.kit.grade)}  ${k.kit.tools.map((t) => t.alias).join(', ')}` : `REFUSED: ${k.error}`}\n`,
        );
      }
    });
  kit
    .command('info')
    .description('show one kit: tools, aliases, groups and grade')
    .argument('<name>', 'kit name')
    .option('--json', 'print JSON')
    .action((name: string, opts: { json?: boolean }, cmd: Command) => {
      const k = ctx.service(cmd).catalog.kit(name);
      if (opts.json) {
        return ctx.out(
          json({
            ...k,
            tools: k.tools.map((t) => ({
              alias: t.alias,
              tool: t.tool.name,
              group: t.group,
              grade: t.tool.grade,
            })),
          }),
        );
      }
      ctx.out(
        `${k.name} (sandbox ${k.sandbox}) grade ${formatGrade(k.grade)}\n${k.description ? k.description + '\n' : ''}`,
      );
      for (const t of k.tools)
        ctx.out(
          `  ${(t.group ? t.group + '/' : '') + t.alias} -> ${t.tool.name} ${formatGrade(t.tool.grade)}\n`,
        );
    });
  kit
    .command('create')
    .description(
      'create a kit file (kits/<name>.kit); refused when a tool is unknown or the grade is above the maximum',
    )
    .argument('<name>', 'kit name')
    .requiredOption('--sandbox <name>', 'the sandbox')
    .requiredOption('--tools <list>', 'tools as `a,b` or with aliases `alias=tool,b`')
    .option('--description <text>', 'what the kit is for')
    .option('--force', 'overwrite an existing kit')
    .option('--json', 'print the created kit as JSON (like `kit info --json`, with its file and replaced)')
    .action(
      (
        name: string,
        opts: { sandbox: string; tools: string; description?: string; force?: boolean; json?: boolean },
        cmd: Command,
      ) => {
        const svc = ctx.service(cmd);
        const tools: Record<string, string> = {};
        for (const part of opts.tools
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)) {
          const [alias, tool] = part.includes('=') ? part.split('=', 2).map((s) => s.trim()) : [part, part];
          if (!alias || !tool) throw new UsageError(`bad --tools entry ${JSON.stringify(part)}`);
          // `a=get_user,a=get_product` kept only the last (the kit lost get_user, and said nothing); the
          // kit file itself refuses an alias used twice (core/kits/kit.ts).
          const before = tools[alias];
          if (before !== undefined)
            throw new UsageError(
              `kit ${name}: alias ${alias} is given twice in --tools (${before === tool ? tool : `${before} and ${tool}`}); each alias names one tool`,
            );
          tools[alias] = tool;
        }
        const def = {
          name,
          sandbox: opts.sandbox,
          ...(opts.description ? { description: opts.description } : {}),
          tools,
        };
        let saved;
        try {
          saved = svc.kits.save(def, { overwrite: opts.force === true });
        } catch (e) {
          // The one overwrite rule (app/kits-service.ts); the CLI's way to say "replace it" is --force.
          const exists =
            e instanceof ToolsmithError && (e.details as { exists?: string } | undefined)?.exists;
          if (exists) throw new UsageError(`kit ${name} exists (${exists}); use --force to overwrite`);
          throw e;
        }
        if (opts.json)
          return ctx.out(
            json({
              ...saved.kit,
              file: saved.file,
              replaced: saved.replaced,
              tools: saved.kit.tools.map((t) => ({
                alias: t.alias,
                tool: t.tool.name,
                group: t.group,
                grade: t.tool.grade,
              })),
            }),
          );
        ctx.out(
          `${saved.replaced ? 'replaced' : 'created'} ${saved.file}: grade ${formatGrade(saved.kit.grade)}, tools ${saved.kit.tools.map((t) => t.alias).join(', ')}\n`,
        );
      },
    );
}
