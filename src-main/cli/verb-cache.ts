/**
 * `toolsmith kit list` and `toolsmith tools ...` without the service: the last answer of the same command
 * line for this workspace, kept in the user's cache folder (never in the workspace) under a key hashed
 * from everything the answer depends on: the package version, the arguments, the config file's bytes,
 * the names under `sandboxes/` and each `tools.py`'s bytes (sandboxes-cache.ts), and every `kits/*.kit`
 * file's name and bytes. Any change misses, and the verb takes the full path (config validated, tools
 * extracted with pyright's parser, kits resolved) and stores its answer again. Only successful answers
 * of workspaces without MCP servers are kept (MCP tools come from live servers).
 * Only node: modules here: the full path costs loading the service (zod, pyright, the kits and tools
 * code) and a leftover-container sweep; a hit costs reading one small file. bin/start.mjs asks
 * `answerFromCache` before it loads main.ts (commander, the redactor, every verb's table): a hit loads
 * this module and the workspace resolver only (a separate entry of the CLI bundle, out/cli/verb-cache.js).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { snapshotKey } from './sandboxes-cache.ts';
import { resolveWorkspaceDir } from '../infra/workspace/init.ts';

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

/** The verb in `argv` (the first word that is not an option or the global option's value). */
export function verbOf(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '-w' || a === '--workspace') {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    return a;
  }
  return undefined;
}

/** Options of `mcp` that mean HTTP (or help): no early stdio server then. */
const NOT_EARLY_STDIO = [
  '--http',
  '--help',
  '-h',
  '--port',
  '--host',
  '--token-env',
  '--session-idle',
  '--max-sessions',
];

/**
 * `mcp` on stdio answers the client's initialize before anything else loads (mcp/stdio-early.ts): called
 * by bin/start.mjs before main.ts is imported (importing it blocks the event loop), and by main() again
 * (the same server, answered at once). An HTTP-only option without --http is a usage error that
 * Commander reports, so no early server then.
 */
export async function startEarlyMcp(argv: string[]): Promise<void> {
  if (verbOf(argv) !== 'mcp' || argv.some((a) => NOT_EARLY_STDIO.includes(a.split('=')[0] ?? a))) return;
  await (await import('../mcp/stdio-early.ts')).earlyStdio().answered(1_000);
}

/** The workspace option in `argv` (`-w DIR`, `--workspace DIR`, `--workspace=DIR`). */
function workspaceOption(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '-w' || a === '--workspace') return argv[i + 1];
    if (a.startsWith('--workspace=')) return a.slice('--workspace='.length);
  }
  return undefined;
}

/** The package's version (part of every key: an upgrade answers anew). */
export const packageVersion = (): string =>
  (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;

/**
 * For a command line answered from the verb cache: the cached answer when the workspace is unchanged,
 * else where to keep this run's answer.
 */
export function cachedVerb(
  argv: string[],
  version: string,
): { dir: string; key: string; out: string; err: string; hit: VerbAnswer | undefined } | undefined {
  if (!cacheableVerb(argv, verbOf(argv))) return undefined;
  const option = workspaceOption(argv);
  if (option !== undefined && !existsSync(option)) return undefined;
  const dir = resolveWorkspaceDir(option);
  const key = verbKey(dir, argv, version);
  if (!key) return undefined;
  return { dir, key, out: '', err: '', hit: readVerbAnswer(dir, key) };
}

/**
 * bin/start.mjs's first step: prints the cached answer of this command line and returns true, or
 * returns false (not a cached verb, a changed workspace, no cache) for main() to run. Never throws.
 */
export function answerFromCache(argv: string[]): boolean {
  try {
    const hit = cachedVerb(argv, packageVersion())?.hit;
    if (!hit) return false;
    process.stdout.write(hit.out);
    process.stderr.write(hit.err);
    return true;
  } catch {
    return false;
  }
}
