/**
 * The validators of `toolsmith validate`, installed: each language's validator is a script of its own in
 * the bundle (`out/cli/validator-python.cjs`, `validator-js.cjs`; scripts/build-cli.mjs), run with
 * V8's code cache made after it validated (the functions it compiled to do so), kept beside Node's
 * compile cache. Why: Node's compile cache (bin/start.mjs) keeps each module's code as compiled before
 * it ran, which V8 compiles lazily, so every start compiled again the tokenizer's, the parser's and the
 * rules' functions that checking a script calls (~6 ms of CPU of a new script's ~70 ms `validate`, and
 * ~15 ES modules resolved and linked); one script with the code cache of after its first run compiles
 * none of them again (docs/scaling.md, "A new script's `validate`: the validator's code cache").
 * - The cache is keyed by the script's bytes (SHA-256, with Node's version and platform): a rebuilt or
 *   edited validator never runs the code of the one before it (V8 itself checks only the source's
 *   length). It lives in the folder of Node's compile cache (`module.getCompileCacheDir()`, which
 *   names V8's version and flags); no compile cache (NODE_DISABLE_COMPILE_CACHE=1): no code cache
 *   either, and in a folder that cannot be written none is made (nor its warm-up run).
 * - Each file starts with the SHA-256 of the code cache after it: a file cut short or damaged is never
 *   given to V8 (which checks its own checksum only in debug builds); it is made again.
 * - Made on the first validation that found none (or one V8 refused), after a short warm-up script
 *   (WARM_UP), so that a later script meets the constructs it most likely holds compiled. Written to a
 *   temporary file of its own (`<cache>.<pid>-<random>.tmp`) and renamed into place: a process killed
 *   mid-write leaves no part of a cache under the cache's name (and a cut file would fail its SHA-256).
 * - Each build's cache is touched when used; when one is made, only the KEEP_BUILDS most recently used
 *   of the same validator are kept (two installed versions used in turn keep theirs: keeping only its
 *   own, each removed the other's and every switch compiled again), and the temporary files such a
 *   killed write left (the cache's own by name, whose writer, the pid in its name, is gone, or older
 *   than STALE_TMP_MS: a pid of another pid namespace sharing the folder, or reused) are removed; a
 *   write on its way in a live process is left alone. The start after such a kill is one that makes the
 *   cache (its rename never happened). Best effort: a cache that cannot be written only costs the next run its
 *   speed.
 * A clone runs its sources (core/lang/validate-lazy.ts), as does a bundle without these scripts.
 */
import { loadValidator } from '../core/lang/validate-lazy.ts';
import type { Validator } from '../core/lang/validate-lazy.ts';
import type { ScriptLanguage, ValidateOptions, ValidationResult } from '../core/lang/violation.ts';
import type { Script } from 'node:vm';

// Builtins by process.getBuiltinModule, not ES imports (docs/scaling.md, "CLI start").
// node:crypto (~6-10 ms of CPU to load: its ~20 modules) when a hash is made, not at this module's load:
// `init --empty` and the paths that hash nothing load this module too (docs/scaling.md, issue 29).
const createHash = (algorithm: string) => process.getBuiltinModule('node:crypto').createHash(algorithm);
const randomBytes = (size: number) => process.getBuiltinModule('node:crypto').randomBytes(size);
const {
  accessSync,
  constants,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} = process.getBuiltinModule('node:fs');
const { getCompileCacheDir, isBuiltin } = process.getBuiltinModule('node:module');
const { basename, dirname, join } = process.getBuiltinModule('node:path');
const { fileURLToPath } = process.getBuiltinModule('node:url');

/** What a validator's script exports. */
interface ValidatorExports {
  validatePython?: (code: string, options: ValidateOptions) => ValidationResult;
  validateJs?: (code: string, options: ValidateOptions & { typescript?: boolean }) => ValidationResult;
}

const SCRIPTS: Record<'python' | 'js', string> = {
  python: 'validator-python.cjs',
  js: 'validator-js.cjs',
};

/**
 * What the cache is made after, besides the first script: a short script of the constructs scripts most
 * often hold. Short on purpose: V8 reads every function a code cache holds at every start, so a cache
 * made after a long script of every construct cost more than compiling the few a script needs.
 */
const WARM_UP: Record<'python' | 'js', string> = {
  python: `r = get_user(user_id="u1")
rows = [o for o in r.data if o["total"] > 1]
for o in rows:
    if o.get("x"):
        print(f"{o['id']}: {len(rows)}")
emit_result({"rows": rows, "n": len(rows)})
`,
  js: `const r = await get_user({ user_id: "u1" });
const rows = r.data.filter((o) => o.total > 1);
for (const o of rows) if (o.x) console.log(\`\${o.id}: \${rows.length}\`);
emit_result({ rows, n: rows.length });
`,
};

/** The warm-up's tool signatures (calls are checked against them as against a sandbox's). */
const GET_USER = {
  text: 'get_user(user_id: str)',
  params: [{ name: 'user_id', kind: 'either' as const, required: true, type: 'str' }],
};
const WARM_UP_SHAPES: Record<'python' | 'js', ValidateOptions['shapes']> = {
  python: { get_user: GET_USER },
  js: { get_user: { ...GET_USER, objectArgument: true } },
};

const sha256 = (...parts: (string | Uint8Array)[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** How many builds of one validator keep their code cache (the most recently used). */
const KEEP_BUILDS = 3;
/** A temporary file of a cache's write older than this was left by a process killed while writing, whatever its pid. */
const STALE_TMP_MS = 10 * 60_000;
/** A code cache file (`validator-python-<key>.v8`) and a write's temporary file of one. */
const CACHE_FILE = /^(validator-[a-z]+-)[0-9a-f]{32}\.v8$/;
const CACHE_TMP = /^validator-[a-z]+-[0-9a-f]{32}\.v8\.(\d+)(?:-[0-9a-f]+)?\.tmp$/;

/** A process of this pid exists (another user's counts too). As installation.ts `pidAlive`, kept here: this
 * file is on the CLI's lean start path (start-imports.test.ts), which that module's imports would widen. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A code cache file's bytes: the SHA-256 of the cache, then the cache. */
function cacheFileBytes(data: Buffer): Buffer {
  return Buffer.concat([sha256(data), data]);
}

/** The code cache a file holds, or undefined (none, unreadable, damaged). */
function readCache(file: string): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  if (bytes.length <= 32) return undefined;
  const data = bytes.subarray(32);
  return sha256(data).equals(bytes.subarray(0, 32)) ? data : undefined;
}

/** Where the code cache of a script with these bytes is kept; undefined without Node's compile cache. */
export function codeCacheFile(script: string, source: Buffer): string | undefined {
  const dir = getCompileCacheDir?.();
  if (!dir) return undefined;
  const key = sha256(`${process.version}\0${process.platform}\0${process.arch}\0`, source)
    .toString('hex')
    .slice(0, 32);
  return join(dir, `${basename(script, '.cjs')}-${key}.v8`);
}

/**
 * Writes the cache (after a warm-up), and removes the caches of the script's other builds. Nothing (not
 * even the warm-up) in a folder that cannot be written: every run would pay for it again.
 */
function keepCache(script: Script, file: string, warmUp: () => void): void {
  const dir = dirname(file);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    return;
  }
  try {
    warmUp();
  } catch {
    /* (the cache holds what compiled before) */
  }
  const tmp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, cacheFileBytes(script.createCachedData()), { flag: 'wx' });
    renameSync(tmp, file);
  } catch {
    try {
      rmSync(tmp, { force: true }); // (a full disk: no cache, and no part of one left)
    } catch {
      /* (nothing more to do) */
    }
    return;
  }
  try {
    prune(dir, basename(file));
  } catch {
    /* (a folder that cannot be listed: the other caches stay) */
  }
}

/**
 * Keeps the KEEP_BUILDS most recently used caches of the validator `made` is one of (`made` among them)
 * and removes the temporary files killed writes left; nothing else of the folder is touched.
 */
function prune(dir: string, made: string): void {
  const prefix = CACHE_FILE.exec(made)?.[1];
  const now = Date.now();
  const builds: { name: string; used: number }[] = [];
  for (const name of readdirSync(dir)) {
    const writer = CACHE_TMP.exec(name)?.[1];
    const tmp = writer !== undefined;
    if (!tmp && !(prefix && name !== made && name.startsWith(prefix) && CACHE_FILE.test(name))) continue;
    let mtime: number;
    try {
      mtime = statSync(join(dir, name)).mtimeMs;
    } catch {
      continue; // (gone meanwhile)
    }
    if (!tmp) builds.push({ name, used: mtime });
    else if (now - mtime > STALE_TMP_MS || !alive(Number(writer))) rmSync(join(dir, name), { force: true });
  }
  builds.sort((a, b) => b.used - a.used);
  for (const { name } of builds.slice(KEEP_BUILDS - 1)) rmSync(join(dir, name), { force: true });
}

/** A cache just used: its time of last use, which pruning keeps the most recent of (best effort). */
function touch(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    /* (a folder of someone else's: the cache is used all the same) */
  }
}

/** A module a validator's script requires: Node's builtins only (every package is inside the script). */
function requireBuiltin(id: string): unknown {
  if (!isBuiltin(id)) throw new Error(`a validator's script required ${id}, which is not a Node builtin`);
  return process.getBuiltinModule(id);
}

/** Runs a validator's script (its code cache given to V8 when there is one); its exports. */
function runScript(
  path: string,
  warmUp: (exports: ValidatorExports) => void,
): {
  exports: ValidatorExports;
  /** Called after the first validation: keeps the code cache when there was none. */
  ran: () => void;
} {
  const source = readFileSync(path);
  const cacheFile = codeCacheFile(path, source);
  const cachedData = cacheFile ? readCache(cacheFile) : undefined;
  // (node:vm taken here: this module is in the chunk every verb answered before main loads)
  const vm = process.getBuiltinModule('node:vm');
  const script = new vm.Script(`(function (exports, require, module) {${source.toString('utf8')}\n})`, {
    filename: path,
    ...(cachedData ? { cachedData } : {}),
  });
  const module = { exports: {} as ValidatorExports };
  (script.runInThisContext() as (e: unknown, r: unknown, m: unknown) => void).call(
    module.exports,
    module.exports,
    requireBuiltin,
    module,
  );
  let pending = cacheFile !== undefined && (!cachedData || script.cachedDataRejected === true);
  if (cacheFile && !pending) touch(cacheFile);
  return {
    exports: module.exports,
    ran: () => {
      if (!pending || !cacheFile) return;
      pending = false;
      keepCache(script, cacheFile, () => warmUp(module.exports));
    },
  };
}

/** The script of a language's validator in the bundle this module runs from, or undefined (sources). */
export function validatorScript(language: ScriptLanguage): string | undefined {
  const here = fileURLToPath(import.meta.url);
  if (!here.endsWith('.js')) return undefined;
  const path = join(here, '..', SCRIPTS[language === 'python' ? 'python' : 'js']);
  return existsSync(path) ? path : undefined;
}

const loaded = new Map<'python' | 'js', ReturnType<typeof runScript>>();

/**
 * The validator of `language` for the CLI: the bundle's script with its code cache when the command runs
 * bundled (installed), else the sources' (core/lang/validate-lazy.ts).
 */
export async function loadCliValidator(language: ScriptLanguage): Promise<Validator> {
  const path = validatorScript(language);
  if (!path) return loadValidator(language);
  const kind = language === 'python' ? 'python' : 'js';
  let run = loaded.get(kind);
  if (!run) {
    run = runScript(path, (e) => {
      const options: ValidateOptions = { tools: ['get_user'], shapes: WARM_UP_SHAPES[kind] };
      if (kind === 'python') e.validatePython?.(WARM_UP.python, options);
      else e.validateJs?.(WARM_UP.js, options);
    });
    loaded.set(kind, run);
  }
  const { exports, ran } = run;
  const validate: Validator =
    kind === 'python'
      ? (code, options) => {
          if (!exports.validatePython) throw new Error(`${path} has no validatePython`);
          return exports.validatePython(code, options);
        }
      : (code, options) => {
          if (!exports.validateJs) throw new Error(`${path} has no validateJs`);
          return exports.validateJs(code, { ...options, typescript: language === 'ts' });
        };
  return (code, options) => {
    const result = validate(code, options);
    ran();
    return result;
  };
}
