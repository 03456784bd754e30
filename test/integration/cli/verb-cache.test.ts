/**
 * `kit list`, `tools` and `validate FILE` as fresh processes answer from the last answer of an unchanged
 * workspace (the verb cache in the user's cache folder) and take the full path again when anything they
 * depend on changes: a kit file, tools.py, config.toml, the arguments, the script.
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { runToolsmith } from '../mcp/support/mcp-http-process.ts';
import type { VerbAnswer } from '../../../src-main/cli/verb-cache.ts';
import { contentHash } from '../../../src-main/core/tools/registry.ts';
import { SkillFiles } from '../../../src-main/infra/workspace/skill-files.ts';

let ws: string;
let cache: string;
let env: Record<string, string>;
const run = (args: string[]) => runToolsmith(ws, args, env);
const cacheFiles = () =>
  existsSync(join(cache, 'toolsmith'))
    ? readdirSync(join(cache, 'toolsmith')).filter((f) => f.startsWith('verbs-'))
    : [];
/** The answers the verb cache holds. */
const answers = (): VerbAnswer[] =>
  cacheFiles().flatMap(
    (f) =>
      (JSON.parse(readFileSync(join(cache, 'toolsmith', f), 'utf8')) as { answers: VerbAnswer[] }).answers,
  );

beforeAll(() => {
  ws = tempWorkspace('toolsmith-verb-cache-');
  cache = mkdtempSync(join(tmpdir(), 'toolsmith-verb-cache-home-'));
  env = { XDG_CACHE_HOME: cache, TOOLSMITH_BACKEND: 'process' };
});
afterAll(() => {
  removeWorkspace(ws);
  rmSync(cache, { recursive: true, force: true });
});

describe('the verb cache of kit list, tools and validate', () => {
  it('kit list: the second answer is the first, from the cache; a changed kit file is read anew', async () => {
    const first = await run(['kit', 'list']);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^inventory\s+ecommerce/m);
    expect(cacheFiles()).toHaveLength(1);
    const second = await run(['kit', 'list']);
    expect(second).toEqual(first);

    writeFileSync(
      join(ws, 'kits', 'inventory.kit'),
      'name = "inventory"\nsandbox = "ecommerce"\ntools = ["no_such_tool"]\n',
    );
    const changed = await run(['kit', 'list']);
    expect(changed.code).toBe(0);
    expect(changed.out).toMatch(/^inventory\s+ecommerce\s+REFUSED: .*no_such_tool/m);
    expect(changed.out).not.toEqual(first.out);
  }, 60_000);

  it('tools: each command line has its own answer; an edited tools.py is read anew', async () => {
    const xml = await run(['tools', '--sandbox', 'ecommerce']);
    const json = await run(['tools', '--sandbox', 'ecommerce', '--format', 'json']);
    expect(xml.code).toBe(0);
    expect(json.code).toBe(0);
    expect(xml.out).not.toEqual(json.out);
    expect(await run(['tools', '--sandbox', 'ecommerce'])).toEqual(xml);
    expect(await run(['tools', '--sandbox', 'ecommerce', '--format', 'json'])).toEqual(json);

    appendFileSync(
      join(ws, 'sandboxes', 'ecommerce', 'tools.py'),
      '\n\n@tool\ndef count_widgets(color: str) -> ToolResponse:\n    """Counts the widgets of one color."""\n    return ToolResponse(success=True, data=3)\n',
    );
    const after = await run(['tools', '--sandbox', 'ecommerce', '--format', 'json']);
    expect(after.code).toBe(0);
    expect(after.out).toContain('count_widgets');
    expect(json.out).not.toContain('count_widgets');
  }, 60_000);

  it('a failing command line is never kept: it fails again with its reason', async () => {
    const bad = await run(['tools', '--sandbox', 'nope']);
    expect(bad.code).not.toBe(0);
    expect(await run(['tools', '--sandbox', 'nope'])).toEqual(bad);
    expect(bad.err).toMatch(/nope/);
  }, 60_000);

  it('validate FILE: an invalid script keeps its answer and exit 1; an edited script or tools.py is read anew', async () => {
    const script = join(ws, 'check.py');
    writeFileSync(script, 'import os\nr = get_user(user_id="u1")\nemit_result(r.data)\n');
    const args = ['validate', script, '--sandbox', 'ecommerce'];
    const bad = await run(args);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/:1:1: no-import: /);
    expect(await run(args)).toEqual(bad);
    // The answer is kept with its exit code (the second run above was answered from it).
    expect(
      answers()
        .filter((a) => a.out === bad.out)
        .map((a) => a.code),
    ).toEqual([1]);

    writeFileSync(script, 'r = get_user(user_id="u1")\nemit_result(r.data)\n');
    const good = await run(args);
    expect(good).toEqual({ code: 0, out: `${script}: valid (python)\n`, err: '' });
    expect(await run(args)).toEqual(good);

    // A tool gone from the sandbox: the same script is checked again and now calls an unknown function.
    const tools = join(ws, 'sandboxes', 'ecommerce', 'tools.py');
    writeFileSync(tools, readFileSync(tools, 'utf8').replace(/\bdef get_user\(/, 'def get_member('));
    const gone = await run(args);
    expect(gone.code).toBe(1);
    expect(gone.out).toMatch(/unknown-function: .*get_user/);
  }, 60_000);

  it('validate FILE: a skill made or deleted changes the answer (the skills a script may call)', async () => {
    const script = join(ws, 'skill-call.py');
    writeFileSync(script, 'emit_result(order_count(user_id="u1"))\n');
    const args = ['validate', script, '--sandbox', 'ecommerce'];
    const before = await run(args);
    expect(before.code).toBe(1);
    expect(before.out).toMatch(/unknown-function: order_count\(\)/);
    expect(await run(args)).toEqual(before);

    // As `skill create` leaves it: the skill's file, and its passing test verdict for that text.
    const text = [
      '# +++',
      '# version = 1',
      '# +++',
      'def order_count(user_id: str):',
      '    """How many orders a user has."""',
      '    return len([o for o in get_orders().data if o["user_id"] == user_id])',
      '',
    ].join('\n');
    const files = new SkillFiles(ws);
    const file = join(ws, 'skills', 'ecommerce', 'order_count.py');
    mkdirSync(join(ws, 'skills', 'ecommerce'), { recursive: true });
    writeFileSync(file, text);
    files.setVerdict('ecommerce', 'order_count', {
      passed: true,
      hash: contentHash(text),
      at: 1,
      failures: [],
    });
    const made = await run(args);
    expect(made).toEqual({ code: 0, out: `${script}: valid (python)\n`, err: '' });

    // As `skill delete` leaves it: the answer about the old set of skills is not given again.
    rmSync(file);
    files.setVerdict('ecommerce', 'order_count', undefined);
    expect(await run(args)).toEqual(before);
  }, 60_000);

  it('validate from standard input and usage errors are never kept', async () => {
    const before = answers();
    const input = await run(['validate', '-', '--sandbox', 'ecommerce']);
    expect(input.code).toBe(1); // nothing on standard input: no statements, no emit
    const usage = await run(['validate', join(ws, 'check.py'), '--sandbox', 'ecommerce', '--tools', 'a']);
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/either --sandbox or --tools/);
    expect(answers()).toEqual(before);
  }, 60_000);
});
