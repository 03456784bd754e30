import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const repoRoot = new URL('../../', import.meta.url).pathname;

/** A fresh copy of the sample workspace (without any runs.db) in a temp folder. */
export function tempWorkspace(prefix = 'toolsmith-ws-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(join(repoRoot, 'resources/workspace'), dir, {
    recursive: true,
    filter: (src) => !/runs\.db/.test(src),
  });
  return dir;
}

/** A copy of the sample workspace with the bun and deno runtimes enabled (off in the sample). */
export function bunDenoWorkspace(prefix = 'toolsmith-bun-deno-'): string {
  const dir = tempWorkspace(prefix);
  const cfg = join(dir, '.toolsmith/config.toml');
  const before = readFileSync(cfg, 'utf8');
  const text = before
    .replace('[runtimes.bun]\nenabled = false', '[runtimes.bun]\nenabled = true')
    .replace('[runtimes.deno]\nenabled = false', '[runtimes.deno]\nenabled = true');
  if (!/\[runtimes\.bun\]\nenabled = true/.test(text) || !/\[runtimes\.deno\]\nenabled = true/.test(text))
    throw new Error(
      `the sample's ${cfg} no longer has [runtimes.bun] and [runtimes.deno] with enabled = false`,
    );
  writeFileSync(cfg, text);
  return dir;
}

export function removeWorkspace(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A new temporary folder (`prefix` and a random suffix) and `file`, which writes `text` to `name` in it and answers its path. */
export function tempFiles(prefix: string): { dir: string; file: (name: string, text: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    file: (name, text) => {
      const f = join(dir, name);
      writeFileSync(f, text);
      return f;
    },
  };
}
