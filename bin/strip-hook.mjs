// Strips the types of Toolsmith's own `.ts` sources when the package is installed under a
// node_modules folder (Node strips types only outside node_modules). Strip-only, like Node's own
// mode: types become whitespace, so line and column numbers in stack traces stay those of the source.
// The stripped text is kept in a cache folder keyed by the file's path, size and mtime, so a start
// after the first one does not load the stripper at all (it is WebAssembly, the largest cost).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

function cacheDir() {
  const base = process.env.XDG_CACHE_HOME || (homedir() ? join(homedir(), '.cache') : tmpdir());
  return join(base, 'toolsmith', `ts-${process.versions.node}`);
}

/** Node's stripper, without the "experimental feature" warning its first call prints on stderr. */
function strip(text) {
  const emit = process.emitWarning;
  process.emitWarning = (w, ...rest) => {
    if (!String(w).includes('stripTypeScriptTypes')) emit.call(process, w, ...rest);
  };
  try {
    return module.stripTypeScriptTypes(text, { mode: 'strip' });
  } finally {
    process.emitWarning = emit;
  }
}

/**
 * Strips the `.ts` files under `root` (the package folder) as they load, in this thread. Worker
 * threads do not inherit the hook: `TOOLSMITH_STRIP_HOOK` (this file) and `TOOLSMITH_STRIP_ROOT` tell
 * code that starts one to install it there first (src-main/infra/validate/parallel.ts).
 */
export function installStripHook(root) {
  process.env.TOOLSMITH_STRIP_HOOK = fileURLToPath(import.meta.url);
  process.env.TOOLSMITH_STRIP_ROOT = root;
  const prefix = pathToFileURL(root + sep).href;
  const dir = cacheDir();
  let madeDir = false;
  module.registerHooks({
    load(url, context, nextLoad) {
      if (!url.startsWith(prefix) || !url.endsWith('.ts')) return nextLoad(url, context);
      const path = fileURLToPath(url);
      const st = statSync(path);
      const key = createHash('sha256').update(`${path}\0${st.size}\0${st.mtimeMs}`).digest('hex');
      const cached = join(dir, `${key}.js`);
      let source;
      try {
        source = readFileSync(cached, 'utf8');
      } catch {
        source = strip(readFileSync(path, 'utf8'));
        try {
          if (!madeDir) mkdirSync(dir, { recursive: true });
          madeDir = true;
          const tmp = `${cached}.${process.pid}.tmp`;
          writeFileSync(tmp, source);
          renameSync(tmp, cached);
        } catch {
          // A read-only or full cache folder only costs the next start its stripping time.
        }
      }
      return { format: 'module', source, shortCircuit: true };
    },
  });
}
