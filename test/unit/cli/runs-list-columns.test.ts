/**
 * `toolsmith runs list` as a person reads it: the tier column is padded, so the tasks of runs of
 * different tiers (`llm`, `replay`, `template`) start in the same column; and a `--suite-run` id that
 * names no suite run is a usage error naming it (exit 2), as `eval --compare` says, where it listed
 * "0 of 0 run(s)" and exited 0 as if the suite run had recorded nothing. `runs import` of a run the store
 * holds already says that the new id is a copy's. A real CLI process.
 */
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, repoRoot, tempFiles, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace('toolsmith-runs-columns-');
const files = tempFiles('toolsmith-runs-columns-files-');
afterAll(() => {
  removeWorkspace(ws);
  rmSync(files.dir, { recursive: true, force: true });
});

const toolsmith = (...args: string[]) => runToolsmith(ws, args);

describe('runs list', () => {
  it('pads the tier column: tasks of llm and replay runs start in the same column; an import under a new id says so', async () => {
    const fixture = readFileSync(join(repoRoot, 'test/fixtures/runs/run-v1.json'), 'utf8');
    const first = await toolsmith('runs', 'import', join(repoRoot, 'test/fixtures/runs/run-v1.json'));
    expect(first.out).toBe('imported run 6f1c2a9e-0b7d-4c55-9a31-3f0e8d2b7c41\n');
    // The same run as a replay's (its attempts' tier), under another id on import.
    const replay = files.file('replay.json', fixture.replaceAll('"tier": "llm"', '"tier": "replay"'));
    const imported = await toolsmith('runs', 'import', replay);
    expect(imported.code, imported.err).toBe(0);
    // The file's run id is in the store already: imported under a new one, which the answer says.
    expect(imported.out).toMatch(
      /^imported run [0-9a-f-]{36} \(a copy: run 6f1c2a9e-0b7d-4c55-9a31-3f0e8d2b7c41 is in the store already\)\n$/,
    );
    expect(imported.out).not.toContain('imported run 6f1c2a9e');
    const r = await toolsmith('runs', 'list');
    expect(r.code, r.err).toBe(0);
    const lines = r.out.split('\n').filter((l) => / tok {2}/.test(l));
    expect(lines.map((l) => / tok {2}(\S+)/.exec(l)?.[1]).sort()).toEqual(['llm', 'replay']);
    // Where the task starts: after the tier column.
    const starts = lines.map((l) => l.search(/ tok {2}\S+ +\S/) + / tok {2}\S+ +/.exec(l)![0].length);
    expect(starts[0]).toBeGreaterThan(0);
    expect(starts[1]).toBe(starts[0]);
  });

  it('--suite-run with an id that names no suite run: exit 2, naming it', async () => {
    const r = await toolsmith('runs', 'list', '--suite-run', 'no-such-suite-run');
    expect(r.code).toBe(2);
    expect(r.err).toBe('toolsmith: no suite run no-such-suite-run\n');
    expect(r.out).toBe('');
    const j = await toolsmith('runs', 'list', '--suite-run', 'no-such-suite-run', '--json');
    expect(j.code).toBe(2);
  });
});
