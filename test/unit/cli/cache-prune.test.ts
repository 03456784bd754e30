/**
 * The CLI's cache folder does not grow without bound (src-main/cli/cache-folder.ts): `sandboxes-<hash>.json`
 * and `verbs-<hash>.json` are one file per workspace path ever used, so after a cache write (a miss), at
 * most once a day, the entries of workspaces that are gone, entries not written for 30 days, unreadable
 * ones and old temporary files are removed; the others stay, and the verb's answer is the same.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathNameHash } from '../../../src-main/cli/key-parts.ts';
import { nodeBin, runCommand } from '../../support/toolsmith-process.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';

let ws: string;
let other: string;
let gone: string;
let dir: string;
const hash = (workspace: string) => createHash('sha256').update(workspace).digest('hex').slice(0, 16);
/** The verbs files' name part (verb-cache.ts `verbsFileName`). */
const vhash = (workspace: string) => pathNameHash(workspace);
const DAY = 86_400_000;

/** The CLI with `cache` as its XDG cache folder. */
const cli = (cache: string, ...args: string[]) =>
  runCommand(nodeBin, [join(repoRoot, 'bin/toolsmith.mjs'), '--workspace', ws, ...args], {
    cwd: tmpdir(),
    env: { ...process.env, XDG_CACHE_HOME: cache },
  });

/** Writes `name` in the cache folder, last modified `daysAgo` days ago. */
function entry(cache: string, name: string, text: string, daysAgo = 0): string {
  const file = join(cache, 'toolsmith', name);
  mkdirSync(join(cache, 'toolsmith'), { recursive: true });
  writeFileSync(file, text);
  const t = new Date(Date.now() - daysAgo * DAY);
  utimesSync(file, t, t);
  return name;
}

beforeAll(() => {
  ws = tempWorkspace('toolsmith-prune-ws-');
  other = tempWorkspace('toolsmith-prune-other-');
  gone = tempWorkspace('toolsmith-prune-gone-');
  removeWorkspace(gone);
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-prune-'));
});

afterAll(() => {
  removeWorkspace(ws);
  removeWorkspace(other);
  rmSync(dir, { recursive: true, force: true });
});

describe('the CLI cache folder', () => {
  it('drops the entries that can no longer be used after a miss, keeps the rest, answers the same', async () => {
    // The answer with a cache folder of its own, nothing to prune.
    const clean = await cli(join(dir, 'clean'), 'sandboxes');
    expect(clean.err).toBe('');
    expect(clean.code).toBe(0);

    const cache = join(dir, 'used');
    const stale = [
      entry(cache, `sandboxes-${hash(gone)}.json`, JSON.stringify({ version: 3, workspace: gone })),
      entry(cache, `verbs-${vhash(gone)}.json`, JSON.stringify({ version: 1, workspace: gone, answers: [] })),
      entry(
        cache,
        `verbs-${vhash(other)}.json`,
        JSON.stringify({ version: 1, workspace: other, answers: [] }),
        40,
      ),
      entry(cache, 'verbs-0000000000000000.json', '{"version": 1, "work'),
      entry(cache, `sandboxes-${hash(other)}.json.4242.tmp`, '{', 1),
    ];
    const kept = [
      entry(cache, `sandboxes-${hash(other)}.json`, JSON.stringify({ version: 3, workspace: other }), 2),
      entry(cache, `verbs-${vhash(ws)}.json.4243.tmp`, '{'),
      entry(cache, 'verbs-help.json', '{}', 90),
      entry(cache, 'notes.txt', 'theirs', 90),
    ];
    const miss = await cli(cache, 'sandboxes');
    expect(miss).toEqual(clean);
    const names = readdirSync(join(cache, 'toolsmith'));
    for (const s of stale) expect(names, s).not.toContain(s);
    for (const k of kept) expect(names, k).toContain(k);
    // The verb's own entries were written (and kept), and its next call answers from them the same.
    expect(names).toContain(`verbs-${vhash(ws)}.json`);
    expect(names).toContain(`sandboxes-${hash(ws)}.json`);
    expect(await cli(cache, 'sandboxes')).toEqual(clean);

    // At most once a day: another miss within the day leaves a new stale entry alone...
    const later = entry(cache, `verbs-${vhash(gone)}.json`, JSON.stringify({ version: 1, workspace: gone }));
    expect((await cli(cache, 'sandboxes', '--json')).code).toBe(0);
    expect(readdirSync(join(cache, 'toolsmith'))).toContain(later);
    // ...and the first miss a day after the last prune removes it.
    const stamp = join(cache, 'toolsmith', '.pruned');
    expect(existsSync(stamp)).toBe(true);
    utimesSync(stamp, new Date(Date.now() - 2 * DAY), new Date(Date.now() - 2 * DAY));
    expect((await cli(cache, 'kit', 'list')).code).toBe(0);
    expect(readdirSync(join(cache, 'toolsmith'))).not.toContain(later);
  });
});
