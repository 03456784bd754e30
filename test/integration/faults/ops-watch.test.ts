/**
 * Hand edits of the workspace's files reach a running service (the workbench, `serve`, `mcp`): a good
 * config edit is applied live and announced; a broken one is refused with its file, line and field and
 * the last good config stays; a tools.py that does not parse is reported and the last good tools stay.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { mcpServersView } from '../../../src-main/app/mcp.ts';
import type { PushEvent } from '../../../src-main/contract/api.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

/** Saves the way editors do: a new file renamed over the old one. */
function editorSave(file: string, text: string): void {
  writeFileSync(`${file}.tmp~`, text);
  renameSync(`${file}.tmp~`, file);
}

describe('workspace files edited by hand while the service runs', () => {
  let ws: string;
  let svc: ToolsmithService;
  let events: Extract<PushEvent, { type: 'workspace_changed' }>[];

  beforeEach(() => {
    ws = tempWorkspace();
    svc = ToolsmithService.open(ws, { watch: true });
    events = [];
    svc.onPush((e) => {
      if (e.type === 'workspace_changed') events.push(e);
    });
  });
  afterEach(async () => {
    await svc.close();
    removeWorkspace(ws);
  });

  const configFile = () => join(ws, '.toolsmith', 'config.toml');

  it('applies a good config edit live: a new MCP server is listed and announced', async () => {
    expect(mcpServersView(svc).map((s) => s.name)).toEqual([]);
    const text = readFileSync(configFile(), 'utf8');
    editorSave(
      configFile(),
      `${text}\n[mcp_servers.notes]\ncommand = "node"\nargs = ["server.js"]\ndescription = "hand-added"\n`,
    );
    await vi.waitFor(() => expect(events.some((e) => e.what === 'config' && !e.error)).toBe(true), {
      timeout: 10_000,
    });
    expect(mcpServersView(svc).map((s) => s.name)).toEqual(['notes']);
    expect(svc.mcp().names()).toEqual(['notes']);
  });

  it('refuses a broken edit with file, line and field, keeping the last good config', async () => {
    const text = readFileSync(configFile(), 'utf8');
    const before = svc.config.pool.max_size;
    const broken = text.replace(/max_size = 2/, 'max_size = "lots"');
    expect(broken).not.toBe(text);
    editorSave(configFile(), broken);
    await vi.waitFor(() => expect(events.some((e) => e.error)).toBe(true), { timeout: 10_000 });
    const err = events.find((e) => e.error)!;
    const line = broken.split('\n').findIndex((l) => l.startsWith('max_size')) + 1;
    expect(err.what).toBe('config');
    expect(err.error).toContain(`${configFile()}:${line}: pool.max_size:`);
    expect(err.error).toContain('the last good config stays in use');
    expect(svc.config.pool.max_size).toBe(before);
    // A page opened after the refusal asks the status and still learns it.
    expect((await svc.system.status()).configProblem).toBe(err.error);

    // A TOML syntax error: file, line and column.
    events.length = 0;
    editorSave(configFile(), `${text}\n[pool\n`);
    await vi.waitFor(() => expect(events.some((e) => e.error)).toBe(true), { timeout: 10_000 });
    const lines = text.split('\n').length;
    expect(events.find((e) => e.error)!.error).toMatch(new RegExp(`config\\.toml:${lines + 1}:\\d+: `));
    expect(svc.config.pool.max_size).toBe(before);

    // Fixed again: applied.
    events.length = 0;
    editorSave(configFile(), text.replace(/max_size = 2/, 'max_size = 3'));
    await vi.waitFor(() => expect(events.some((e) => e.what === 'config' && !e.error)).toBe(true), {
      timeout: 10_000,
    });
    expect(svc.config.pool.max_size).toBe(3);
    expect((await svc.system.status()).configProblem).toBeUndefined();
  });

  it('a half-written config.toml (cut mid-table, mid-string, or where it still parses) is refused naming the file, the line and that it looks cut short; the last good config stays', async () => {
    const text = readFileSync(configFile(), 'utf8');
    const before = svc.config.pool.max_size;
    const cut = (marker: string, extra: number) => text.slice(0, text.indexOf(marker) + extra);
    const lineOf = (t: string) => t.split('\n').length;
    const refused = async (t: string) => {
      events.length = 0;
      writeFileSync(configFile(), t); // in place, as a writer that stopped half-way leaves it
      await vi.waitFor(() => expect(events.some((e) => e.error)).toBe(true), { timeout: 10_000 });
      return events.find((e) => e.error)!.error!;
    };
    // Mid-table: an unclosed table header. Before: "incomplete key-value: cannot find end of key".
    const midTable = cut('[pool]', 3);
    expect(await refused(midTable)).toMatch(
      new RegExp(
        `config\\.toml:${lineOf(midTable)}:\\d+: a table header that is not closed \\("\\[po": it needs its "\\]"\\); the file ends there, in the middle of line ${lineOf(midTable)} \\("\\[po"\\), with no line break: it looks cut short \\(written only in part, or still being written\\); finish it or put back a whole copy \\(the last good config stays in use\\)$`,
      ),
    );
    // Mid-string.
    const midString = cut('base_url = "', 16);
    expect(await refused(midString)).toMatch(
      new RegExp(
        `config\\.toml:${lineOf(midString)}:\\d+: .*string.*; the file ends there, in the middle of line ${lineOf(midString)} .* it looks cut short .*\\(the last good config stays in use\\)$`,
      ),
    );
    // Cut where it still parses (after a whole key): before, applied silently, and the tables after
    // the cut ([pool], [limits] ...) fell back to their defaults.
    const parses = cut('max_size = 2', 'max_size = 2'.length);
    const e3 = await refused(parses);
    expect(e3).toContain(
      `${configFile()}:${lineOf(parses)}: the file ends in the middle of line ${lineOf(parses)} ("max_size = 2") with no line break, and has no [limits]`,
    );
    expect(e3).toMatch(
      /it looks cut short .*; put back a whole copy, or end the file with a line break if the shorter config is meant \(the last good config stays in use\)$/,
    );
    expect(svc.config.pool.max_size).toBe(before);
    expect((await svc.system.status()).configProblem).toBe(e3);
    // The whole file back: applied, the problem cleared.
    events.length = 0;
    writeFileSync(configFile(), text.replace(/max_size = 2/, 'max_size = 3'));
    await vi.waitFor(() => expect(events.some((e) => e.what === 'config' && !e.error)).toBe(true), {
      timeout: 10_000,
    });
    expect(svc.config.pool.max_size).toBe(3);
    expect((await svc.system.status()).configProblem).toBeUndefined();
  });

  it("the service's own save (a provider added from a front end) is not announced as an edit on disk", async () => {
    await dispatch(svc, 'providers.save', {
      id: 'second',
      kind: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'm',
    });
    expect(readFileSync(configFile(), 'utf8')).toContain('second');
    // A change of suites/ after it: once that is announced, the config change before it was handled.
    writeFileSync(join(ws, 'suites', 'marker.toml'), 'name = "marker"\n');
    await vi.waitFor(() => expect(events.some((e) => e.what === 'suites')).toBe(true), { timeout: 10_000 });
    expect(events.filter((e) => e.what === 'config')).toEqual([]);
    // A hand edit after it is still announced.
    const text = readFileSync(configFile(), 'utf8');
    editorSave(configFile(), text.replace(/max_size = 2/, 'max_size = 4'));
    await vi.waitFor(() => expect(events.some((e) => e.what === 'config' && !e.error)).toBe(true), {
      timeout: 10_000,
    });
    expect(svc.config.pool.max_size).toBe(4);
  });

  it("a hand edit back to the text of the service's own save is applied (config.toml and tools.py)", async () => {
    // config.toml: saved from a front end (A), edited by hand (B, applied), then put back to A by hand
    // (an undo, a `git checkout`): the config in use must be A's again, not B's.
    await dispatch(svc, 'providers.save', {
      id: 'second',
      kind: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'm',
    });
    const ownConfig = readFileSync(configFile(), 'utf8');
    expect(svc.config.pool.max_size).toBe(2);
    editorSave(configFile(), ownConfig.replace(/max_size = 2/, 'max_size = 4'));
    await vi.waitFor(() => expect(svc.config.pool.max_size).toBe(4), { timeout: 10_000 });
    events.length = 0;
    editorSave(configFile(), ownConfig);
    await vi.waitFor(() => expect(events.some((e) => e.what === 'config' && !e.error)).toBe(true), {
      timeout: 10_000,
    });
    expect(svc.config.pool.max_size).toBe(2);

    // tools.py: the same with the Tools view's Save.
    const file = join(ws, 'sandboxes', 'ecommerce', 'tools.py');
    const own = `${readFileSync(file, 'utf8')}\n# saved from the Tools view\n`;
    const saved = await dispatch(svc, 'tools.save', { sandbox: 'ecommerce', source: own });
    expect(saved.ok, JSON.stringify(saved)).toBe(true);
    const count = svc.catalog.registry('ecommerce').tools.length;
    events.length = 0;
    editorSave(
      file,
      `${own}\n@tool\ndef added(x: int) -> ToolResponse:\n    """Adds one."""\n    return ToolResponse(success=True, data=x + 1)\n`,
    );
    await vi.waitFor(() => expect(svc.catalog.registry('ecommerce').tools.length).toBe(count + 1), {
      timeout: 10_000,
    });
    await vi.waitFor(
      () => expect(events.some((e) => e.what === 'tools' && e.sandbox === 'ecommerce')).toBe(true),
      {
        timeout: 10_000,
      },
    );
    events.length = 0;
    editorSave(file, own);
    await vi.waitFor(
      () =>
        expect(events.some((e) => e.what === 'tools' && e.sandbox === 'ecommerce' && !e.error)).toBe(true),
      { timeout: 10_000 },
    );
    expect(svc.catalog.registry('ecommerce').tools.map((t) => t.name)).not.toContain('added');
  });

  it("a sandbox's requirements.txt edited by hand after the Tools view's save is a change (its tools.py unchanged)", async () => {
    const file = join(ws, 'sandboxes', 'ecommerce', 'tools.py');
    const saved = await dispatch(svc, 'tools.save', {
      sandbox: 'ecommerce',
      source: `${readFileSync(file, 'utf8')}\n# saved from the Tools view\n`,
    });
    expect(saved.ok, JSON.stringify(saved)).toBe(true);
    // A change of suites/ after it: once that is announced, the save's own event was handled.
    writeFileSync(join(ws, 'suites', 'marker3.toml'), 'name = "marker3"\n');
    await vi.waitFor(() => expect(events.some((e) => e.what === 'suites')).toBe(true), { timeout: 10_000 });
    expect(events.filter((e) => e.what === 'tools')).toEqual([]);
    // The dependencies edited by hand: the sandbox's workers must be reloaded (its derived image rebuilt).
    // Before, its tools.py still being the own save's text, the change was dropped.
    editorSave(join(ws, 'sandboxes', 'ecommerce', 'requirements.txt'), 'requests==2.31.0\n');
    await vi.waitFor(
      () =>
        expect(events.some((e) => e.what === 'tools' && e.sandbox === 'ecommerce' && !e.error)).toBe(true),
      { timeout: 10_000 },
    );
  });

  it("a wheel added to a sandbox's wheels/ folder by hand, after the Tools view's save or not, is a change", async () => {
    const dir = join(ws, 'sandboxes', 'ecommerce');
    mkdirSync(join(dir, 'wheels'), { recursive: true });
    await vi.waitFor(() => expect(events.some((e) => e.what === 'tools')).toBe(true), { timeout: 10_000 });
    events.length = 0;
    const file = join(dir, 'tools.py');
    const saved = await dispatch(svc, 'tools.save', {
      sandbox: 'ecommerce',
      source: `${readFileSync(file, 'utf8')}\n# saved from the Tools view\n`,
    });
    expect(saved.ok, JSON.stringify(saved)).toBe(true);
    writeFileSync(join(ws, 'suites', 'marker4.toml'), 'name = "marker4"\n');
    await vi.waitFor(() => expect(events.some((e) => e.what === 'suites')).toBe(true), { timeout: 10_000 });
    expect(events.filter((e) => e.what === 'tools')).toEqual([]);
    // (the image's hash covers every wheels/*.whl: the workers must be reloaded to get it)
    writeFileSync(join(dir, 'wheels', 'tiny-0.1-py3-none-any.whl'), 'PK');
    await vi.waitFor(
      () =>
        expect(events.some((e) => e.what === 'tools' && e.sandbox === 'ecommerce' && !e.error)).toBe(true),
      { timeout: 10_000 },
    );
    // Another one, replaced the way a download does (written aside, renamed in).
    events.length = 0;
    editorSave(join(dir, 'wheels', 'tiny-0.2-py3-none-any.whl'), 'PK2');
    await vi.waitFor(
      () =>
        expect(events.some((e) => e.what === 'tools' && e.sandbox === 'ecommerce' && !e.error)).toBe(true),
      { timeout: 10_000 },
    );
    // The folder made again (`rm -r wheels && pip download -d wheels`): a wheel in the new one is heard.
    rmSync(join(dir, 'wheels'), { recursive: true });
    mkdirSync(join(dir, 'wheels'));
    writeFileSync(join(ws, 'suites', 'marker5.toml'), 'name = "marker5"\n');
    await vi.waitFor(() => expect(events.some((e) => e.what === 'suites')).toBe(true), { timeout: 10_000 });
    events.length = 0;
    writeFileSync(join(dir, 'wheels', 'tiny-0.3-py3-none-any.whl'), 'PK3');
    await vi.waitFor(
      () =>
        expect(events.some((e) => e.what === 'tools' && e.sandbox === 'ecommerce' && !e.error)).toBe(true),
      { timeout: 10_000 },
    );
  });

  it("a refused edit's line on stderr (serve's and mcp's log) shows the control characters of the file's own words", async () => {
    const said: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      said.push(String(chunk));
      return write(chunk);
    });
    try {
      const text = readFileSync(configFile(), 'utf8');
      // A strict table's unknown key holding an OSC sequence (it sets the terminal's title).
      editorSave(configFile(), `${text}\n[telemetry]\n"\\u001b]0;pwned\\u0007x" = 1\n`);
      await vi.waitFor(() => expect(events.some((e) => e.error)).toBe(true), { timeout: 10_000 });
      const line = said.find((l) => l.includes('the last good config stays in use'));
      expect(line).toBeDefined();
      // Before: the ESC and BEL went to the terminal (or the log read in one) as they are.
      expect(line).not.toMatch(/[\u001b\u0007]/);
      expect(line).toContain('\\x1b]0;pwned\\x07x');
    } finally {
      spy.mockRestore();
    }
  });

  it('reports a tools.py that does not parse (file and line) and picks up the fixed one', async () => {
    const file = join(ws, 'sandboxes', 'ecommerce', 'tools.py');
    const good = readFileSync(file, 'utf8');
    const toolsBefore = svc.catalog.registry('ecommerce').tools.length;
    editorSave(file, `${good}\ndef broken(:\n`);
    await vi.waitFor(
      () => expect(events.some((e) => e.what === 'tools' && e.sandbox === 'ecommerce' && e.error)).toBe(true),
      { timeout: 10_000 },
    );
    const line = good.split('\n').length + 1;
    expect(events.find((e) => e.error)!.error).toContain(`${file}:${line}:`);

    events.length = 0;
    editorSave(
      file,
      `${good}\n@tool\ndef added(x: int) -> ToolResponse:\n    """Adds one."""\n    return ToolResponse(success=True, data=x + 1)\n`,
    );
    await vi.waitFor(
      () =>
        expect(events.some((e) => e.what === 'tools' && e.sandbox === 'ecommerce' && !e.error)).toBe(true),
      { timeout: 10_000 },
    );
    expect(svc.catalog.registry('ecommerce').tools.length).toBe(toolsBefore + 1);
  });

  it("the service's own template save is not announced as an edit on disk; a hand edit after it is", async () => {
    events.length = 0;
    const saved = await dispatch(svc, 'templates.create', {
      name: 'own_save',
      body: 'emit_result(get_user(user_id=user_id).data["name"])\n',
      pattern: 'name of user {user_id}',
      slots: { user_id: 'str' },
      sandbox: 'ecommerce',
    });
    expect(saved.ok, JSON.stringify(saved)).toBe(true);
    const file = join(ws, 'templates', 'own_save.tmpl');
    expect(existsSync(file)).toBe(true);
    // A change of suites/ after it: once that is announced, the templates change before it was handled.
    writeFileSync(join(ws, 'suites', 'marker2.toml'), 'name = "marker2"\n');
    await vi.waitFor(() => expect(events.some((e) => e.what === 'suites')).toBe(true), { timeout: 10_000 });
    expect(events.filter((e) => e.what === 'templates')).toEqual([]);
    editorSave(file, readFileSync(file, 'utf8').replace('name of user', 'the name of user'));
    await vi.waitFor(() => expect(events.some((e) => e.what === 'templates')).toBe(true), {
      timeout: 10_000,
    });
  });

  it('announces suites, kits and templates changed on disk', async () => {
    writeFileSync(join(ws, 'kits', 'extra.kit'), 'name = "extra"\nsandbox = "ecommerce"\ntools = []\n');
    await vi.waitFor(() => expect(events.some((e) => e.what === 'kits')).toBe(true), { timeout: 10_000 });
  });
});

describe('a tool excluded by the maximum grade', () => {
  it('exec/validate say the tool is above the maximum, as tool call does (not "is not defined")', async () => {
    const ws = tempWorkspace();
    const file = join(ws, 'sandboxes', 'ecommerce', 'tools.py');
    writeFileSync(
      file,
      `${readFileSync(file, 'utf8')}\n@tool(grade=(2, 2))\ndef crash() -> ToolResponse:\n    """Breaks things."""\n    return ToolResponse(success=True)\n`,
    );
    const svc = ToolsmithService.open(ws);
    try {
      const v = svc.execution.validate({
        code: 'emit_result(crash())\n',
        language: 'python',
        sandbox: 'ecommerce',
      });
      expect(v.valid).toBe(false);
      const msg = v.violations.map((x) => x.message).join('\n');
      expect(msg).toMatch(
        /crash\(\) is a tool of this sandbox but this script may not call it: tool crash has grade \(w=2, d=2\), above the workspace maximum/,
      );
      expect(msg).not.toMatch(/is not defined/);
      const r = await svc.execution.executeScript({
        sandbox: 'ecommerce',
        language: 'python',
        body: 'emit_result(crash())\n',
      });
      expect(r.exitReason).toBe('rejected');
      expect(r.error?.message).toMatch(/above the workspace maximum/);
      expect(() => svc.catalog.callableTool('ecommerce', 'crash')).toThrow(/above the workspace maximum/);
    } finally {
      await svc.close();
      removeWorkspace(ws);
    }
  });
});

describe('a kit file that does not parse', () => {
  it('is listed with its file and line; the other kits stay usable', () => {
    const ws = tempWorkspace();
    writeFileSync(join(ws, 'kits', 'broken.kit'), 'name = "broken"\nsandbox = "ecommerce"\ntools = [\n');
    const svc = ToolsmithService.open(ws);
    try {
      const kits = svc.catalog.kits();
      const broken = kits.find((k) => k.file.endsWith('broken.kit'));
      expect(broken?.error).toMatch(/broken\.kit:\d+:\d+: /);
      expect(kits.filter((k) => k.kit).length).toBeGreaterThan(0);
      expect(svc.catalog.kit('orders').name).toBe('orders');
    } finally {
      void svc.close();
      removeWorkspace(ws);
    }
  });
});
