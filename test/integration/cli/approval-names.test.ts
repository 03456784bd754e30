/**
 * `[approval]` names sandboxes, kits and `sandbox.tool`s by hand: a name that matches none (a typo)
 * held no call for approval, and nothing said so. Each verb now warns on stderr, naming the file, the
 * line, the name and the names there are; names that exist say nothing.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let ws: string;
let file: string;
let whole: string;

beforeAll(() => {
  ws = tempWorkspace('toolsmith-approval-names-');
  file = join(ws, '.toolsmith', 'config.toml');
  whole = readFileSync(file, 'utf8');
});
afterAll(() => removeWorkspace(ws));

describe('[approval] names', () => {
  it("a sandbox, a kit or a tool's sandbox that does not exist: one warning each, with the line", async () => {
    appendFileSync(
      file,
      '\n[approval]\nsandboxes = ["ecommerc", "support"]\nkits = ["order"]\ntools = ["supprt.add_note", "support.add_note"]\n',
    );
    const line = (key: string) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .findIndex((l) => l.startsWith(`${key} =`)) + 1;
    const r = await runToolsmith(ws, ['runs', 'list', '--json']);
    expect(r.code, r.err).toBe(0);
    expect(r.err.trim().split('\n')).toEqual([
      `toolsmith: warning: ${file}:${line('sandboxes')}: approval.sandboxes names no sandbox "ecommerc" (sandboxes: ecommerce, support): no call is held for approval by it; fix the name`,
      `toolsmith: warning: ${file}:${line('kits')}: approval.kits names no kit "order" (kits: helpdesk, inventory, orders): no call is held for approval by it; fix the name`,
      `toolsmith: warning: ${file}:${line('tools')}: approval.tools names "supprt.add_note", whose sandbox "supprt" does not exist (sandboxes: ecommerce, support): no call is held for approval by it; fix the name`,
    ]);
  });

  it('names that exist: nothing said', async () => {
    writeFileSync(
      file,
      `${whole}\n[approval]\nsandboxes = ["support"]\nkits = ["orders"]\ntools = ["support.add_note"]\n`,
    );
    const r = await runToolsmith(ws, ['runs', 'list', '--json']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe('');
  });
});
