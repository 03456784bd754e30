import type { Command } from 'commander';
import { json } from '../context.ts';
import type { CliContext } from '../context.ts';

export function registerSandboxes(program: Command, ctx: CliContext): void {
  program
    .command('sandboxes')
    .description('list the sandboxes of the workspace')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }, cmd: Command) => {
      const svc = ctx.service(cmd);
      const list = svc.sandboxes();
      if (opts.json) return ctx.out(json({ workspace: svc.workspaceDir, sandboxes: list }));
      ctx.out(`workspace ${svc.workspaceDir}\n`);
      for (const s of list) {
        ctx.out(
          `${s.name.padEnd(16)} ${String(s.tools).padStart(3)} tools${s.problems ? ` (${s.problems} problems)` : ''}  ${s.description}\n`,
        );
        const egress = svc.config.sandboxes[s.name]?.egress;
        if (egress)
          ctx.out(`${''.padEnd(16)} egress for its tools: ${egress.allow.join(', ') || 'none allowed'}\n`);
      }
    });
}
