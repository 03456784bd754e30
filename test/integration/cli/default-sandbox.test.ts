/**
 * The verbs that take a script or a task (`exec`, `run`, `prompt`) use the workspace's default sandbox
 * when `--sandbox` is not given, as `validate` does (`default_sandbox` in config.toml, else the first
 * sandbox); a name no workspace file may have (`eval ../x`, `skill create --sandbox ../..`) is a usage
 * error (exit 2), not an error of the workspace.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';

let ws: string;
const run = (args: string[]) => runToolsmith(ws, args, { TOOLSMITH_BACKEND: 'process' });

beforeAll(() => {
  ws = tempWorkspace('toolsmith-default-sandbox-');
  const config = join(ws, '.toolsmith/config.toml');
  // The default is the second sandbox, not the first: the answer shows the config was read.
  writeFileSync(
    config,
    readFileSync(config, 'utf8').replace(/default_sandbox = "[^"]*"/, 'default_sandbox = "support"'),
  );
  expect(readFileSync(config, 'utf8')).toContain('default_sandbox = "support"');
  writeFileSync(join(ws, 'who.py'), 'emit_result(search_kb(query="refund").success)\n');
});
afterAll(() => removeWorkspace(ws));

describe('--sandbox left out', () => {
  it('exec runs the script in the default sandbox', async () => {
    const r = await run(['exec', join(ws, 'who.py'), '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ success: true, data: true });
  }, 120_000);

  it("prompt shows the default sandbox's tools", async () => {
    const r = await run(['prompt', '--task', 'find the refund article']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('search_kb');
    expect(r.out).not.toContain('get_orders');
  }, 60_000);

  it('a name no workspace file may have is a usage error, exit 2', async () => {
    const r = await run(['eval', '../suites/x']);
    expect(r.code).toBe(2);
    expect(r.err.trim()).toBe('toolsmith: invalid suite name "../suites/x": use letters, digits, _ . -');
  }, 60_000);
});
