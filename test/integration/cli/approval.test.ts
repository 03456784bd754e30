/**
 * The CLI asks on the terminal before a tool call that needs approval: y runs it, anything else refuses;
 * without a terminal (a pipe) it refuses at once and says how to allow the call. The terminal is a real
 * pseudo-terminal (util-linux `script`), the sandbox a real one.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';
import { cliBin } from '../../support/cli-bin.ts';

const ws = tempWorkspace();
appendFileSync(join(ws, '.toolsmith/config.toml'), '\n[approval]\ntools = ["support.add_note"]\n');
const tmp = mkdtempSync(join(tmpdir(), 'toolsmith-approval-'));
const script = join(tmp, 'note.py');
writeFileSync(script, 'r = add_note(ticket_id=101, text="from the cli")\nemit_result(r.data)\n');
afterAll(() => removeWorkspace(ws));

const node = join(repoRoot, 'node_modules/.bin/node');
const argv = [cliBin(), '--workspace', ws, 'exec', script, '--sandbox', 'support', '--json'];

function run(
  cmd: string,
  args: string[],
  input: string,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // The answer is typed once the question is on the terminal (a person reads before answering).
    let typed = false;
    p.stdout.on('data', () => {
      if (!typed && out.includes('Allow this call? [y/N]')) {
        typed = true;
        p.stdin.write(input);
      }
    });
    if (!input) p.stdin.end();
    p.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

/** The CLI on a pseudo-terminal: stdin, stdout and stderr all on it (`script` relays them). */
const onTerminal = (input: string) =>
  run('script', ['-qfec', [node, ...argv].map((a) => `'${a}'`).join(' '), '/dev/null'], input);

describe('the CLI and approval', () => {
  it('without a terminal: refused at once, the script sees ToolRefused, and the CLI says how to allow it', async () => {
    const r = await run(node, argv, '');
    expect(r.code).toBe(1);
    expect(r.err).toContain('add_note needs approval; no terminal to ask on');
    expect(r.err).toContain('[approval] in .toolsmith/config.toml');
    const res = JSON.parse(r.out) as {
      error: { type: string; message: string };
      toolCalls: { refused?: boolean }[];
    };
    expect(res.error.type).toBe('ToolRefused');
    expect(res.toolCalls).toEqual([expect.objectContaining({ name: 'add_note', refused: true })]);
  }, 300_000);

  it('on a terminal: the question shows the tool, its line and arguments; y runs the call', async () => {
    const r = await onTerminal('y\n');
    expect(r.out).toContain('the script wants to call add_note in sandbox support');
    expect(r.out).toContain('line 1: r = add_note(ticket_id=101, text="from the cli")');
    expect(r.out).toContain('"text": "from the cli"');
    expect(r.out).toContain('"success": true');
    expect(r.out).toContain('"from the cli"');
    expect(r.code).toBe(0);
  }, 300_000);

  it('on a terminal: anything but y refuses', async () => {
    const r = await onTerminal('n\n');
    expect(r.out).toContain('"type": "ToolRefused"');
    expect(r.out).toContain('add_note was not approved (refused on the terminal)');
    expect(r.code).toBe(1);
  }, 300_000);
});
