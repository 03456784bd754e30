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
const { main } = await import('../src-main/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
