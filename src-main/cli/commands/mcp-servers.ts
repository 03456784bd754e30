import type { Command } from 'commander';
import { ToolsmithError } from '../../app/errors.ts';
import { json } from '../context.ts';
import type { CliContext } from '../context.ts';
import { errorMessage } from '../../core/errors.ts';
import { visible } from '../../core/text/visible.ts';

/** Verbs whose sandbox's MCP servers are connected before they run (so its MCP tools are listed). */
const USES_TOOLS = new Set(['tools', 'call', 'exec', 'run', 'prompt', 'validate', 'info', 'list', 'create']);

/**
 * A preAction hook: connects the MCP servers of the sandbox a verb names (`--sandbox`, or every sandbox
 * with MCP servers for `kit`), so `tools`, `tool call`, `exec`, `run`... work unchanged on MCP sandboxes.
 * A server that cannot be reached is reported on stderr with the reason; the verb then decides. Light
 * verbs (no hook) call it themselves with the sandboxes they use (`only`).
 */
export async function prepareMcpForCommand(ctx: CliContext, cmd: Command, only?: string[]): Promise<void> {
  if (!USES_TOOLS.has(cmd.name())) return;
  const parent = cmd.parent?.name();
  // `exec`'s result names a server that is down (an infra failure), and `tool call` of a tool missing
  // because its server is down names the server and why: the line here said it a second time, before the
  // same words. A selection's typo (below) is said by neither: it is still said here.
  const saysDown =
    (cmd.name() === 'exec' && !cmd.parent?.parent) || (cmd.name() === 'call' && parent === 'tool');
  if (cmd.name() === 'list' && parent !== 'kit') return;
  if (cmd.name() === 'info' && parent !== 'kit') return;
  if (cmd.name() === 'create' && parent !== 'kit') return;
  const opts = cmd.opts<{ sandbox?: unknown }>();
  const svc = ctx.service(cmd);
  const sandboxes = only
    ? only
    : typeof opts.sandbox === 'string'
      ? [opts.sandbox]
      : parent === 'kit' || cmd.name() === 'run'
        ? Object.keys(svc.workspace.config().sandboxes)
        : [];
  for (const s of sandboxes) {
    if (Object.keys(svc.workspace.config().sandboxes[s]?.mcp ?? {}).length === 0) continue;
    const down = await svc.prepareMcp(s);
    if (!saysDown) for (const f of down) ctx.err(`toolsmith: ${visible(f.error, '  ')}\n`);
    // Selections that name tools a server lacks (a typo in tools = [...] or an alias).
    if (down.length === 0)
      for (const p of (await import('../../app/mcp.ts')).sandboxMcpTools(
        svc.mcp(),
        svc.workspace.config().sandboxes[s]?.mcp ?? {},
      ).problems)
        ctx.err(`toolsmith: sandboxes.${s}.mcp: ${visible(p)}\n`);
  }
}

export function registerMcpServers(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('mcp-servers')
    .description('the MCP servers the workspace imports tools from ([mcp_servers.NAME] in config.toml)');
  cmd
    .command('list')
    .description('the declared servers, their transport and which sandboxes use them (connects to none)')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }, c: Command) => {
      // (the workspace read only, app/workspace-reader.ts: none of the service's modules load)
      const reader = await ctx.reader(c);
      const rows = reader
        .mcp()
        .names()
        .map((name) => ({
          ...reader.mcp().status(name),
          sandboxes: Object.entries(reader.config.sandboxes)
            .filter(([, s]) => name in s.mcp)
            .map(([n]) => n),
        }));
      if (o.json) return ctx.out(json(rows));
      if (rows.length === 0)
        ctx.out('no MCP servers declared ([mcp_servers.NAME] in .toolsmith/config.toml)\n');
      for (const r of rows)
        ctx.out(`${r.name}\t${r.transport}\t${r.target}\tsandboxes: ${r.sandboxes.join(', ') || '-'}\n`);
    });
  cmd
    .command('test')
    .description('connect to a server and list its tools with their grades; exit 1 when it cannot be reached')
    .argument('<name>', 'the server')
    .option('--json', 'print JSON')
    .action(async (name: string, o: { json?: boolean }, c: Command) => {
      const svc = ctx.service(c);
      // A name the config does not declare is a usage error (exit 2, like `kit info nope`); exit 1 is
      // for a declared server that cannot be reached.
      if (!svc.mcp().def(name))
        throw new ToolsmithError(
          'not_found',
          `no MCP server ${name}; declared: ${svc.mcp().names().join(', ') || 'none'} ([mcp_servers.NAME] in .toolsmith/config.toml)`,
        );
      const started = performance.now();
      try {
        const tools = await svc.mcp().listTools(name);
        const st = svc.mcp().status(name);
        const ms = Math.round(performance.now() - started);
        if (o.json) return ctx.out(json({ ...st, ms, toolList: tools }));
        // The server's name, version, tool names and descriptions are its own text: their control
        // characters are shown, never sent to the terminal to act.
        ctx.out(
          `${name}: connected in ${ms} ms${st.server ? ` (${visible(st.server.name)} ${visible(st.server.version)})` : ''}, ${tools.length} tools\n`,
        );
        for (const t of tools)
          ctx.out(`  ${visible(t.name)}\t${visible((t.description ?? '').split('\n')[0] ?? '')}\n`);
      } catch (e) {
        ctx.err(`toolsmith: ${visible(errorMessage(e), '  ')}\n`);
        if (o.json) ctx.out(json(svc.mcp().def(name) ? svc.mcp().status(name) : { name, state: 'error' }));
        ctx.exitCode = 1;
      }
    });
}
