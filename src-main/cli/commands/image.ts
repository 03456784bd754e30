import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { runtimeArg, UsageError } from '../context.ts';
import type { CliContext } from '../context.ts';

/** The runtimes a sandbox has dependency files for (python when none). */
function depsRuntimes(
  svc: { workspace: { toolsFile(s: string): string } },
  sandbox: string,
): ('python' | 'node')[] {
  const dir = dirname(svc.workspace.toolsFile(sandbox));
  const out: ('python' | 'node')[] = [];
  if (existsSync(join(dir, 'requirements.txt'))) out.push('python');
  if (existsSync(join(dir, 'package.json'))) out.push('node');
  return out.length ? out : ['python'];
}

export function registerImage(program: Command, ctx: CliContext): void {
  const image = program.command('image').description('sandbox images (built offline)');
  image
    .command('build')
    .description(
      "build the sandbox image for a runtime, and with --sandbox its derived image with the sandbox's dependencies (a no-op when up to date)",
    )
    .option(
      '--runtime <runtime>',
      'python | node | bun | deno (bun and deno download their pinned binary from the npm registry once); default python, or with --sandbox every runtime the sandbox has dependencies for',
      runtimeArg('--runtime', 'an image is built for a runtime'),
    )
    .option('--sandbox <name>', "also build the sandbox's derived image (requirements.txt, package.json)")
    .action(async (o: { runtime?: 'python' | 'node' | 'bun' | 'deno'; sandbox?: string }, cmd: Command) => {
      if (!o.sandbox) {
        // Up to date already: one request to the engine's socket, no Docker client or service loaded.
        const cached = await (
          await import('../../app/images-light.ts')
        ).cachedImageTag(o.runtime ?? 'python');
        if (cached) return ctx.out(`${cached}\n`);
      }
      await ctx.loadService();
      const svc = ctx.service(cmd);
      // Before anything is built: an unknown sandbox was said only after the runtime image was built.
      // (the near name loaded only here: this module is on the cached build's light path)
      if (o.sandbox !== undefined && !svc.workspace.sandboxNames().includes(o.sandbox)) {
        const { didYouMean } = await import('../../core/text/near-names.ts');
        throw new UsageError(
          `no sandbox ${o.sandbox} in ${svc.workspace.root()}; ${didYouMean(o.sandbox, svc.workspace.sandboxNames())}available: ${svc.workspace.sandboxNames().join(', ') || 'none'}`,
        );
      }
      const runtimes = o.runtime
        ? [o.runtime]
        : o.sandbox
          ? depsRuntimes(svc, o.sandbox)
          : ['python' as const];
      for (const runtime of runtimes) {
        const { tag } = await svc.system.buildImage(runtime, o.sandbox, (line) => ctx.err(`  ${line}\n`));
        ctx.out(`${tag}\n`);
      }
    });
}
