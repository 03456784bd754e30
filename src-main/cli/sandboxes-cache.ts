/**
 * `toolsmith sandboxes` and `toolsmith validate FILE` without the service: the last full answer for this workspace, kept in the user's
 * cache folder (never in the workspace) under a key hashed from everything the answer depends on — the
 * code that made it (the package's version and code stamp: an upgrade answered from the old version's
 * snapshot, its problems and tool counts, until a workspace file changed), the config file's bytes, the names under `sandboxes/` and each `tools.py`'s bytes. Any change to one of
 * them misses the cache, and the verb takes the full path (config validated, tools extracted) and writes
 * a new snapshot. Workspaces with MCP sandboxes are never cached (their tools come from live servers).
 * Entries of workspaces that are gone, or not written for 30 days, are pruned (cache-folder.ts).
 * Only node: modules here: loading the service (zod, pyright) is what this saves (~300 ms).
 */
import { dirname, join } from 'node:path';
import type { Response } from '../contract/api.ts';
import type { CallShape } from '../core/lang/signature.ts';
import { codeStamp, packageVersion } from './code-stamp.ts';
import { hashParts, sha256Hex } from './key-parts.ts';
import type { KeyPart } from './key-parts.ts';
import { cacheFolder, pruneSometimes } from './cache-folder.ts';

// Builtins by process.getBuiltinModule, not ES imports: an ES import builds the module's namespace
// (node:fs's reads every export, its lazy `promises` too), ~3-5 ms of a one-shot verb's ~25 ms start
// (docs/scaling.md, "CLI start").
const { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } =
  process.getBuiltinModule('node:fs');

/** One sandbox as `sandboxes.list` answers it (a type import: erased, nothing of the contract loads). */
export type SandboxLine = Response<'sandboxes.list'>[number];

export interface SandboxesSnapshot {
  version: 3;
  key: string;
  workspace: string;
  sandboxes: SandboxLine[];
  /** Sandbox name -> its egress allow-list (only sandboxes with egress). */
  egress: Record<string, string[]>;
  /** What `validate` needs: the default sandbox and the names a script may call, per sandbox and language. */
  validate: {
    defaultSandbox: string | undefined;
    scriptTools: Record<string, Partial<Record<'python' | 'js' | 'ts', string[]>>>;
    /** What a call of each of those names may pass (core/tools/call-shape.ts), likewise. */
    scriptShapes: Record<string, Partial<Record<'python' | 'js' | 'ts', Record<string, CallShape>>>>;
  };
}

const cacheFile = (workspace: string): string =>
  join(cacheFolder(), `sandboxes-${sha256Hex(workspace).slice(0, 16)}.json`);

/** The key of the workspace's current state; undefined when it cannot be read (the full path says why). */
export function snapshotKey(workspace: string): string | undefined {
  try {
    return hashParts(snapshotParts(workspace));
  } catch {
    return undefined;
  }
}

/** What snapshotKey hashes, in order (key-parts.ts); throws where the workspace cannot be read. */
export function snapshotParts(workspace: string): KeyPart[] {
  const parts: KeyPart[] = [`${packageVersion()}\0${codeStamp()}\0`];
  parts.push({ file: join(workspace, '.toolsmith', 'config.toml') });
  const dir = join(workspace, 'sandboxes');
  for (const name of existsSync(dir) ? readdirSync(dir).sort() : []) {
    parts.push(`\0${name}\0`);
    const tools = join(dir, name, 'tools.py');
    if (existsSync(tools)) parts.push({ file: tools });
  }
  // The skills a script may call are part of what a sandbox offers (`validate` refuses a call to one
  // that is not offered, `tools` lists them): their files and their test verdicts, which decide which
  // are offered (a `skill create` or `skill delete` must not leave an answer about the old set).
  const skills = join(workspace, 'skills');
  const bySandbox = existsSync(skills) ? readdirSync(skills, { withFileTypes: true }) : [];
  for (const sb of bySandbox.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!sb.isDirectory()) continue;
    for (const f of readdirSync(join(skills, sb.name)).sort()) {
      parts.push(`\0skill\0${sb.name}/${f}\0`);
      parts.push({ file: join(skills, sb.name, f) });
    }
  }
  // The history's names and versions: a call of a deleted skill is refused saying it was deleted and
  // which version is kept (app/skills.ts `notOffered`), not as a name nobody ever had.
  const history = join(workspace, '.toolsmith', 'skills-history');
  const sandboxes = existsSync(history) ? readdirSync(history, { withFileTypes: true }) : [];
  for (const sb of sandboxes.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!sb.isDirectory()) continue;
    for (const name of readdirSync(join(history, sb.name)).sort())
      parts.push(
        `\0history\0${sb.name}/${name}\0${readdirSync(join(history, sb.name, name))
          .sort()
          .join('/')}\0`,
      );
  }
  const verdicts = join(workspace, '.toolsmith', 'skill-tests.json');
  if (existsSync(verdicts)) parts.push({ file: verdicts });
  return parts;
}

/** The snapshot of the workspace's state; `key`: its snapshotKey when the caller has it already. */
export function readSnapshot(
  workspace: string,
  key: string | undefined = snapshotKey(workspace),
): SandboxesSnapshot | undefined {
  if (!key) return undefined;
  try {
    const s = JSON.parse(readFileSync(cacheFile(workspace), 'utf8')) as SandboxesSnapshot;
    return s.version === 3 && s.key === key && s.workspace === workspace ? s : undefined;
  } catch {
    return undefined;
  }
}

/** Best effort: a cache that cannot be written only costs the next call its speed. */
export function writeSnapshot(snapshot: SandboxesSnapshot): void {
  const file = cacheFile(snapshot.workspace);
  try {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(snapshot));
    renameSync(tmp, file);
  } catch {
    /* read-only home: no cache */
    return;
  }
  pruneSometimes(dirname(file));
}
