/**
 * `toolsmith kit list`, `kit info NAME`, `tools ...`, `prompt ...`, `validate FILE ...`, `sandboxes
 * [--json]`, `skill list ...` and `mcp-servers list [--json]` without the service (or the workspace reader), and
 * every help (`--help`, `-h`, `help [VERB]`, no arguments) without commander: the last answer of the same
 * command line, kept in the user's cache folder (never in the workspace) under a key hashed from
 * everything the answer depends on.
 * - A verb: the package version and code stamp, the arguments, the config file's bytes, the names under
 *   `sandboxes/` and each `tools.py`'s bytes, the skills, their verdicts and the names and versions in
 *   their history (a deleted skill is refused as deleted; sandboxes-cache.ts), every
 *   `kits/*.kit` file's name and bytes, the values of the environment variables the config names (the
 *   secrets the output is redacted of: `secretsEnv`), for `validate` the script's bytes, and for `prompt`
 *   the files it reads (`promptInputs`) and the prompt texts. Any change misses, and the
 *   verb takes the full path (config validated, tools extracted with pyright's parser, kits resolved; for
 *   `validate`, the script parsed and checked) and stores its answer again. Only answers (a success, or
 *   `validate`'s exit 1 for an invalid script) of workspaces without MCP servers are kept (MCP tools come
 *   from live servers; `mcp-servers list`, which connects to none, in any workspace); the exit code is
 *   kept with the answer. A hit sweeps no leftover containers (the next verb that runs a sandbox does).
 * - A help: the package version and code stamp, the arguments, and what commander's text depends on
 *   besides: whether stdout and stderr are terminals and their width (commander wraps to it), and the
 *   colour variables (NO_COLOR, FORCE_COLOR, CLICOLOR_FORCE). Not the workspace: no verb's help reads it.
 *   Kept only when commander printed a help with exit 0 (main.ts), in a file of its own (`verbs-help.json`).
 * Entries of workspaces that are gone, or not written for 30 days, are pruned (cache-folder.ts).
 * Only node: modules here: the full path costs loading the service (zod, pyright, the kits and tools
 * code) and a leftover-container sweep, or for `validate` commander and pyright's parser, for a help
 * commander and every verb's table; a hit costs reading one small file. bin/start.mjs asks
 * `answerFromCache` before it loads main.ts (commander, the redactor, every verb's table): a hit loads
 * this module and the workspace resolver only (a separate entry of the CLI bundle, out/cli/verb-cache.js).
 */
import { dirname, join } from 'node:path';
import { codeStamp, packageVersion } from './code-stamp.ts';
import { printEarly } from './early-write.ts';
import { readRegularFile } from '../infra/workspace/regular-file.ts';
import { readSnapshot, snapshotKey } from './sandboxes-cache.ts';
import { hashParts, partsSignature, pathNameHash } from './key-parts.ts';
import type { KeyPart } from './key-parts.ts';
import { cacheFolder, pruneSometimes } from './cache-folder.ts';
import { resolveWorkspaceDir } from '../infra/workspace/init.ts';
import { resourcesDir } from '../infra/workspace/paths.ts';
import type { RuntimeImage } from '../infra/sandbox/images.ts';
// bin/start.mjs applies the loopback NO_PROXY rule from this module (its first), before anything runs.
export { reachLoopbackDirectly } from '../infra/net/proxy-env.ts';

// Builtins by process.getBuiltinModule, not ES imports: an ES import builds the module's namespace
// (node:fs's reads every export, its lazy `promises` too), ~3-5 ms of a one-shot verb's ~25 ms start
// (docs/scaling.md, "CLI start").
// node:crypto (~12-15 ms of CPU to load: its ~18 modules) when a key is hashed, not at this module's load:
// `init --empty` and the paths that hash nothing load this module too; the cache files' names and the
// digests' keys of an unchanged workspace take none (key-parts.ts; docs/scaling.md, issue 29).
const createHash = (algorithm: string) => process.getBuiltinModule('node:crypto').createHash(algorithm);
const { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } =
  process.getBuiltinModule('node:fs');

export interface VerbAnswer {
  key: string;
  out: string;
  err: string;
  /** The exit code (`validate`: 1 for an invalid script); absent in answers kept before it was: 0. */
  code?: number;
}

interface VerbCacheFile {
  version: 1;
  workspace: string;
  /** Newest last; at most MAX_ENTRIES. */
  answers: VerbAnswer[];
  /** Keys hashed before, by what their parts were then (`memoizedKey`); newest last, at most MAX_ENTRIES. */
  keys?: KeyMemo[];
}

/** A key and the signature of its parts when it was hashed (key-parts.ts `partsSignature`). */
interface KeyMemo {
  signature: string;
  key: string;
}

const MAX_ENTRIES = 32;

/**
 * The command lines answered from the cache: `kit list [--json]`, `kit info NAME [--json]` (the same
 * files as `kit list`: the kits, the tools they name, the config's grades), `tools ...`, `sandboxes ...`,
 * `validate FILE ...` (a file, not standard input; the file's bytes are part of the key), `skill list
 * ...` (the skills' files, their verdicts and the sandboxes' tools: all in the key), `mcp-servers list
 * [--json]` (the config's declarations; it connects to none) and `prompt ...` (the prompt of a task: the
 * tools, skills and kits of the key, the prompt texts, the previous attempt's files; not from standard
 * input). Not `runs list` nor `template list`: they
 * read the run store, which changes without any file of the key changing. Helps are answered from a
 * cache of their own (`helpAsked`).
 */
export function cacheableVerb(argv: string[], verb: string | undefined): boolean {
  if (argv.includes('--help') || argv.includes('-h') || argv.includes('help')) return false;
  if (verb === 'tools' || verb === 'sandboxes') return true;
  if (verb === 'prompt') return promptInputs(argv) !== undefined;
  if (verb === 'validate') return validatedFile(argv) !== undefined;
  if (verb !== 'kit' && verb !== 'skill' && verb !== 'mcp-servers') return false;
  const after = argv.slice(argv.indexOf(verb) + 1).filter((a) => !a.startsWith('-'));
  return after[0] === 'list' || (verb === 'kit' && after[0] === 'info');
}

/** `validate`'s options that take a value (`--name value`; `--name=value` is one word). */
const VALIDATE_VALUES = new Set(['--lang', '--sandbox', '--kit', '--tools', '-w', '--workspace']);

/** The FILE of `validate FILE ...`; undefined for standard input (`-`), none, or `--` before it. */
export function validatedFile(argv: string[]): string | undefined {
  const operands: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--') return undefined;
    if (VALIDATE_VALUES.has(a)) i++;
    else if (!a.startsWith('-') || a === '-') operands.push(a);
  }
  const file = operands[0] === 'validate' ? operands[1] : undefined;
  return file === '-' ? undefined : file;
}

/** `prompt`'s options that take a value (`--name value`; `--name=value` is one word). */
const PROMPT_VALUES = new Set([
  '--task',
  '--sandbox',
  '--kit',
  '--lang',
  '--language',
  '--attempt',
  '--previous-script',
  '--previous-error',
  '-w',
  '--workspace',
]);

/**
 * The files `prompt` reads (`--previous-script FILE`, `--previous-error FILE`): their bytes are part of
 * the key. Undefined when one is standard input (`-`) or has no value: not answered from the cache.
 */
export function promptInputs(argv: string[]): string[] | undefined {
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    if (!PROMPT_VALUES.has(name)) continue;
    const value = eq > 0 ? a.slice(eq + 1) : argv[++i];
    if (name !== '--previous-script' && name !== '--previous-error') continue;
    if (value === undefined || value === '-') return undefined;
    files.push(value);
  }
  return files;
}

/**
 * What the CLI's redactor of known secrets would know besides the files of the key (core/records/redact.ts,
 * app/settings.ts): the values of the environment variables config.toml names (a provider's
 * `api_key_env`, `env:NAME` credentials and headers: every word of the file that is a variable's name)
 * and the OTLP header variables. An answer printed with a secret redacted, or not, is only given again
 * while they are the same.
 */
function secretsEnv(workspace: string): string {
  let words: Set<string>;
  try {
    const text = readRegularFile(join(workspace, '.toolsmith', 'config.toml'), 'utf8');
    words = new Set(text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
  } catch {
    words = new Set();
  }
  const named = Object.keys(process.env)
    .filter(
      (n) => words.has(n) || n === 'OTEL_EXPORTER_OTLP_HEADERS' || n === 'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
    )
    .sort();
  return JSON.stringify(named.map((n) => [n, process.env[n]]));
}

/**
 * Whether a variable that `secretsEnv` reads is set (its signature then holds their SHA-256: key-parts.ts
 * `partsSignature`), for the paths before main that load the SHA-256 in JS only when it will hash.
 */
export function namedSecretsSet(workspace: string): boolean {
  return secretsEnv(workspace) !== '[]';
}

/**
 * A help asked for: no arguments (the top-level help), `--help` or `-h` anywhere, or `help [VERB]`. Only
 * an answer commander gave as a help (exit 0) is kept (main.ts); anything else runs as usual.
 */
export function helpAsked(argv: string[]): boolean {
  return argv.length === 0 || argv.includes('--help') || argv.includes('-h') || verbOf(argv) === 'help';
}

/** The "workspace" of the helps' answers: they depend on no workspace (a file of their own). */
const HELP = '(help)';

/**
 * What a help's text depends on besides the code and the arguments: commander wraps it to the width of
 * a terminal (stdout's for a help asked for, stderr's for a help after a usage error) and strips colours
 * by the terminal and the colour variables.
 */
function helpEnv(): string {
  const tty = (s: NodeJS.WriteStream) =>
    s.isTTY ? `tty:${s.columns}:${s.hasColors?.() ?? ''}` : 'not a tty';
  const env = process.env;
  return JSON.stringify([
    tty(process.stdout),
    tty(process.stderr),
    env['NO_COLOR'] ?? null,
    env['FORCE_COLOR'] ?? null,
    env['CLICOLOR_FORCE'] ?? null,
  ]);
}

/** The key of a help: the code (`version`: the package's and the code stamp), the arguments, `helpEnv`. */
export function helpKey(argv: string[], version: string): string {
  return createHash('sha256')
    .update(`help\0${version}\0${argv.join('\0')}\0${helpEnv()}`)
    .digest('hex');
}

/**
 * The file name of a workspace's verbs file (its answers, digests and memos): a hash of its path
 * (key-parts.ts `pathNameHash`); the file also holds the path, and is taken for that path only.
 */
export const verbsFileName = (workspace: string): string =>
  workspace === HELP ? 'verbs-help.json' : `verbs-${pathNameHash(workspace)}.json`;

const cacheFile = (workspace: string): string => join(cacheFolder(), verbsFileName(workspace));

/** The key of this command line on the workspace's current state; undefined when it cannot be read. */
export function verbKey(
  workspace: string,
  argv: string[],
  version: string,
  files: string | undefined = snapshotKey(workspace),
): string | undefined {
  if (!files) return undefined;
  try {
    return hashParts(verbParts(workspace, argv, version, files));
  } catch {
    return undefined;
  }
}

/** What verbKey hashes, in order (key-parts.ts); throws where a file cannot be read. */
export function verbParts(workspace: string, argv: string[], version: string, files: string): KeyPart[] {
  const parts: KeyPart[] = [`${version}\0${argv.join('\0')}\0${files}`];
  // `validate FILE`: the script itself (a FILE that cannot be read is not answered from the cache).
  const file = verbOf(argv) === 'validate' ? validatedFile(argv) : undefined;
  if (file !== undefined) parts.push('\0', { file, plain: true });
  const kits = join(workspace, 'kits');
  for (const name of existsSync(kits) ? readdirSync(kits).sort() : []) {
    if (!name.endsWith('.kit')) continue;
    parts.push(`\0${name}\0`, { file: join(kits, name) });
  }
  parts.push('\0', { secret: secretsEnv(workspace) });
  // `prompt`: the previous attempt's files it names, and the prompt texts (resources/prompts, or
  // $TOOLSMITH_RESOURCES's), which neither the package's version nor the code stamp covers.
  if (verbOf(argv) === 'prompt') {
    for (const f of promptInputs(argv) ?? []) parts.push('\0input\0', { file: f });
    const prompts = join(resourcesDir(), 'prompts');
    for (const name of readdirSync(prompts).sort()) {
      if (!name.endsWith('.md')) continue;
      parts.push(`\0prompt\0${name}\0`, { file: join(prompts, name) });
    }
  }
  return parts;
}

/**
 * The key of `parts` (a workspace's: its verbs file keeps the memo) without hashing when the same key was
 * hashed from parts of the same signature (key-parts.ts: the same texts, the same secrets, each file of
 * the same stat), else hashed (node:crypto) and its signature kept when its files have settled. Used for
 * the config digests' keys (config-digest.ts) only: `validate`'s and the other answers' keys are hashed
 * at every start. Undefined when a part cannot be read.
 */
export function memoizedKey(workspace: string, parts: () => KeyPart[], now = Date.now()): string | undefined {
  let made: KeyPart[];
  let seen: ReturnType<typeof partsSignature> | undefined;
  try {
    made = parts();
  } catch {
    return undefined;
  }
  try {
    seen = partsSignature(made, now);
  } catch {
    seen = undefined; // (a file that is not there: hashParts says, as it always did)
  }
  const known = seen && memoFor(workspace, seen.signature);
  if (known) return known;
  let key: string;
  try {
    key = hashParts(made);
  } catch {
    return undefined;
  }
  if (seen?.settled) keepKey(workspace, { signature: seen.signature, key });
  return key;
}

/**
 * A value kept in the workspace's verbs file under `signature` (the memos of `memoizedKey` and of the
 * image tags, cli/image-tag-memo.ts: each signature begins with what it is of); undefined when none.
 */
export function memoFor(workspace: string, signature: string): string | undefined {
  const key = readFile(workspace)?.keys?.find((k) => k?.signature === signature)?.key;
  return typeof key === 'string' ? key : undefined;
}

/** Keeps `value` under `signature` (best effort, as `writeVerbAnswer`; newest last, at most MAX_ENTRIES). */
export function keepMemo(workspace: string, signature: string, value: string): void {
  keepKey(workspace, { signature, key: value });
}

/** The verbs file last read or written by this process (a start reads it for a key's memo, then its answer). */
let lastRead: { workspace: string; file: VerbCacheFile | undefined } | undefined;

function readFile(workspace: string): VerbCacheFile | undefined {
  if (lastRead?.workspace === workspace) return lastRead.file;
  let file: VerbCacheFile | undefined;
  try {
    const f = JSON.parse(readFileSync(cacheFile(workspace), 'utf8')) as VerbCacheFile;
    // (memos that are not a list: none; a file of another form fails safe, never throws at a start)
    if (f && f.keys !== undefined && !Array.isArray(f.keys)) delete f.keys;
    file = f?.version === 1 && f.workspace === workspace && Array.isArray(f.answers) ? f : undefined;
  } catch {
    file = undefined;
  }
  lastRead = { workspace, file };
  return file;
}

/** Best effort, as `writeVerbAnswer`. */
function writeFile(workspace: string, next: VerbCacheFile): void {
  const file = cacheFile(workspace);
  lastRead = undefined;
  try {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(next));
    renameSync(tmp, file);
  } catch {
    /* read-only home: no cache */
    return;
  }
  pruneSometimes(dirname(file));
}

function keepKey(workspace: string, memo: KeyMemo): void {
  lastRead = undefined; // (read again: another process may have written it since)
  const f = readFile(workspace);
  const keys = (f?.keys ?? []).filter((k) => k && typeof k === 'object' && k.signature !== memo.signature);
  writeFile(workspace, {
    version: 1,
    workspace,
    answers: f?.answers ?? [],
    keys: [...keys, memo].slice(-MAX_ENTRIES),
  });
}

export function readVerbAnswer(workspace: string, key: string): VerbAnswer | undefined {
  return readFile(workspace)?.answers.find((a) => a?.key === key);
}

/** Best effort: a cache that cannot be written only costs the next call its speed. */
export function writeVerbAnswer(workspace: string, answer: VerbAnswer): void {
  lastRead = undefined; // (read again: another process may have written it since)
  const f = readFile(workspace);
  const old = f?.answers.filter((a) => a.key !== answer.key) ?? [];
  writeFile(workspace, {
    version: 1,
    workspace,
    answers: [...old, answer].slice(-MAX_ENTRIES),
    ...(f?.keys ? { keys: f.keys } : {}),
  });
}

/**
 * The workspace option given once before the verb (`-w DIR`, `--workspace DIR`, `--workspace=DIR`), as the
 * verbs answered before main read it (store-verbs.ts, pool-status-early.ts): its value and the index of the
 * word after it; undefined where main is to read it (given twice, a value that looks like an option or is
 * blank: main says why).
 */
export function workspaceBeforeVerb(
  argv: readonly string[],
): { workspace: string | undefined; next: number } | undefined {
  let i = 0;
  let workspace: string | undefined;
  for (; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '-w' || a === '--workspace') {
      const v = argv[++i];
      if (workspace !== undefined || v === undefined || v.startsWith('-')) return undefined;
      workspace = v;
    } else if (a.startsWith('--workspace=')) {
      if (workspace !== undefined) return undefined;
      workspace = a.slice('--workspace='.length);
    } else break;
  }
  if (workspace !== undefined && workspace.trim() === '') return undefined;
  return { workspace, next: i };
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

/**
 * main() ended: an early stdio server that no server took over (a usage error) stops reading, so the
 * process exits with main's code at once (it waited for the client to close its input).
 */
export async function releaseEarlyMcp(argv: string[]): Promise<void> {
  if (verbOf(argv) !== 'mcp' || argv.some((a) => NOT_EARLY_STDIO.includes(a.split('=')[0] ?? a))) return;
  (await import('../mcp/stdio-early.ts')).earlyStdio().release();
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

export { codeStamp, packageVersion };

/**
 * For a command line answered from the verb cache: the cached answer when the workspace is unchanged (a
 * help: when the code and its terminal are), else where to keep this run's answer (`help`: a help's).
 */
export function cachedVerb(
  argv: string[],
  version: string,
):
  | {
      dir: string;
      key: string;
      /** The workspace's snapshotKey (a help: ''). */
      files: string;
      out: string;
      err: string;
      help: boolean;
      hit: VerbAnswer | undefined;
    }
  | undefined {
  if (helpAsked(argv)) {
    const key = helpKey(argv, `${version}\0${codeStamp()}`);
    return { dir: HELP, key, files: '', out: '', err: '', help: true, hit: readVerbAnswer(HELP, key) };
  }
  if (!cacheableVerb(argv, verbOf(argv))) return undefined;
  const option = workspaceOption(argv);
  if (option !== undefined && !existsSync(option)) return undefined;
  // No workspace named and the sample's copy cannot be made (a $TOOLSMITH_HOME that takes no folder):
  // no cache; the verb's own path says why in one line (this threw out of main() as an internal error).
  let dir: string;
  try {
    dir = resolveWorkspaceDir(option);
  } catch {
    return undefined;
  }
  const files = snapshotKey(dir);
  const key = verbKey(dir, argv, `${version}\0${codeStamp()}`, files);
  if (!key || !files) return undefined;
  let hit = readVerbAnswer(dir, key);
  // `sandboxes` also keeps the sandboxes snapshot current, which `validate FILE` reads before main loads
  // (validate-early.ts): while it is gone or another code's (another installation sharing the cache
  // folder), main's path runs and writes it again.
  if (hit && verbOf(argv) === 'sandboxes' && !readSnapshot(dir, files)) hit = undefined;
  return { dir, key, files, out: '', err: '', help: false, hit };
}

/**
 * The cache's look-up of bin/start.mjs's command line, made once before main loads: `answerFromCache`
 * makes it, and on a miss `validateBeforeMain` keeps its answer under that key and checks the script
 * against the snapshot of that same key (each key hashes every file the answer depends on: computed
 * three times, they cost ~1-2 ms of a new script's ~60 ms `validate`). Main's own path looks up again.
 */
let early: { argv: string[]; looked: ReturnType<typeof cachedVerb> } | undefined;

function earlyLookup(argv: string[]): ReturnType<typeof cachedVerb> {
  if (early?.argv !== argv) early = { argv, looked: cachedVerb(argv, packageVersion()) };
  return early.looked;
}

/**
 * bin/start.mjs's first step: prints the cached answer of this command line and returns its exit code,
 * or undefined (not a cached verb, a changed workspace or script, no cache) for main() to run. Never throws.
 */
export function answerFromCache(argv: string[]): number | undefined {
  try {
    const hit = earlyLookup(argv)?.hit;
    if (!hit) return undefined;
    return printEarly(hit.out, hit.err, hit.code ?? 0);
  } catch {
    return undefined;
  }
}

/**
 * bin/start.mjs's second step, when the cache had no answer: a plain `validate FILE` checked against the
 * sandboxes snapshot without loading main (validate-early.ts), its answer printed and kept in the cache,
 * its exit code returned; undefined (anything else, a snapshot miss, any error) for main() to run.
 */
export async function validateBeforeMain(argv: string[]): Promise<number | undefined> {
  if (verbOf(argv) !== 'validate') return undefined;
  let answer: { out: string; code: number } | undefined;
  try {
    const looked = earlyLookup(argv);
    const { validateEarly } = await import('./validate-early.ts');
    answer = await validateEarly(argv, looked && !looked.help ? looked : undefined);
  } catch {
    return undefined;
  }
  if (!answer) return undefined;
  const code = printEarly(answer.out, '', answer.code);
  if (code !== answer.code) return code; // (the output could not be written: no answer is kept)
  try {
    const c = earlyLookup(argv);
    if (c)
      writeVerbAnswer(c.dir, {
        key: c.key,
        out: answer.out,
        err: '',
        ...(answer.code === 0 ? {} : { code: answer.code }),
      });
  } catch {
    /* the cache only costs the next call its speed */
  }
  return answer.code;
}

/**
 * bin/start.mjs's third step: a plain `toolsmith image build [--runtime R]` (no `--sandbox`, nothing else
 * but the workspace option, which it does not use) whose image the local engine already has is answered
 * with its tag before main loads (commander, every verb's table: ~45 ms of a ~175 ms start), as main's
 * own first step does (`cachedImageTag`: one request to the engine's socket). Anything else, an image to
 * build, an engine that does not answer: undefined, for main() to run.
 */
export async function imageBuildBeforeMain(argv: string[]): Promise<number | undefined> {
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '-w' || a === '--workspace') {
      if (++i >= argv.length) return undefined; // (no folder after it: main says so)
    } else if (!a.startsWith('--workspace=')) rest.push(a);
  }
  if (rest[0] !== 'image' || rest[1] !== 'build') return undefined;
  let runtime = 'python';
  const opts = rest.slice(2);
  if (opts.length === 2 && opts[0] === '--runtime') runtime = opts[1] ?? '';
  else if (opts.length === 1 && opts[0]?.startsWith('--runtime='))
    runtime = opts[0].slice('--runtime='.length);
  else if (opts.length) return undefined;
  try {
    const [{ RUNTIMES }, { cachedImageTag }] = await Promise.all([
      import('../core/sandbox/runtimes.ts'),
      import('../app/images-light.ts'),
    ]);
    if (!RUNTIMES.some((r) => r.id === runtime)) return undefined; // (main says why)
    const tag = await cachedImageTag(runtime as RuntimeImage);
    if (!tag) return undefined;
    return printEarly(`${tag}\n`, '', 0);
  } catch {
    return undefined;
  }
}

/**
 * bin/start.mjs's fourth step: `runs list ...` and `template list [--json]`, which read the run store
 * (never in this cache's key), answered before main loads when the config's digest is kept
 * (store-verbs.ts, a chunk of its own); undefined (anything else, nothing printed) for main() to run.
 */
export async function storeVerbBeforeMain(argv: string[]): Promise<number | undefined> {
  const verb = verbOf(argv);
  if (verb !== 'runs' && verb !== 'template') return undefined;
  try {
    return await (await import('./store-verbs.ts')).answerStoreVerb(argv);
  } catch {
    return undefined;
  }
}

/**
 * bin/start.mjs's step for `init [DIR] --empty ...` (cli/init-early.ts, a chunk of its own): the answer
 * printed and its exit code, or undefined (nothing done) for main() to run.
 */
export async function initBeforeMain(argv: string[]): Promise<number | undefined> {
  if (argv[0] !== 'init' || !argv.includes('--empty')) return undefined;
  const early = await import('./init-early.ts').catch(() => undefined);
  return early?.answerInitEmpty(argv);
}

/**
 * bin/start.mjs's step for `pool status [--json]`, answered before main loads when the engine answers
 * and main kept the workspace's digest for it (pool-status-early.ts, a chunk of its own); undefined
 * (anything else, nothing printed) for main() to run.
 */
export async function poolStatusBeforeMain(argv: string[]): Promise<number | undefined> {
  if (verbOf(argv) !== 'pool') return undefined;
  try {
    return await (await import('./pool-status-early.ts')).answerPoolStatus(argv);
  } catch {
    return undefined;
  }
}
