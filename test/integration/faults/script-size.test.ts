/**
 * A script too large for the worker's protocol line (a 2 MB literal pasted into a script): the worker
 * drops a host line past 1 MB unread, so before, the job waited for the watchdog (the script's whole
 * time limit) and then read as a timeout. The host now refuses to send it and says why, at once, on the
 * CLI's `exec` and on the MCP `code` path alike (both go through the sandbox connection).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { cliProcess, requireDocker } from './support/processes.ts';

let ws: string;
let data: string;
beforeAll(async () => {
  await requireDocker();
  ws = tempWorkspace();
  data = mkdtempSync(join(tmpdir(), 'toolsmith-data-'));
});
afterAll(() => {
  removeWorkspace(ws);
  rmSync(data, { recursive: true, force: true });
});

describe('a script larger than a worker reads', () => {
  it('exec answers at once with its size and the limit, nothing ran, and the next script runs', async () => {
    const big = join(data, 'big.py');
    writeFileSync(big, `x = "${'a'.repeat(2 * 1024 * 1024)}"\nemit_result(len(x))\n`);
    const started = Date.now();
    // A 30 s limit: before, the job waited all of it (the worker never read the job).
    const r = await cliProcess(ws, data, ['exec', big, '--sandbox', 'ecommerce', '--timeout', '30', '--json'])
      .done;
    expect(Date.now() - started).toBeLessThan(25_000);
    const result = JSON.parse(r.out) as {
      success: boolean;
      exitReason: string;
      error?: { type: string; message: string };
    };
    expect(result.success).toBe(false);
    expect(result.exitReason).toBe('error');
    expect(result.error?.type).toBe('ScriptTooLarge');
    expect(result.error?.message).toMatch(
      /^the script's job is [\d,]+ bytes as the one JSON line a sandbox worker reads \(.*\), above the limit of 1,048,576 bytes \(1 MB\): .*; nothing ran$/,
    );
    const small = join(data, 'small.py');
    writeFileSync(small, 'emit_result(7)\n');
    const ok = await cliProcess(ws, data, ['exec', small, '--sandbox', 'ecommerce', '--json']).done;
    expect((JSON.parse(ok.out) as { data: unknown }).data).toBe(7);
  }, 120_000);

  it('a script under 1 M characters that takes more as JSON: refused before it is validated, saying why', async () => {
    // 1,000,000 characters, 250,000 line breaks: 1.25 MB once escaped. Before, `exec` validated it (6 s),
    // then the worker refused it: "the job is 1.2 MB as a protocol message ... (the script is 977 KB)".
    const big = join(data, 'escaped.py');
    writeFileSync(big, 'x=1\n'.repeat(249_990) + 'emit_result(x)\n');
    const r = await cliProcess(ws, data, ['exec', big, '--sandbox', 'ecommerce', '--json']).done;
    const result = JSON.parse(r.out) as { success: boolean; error?: { type: string; message: string } };
    expect(result.success).toBe(false);
    expect(result.error?.type).toBe('ScriptTooLarge');
    expect(result.error?.message).toContain('above the limit of 1,048,576 bytes (1 MB)');
  }, 120_000);
});
