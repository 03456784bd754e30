/**
 * `toolsmith kit list` and `toolsmith tools ...` without the service: the last answer of the same command
 * line for this workspace, kept in the user's cache folder (never in the workspace) under a key hashed
 * from everything the answer depends on: the package version, the arguments, the config file's bytes,
 * the names under `sandboxes/` and each `tools.py`'s bytes (sandboxes-cache.ts), and every `kits/*.kit`
 * file's name and bytes. Any change misses, and the verb takes the full path (config validated, tools
 * extracted with pyright's parser, kits resolved) and stores its answer again. Only successful answers
 * of workspaces without MCP servers are kept (MCP tools come from live servers).
 * Only node: modules here: the full path costs loading the service (zod, pyright, the kits and tools
 * code) and a leftover-container sweep; a hit costs reading one small file.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { snapshotKey } from './sandboxes-cache.ts';

export interface VerbAnswer {
  key: string;
  out: string;
  err: string;
}

interface VerbCacheFile {
  version: 1;
  workspace: string;
  /** Newest last; at most MAX_ENTRIES. */
  answers: VerbAnswer[];
}

const MAX_ENTRIES = 32;

/** The command lines answered from the cache: `kit list [--json]` and `tools ...`. */
export function cacheableVerb(argv: string[], verb: string | undefined): boolean {
  if (argv.includes('--help') || argv.includes('-h') || argv.includes('help')) return false;
  if (verb === 'tools') return true;
  if (verb !== 'kit') return false;
  const after = argv.slice(argv.indexOf('kit') + 1).filter((a) => !a.startsWith('-'));
  return after[0] === 'list';
}

const cacheFile = (workspace: string): string =>
  join(
    process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache'),
    'toolsmith',
    `verbs-${createHash('sha256').update(workspace).digest('hex').slice(0, 16)}.json`,
  );

/** The key of this command line on the workspace's current state; undefined when it cannot be read. */
export function verbKey(workspace: string, argv: string[], version: string): string | undefined {
  const files = snapshotKey(workspace);
  if (!files) return undefined;
  try {
    const h = createHash('sha256');
    h.update(`${version}\0${argv.join('\0')}\0${files}`);
    const kits = join(workspace, 'kits');
    for (const name of existsSync(kits) ? readdirSync(kits).sort() : []) {
      if (!name.endsWith('.kit')) continue;
      h.update(`\0${name}\0`);
      h.update(readFileSync(join(kits, name)));
    }
    return h.digest('hex');
  } catch {
    return undefined;
  }
}

function readFile(workspace: string): VerbCacheFile | undefined {
  try {
    const f = JSON.parse(readFileSync(cacheFile(workspace), 'utf8')) as VerbCacheFile;
    return f.version === 1 && f.workspace === workspace && Array.isArray(f.answers) ? f : undefined;
  } catch {
    return undefined;
  }
}

export function readVerbAnswer(workspace: string, key: string): VerbAnswer | undefined {
  return readFile(workspace)?.answers.find((a) => a.key === key);
}

/** Best effort: a cache that cannot be written only costs the next call its speed. */
export function writeVerbAnswer(workspace: string, answer: VerbAnswer): void {
  const file = cacheFile(workspace);
  try {
    const old = readFile(workspace)?.answers.filter((a) => a.key !== answer.key) ?? [];
    const next: VerbCacheFile = {
      version: 1,
      workspace,
      answers: [...old, answer].slice(-MAX_ENTRIES),
    };
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(next));
    renameSync(tmp, file);
  } catch {
    /* read-only home: no cache */
  }
}
