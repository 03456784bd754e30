/**
 * `[approval]` names sandboxes, kits and `sandbox.tool`s by hand: a name that matches none (a typo)
 * held no call for approval, and nothing said so. Each verb now warns on stderr, naming the file, the
 * line, the name and the names there are; names that exist say nothing. A server (`serve`, `mcp`) says
 * it again when an edit of config.toml brings a new one (it said it only at start), and the workbench
 * gets it from `system.status`.
 */
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { startServe } from '../faults/support/processes.ts';
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
      '\n[approval]\nsandboxes = ["ecommerc", "support"]\nkits = ["order"]\ntools = ["supprt.add_note", "support.add_note", "support.add_nte"]\n',
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
      `toolsmith: warning: ${file}:${line('tools')}: approval.tools names "support.add_nte", but sandbox support has no tool "add_nte" (did you mean add_note? tools: list_tickets, get_ticket, search_kb, add_note): no call is held for approval by it; fix the name`,
    ]);
  });

  it('a key no setting has (`timout_s` under [limits]): warned the same way, and the verb goes on', async () => {
    writeFileSync(file, whole.replace('timeout_s = 300', 'timout_s = 30'));
    const line =
      readFileSync(file, 'utf8')
        .split('\n')
        .findIndex((l) => l.startsWith('timout_s =')) + 1;
    const r = await runToolsmith(ws, ['runs', 'list', '--json']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe(
      `toolsmith: warning: ${file}:${line}: limits.timout_s is no setting (did you mean timeout_s?): it is ignored, and what it was meant to set keeps its default; fix or remove it\n`,
    );
    writeFileSync(file, whole);
  });

  it("a key's control characters are shown, never sent to the terminal (ESC, a bidi override)", async () => {
    // A cloned workspace's config.toml may hold any key: `"\u001b[2J"` cleared the screen, U+202E
    // reversed the rest of the warning's line.
    writeFileSync(
      file,
      whole.replace('timeout_s = 300', 'timeout_s = 300\n"\\u001b[2J" = 1\n"x\\u202eyz" = 2'),
    );
    const r = await runToolsmith(ws, ['runs', 'list', '--json']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).not.toMatch(/[\u001b\u202e]/);
    expect(r.err).toContain('limits."\\u001b[2J" is no setting');
    expect(r.err).toContain('limits."x\\u202eyz" is no setting');
    writeFileSync(file, whole);
  });

  it("a tools.py that does not parse: its tools are not known, so a tool's name is not called wrong", async () => {
    const tools = join(ws, 'sandboxes', 'support', 'tools.py');
    const good = readFileSync(tools, 'utf8');
    writeFileSync(file, `${whole}\n[approval]\ntools = ["support.add_note"]\n`);
    try {
      writeFileSync(tools, `def broken(:\n    pass\n${good}`);
      const r = await runToolsmith(ws, ['runs', 'list', '--json']);
      expect(r.code, r.err).toBe(0);
      // Before: 'approval.tools names "support.add_note", but sandbox support has no tool "add_note"
      // (tools: none): ... fix the name'.
      expect(r.err).toBe('');
    } finally {
      writeFileSync(tools, good);
      writeFileSync(file, whole);
    }
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

  it(
    'an edit saved into a running serve: the new name is said once on stderr and kept in system.status; fixed, it is gone',
    async () => {
      writeFileSync(file, whole);
      const data = mkdtempSync(join(tmpdir(), 'toolsmith-approval-names-data-'));
      const serve = await startServe(ws, data);
      try {
        expect(await serve.call('system.status', {})).not.toHaveProperty('configWarnings');
        writeFileSync(file, `${whole}\n[approval]\nsandboxes = ["suport"]\n`);
        const line =
          readFileSync(file, 'utf8')
            .split('\n')
            .findIndex((l) => l.startsWith('sandboxes =')) + 1;
        const warning = `${file}:${line}: approval.sandboxes names no sandbox "suport" (sandboxes: ecommerce, support): no call is held for approval by it; fix the name`;
        await vi.waitFor(() => expect(serve.err()).toContain(`toolsmith: warning: ${warning}\n`), {
          timeout: 30_000,
          interval: 50,
        });
        expect(await serve.call('system.status', {})).toMatchObject({ configWarnings: [warning] });
        // Another edit that keeps the same name: not said twice.
        appendFileSync(file, '# a comment\n');
        await new Promise((r) => setTimeout(r, 1_000));
        expect(serve.err().split(warning).length - 1).toBe(1);
        // A sandbox of that name made on disk: the name matches now.
        cpSync(join(ws, 'sandboxes', 'support'), join(ws, 'sandboxes', 'suport'), { recursive: true });
        await vi.waitFor(
          async () => expect(await serve.call('system.status', {})).not.toHaveProperty('configWarnings'),
          { timeout: 30_000, interval: 50 },
        );
        rmSync(join(ws, 'sandboxes', 'suport'), { recursive: true, force: true });
        await vi.waitFor(
          async () =>
            expect(await serve.call('system.status', {})).toMatchObject({ configWarnings: [warning] }),
          { timeout: 30_000, interval: 50 },
        );
        // A tools.py saved from the workbench (the watcher does not report the service's own save): a
        // tool named in [approval] that appears there is matched at once.
        writeFileSync(file, `${whole}\n[approval]\ntools = ["support.add_nte"]\n`);
        await vi.waitFor(
          async () =>
            expect(
              (await serve.call<{ configWarnings?: string[] }>('system.status', {})).configWarnings?.join(),
            ).toContain('has no tool "add_nte"'),
          { timeout: 30_000, interval: 50 },
        );
        const toolsFile = join(ws, 'sandboxes', 'support', 'tools.py');
        const tools = readFileSync(toolsFile, 'utf8');
        await serve.call('tools.save', {
          sandbox: 'support',
          source: tools.replace('def add_note(', 'def add_nte('),
        });
        expect(await serve.call('system.status', {})).not.toHaveProperty('configWarnings');
        await serve.call('tools.save', { sandbox: 'support', source: tools });
        writeFileSync(file, `${whole}\n[approval]\nsandboxes = ["support"]\n`);
        await vi.waitFor(
          async () => expect(await serve.call('system.status', {})).not.toHaveProperty('configWarnings'),
          { timeout: 30_000, interval: 50 },
        );
      } finally {
        await serve.stop();
        rmSync(data, { recursive: true, force: true });
      }
    },
    STARTS_PROCESSES_MS,
  );
});
