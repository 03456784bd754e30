/**
 * `kit list` and `tools` as fresh processes answer from the last answer of an unchanged workspace (the
 * verb cache in the user's cache folder) and take the full path again when anything they depend on
 * changes: a kit file, tools.py, config.toml, the arguments.
 */
import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { runToolsmith } from '../mcp/support/mcp-http-process.ts';

let ws: string;
let cache: string;
let env: Record<string, string>;
const run = (args: string[]) => runToolsmith(ws, args, env);
const cacheFiles = () =>
  existsSync(join(cache, 'toolsmith'))
    ? readdirSync(join(cache, 'toolsmith')).filter((f) => f.startsWith('verbs-'))
    : [];

beforeAll(() => {
  ws = tempWorkspace('toolsmith-verb-cache-');
  cache = mkdtempSync(join(tmpdir(), 'toolsmith-verb-cache-home-'));
  env = { XDG_CACHE_HOME: cache, TOOLSMITH_BACKEND: 'process' };
});
afterAll(() => {
  removeWorkspace(ws);
  rmSync(cache, { recursive: true, force: true });
});

describe('the verb cache of kit list and tools', () => {
  it('kit list: the second answer is the first, from the cache; a changed kit file is read anew', async () => {
    const first = await run(['kit', 'list']);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^inventory\s+ecommerce/m);
    expect(cacheFiles()).toHaveLength(1);
    const second = await run(['kit', 'list']);
    expect(second).toEqual(first);

    writeFileSync(
      join(ws, 'kits', 'inventory.kit'),
      'name = "inventory"\nsandbox = "ecommerce"\ntools = ["no_such_tool"]\n',
    );
    const changed = await run(['kit', 'list']);
    expect(changed.code).toBe(0);
    expect(changed.out).toMatch(/^inventory\s+ecommerce\s+REFUSED: .*no_such_tool/m);
    expect(changed.out).not.toEqual(first.out);
  }, 60_000);

  it('tools: each command line has its own answer; an edited tools.py is read anew', async () => {
    const xml = await run(['tools', '--sandbox', 'ecommerce']);
    const json = await run(['tools', '--sandbox', 'ecommerce', '--format', 'json']);
    expect(xml.code).toBe(0);
    expect(json.code).toBe(0);
    expect(xml.out).not.toEqual(json.out);
    expect(await run(['tools', '--sandbox', 'ecommerce'])).toEqual(xml);
    expect(await run(['tools', '--sandbox', 'ecommerce', '--format', 'json'])).toEqual(json);

    appendFileSync(
      join(ws, 'sandboxes', 'ecommerce', 'tools.py'),
      '\n\n@tool\ndef count_widgets(color: str) -> ToolResponse:\n    """Counts the widgets of one color."""\n    return ToolResponse(success=True, data=3)\n',
    );
    const after = await run(['tools', '--sandbox', 'ecommerce', '--format', 'json']);
    expect(after.code).toBe(0);
    expect(after.out).toContain('count_widgets');
    expect(json.out).not.toContain('count_widgets');
  }, 60_000);

  it('a failing command line is never kept: it fails again with its reason', async () => {
    const bad = await run(['tools', '--sandbox', 'nope']);
    expect(bad.code).not.toBe(0);
    expect(await run(['tools', '--sandbox', 'nope'])).toEqual(bad);
    expect(bad.err).toMatch(/nope/);
  }, 60_000);
});
