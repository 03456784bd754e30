import type { Command } from 'commander';
import { WorkspaceError } from '../../infra/workspace/atomic.ts';
import { initWorkspace, rememberWorkspace } from '../../infra/workspace/init.ts';
import { json, UsageError } from '../context.ts';
import { commandHint } from '../invocation.ts';
import type { CliContext } from '../context.ts';

export function registerInit(program: Command, ctx: CliContext): void {
  program
    .command('init')
    .description('create a workspace in DIR (default: the current folder): a copy of the sample, or --empty')
    .argument('[dir]', 'a new or empty folder', '.')
    .option('--empty', 'an empty skeleton (config, sandboxes/, kits/, templates/) instead of the sample')
    .option('--name <name>', 'the workspace name (default: the folder name)')
    .option('--json', 'print JSON')
    .action((dir: string, opts: { empty?: boolean; name?: string; json?: boolean }) => {
      let root: string;
      try {
        root = initWorkspace(dir, {
          ...(opts.empty ? { empty: true } : {}),
          ...(opts.name ? { name: opts.name } : {}),
        });
      } catch (e) {
        if (e instanceof WorkspaceError) throw new UsageError(e.message);
        throw e;
      }
      rememberWorkspace(root);
      if (opts.json) return ctx.out(json({ workspace: root, kind: opts.empty ? 'empty' : 'sample' }));
      ctx.out(
        `created workspace ${root} (${opts.empty ? 'empty skeleton' : 'a copy of the sample workspace'})\n` +
          `next: cd ${JSON.stringify(root)} && ${commandHint()} sandboxes   (add an LLM provider: see the README's "LLM setup")\n`,
      );
    });
}
