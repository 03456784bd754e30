/**
 * `--lang` and `--language` are one option: `prompt`, `run`, `validate` and `template` listed `--lang`
 * while `tools` and `skill create` listed `--language`, and each verb refused the other spelling as an
 * unknown option. Now every verb takes both (the help shows its own), the same value either way, and
 * refuses the two with different values.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { tempWorkspace } from '../../support/workspace.ts';

let ws: string;
let script: string;
beforeAll(() => {
  ws = tempWorkspace();
  script = join(ws, 'script.py');
  writeFileSync(script, 'r = get_user(user_id="u1")\nemit_result(r.data)\n');
});

describe('--lang and --language', () => {
  it('prompt --language js writes the JS call, as prompt --lang js does', async () => {
    const a = await runToolsmith(ws, ['prompt', '--task', 'look up u1', '--language', 'js']);
    const b = await runToolsmith(ws, ['prompt', '--task', 'look up u1', '--lang', 'js']);
    expect(a.err).toBe('');
    expect(a.code).toBe(0);
    expect(a.out).toContain('await get_user({');
    expect(a.out).toBe(b.out);
  });

  it('tools --lang ts is tools --language ts', async () => {
    const a = await runToolsmith(ws, ['tools', '--sandbox', 'ecommerce', '--lang', 'ts']);
    const b = await runToolsmith(ws, ['tools', '--sandbox', 'ecommerce', '--language', 'ts']);
    expect(a.code).toBe(0);
    expect(a.out).toContain('<signature>get_user({ user_id: string })</signature>');
    expect(a.out).toBe(b.out);
  });

  it('validate --language js checks the file as JavaScript (a Python script fails there)', async () => {
    const r = await runToolsmith(ws, ['validate', script, '--sandbox', 'ecommerce', '--language', 'js']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/emitResult/);
  });

  it('the two with different values are refused; a bad value is named under the spelling given', async () => {
    const both = await runToolsmith(ws, ['validate', script, '--lang', 'js', '--language', 'python']);
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/--lang and --language are the same option/);
    const bad = await runToolsmith(ws, ['prompt', '--task', 'x', '--language', 'rust']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--language must be one of python, js, ts, got "rust"/);
  });

  it('each help shows its own spelling once', async () => {
    const h = await runToolsmith(ws, ['prompt', '--help']);
    expect(h.out).toMatch(/--lang <lang>/);
    expect(h.out).not.toMatch(/--language/);
  });
});

describe('a runtime where a language goes, and the other way around', () => {
  it('exec --lang bun names --runtime bun (before: only "unknown option \'--lang\'")', async () => {
    const r = await runToolsmith(ws, ['exec', script, '--lang', 'bun']);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      "toolsmith: unknown option '--lang': toolsmith exec takes no language (a script's language comes from its file name: .py, .js, .ts); to pick the runtime that runs it, give --runtime bun\n",
    );
    const ts = await runToolsmith(ws, ['exec', script, '--language', 'ts']);
    expect(ts.err).toMatch(/takes no language .*give --runtime python\|node\|bun\|deno$/m);
  });

  it('--lang deno on a verb that takes a language says deno is a runtime and where one is picked', async () => {
    for (const [args, flag] of [
      [['validate', script, '--lang', 'deno'], '--lang'],
      [['prompt', '--task', 'x', '--lang', 'deno'], '--lang'],
      [['tools', '--sandbox', 'ecommerce', '--language', 'deno'], '--language'],
    ] as const) {
      const r = await runToolsmith(ws, [...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toContain(
        `${flag} must be one of python, js, ts, got "deno" (deno is a runtime, not a language: its scripts are js or ts; toolsmith exec FILE --runtime deno runs a script on it)`,
      );
    }
  });

  it('exec --runtime ts says ts is a language and where it comes from', async () => {
    const r = await runToolsmith(ws, ['exec', script, '--runtime', 'ts']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      `--runtime must be one of python, node, bun, deno, got "ts" (ts is a language, not a runtime: a script's language comes from its file name (.py, .js, .ts); js and ts run on node, bun or deno)`,
    );
  });

  it("run --runtime bun and skill create --runtime node name the verb's language flag as its help shows it", async () => {
    const run = await runToolsmith(ws, ['run', 'x', '--runtime', 'bun']);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(
      /unknown option '--runtime': toolsmith run takes a script language, --lang python\|js\|ts, not a runtime/,
    );
    const skill = await runToolsmith(ws, [
      'skill',
      'create',
      'x',
      '--sandbox',
      'ecommerce',
      '--file',
      script,
      '--runtime',
      'node',
    ]);
    expect(skill.err).toMatch(/toolsmith skill create takes a script language, --language python\|js\|ts/);
  });

  it('an unknown option keeps commander\'s "did you mean" (before: dropped with its second line)', async () => {
    const r = await runToolsmith(ws, ['exec', script, '--sandbx', 'ecommerce']);
    expect(r.code).toBe(2);
    expect(r.err).toBe("toolsmith: unknown option '--sandbx': did you mean --sandbox?\n");
  });
});
