/**
 * A 50 MB tools.py (generated data pasted into it, a wrong file saved under its name): every path that
 * loads it — the service the workbench calls, `toolsmith exec`, the MCP `code` tool on stdio — answers at
 * once with the file, its size and the limit, instead of a worker load that times out; nothing hangs, and
 * the next process sees a fixed file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { cliProcess, requireDocker } from './support/processes.ts';

let ws: string;
let data: string;
let original: string;
const toolsFile = () => join(ws, 'sandboxes', 'ecommerce', 'tools.py');
const SIZE_MESSAGE = /tools\.py is 50\.0 MB, above the 4\.0 MB limit for a tools\.py/;

beforeAll(async () => {
  await requireDocker();
  ws = tempWorkspace();
  data = mkdtempSync(join(tmpdir(), 'toolsmith-data-'));
  original = readFileSync(toolsFile(), 'utf8');
  // Valid Python all the way: a 50 MB literal after the tools.
  writeFileSync(
    toolsFile(),
    `${original}\nDATA = "${'x'.repeat(50 * 1024 * 1024 - original.length - 20)}"\n`,
  );
});
afterAll(() => {
  removeWorkspace(ws);
  rmSync(data, { recursive: true, force: true });
});

describe('a 50 MB tools.py', () => {
  it('the service (workbench path): the script is refused naming the file, its size and the limit', async () => {
    const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
    try {
      const r = await svc.execution
        .executeScript({ sandbox: 'ecommerce', language: 'python', body: 'emit_result(1)\n' })
        .then(
          (x) => x.error?.message ?? '',
          (e: unknown) => String(e),
        );
      expect(r).toMatch(SIZE_MESSAGE);
      expect(r).toContain(toolsFile());
      // Another sandbox is not touched.
      const other = await svc.execution.executeScript({
        sandbox: 'support',
        language: 'python',
        body: 'emit_result(1)\n',
      });
      expect(other.success).toBe(true);
    } finally {
      await svc.close();
    }
  }, 180_000);

  it('toolsmith exec: the infra result names the file and its size, exit 3 (not run), no stack', async () => {
    const p = cliProcess(ws, data, ['exec', '--sandbox', 'ecommerce', '-']);
    p.child.stdin?.end('emit_result(1)\n');
    const r = await p.done;
    expect(r.code).toBe(3);
    expect(r.err + r.out).toMatch(SIZE_MESSAGE);
    expect(r.err).not.toMatch(/within 15000 ms|\n\s+at /);
  }, 180_000);

  it('mcp on stdio, the code tool: an error answer naming the file and its size', async () => {
    const p = cliProcess(ws, data, ['mcp']);
    let buf = '';
    p.child.stdout?.on('data', (d: Buffer) => (buf += d.toString()));
    const send = (m: object) => p.child.stdin?.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    send({ method: 'notifications/initialized' });
    send({
      id: 2,
      method: 'tools/call',
      params: { name: 'code', arguments: { code: 'emit_result(get_user(user_id="u1").data)\n' } },
    });
    const answer = await vi.waitFor(
      () => {
        const line = buf.split('\n').find((l) => l.includes('"id":2'));
        if (!line) throw new Error('no answer yet');
        return line;
      },
      { timeout: 120_000, interval: 50 },
    );
    expect(answer).toMatch(SIZE_MESSAGE);
    p.child.stdin?.end();
    expect((await p.done).code).toBe(0);
  }, 180_000);
});
