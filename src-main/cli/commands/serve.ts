import { join } from 'node:path';
import type { Command } from 'commander';
import { repoRoot } from '../../infra/workspace/paths.ts';
import { startWebServer } from '../../web/server.ts';
import { parseIntOption } from '../context.ts';
import { untilStopped } from '../signals.ts';
import type { CliContext } from '../context.ts';
import { buildRenderer, hasRenderer, outDir } from '../renderer-build.ts';

export function registerServe(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('serve the workbench to a browser on 127.0.0.1 (prints a URL with a one-time token)')
    .option('--port <n>', 'port (default: a free one)', parseIntOption('--port', 0, 65535))
    .option('--renderer <dir>', 'built renderer folder (default: out/renderer, built first when missing)')
    .action(async (opts: { port?: number; renderer?: string }, cmd: Command) => {
      const svc = ctx.service(cmd);
      const staticDir = opts.renderer ?? join(outDir(repoRoot()), 'renderer');
      if (!hasRenderer(staticDir)) {
        if (opts.renderer) {
          ctx.err(`toolsmith: no renderer build in ${staticDir} (the API still answers)\n`);
        } else {
          ctx.err(`toolsmith: the workbench is not built yet; building it (electron-vite build)...\n`);
          try {
            await buildRenderer(repoRoot(), (line) => ctx.err(`  ${line}\n`));
            ctx.err(`toolsmith: built ${staticDir}\n`);
          } catch (e) {
            ctx.err(
              `toolsmith: could not build the workbench: ${(e as Error).message}\nrun \`npm run build\`; the API still answers\n`,
            );
          }
        }
      }
      const web = await startWebServer(svc, {
        ...(opts.port !== undefined ? { port: opts.port } : {}),
        staticDir,
      });
      ctx.out(`Toolsmith workbench: ${web.url}\nworkspace: ${svc.workspaceDir}\n`);
      // SIGINT, SIGTERM, SIGHUP: stop serving; runs in flight are cancelled and recorded when the
      // service closes (main), and the pools' containers removed.
      await untilStopped();
      await web.close();
    });
}
