import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { resolveWorkspaceDir } from '../../infra/workspace/paths.ts';
import { json } from '../context.ts';
import type { CliContext } from '../context.ts';
import { readSnapshot, snapshotKey } from '../sandboxes-cache.ts';
import type { SandboxesSnapshot } from '../sandboxes-cache.ts';

function print(
  ctx: CliContext,
  s: Omit<SandboxesSnapshot, 'version' | 'key' | 'validate'>,
  asJson: boolean,
): void {
  if (asJson) return ctx.out(json({ workspace: s.workspace, sandboxes: s.sandboxes }));
  ctx.out(`workspace ${s.workspace}\n`);
  for (const x of s.sandboxes) {
    ctx.out(
      `${x.name.padEnd(16)} ${String(x.tools).padStart(3)} tools${x.problems ? ` (${x.problems} problems)` : ''}  ${x.description}\n`,
    );
    const egress = s.egress[x.name];
    if (egress) ctx.out(`${''.padEnd(16)} egress for its tools: ${egress.join(', ') || 'none allowed'}\n`);
  }
}

export function registerSandboxes(program: Command, ctx: CliContext): void {
  program
    .command('sandboxes')
    .description('list the sandboxes of the workspace')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      // A light verb (main.ts loads no service for it): unchanged workspaces answer from the last snapshot.
      const option = cmd.optsWithGlobals<{ workspace?: string }>().workspace;
      const dir = option === undefined || existsSync(option) ? resolveWorkspaceDir(option) : undefined;
      const cached = dir ? readSnapshot(dir) : undefined;
      if (cached) return print(ctx, cached, !!opts.json);
      const key = dir ? snapshotKey(dir) : undefined;
      await ctx.loadService();
      const { snapshotFromService } = await import('../sandboxes-snapshot.ts');
      const answer = snapshotFromService(ctx.service(cmd), key, dir);
      print(ctx, answer, !!opts.json);
    });
}
