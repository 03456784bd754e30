import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
