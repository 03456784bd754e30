/**
 * Two processes changing the same workspace's skills at the same moment (two CLI commands, the app and
 * a CLI command, MCP and `serve`): nothing either saved is lost. Each process here starts its writes in
 * the same millisecond as the other (support/skill-writer.ts, the real SkillFiles).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/workspace.ts';

let ws: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'toolsmith-skill-race-'));
  mkdirSync(join(ws, '.toolsmith'));
  mkdirSync(join(ws, 'skills', 'support'), { recursive: true });
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

/** support/skill-writer.ts as a process: its exit code and stderr. */
function writer(mode: 'verdicts' | 'saves', at: number, tag: string, n: number) {
  const child = spawn(
    join(repoRoot, 'node_modules/.bin/node'),
    [join(repoRoot, 'test/integration/skills/support/skill-writer.ts'), mode, ws, String(at), tag, String(n)],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise<{ code: number | null; err: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, err })),
  );
}

/** A moment both processes have started by (each waits for it): their first writes fall in its millisecond. */
const soon = () => Date.now() + 3_000;

describe('two processes writing the skills of one workspace at once', () => {
  it("each one's test verdicts are all kept in skill-tests.json (before, one's write dropped the other's)", async () => {
    const at = soon();
    const done = await Promise.all([writer('verdicts', at, 'a', 40), writer('verdicts', at, 'b', 40)]);
    for (const d of done) expect(d.code, d.err).toBe(0);
    const kept = Object.keys(
      JSON.parse(readFileSync(join(ws, '.toolsmith', 'skill-tests.json'), 'utf8')) as object,
    );
    const missing = ['a', 'b']
      .flatMap((t) => Array.from({ length: 40 }, (_, i) => `support/${t}${i}`))
      .filter((k) => !kept.includes(k));
    expect(missing).toEqual([]);
    expect(readdirSync(join(ws, '.toolsmith')).filter((f) => f.includes('lock'))).toEqual([]);
  }, 120_000);

  it('each one’s versions of the same skill are all kept, each under a number of its own (before, one replaced the other’s, in no history)', async () => {
    const at = soon();
    const done = await Promise.all([writer('saves', at, 'a', 60), writer('saves', at, 'b', 60)]);
    for (const d of done) expect(d.code, d.err).toBe(0);
    const hist = join(ws, '.toolsmith', 'skills-history', 'support', 'shared');
    const texts = [
      readFileSync(join(ws, 'skills', 'support', 'shared.py'), 'utf8'),
      ...readdirSync(hist).map((f) => readFileSync(join(hist, f), 'utf8')),
    ];
    // Every version saved, once: the current file and 119 in the history, numbered 1..120.
    const saved = texts.map((t) => /return "(\w \d+)"/.exec(t)?.[1]).sort();
    const expected = ['a', 'b'].flatMap((t) => Array.from({ length: 60 }, (_, i) => `${t} ${i}`)).sort();
    expect(saved).toEqual(expected);
    const versions = texts.map((t) => Number(/^# version = (\d+)$/m.exec(t)?.[1])).sort((x, y) => x - y);
    expect(versions).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
  }, 120_000);
});
