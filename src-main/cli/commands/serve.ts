import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { repoRoot } from '../../infra/workspace/paths.ts';
import { startWebServer } from '../../web/server.ts';
import { parseIntOption } from '../context.ts';
import type { CliContext } from '../context.ts';

export function registerServe(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('serve the workbench to a browser on 127.0.0.1 (prints a URL with a one-time token)')
    .option('--port <n>', 'port (default: a free one)', parseIntOption('--port', 0, 65535))
    .option('--renderer <dir>', 'built renderer folder (default: out/renderer)')
    .action(async (opts: { port?: number; renderer?: string }, cmd: Command) => {
      const svc = ctx.service(cmd);
      const staticDir = opts.renderer ?? join(repoRoot(), 'out', 'renderer');
      if (!existsSync(join(staticDir, 'index.html')))
        ctx.err(
          `toolsmith: no renderer build in ${staticDir}; run \`npm run build\` (the API still answers)\n`,
        );
      const web = await startWebServer(svc, {
        ...(opts.port !== undefined ? { port: opts.port } : {}),
        staticDir,
      });
      ctx.out(`Toolsmith workbench: ${web.url}\nworkspace: ${svc.workspaceDir}\n`);
      await new Promise<void>((resolve) => {
        const stop = () => void web.close().then(resolve);
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });
}
