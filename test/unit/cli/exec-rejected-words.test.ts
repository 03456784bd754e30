/**
 * `toolsmith exec` of a script the validator refuses speaks to the person who ran it ("fix ..., then run
 * it again"); it read the model's wording, "return the whole corrected script". The model's wording
 * stays for a model (the retry feedback, MCP execute_code).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScriptGenerator } from '../../../src-main/core/script/generator.ts';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { cli } from '../../support/cli.ts';

describe('a rejected script run with exec', { timeout: STARTS_PROCESSES_MS }, () => {
  it('tells the person to fix it and run it again, with each problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolsmith-exec-words-'));
    const f = join(dir, 'bad.py');
    writeFileSync(f, 'import os\nemit_result(os.getcwd())\n');
    const r = await cli('exec', f, '--sandbox', 'ecommerce').finally(() => rmSync(dir, { recursive: true }));
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      'ValidationError: The script was rejected before it ran. Fix every problem below, then run it again:\n  - line 1, column 1 [no-import]: imports are not available',
    );
    expect(r.out).not.toContain('return the whole corrected script');
  });

  it('a model still gets its own wording', () => {
    const dir = new URL('../../../resources/prompts/', import.meta.url);
    const prompts = Object.fromEntries(
      readdirSync(dir)
        .filter((f) => f.endsWith('.md'))
        .map((f) => [f.slice(0, -3), readFileSync(new URL(f, dir), 'utf8')]),
    );
    const g = new ScriptGenerator(prompts);
    const v = [{ rule: 'no-import', message: 'imports are not available', line: 1, column: 1 }];
    expect(g.validationErrorMessage(v as never)).toMatch(/return the whole corrected script:\n/);
    expect(g.validationErrorMessage(v as never, 'person')).toMatch(/then run it again:\n/);
  });
});
