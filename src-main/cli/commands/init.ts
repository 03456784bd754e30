import type { Command } from 'commander';
import { WorkspaceError } from '../../infra/workspace/atomic.ts';
import { initWorkspace, rememberWorkspace } from '../../infra/workspace/init.ts';
import { UsageError } from '../context.ts';
import { initText } from '../init-text.ts';
import type { CliContext } from '../context.ts';

// (`init [DIR] --empty` of a plain command line is answered before main loads, as this verb answers it:
// cli/init-early.ts)
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
      ctx.out(initText(root, opts.empty === true, opts.json === true));
    });
}
