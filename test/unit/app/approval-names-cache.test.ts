/**
 * The `[approval]` tool-name check reads each named sandbox's tools.py on every tools change, config
 * edit and sandbox made or removed; parsing it with pyright took ~39 ms each time for the sample
 * workspace though the file had not changed. The parse is now kept by the file's content (a hash): a
 * second check of the same text parses nothing, a changed text is parsed again and its tools counted.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolNamesByContent, toolNamesByContent } from '../../../src-main/app/approval-names.ts';
import { sayConfigWarnings } from '../../../src-main/app/config-keys.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

/** A tools.py tool named `n`. */
const tool = (n: string) =>
  `@tool(grade=(1, 0))\ndef ${n}(x: str) -> ToolResponse:\n    """T."""\n    return ToolResponse(success=True)\n`;

describe('ToolNamesByContent', () => {
  it('parses a text once; a changed text again; a text that does not parse is not known', () => {
    const cache = new ToolNamesByContent();
    const one = tool('get_user');
    expect(cache.names(one)).toEqual(['get_user']);
    expect(cache.parses).toBe(1);
    expect(cache.names(one)).toEqual(['get_user']);
    expect(cache.names(`${one}`)).toEqual(['get_user']);
    expect(cache.parses).toBe(1);
    const two = `${one}\n${tool('add_note')}`;
    expect(cache.names(two)).toEqual(['get_user', 'add_note']);
    expect(cache.parses).toBe(2);
    expect(cache.names('def broken(:\n')).toBeUndefined();
    expect(cache.names('def broken(:\n')).toBeUndefined();
    expect(cache.parses).toBe(3);
  });

  it('keeps the last texts up to its bound', () => {
    const cache = new ToolNamesByContent(2);
    cache.names(tool('a'));
    cache.names(tool('b'));
    cache.names(tool('a')); // a is the newest now
    cache.names(tool('c')); // b goes
    expect(cache.parses).toBe(3);
    cache.names(tool('a'));
    expect(cache.parses).toBe(3);
    cache.names(tool('b'));
    expect(cache.parses).toBe(4);
  });
});

describe("the [approval] check over a workspace's tools.py", () => {
  let ws: string;
  let svc: ToolsmithService;
  beforeAll(() => {
    ws = tempWorkspace('toolsmith-approval-cache-');
    appendFileSync(join(ws, '.toolsmith', 'config.toml'), '\n[approval]\ntools = ["support.add_nte"]\n');
    svc = ToolsmithService.open(ws);
  });
  afterAll(async () => {
    await svc?.close();
    removeWorkspace(ws);
  });

  it('a second check of an unchanged tools.py does not parse it; a changed one is parsed', () => {
    const warning = () => svc.files.configWarnings.find((w) => w.includes('add_nte')) ?? '';
    expect(warning()).toContain('but sandbox support has no tool "add_nte" (did you mean add_note?');
    const before = toolNamesByContent.parses;
    sayConfigWarnings(svc.files, svc.config);
    sayConfigWarnings(svc.files, svc.config);
    expect(toolNamesByContent.parses).toBe(before);
    expect(warning()).toContain('tools: list_tickets, get_ticket, search_kb, add_note):');
    // tools.py changed (a tool added): parsed once, and the check sees the new tool.
    const tools = join(ws, 'sandboxes', 'support', 'tools.py');
    writeFileSync(tools, `${readFileSync(tools, 'utf8')}\n\n${tool('close_ticket')}`);
    sayConfigWarnings(svc.files, svc.config);
    expect(toolNamesByContent.parses).toBe(before + 1);
    expect(warning()).toContain('tools: list_tickets, get_ticket, search_kb, add_note, close_ticket):');
    sayConfigWarnings(svc.files, svc.config);
    expect(toolNamesByContent.parses).toBe(before + 1);
  });
});
