/**
 * What the code answering a cached verb is: the package's version and the code's stamp. Part of the key of
 * every answer kept in the user's cache folder (verb-cache.ts, sandboxes-cache.ts), so that an upgrade, a
 * rebuilt bundle or an edited source never meets an answer of the code before it.
 * Only node: modules here (it is loaded on the cache's fast path).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Builtins by process.getBuiltinModule, not ES imports: an ES import builds the module's namespace
// (node:fs's reads every export, its lazy `promises` too), ~3-5 ms of a one-shot verb's ~25 ms start
// (docs/scaling.md, "CLI start").
const { readdirSync, readFileSync, statSync } = process.getBuiltinModule('node:fs');

let stamp: string | undefined;
/**
 * What the code that answers is (part of every key with the package's version): the CLI bundle's size,
 * times and inode where the package runs built, else (a clone run from its sources) the newest time of any file
 * under src-main, so that an edit to the validator or a `git pull` without a new version never meets an
 * answer of the code before it (~2-7 ms to look at ~220 files, on the clone's path only).
 */
export function codeStamp(): string {
  if (stamp !== undefined) return stamp;
  const here = fileURLToPath(import.meta.url);
  try {
    if (here.endsWith('.js')) {
      // (with its inode and change time: npm sets every packed file's time to one date, so a rebuild of
      // the same version and size installed again kept the size and time; the kernel sets the change
      // time at any write, and an install writes a new file)
      const s = statSync(join(dirname(here), 'main.js'), { bigint: true });
      return (stamp = `bundle:${s.size}:${s.mtimeNs}:${s.ino}:${s.ctimeNs}`);
    }
    let newest = 0;
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else newest = Math.max(newest, statSync(p).mtimeMs);
      }
    };
    walk(join(dirname(here), '..'));
    return (stamp = `sources:${newest}`);
  } catch {
    return (stamp = 'unknown');
  }
}

/** The package's version (part of every key: an upgrade answers anew). */
export const packageVersion = (): string =>
  (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
