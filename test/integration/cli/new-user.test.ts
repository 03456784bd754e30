/**
 * What a person who just installed the command meets (QA pass as a new user), through the real command
 * as a process: kit aliases and tool names that would replace a script's own names, an empty workspace,
 * and the sandboxes snapshot across an upgrade of the package.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installedLayout } from '../../support/built-once.ts';
import { verbsFileName } from '../../../src-main/cli/verb-cache.ts';
import { runCommand, runToolsmith, toolsmithArgv } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const cli = (ws: string, args: string[], input = '') => runToolsmith(ws, args, {}, input);

/** A workspace made by `toolsmith init --empty`, as the README says. */
async function emptyWorkspace(): Promise<string> {
  const parent = mkdtempSync(join(tmpdir(), 'toolsmith-new-user-'));
  made.push(parent);
  const ws = join(parent, 'tools');
  const r = await cli(parent, ['init', ws, '--empty']);
  expect(r.code, r.err).toBe(0);
  return ws;
}

describe('a new user of the installed command', () => {
  it('kit create refuses an alias that is a helper, builtin, module or keyword, naming it', async () => {
    const ws = tempWorkspace();
    try {
      // `emit_result` as an alias replaced the helper: no script of the kit could emit its result, and
      // the manual offered the LLM a tool named emit_result.
      for (const [alias, why] of [
        ['emit_result', /alias emit_result is a name scripts already have/],
        ['len', /alias len is a name scripts already have/],
        ['json', /alias json is a name scripts already have/],
        ['class', /alias class is a keyword of Python or JavaScript/],
      ] as const) {
        const r = await cli(ws, [
          'kit',
          'create',
          `k_${alias}`,
          '--sandbox',
          'ecommerce',
          '--tools',
          `${alias}=get_orders`,
        ]);
        expect(r.code, r.out).toBe(2);
        expect(r.err).toMatch(why);
      }
      // None was written.
      expect((await cli(ws, ['kit', 'list'])).out).not.toMatch(/^k_/m);
      // A kit file written by hand with such an alias is listed with the reason and refused for a run.
      writeFileSync(
        join(ws, 'kits', 'shadow.kit'),
        'name = "shadow"\nsandbox = "ecommerce"\n\n[tools]\nlen = "get_orders"\nuser = "get_user"\n',
      );
      const list = await cli(ws, ['kit', 'list']);
      expect(list.out).toMatch(
        /shadow\s+ecommerce\s+REFUSED: kit shadow: alias len is a name scripts already have/,
      );
      const exec = await cli(
        ws,
        ['exec', '-', '--sandbox', 'ecommerce', '--kit', 'shadow'],
        'emit_result(len([1, 2]))\n',
      );
      expect(exec.code).not.toBe(0);
      expect(exec.err).toMatch(/alias len is a name scripts already have/);
      // An alias that names no script's name is still fine.
      const ok = await cli(ws, [
        'kit',
        'create',
        'fine',
        '--sandbox',
        'ecommerce',
        '--tools',
        'orders=get_orders',
      ]);
      expect(ok.code, ok.err).toBe(0);
    } finally {
      removeWorkspace(ws);
    }
  });

  it('a tools.py tool named like a builtin is a problem of tools.py, said by tools and counted by sandboxes', async () => {
    const ws = await emptyWorkspace();
    mkdirSync(join(ws, 'sandboxes', 'calc'), { recursive: true });
    writeFileSync(
      join(ws, 'sandboxes', 'calc', 'tools.py'),
      '@tool(grade=(0, 0))\ndef sum(a: int, b: int) -> ToolResponse:\n    """Add two numbers.\n\n    Args:\n        a: one\n        b: two\n    """\n    return ToolResponse(success=True, data=a + b)\n',
    );
    const tools = await cli(ws, ['tools', '--sandbox', 'calc']);
    expect(tools.err).toMatch(/tools\.py:1:1: tool-name: tool sum has a name scripts already have/);
    expect((await cli(ws, ['sandboxes'])).out).toMatch(/calc\s+1 tools \(1 problem\)/);
  });

  it('an empty workspace says how a sandbox is made instead of listing nothing', async () => {
    const ws = await emptyWorkspace();
    const list = await cli(ws, ['sandboxes']);
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/no sandboxes yet: a sandbox is a folder sandboxes\/NAME\/ with a tools\.py/);
    // Asking for --sandbox could not help there: the error says there is none and how one is made.
    const exec = await cli(ws, ['exec', '-'], 'emit_result(1)\n');
    expect(exec.code).toBe(2);
    expect(exec.err).toMatch(/the workspace has no sandboxes: a sandbox is a folder sandboxes\/NAME\//);
    expect(exec.err).not.toMatch(/--sandbox <name> is needed/);
  });

  it('after an upgrade, sandboxes answers with the new code, not the snapshot the old version left', async () => {
    const ws = tempWorkspace();
    const dirs = [1, 2].map(() => mkdtempSync(join(tmpdir(), 'toolsmith-upgrade-')));
    made.push(...dirs);
    // The cache folder both versions keep their snapshot and answers in, given to them here: the test
    // edits its files.
    const cache = mkdtempSync(join(tmpdir(), 'toolsmith-upgrade-cache-'));
    made.push(cache);
    /** `toolsmith sandboxes` of the installed layout `bin`. */
    const sandboxes = (bin: string) =>
      runCommand(...toolsmithArgv(ws, ['sandboxes'], bin), {
        env: { ...process.env, XDG_CACHE_HOME: cache },
        input: '',
      });
    try {
      const v1 = installedLayout(dirs[0]!);
      expect((await sandboxes(v1)).out).toMatch(/ecommerce\s+4 tools/);
      // What the old version answered differently (another count, its problems) stands in its snapshot
      // and in its kept answer (the verb cache, which bin/start.mjs reads before the snapshot).
      const cacheDir = join(cache, 'toolsmith');
      const id = createHash('sha256').update(ws).digest('hex').slice(0, 16);
      const file = join(cacheDir, `sandboxes-${id}.json`);
      writeFileSync(file, readFileSync(file, 'utf8').replace('"tools":4', '"tools":99'));
      const answers = join(cacheDir, verbsFileName(ws));
      writeFileSync(answers, readFileSync(answers, 'utf8').replace(/(ecommerce\s+)4 tools/, '$199 tools'));
      expect((await sandboxes(v1)).out).toMatch(/ecommerce\s+99 tools/);
      // The upgrade: a new bundle of the command (another build: its main.js another time).
      const v2 = installedLayout(dirs[1]!);
      const main = join(dirname(v2), '..', 'out', 'cli', 'main.js');
      utimesSync(main, new Date(), new Date(Date.now() + 60_000));
      const after = await sandboxes(v2);
      expect(after.out).toMatch(/ecommerce\s+4 tools/);
      expect(after.out).not.toMatch(/99 tools/);
    } finally {
      removeWorkspace(ws);
    }
  });
});
