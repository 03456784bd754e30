/**
 * `toolsmith template create NAME --file F --pattern P` without `--sandbox`: the template is made for
 * the workspace's default sandbox, as `validate`, `exec` and `run` take it. Before, it was refused with
 * "a template needs a script (--from-run or --file) and a sandbox", blaming the script that was given.
 * A real CLI process over a copy of the sample workspace (default_sandbox = "ecommerce").
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempFiles, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace('toolsmith-template-file-');
const files = tempFiles('toolsmith-template-file-src-');
afterAll(() => {
  removeWorkspace(ws);
  rmSync(files.dir, { recursive: true, force: true });
});

const toolsmith = (...args: string[]) => runToolsmith(ws, args);

describe('template create --file without --sandbox', () => {
  it("is made for the workspace's default sandbox, and validated against its tools", async () => {
    const body = files.file('who.py', 'r = get_user(user_id={{user_id}})\nemit_result(r.data["name"])\n');
    const r = await toolsmith(
      'template',
      'create',
      'who',
      '--file',
      body,
      '--pattern',
      'who is {user_id}',
      '--example',
      'who is u2',
      '--json',
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({
      name: 'who',
      sandbox: 'ecommerce',
      pattern: 'who is {user_id}',
    });
    expect(readFileSync(join(ws, 'templates/who.tmpl'), 'utf8')).toContain('ecommerce');
    // Validated against that sandbox: a tool it does not have is named.
    const other = files.file('ticket.py', 'r = get_ticket(ticket_id={{t}})\nemit_result(r.data)\n');
    const bad = await toolsmith('template', 'create', 'ticket', '--file', other, '--pattern', 'ticket {t}');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^toolsmith: template ticket: the script does not validate: .*get_ticket/);
    expect(bad.err).not.toMatch(/needs a script/);
    expect(existsSync(join(ws, 'templates/ticket.tmpl'))).toBe(false);
  });
});
