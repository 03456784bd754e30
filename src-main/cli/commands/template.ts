import type { Command } from 'commander';
import type { SlotType } from '../../core/templates/template.ts';
import { json, languageArg, parseIntOption, UsageError } from '../context.ts';
import type { CliContext } from '../context.ts';
import { readInput, sandboxOf } from './validate.ts';
import { visible } from '../../core/text/visible.ts';

export function registerTemplate(program: Command, ctx: CliContext): void {
  const tmpl = program
    .command('template')
    .description('templates: verified scripts that serve a matching intent with no LLM call');
  tmpl
    .command('create')
    .description('promote a script to a template (from a run, or from a file with --pattern)')
    .argument('<name>', 'template name')
    .option(
      '--from-run <id>',
      'the run whose successful script becomes the template (pattern proposed from its task)',
    )
    .option(
      '--attempt <n>',
      'with --from-run: this successful attempt instead of the last one (a failed one is refused)',
      parseIntOption('--attempt', 1, 1000),
    )
    .option('--file <script>', 'the script body, with {{slot}} placeholders')
    .option('--pattern <text>', 'intent pattern with {slot} placeholders, e.g. "name of user {user_id}"')
    .option(
      '--slot <name=type>',
      'slot type (str, int, float); repeatable',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      '--sandbox <name>',
      "the sandbox (default: the run's; with --file, the workspace's default_sandbox, else its first)",
    )
    .option('--kit <name>', "the kit (default: the run's)")
    .option('--lang <lang>', 'python | js | ts', languageArg('--lang'))
    .option(
      '--example <intent>',
      'an example intent for `template test`; repeatable',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option('--description <text>', 'what it does')
    .option('--force', 'replace an existing template')
    .option('--json', 'print JSON')
    .action(
      async (
        name: string,
        o: {
          fromRun?: string;
          attempt?: number;
          file?: string;
          pattern?: string;
          slot?: string[];
          sandbox?: string;
          kit?: string;
          lang?: 'python';
          example?: string[];
          description?: string;
          force?: boolean;
          json?: boolean;
        },
        cmd: Command,
      ) => {
        if (!o.fromRun && !o.file) throw new UsageError('give --from-run <id> or --file <script>');
        if (o.file && !o.pattern) throw new UsageError('--file needs --pattern');
        let slots: Record<string, SlotType> | undefined;
        for (const s of o.slot ?? []) {
          const [k, v] = s.split('=');
          if (!k || (v !== 'str' && v !== 'int' && v !== 'float'))
            throw new UsageError(`--slot takes name=str|int|float, got ${JSON.stringify(s)}`);
          (slots ??= {})[k] = v;
        }
        const sandbox = o.sandbox ?? (o.file && !o.fromRun ? sandboxOf(ctx, cmd, undefined) : undefined);
        const t = (await ctx.service(cmd).templates()).create({
          name,
          ...(o.fromRun ? { fromRun: o.fromRun } : {}),
          ...(o.attempt !== undefined ? { attempt: o.attempt } : {}),
          ...(o.file ? { body: readInput(o.file) } : {}),
          ...(o.pattern ? { pattern: o.pattern } : {}),
          ...(slots ? { slots } : {}),
          // From a file there is no run to take the sandbox from: the workspace's default, as `validate`,
          // `exec` and `run` take it (before, "a template needs a script (--from-run or --file) and a
          // sandbox" blamed the script the person had given).
          ...(sandbox ? { sandbox } : {}),
          ...(o.kit ? { kit: o.kit } : {}),
          ...(o.lang ? { language: o.lang } : {}),
          ...(o.example ? { examples: o.example.map((intent) => ({ intent })) } : {}),
          ...(o.description ? { description: o.description } : {}),
          ...(o.force ? { force: true } : {}),
        });
        ctx.out(o.json ? json(t) : `created template ${t.name} (${t.file})\npattern: ${t.pattern}\n`);
      },
    );
  tmpl
    .command('list')
    .description('list templates with their success and failure counts')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }, cmd: Command) => {
      // (the workspace read only, app/workspace-reader.ts: none of the service's modules load)
      const { templates: list, problems } = await (await ctx.reader(cmd)).templates();
      if (o.json) return ctx.out(json({ templates: list, problems }));
      // (said on stderr: stdout stays one line per template for a pipe)
      if (list.length === 0)
        ctx.err(
          "no templates in this workspace: promote a run's working script with `toolsmith template create NAME --from-run RUN_ID`\n",
        );
      for (const t of list)
        ctx.out(
          `${t.name.padEnd(20)} ${t.sandbox.padEnd(10)} ok ${String(t.successes).padStart(3)} fail ${String(t.failures).padStart(3)}  ${t.pattern}\n`,
        );
      for (const p of problems) ctx.err(`${visible(p.error)}\n`);
    });
  tmpl
    .command('test')
    .description('run a template against its saved examples in the sandbox')
    .argument('<name>', 'template name')
    .option('--json', 'print JSON')
    .action(async (name: string, o: { json?: boolean }, cmd: Command) => {
      const r = await (await ctx.service(cmd).templates()).test(name);
      if (o.json) ctx.out(json(r));
      else
        for (const e of r.examples)
          ctx.out(
            `${e.success ? 'PASS' : 'FAIL'} ${visible(e.intent)}${e.data !== undefined ? ` -> ${visible(JSON.stringify(e.data))}` : ''}${e.error ? ` (${visible(e.error, '  ')})` : ''}\n`,
          );
      ctx.exitCode = r.passed ? 0 : 1;
    });
  tmpl
    .command('delete')
    .description('delete a template and its counters')
    .argument('<name>', 'template name')
    .action(async (name: string, _o: unknown, cmd: Command) => {
      (await ctx.service(cmd).templates()).delete(name);
      ctx.out(`deleted template ${name}\n`);
    });
}
