#!/usr/bin/env node
// `npm run build:cli` (and `prepack`): bundles the command's TypeScript (src-main/cli/main.ts and
// everything it imports from src-main/) into out/cli/, for the packed package. Installed, the command
// then loads a few bundled files instead of hundreds of .ts files passed through the type-stripping
// hook (bin/strip-hook.mjs). bin/start.mjs loads the bundle only when the package runs from under a
// node_modules folder (installed); a clone keeps running its sources, so an out/cli/ left over from a
// `npm pack` there is never stale code that runs.
// Dependencies are bundled too (all but OPTIONAL below). The verbs' lazy imports stay lazy: each becomes a chunk.
// The output keeps src-main's depth (out/cli/ is two folders below the package root, like
// src-main/cli/), so `new URL('../../package.json', import.meta.url)` and the walk up to resources/
// find the same files; every chunk sits in out/cli/ itself for the same reason.
import { builtinModules } from 'node:module';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { pyrightParserOnly } from './cli-pyright.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'out', 'cli');
const builtins = new Set(builtinModules);
/**
 * Every package the command imports is bundled with our sources: the installed package then needs no
 * dependency at all (its packed package.json lists none, scripts/packed-manifest.mjs), so `npm install -g`
 * fetches nothing but the shipped Node and runs no dependency's install script. Not bundled: Node's
 * built-ins, Electron (the desktop app is not part of the installed command), and what is optional at
 * run time and loaded in a try (`OPTIONAL`: ws's native helpers).
 */
const OPTIONAL = ['bufferutil', 'utf-8-validate', 'electron'];
/** Docker over ssh:// is not an engine Toolsmith offers (infra/sandbox/engines.ts): ssh2 is left out. */
const STUBS = { ssh2: join(root, 'scripts', 'cli-stubs', 'ssh2.cjs') };
/** What the bundle keeps of the comments: the bundled packages' licence notices and the pure annotations. */
const COMMENTS = { legal: true, annotation: true, jsdoc: false };

rmSync(outDir, { recursive: true, force: true });
const started = Date.now();
await build({
  configFile: false,
  root,
  logLevel: 'warn',
  publicDir: false,
  build: {
    ssr: true,
    outDir,
    emptyOutDir: true,
    target: 'node24',
    minify: false,
    sourcemap: false,
    reportCompressedSize: false,
    copyPublicDir: false,
    rollupOptions: {
      input: {
        main: join(root, 'src-main/cli/main.ts'),
        // bin/start.mjs answers cached verbs and helps from the verb cache before main loads.
        'verb-cache': join(root, 'src-main/cli/verb-cache.ts'),
        // The parallel validator's thread entry: src-main/infra/validate/parallel.ts looks for
        // `validate-thread.js` beside the code that starts it.
        'validate-thread': join(root, 'src-main/infra/validate/thread.ts'),
      },
      external: (id) =>
        id.startsWith('node:') ||
        builtins.has(id) ||
        OPTIONAL.some((p) => id === p || id.startsWith(`${p}/`)),
      output: {
        format: 'es',
        // Doc comments stripped (the sources keep them); licence notices and bundler annotations kept. A
        // verb loads and parses less: main.js with commander was ~40% comments.
        comments: COMMENTS,
        entryFileNames: '[name].js',
        chunkFileNames: '[name]-[hash].js',
        // A module both main and a path before main use (bin/start.mjs: the verb cache, `validate FILE`
        // from the snapshot, the early MCP answer) would otherwise be put in main.js, the entry that
        // holds it: importing one function from there runs main's whole module graph (commander, the
        // verbs' table), ~9 ms of CPU of a ~50 ms verb. Such modules get chunks of their own: one for the
        // early `validate FILE` (the escaping of what a script wrote, the language of a file, the loader
        // of the validator's script; start-imports.test.ts finds that loader there), as each module
        // loaded apart cost ~0.5 ms of CPU.
        // Each group takes only the modules its test names (`includeDependenciesRecursively: false`): with
        // rolldown's default a group also took every module they import, so `validate-early` held the
        // workspace's and the cache keys' modules and every start before main loaded `validate FILE`'s
        // code with them (docs/scaling.md, "Issue 29: runs list and template list, the store's start").
        codeSplitting: {
          includeDependenciesRecursively: false,
          groups: [
            {
              name: 'validate-early',
              test: /[\\/]src-main[\\/](cli[\\/]validate-early|cli[\\/]validator-bundle|core[\\/]lang[\\/]validate-lazy)\.ts$/,
            },
            // The error words and the escaping of what is printed, which the verb cache's entry and every
            // path before main take (one small chunk, not one each).
            { name: 'errors', test: /[\\/]src-main[\\/](core[\\/]errors|core[\\/]text[\\/]visible)\.ts$/ },
            // `runs list` and `template list` before main (src-main/cli/store-verbs.ts): the verbs' own
            // module with what it imports that main shares (the redactor, the runs' vocabulary and sorts,
            // the secrets of the environment, the sweep, the store's error names, the runs list's text, the
            // config's digest and warning lines), in one chunk: each chunk loaded apart costs ~1 ms of CPU
            // (the loader's resolve, read, compile cache look-up and link), about what its code costs.
            {
              name: 'store-verbs-shared',
              test: /[\\/]src-main[\\/](core[\\/]records[\\/](redact|vocabulary|sort)|app[\\/]env-secrets|cli[\\/](sweep|store-errors|runs-list-text|store-verbs|config-digest|config-words))\.ts$/,
            },
            // The run store without `import` (infra/store/run-store-core.ts and its connection, statements
            // and queries) and its log file (app/log-file.ts): one chunk for the store verbs before main,
            // which the store's other users (main's service, `runs recover`, the suites) load whole too.
            {
              name: 'run-store-core',
              test: /[\\/]src-main[\\/](infra[\\/]store[\\/](connection|file-locks|run-store-core|run-events|run-queries|run-statements|statements|rows)|core[\\/]records[\\/](events|records|summary)|app[\\/]log-file)\.ts$/,
            },
            // `init --empty` before main (src-main/cli/init-early.ts): the answer's text and the command hint
            // it names, which main's `init` and context.ts use too.
            { name: 'init-text', test: /[\\/]src-main[\\/]cli[\\/](init-text|invocation)\.ts$/ },
          ],
        },
      },
    },
  },
  plugins: [pyrightParserOnly()],
  resolve: { alias: STUBS },
  ssr: { noExternal: true },
});
// Each language's validator as one script of its own (CommonJS, no import of anything but Node's
// builtins): `toolsmith validate` runs it with V8's code cache made after it ran
// (src-main/cli/validator-bundle.ts), which an ES module's compile cache cannot hold.
for (const [name, entry] of [
  ['validator-python', 'src-main/core/lang/python/validate.ts'],
  ['validator-js', 'src-main/core/lang/js/validate.ts'],
])
  await build({
    configFile: false,
    root,
    logLevel: 'warn',
    publicDir: false,
    build: {
      ssr: true,
      outDir,
      emptyOutDir: false,
      target: 'node24',
      minify: false,
      sourcemap: false,
      reportCompressedSize: false,
      copyPublicDir: false,
      rollupOptions: {
        input: { [name]: join(root, entry) },
        external: (id) => id.startsWith('node:') || builtins.has(id),
        output: { format: 'cjs', entryFileNames: '[name].cjs', codeSplitting: false, comments: COMMENTS },
      },
    },
    plugins: [pyrightParserOnly()],
    ssr: { noExternal: true },
  });
process.stderr.write(`build:cli: out/cli in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
