import type { Command } from 'commander';
import { oneOf } from '../context.ts';
import type { CliContext } from '../context.ts';

export function registerImage(program: Command, ctx: CliContext): void {
  const image = program.command('image').description('sandbox images (built offline)');
  image
    .command('build')
    .description('build the sandbox image for a runtime (a no-op when it is up to date)')
    .option(
      '--runtime <runtime>',
      'python | node | bun | deno (bun and deno download their pinned binary from the npm registry once)',
      oneOf('--runtime', ['python', 'node', 'bun', 'deno'] as const),
      'python',
    )
    .action(async (o: { runtime: 'python' | 'node' | 'bun' | 'deno' }, cmd: Command) => {
      // Up to date already: one request to the engine's socket, no Docker client or service loaded.
      const cached = await (await import('../../app/images-light.ts')).cachedImageTag(o.runtime);
      if (cached) return ctx.out(`${cached}\n`);
      await ctx.loadService();
      const sandbox = await ctx.service(cmd).sandbox();
      const { tag } = await sandbox.buildImage(o.runtime, (line) => ctx.err(`  ${line}\n`));
      ctx.out(`${tag}\n`);
    });
}
