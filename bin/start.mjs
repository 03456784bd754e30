// Toolsmith on Node 24: runs the TypeScript sources directly (Node's type stripping), no build step.
// Started by bin/toolsmith.mjs (in its process on Node >= 24, else as a child on the shipped Node 24).
import module from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// V8's compile cache also keeps the type-stripped sources: without it every start loads the
// TypeScript stripper (amaro, WebAssembly) and strips each module again, which is most of a one-shot
// verb's time. Kept in $NODE_COMPILE_CACHE, else the OS temp folder; stale entries are ignored.
module.enableCompileCache?.();

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Installed from a tarball, the package lives under a node_modules folder, where Node refuses to
// strip types ("ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING", a rule against publishing TypeScript).
// Our own sources are ours to run: a load hook strips them (./strip-hook.mjs), everything else loads
// as usual.
if (root.split(sep).includes('node_modules')) {
  const { installStripHook } = await import('./strip-hook.mjs');
  installStripHook(root);
}
const { main } = await import(pathToFileURL(join(root, 'src-main/cli/main.ts')).href);
process.exitCode = await main(process.argv.slice(2));
