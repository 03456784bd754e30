/**
 * The modes of what a sandbox is made from (an image's build context, the process level's copy of the
 * workers), set by the recipe rather than left to whoever built it: files are made and copied with the
 * builder's umask and the clone's modes (under `umask 077`, folders 0700 and files 0600), and the
 * worker runs as another uid (65534 in the images), which then could not read its own code.
 */
import { join } from 'node:path';

// Builtins by process.getBuiltinModule, not ES imports: an ES import builds the module's namespace
// (node:fs's reads every export, its lazy `promises` too), ~3-5 ms of a one-shot verb's ~25 ms start
// (docs/scaling.md, "CLI start").
const { chmodSync, lstatSync, readdirSync } = process.getBuiltinModule('node:fs');

/**
 * Makes every folder under `dir` (itself included) 0755, every file 0755 when any execute bit was set
 * and 0644 otherwise (symbolic links are left as they are), then gives the paths of `exceptions`
 * (relative to `dir`) their own mode: an execute-only binary, a sticky /tmp.
 */
export function normaliseModes(dir: string, exceptions: Readonly<Record<string, number>> = {}): void {
  const walk = (d: string) => {
    chmodSync(d, 0o755);
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) chmodSync(p, lstatSync(p).mode & 0o111 ? 0o755 : 0o644);
    }
  };
  walk(dir);
  for (const [path, mode] of Object.entries(exceptions)) chmodSync(join(dir, path), mode);
}
