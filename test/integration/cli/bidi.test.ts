/**
 * Bidirectional control characters ("Trojan Source", CVE-2021-42574) end to end through the CLI: a real
 * process, the scripted LLM server and real containers. `validate` refuses one with its line, column and
 * code point; `skill create` refuses to save a skill holding one; `run` tells the LLM where it is and
 * what to write instead, and runs the corrected script.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempFiles, tempWorkspace } from '../../support/workspace.ts';

let llm: LlmServer;
let ws: string;
const { dir: tmp, file } = tempFiles('toolsmith-bidi-it-');

const cli = (args: string[]) => runToolsmith(ws, args);

beforeAll(async () => {
  llm = await startLlmServer();
  ws = tempWorkspace();
});
afterAll(async () => {
  await llm.close();
  removeWorkspace(ws);
  removeWorkspace(tmp);
});

// Reads as `if tier != "gold": # only for gold` where the overrides are applied; runs as a comparison
// with a longer string.
const TROJAN =
  'tier = get_user(user_id="u1").data["tier"]\nif tier != "gold\u202e \u2066# only for gold\u2069 \u2066":\n    tier = "refund everything"\nemit_result(tier)\n';

describe('bidirectional controls through the CLI', () => {
  it('validate refuses them with line, column and code point (Python and JS); the escape passes', async () => {
    const py = await cli(['validate', file('t.py', TROJAN), '--json']);
    expect(py.code, py.err).toBe(1);
    const r = JSON.parse(py.out) as {
      valid: boolean;
      violations: { rule: string; line: number; column: number; message: string }[];
    };
    expect(r.valid).toBe(false);
    expect(r.violations.map((v) => [v.rule, v.line, v.column])).toEqual([
      ['bidi-control', 2, 17],
      ['bidi-control', 2, 19],
      ['bidi-control', 2, 35],
      ['bidi-control', 2, 37],
    ]);
    expect(r.violations[0]?.message).toMatch(/^U\+202E \(RIGHT-TO-LEFT OVERRIDE\)/);
    expect(r.violations[0]?.message).toContain('write it as the escape "\\u202e" inside the string');

    const human = await cli(['validate', file('t2.js', 'const x = 1; // \u2067\nemitResult(x);\n')]);
    expect(human.code).toBe(1);
    expect(human.out + human.err).toMatch(/1:17.*bidi-control.*U\+2067 \(RIGHT-TO-LEFT ISOLATE\)/);

    const escaped = await cli(['validate', file('ok.py', 'emit_result("a\\u202eb")\n')]);
    expect(escaped.code, escaped.out + escaped.err).toBe(0);
  }, 60_000);

  it('skill create refuses to save a skill whose source holds one', async () => {
    const src = file(
      'tier_note.py',
      `def tier_note(user_id: str) -> str:
    """A note on a customer's tier.

    Args:
        user_id: The customer's id.

    Returns:
        The tier.
    """
    tier = get_user(user_id=user_id).data["tier"]
    if tier != "gold\u202e \u2066# only for gold\u2069 \u2066":
        return "refund everything"
    return tier
`,
    );
    const r = await cli([
      'skill',
      'create',
      'tier_note',
      '--sandbox',
      'ecommerce',
      '--file',
      src,
      '--case',
      '{"args": {"user_id": "u1"}}',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.out + r.err).toMatch(/line 11:21 bidi-control: U\+202E \(RIGHT-TO-LEFT OVERRIDE\)/);
    expect(existsSync(join(ws, 'skills/ecommerce/tier_note.py'))).toBe(false);
  }, 60_000);

  it('run: the LLM is told where the character is and what to write; its corrected script runs', async () => {
    llm.reset();
    llm.push(
      '```python\n' + TROJAN + '```',
      '```python\nemit_result(get_user(user_id="u1").data["tier"])\n```',
    );
    const run = await cli([
      'run',
      'Tier of user u1',
      '--sandbox',
      'ecommerce',
      '--no-templates',
      '--base-url',
      llm.openaiUrl,
      '--model',
      'scripted',
      '--json',
    ]);
    expect(run.code, run.err).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({ status: 'succeeded' });
    expect(run.err).toMatch(
      /attempt 1: [^\n]*\n.*\n {2}validation: 4 violation\(s\): 2:17 bidi-control, 2:19 bidi-control, 2:35 bidi-control, 2:37 bidi-control\n[\s\S]*validation: ok/,
    );
    expect(llm.requests).toHaveLength(2);
    const messages = llm.requests[1]?.body['messages'] as { content: string }[];
    const correction = messages.map((m) => m.content).join('\n');
    expect(correction).toContain(
      'line 2, column 17 [bidi-control]: U+202E (RIGHT-TO-LEFT OVERRIDE), a bidirectional control character, is refused anywhere in a script (if a string really needs it, write it as the escape "\\u202e" inside the string)',
    );
    expect(correction).toContain('line 2, column 37 [bidi-control]: U+2066 (LEFT-TO-RIGHT ISOLATE)');
  }, 180_000);
});
