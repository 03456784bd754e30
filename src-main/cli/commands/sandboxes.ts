import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { resolveWorkspaceDir } from '../../infra/workspace/init.ts';
import { json, NO_SANDBOX_HINT } from '../context.ts';
import type { CliContext } from '../context.ts';
import { readSnapshot, snapshotKey } from '../sandboxes-cache.ts';
import type { SandboxesSnapshot } from '../sandboxes-cache.ts';
import { visible } from '../../core/text/visible.ts';

function print(
  ctx: CliContext,
  s: Omit<SandboxesSnapshot, 'version' | 'key' | 'validate'>,
  asJson: boolean,
): void {
  if (asJson) return ctx.out(json({ workspace: s.workspace, sandboxes: s.sandboxes }));
  ctx.out(`workspace ${s.workspace}\n`);
  // An empty workspace (`init --empty`) said nothing more: what makes a sandbox is said instead.
  if (s.sandboxes.length === 0) ctx.out(`no sandboxes yet: ${NO_SANDBOX_HINT}\n`);
  for (const x of s.sandboxes) {
    const mcp = x.mcpServers?.length ? ` (${x.fromMcp ?? 0} from MCP: ${x.mcpServers.join(', ')})` : '';
    ctx.out(
      `${x.name.padEnd(16)} ${String(x.tools).padStart(3)} tools${mcp}${x.problems ? ` (${x.problems} problem${x.problems === 1 ? '' : 's'})` : ''}  ${x.description}\n`,
    );
    // A count alone left the person to guess where the problems are listed.
    if (x.problems)
      ctx.out(
        `${''.padEnd(16)} its problems: toolsmith tools --sandbox ${x.name} (stderr), or the workbench's Tools view\n`,
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
      const svc = ctx.service(cmd);
      // MCP tools count like tools.py's (the workbench's count): connect the servers the sandboxes use.
      for (const [name, sb] of Object.entries(svc.workspace.config().sandboxes)) {
        if (Object.keys(sb.mcp).length === 0) continue;
        for (const f of await svc.prepareMcp(name))
          // (the error may quote the config's command or a server's words: shown, as mcp-servers test does)
          ctx.err(`toolsmith: sandbox ${name}: ${visible(f.error, '  ')} (its tools are not counted)\n`);
      }
      const { snapshotFromService } = await import('../sandboxes-snapshot.ts');
      const answer = snapshotFromService(svc, key, dir);
      print(ctx, answer, !!opts.json);
    });
}
