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
import { outputOf, runToolsmith, shellLine, toolsmithArgv } from '../../support/toolsmith-process.ts';
import type { ToolsmithOutput } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace();
appendFileSync(join(ws, '.toolsmith/config.toml'), '\n[approval]\ntools = ["support.add_note"]\n');
const tmp = mkdtempSync(join(tmpdir(), 'toolsmith-approval-'));
const script = join(tmp, 'note.py');
writeFileSync(script, 'r = add_note(ticket_id=101, text="from the cli")\nemit_result(r.data)\n');
afterAll(() => removeWorkspace(ws));

const args = ['exec', script, '--sandbox', 'support', '--json'];

/**
 * The CLI on a pseudo-terminal: stdin, stdout and stderr all on it (`script` relays them). `answer` is
 * typed once the question is on the terminal (a person reads before answering).
 */
function onTerminal(answer: string): Promise<ToolsmithOutput> {
  // `script` runs the command with $SHELL -c: the person's login shell, which may be none at all
  // (`/usr/sbin/nologin` for a service account: the CLI never started). POSIX sh, whatever SHELL says.
  const p = spawn('script', ['-qfec', shellLine(toolsmithArgv(ws, args).flat()), '/dev/null'], {
    env: { ...process.env, SHELL: '/bin/sh' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const output = outputOf(p);
  let out = '';
  let typed = false;
  p.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (!typed && out.includes('Allow this call? [y/N]')) {
      typed = true;
      p.stdin.write(answer);
    }
  });
  return output;
}

describe('the CLI and approval', () => {
  it('without a terminal: refused at once, the script sees ToolRefused, and the CLI says how to allow it', async () => {
    const r = await runToolsmith(ws, args, {}, '');
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
