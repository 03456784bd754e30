import { fileURLToPath } from 'node:url';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * What a workspace's use leaves in it, none of which a copy takes: the run store (`runs.db` and its
 * `-wal`/`-shm`), the log folder and Python's byte-code caches, as the product's own copy of the sample
 * leaves them out (`copySample`, src-main/infra/workspace/init.ts). A person who ran the CLI against
 * their clone's resources/workspace has them there; a test's copy used to take their
 * `.toolsmith/logs/toolsmith.jsonl` (their runs' log lines) with it, where a test that fills a small
 * disk (faults/disk-full.test.ts) then ran out of room for the lines of its own run.
 */
const WORKSPACE_USE = /(^|[\\/])(runs\.db[^\\/]*|logs|__pycache__)$/;

/** Copies the workspace at `from` to `to`, without what its use left in it (`WORKSPACE_USE`). */
export function copyWorkspace(from: string, to: string): void {
  cpSync(from, to, { recursive: true, filter: (src) => !WORKSPACE_USE.test(src.slice(from.length)) });
}

/** The repository's sample workspace (`resources/workspace`), which the copies below start from. */
export const sampleWorkspace = join(repoRoot, 'resources/workspace');

/** A fresh copy of the sample workspace (without its runs or logs: `copyWorkspace`) in a temp folder. */
export function tempWorkspace(prefix = 'toolsmith-ws-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  copyWorkspace(sampleWorkspace, dir);
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

/** The sample config's `[[providers]]` tables (their comments too), up to the next table. */
const SAMPLE_PROVIDERS = /^\[\[providers\]\]\n[\s\S]*?(?=^\[(?!\[providers\]\]))/m;

/**
 * `config` (a config.toml's text, the sample's) with `tables` (TOML `[[providers]]` tables) in place of
 * its providers; throws when it has none, so a test never runs with the sample's provider unnoticed.
 */
export function replaceProviders(config: string, tables: string): string {
  if (!SAMPLE_PROVIDERS.test(config))
    throw new Error('the workspace config has no [[providers]] table to replace');
  return config.replace(SAMPLE_PROVIDERS, tables.endsWith('\n') ? `${tables}\n` : `${tables}\n\n`);
}

/** `config` with `lines` (TOML `key = value` lines) added to its first `[[providers]]` table; throws without one. */
export function withProviderLines(config: string, lines: string): string {
  if (!/^\[\[providers\]\]\n/m.test(config))
    throw new Error('the workspace config has no [[providers]] table');
  return config.replace(/^\[\[providers\]\]\n/m, `[[providers]]\n${lines.replace(/\n?$/, '\n')}`);
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
