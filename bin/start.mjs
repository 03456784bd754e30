// Toolsmith on Node 24. Started by bin/toolsmith (the POSIX launcher, which execs the shipped Node 24
// on this file) or bin/toolsmith.mjs (on the machine's Node: in its process on Node >= 24, else as a
// child on the shipped Node 24).
// - Installed (the package sits under a node_modules folder): runs the bundle of the command that
//   `npm pack` built (out/cli/main.js, scripts/build-cli.mjs): a few files instead of hundreds of
//   TypeScript modules. A package packed without it (`--ignore-scripts`) runs its sources through a
//   type-stripping load hook (./strip-hook.mjs), since Node refuses to strip types under node_modules.
// - A clone runs the TypeScript sources directly (Node's type stripping), never a bundle it may hold.
import module from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Not an ES import of node:fs: that builds its namespace (every export read, the lazy `promises` too),
// ~3 ms of a ~25 ms start (src-main/cli/verb-cache.ts and what it loads do the same).
const { existsSync } = process.getBuiltinModule('node:fs');

// V8's compile cache keeps the compiled code (and, for sources, the type-stripped text) between starts:
// without it every start parses every module again and, running sources, loads the TypeScript stripper
// (WebAssembly), the largest cost of a one-shot verb. In $NODE_COMPILE_CACHE when set, else in the
// user's own cache folder (not a folder shared by every user, such as /tmp: the cache holds code).
// Stale entries are ignored (keyed by each file's content).
module.enableCompileCache?.(
  process.env.NODE_COMPILE_CACHE ||
    join(process.env.XDG_CACHE_HOME || (homedir() ? join(homedir(), '.cache') : tmpdir()), 'toolsmith', 'v8'),
);

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
let entry = join(root, 'src-main/cli/main.ts');
if (root.split(sep).includes('node_modules')) {
  const bundle = join(root, 'out/cli/main.js');
  if (existsSync(bundle)) entry = bundle;
  else {
    const { installStripHook } = await import('./strip-hook.mjs');
    installStripHook(root);
  }
}
const argv = process.argv.slice(2);
// `kit list`, `kit info`, `tools`, `prompt`, `sandboxes`, `skill list`, `mcp-servers list` and
// `validate FILE` of an unchanged workspace (and script), and every
// help of the same code and terminal: the cached answer, before main (commander, every verb's table)
// loads (src-main/cli/verb-cache.ts; a separate entry of the bundle).
const cache = entry.endsWith('.js')
  ? join(root, 'out/cli/verb-cache.js')
  : join(root, 'src-main/cli/verb-cache.ts');
const {
  answerFromCache,
  imageBuildBeforeMain,
  initBeforeMain,
  poolStatusBeforeMain,
  reachLoopbackDirectly,
  startEarlyMcp,
  storeVerbBeforeMain,
  validateBeforeMain,
} = await import(pathToFileURL(cache).href);
// Behind a proxy (HTTP_PROXY/HTTPS_PROXY under NODE_USE_ENV_PROXY=1), loopback servers (a local model,
// an MCP server, an OTLP collector) are reached directly: before anything of the command runs
// (src-main/infra/net/proxy-env.ts, the rule of every entry; the desktop app calls it too).
reachLoopbackDirectly();
// `mcp` on stdio: the client's initialize is answered before main loads (src-main/mcp/stdio-early.ts).
await startEarlyMcp(argv);
// A plain `validate FILE` whose tools the sandboxes snapshot holds: checked before main loads too
// (src-main/cli/validate-early.ts).
// A plain `image build` whose image is already built: its tag, before main loads.
// `runs list` and `template list` of a workspace whose config's digest is kept: the run store read
// before main loads (src-main/cli/store-verbs.ts). `init [DIR] --empty`: made and said before main loads
// (src-main/cli/init-early.ts).
// `pool status [--json]` with an engine that answers: asked on its socket (src-main/cli/pool-status-early.ts).
const answered =
  answerFromCache(argv) ??
  (await validateBeforeMain(argv)) ??
  (await imageBuildBeforeMain(argv)) ??
  (await storeVerbBeforeMain(argv)) ??
  (await initBeforeMain(argv)) ??
  (await poolStatusBeforeMain(argv));
if (answered !== undefined) process.exitCode = answered;
else {
  const { main } = await import(pathToFileURL(entry).href);
  process.exitCode = await main(argv);
}
