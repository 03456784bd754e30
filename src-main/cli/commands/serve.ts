import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { repoRoot } from '../../infra/workspace/paths.ts';
import { startWebServer } from '../../web/server.ts';
import { checkPort } from '../../app/listen.ts';
import { parseIntOption } from '../context.ts';
import { untilStopped } from '../signals.ts';
import type { CliContext } from '../context.ts';
import { buildRenderer, hasRenderer, outDir } from '../renderer-build.ts';
import { errorMessage } from '../../core/errors.ts';

/** Opens `target` (a file or URL) with the platform's opener; false when there is none. */
function openInBrowser(target: string): boolean {
  const opener =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer.exe' : 'xdg-open';
  if (process.platform === 'linux' && spawnSync('which', [opener]).status !== 0) return false;
  const p = spawn(opener, [target], { stdio: 'ignore', detached: true });
  p.on('error', () => {});
  p.unref();
  return true;
}

const attr = (s: string) => s.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A page that forwards to `url`, for the browser opener. The URL carries the token, and a command line
 * is readable by every user of the machine (`ps`, /proc/PID/cmdline): given to `xdg-open` (and by it
 * to a browser it starts), the token was anyone's. The opener gets this file's path instead; the file
 * is readable by this user only (0600, in a 0700 folder) and removed when serving stops.
 */
function forwardingPage(url: string): { file: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'toolsmith-open-'));
  chmodSync(dir, 0o700);
  const file = join(dir, 'open-workbench.html');
  writeFileSync(
    file,
    `<!doctype html>\n<meta charset="utf-8">\n<meta http-equiv="refresh" content="0;url=${attr(url)}">\n<title>Toolsmith workbench</title>\n<p><a href="${attr(url)}">Open the Toolsmith workbench</a></p>\n`,
    { mode: 0o600 },
  );
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function registerServe(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('serve the workbench to a browser on 127.0.0.1 (prints a URL with a one-time token)')
    .option('--port <n>', 'port (default: a free one)', parseIntOption('--port', 0, 65535))
    .option('--renderer <dir>', 'built renderer folder (default: out/renderer, built first when missing)')
    .option('--open', 'open the URL in the default browser')
    .option(
      '--allow-host-commands',
      'let the page start commands on this computer (stdio MCP servers): without it they are refused, as a web page cannot ask you first (from a clone: npm start -- --allow-host-commands)',
    )
    .action(
      async (
        opts: { port?: number; renderer?: string; open?: boolean; allowHostCommands?: boolean },
        cmd: Command,
      ) => {
        const svc = ctx.service(cmd);
        const staticDir = opts.renderer ?? join(outDir(repoRoot()), 'renderer');
        // A port in use is said before a build that would come first (a minute on a fresh clone).
        if (opts.port) await checkPort('127.0.0.1', opts.port);
        if (!hasRenderer(staticDir)) {
          if (opts.renderer) {
            ctx.err(`toolsmith: no renderer build in ${staticDir} (the API still answers)\n`);
          } else {
            ctx.err(`toolsmith: the workbench is not built yet; building it (electron-vite build)...\n`);
            try {
              await buildRenderer(repoRoot(), () => {}); // (its log is in the error when it fails)
              ctx.err(`toolsmith: built ${staticDir}\n`);
            } catch (e) {
              ctx.err(
                `toolsmith: could not build the workbench: ${errorMessage(e)}\nrun \`npm run build\`; the API still answers\n`,
              );
            }
          }
        }
        const web = await startWebServer(svc, {
          ...(opts.port !== undefined ? { port: opts.port } : {}),
          staticDir,
          ...(opts.allowHostCommands ? { allowHostCommands: true } : {}),
        });
        // The URL last: the line a person looks for.
        ctx.out(`workspace: ${svc.workspaceDir}\nToolsmith workbench: ${web.url}\n`);
        let page: { file: string; remove(): void } | undefined;
        if (opts.open) {
          page = forwardingPage(web.url);
          const opened = openInBrowser(page.file);
          if (!opened)
            ctx.err(`toolsmith: no browser opener found (xdg-open, open); open the URL above yourself\n`);
        }
        // SIGINT, SIGTERM, SIGHUP: stop serving; runs in flight are cancelled and recorded when the
        // service closes (main), and the pools' containers removed.
        await untilStopped();
        page?.remove();
        await web.close();
      },
    );
}
