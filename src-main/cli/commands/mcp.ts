import type { Command } from 'commander';
import type { CliContext } from '../context.ts';

export function registerMcp(program: Command, ctx: CliContext): void {
  program
    .command('mcp')
    .description(
      'serve Toolsmith as an MCP server on stdio (delegate, execute_code, validate, list_tools, kit_info, list_templates)',
    )
    .action(async (_o: unknown, cmd: Command) => {
      // The MCP SDK (and its JSON-schema validator) loads only when the server starts, not for --help.
      const { serveMcpStdio } = await import('../mcp.ts');
      await serveMcpStdio(ctx.service(cmd));
    });
}
