#!/usr/bin/env node
// The `toolsmith` command. Runs the TypeScript sources directly on Node >= 24 (type stripping);
// `npx toolsmith` puts node_modules/.bin first on PATH, where the `node` devDependency provides Node 24.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `toolsmith: Node >= 24 is required (this is ${process.version}); run it as \`npx toolsmith\` after \`npm ci\`\n`,
  );
  process.exit(2);
}
// V8's compile cache also keeps the type-stripped sources: without it every start loads the
// TypeScript stripper (amaro, WebAssembly) and strips each module again, which is most of a one-shot
// verb's time. Kept in $NODE_COMPILE_CACHE, else the OS temp folder; stale entries are ignored.
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
const { main } = await import('../src-main/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
