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
