/**
 * The run store closes while a run is still emitting (the MCP server's process is stopping: its store is
 * closed, a script in a real Docker sandbox goes on calling tools and printing). Every event that lands
 * after that is dropped and counted, never written to the closed connection: before the guard, node:sqlite
 * threw "statement has been finalized" from the sandbox socket's reader and the process crashed.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { createMcpServer } from '../../../src-main/mcp/mcp.ts';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';

const fx = useScriptedWorkspace({ docker: true });

/** Errors that would have ended the process (vitest reports them too; here they are asserted on). */
const escaped: unknown[] = [];
const onEscape = (e: unknown) => escaped.push(e);
process.on('uncaughtException', onEscape);
process.on('unhandledRejection', onEscape);
afterEach(() => {
  process.off('uncaughtException', onEscape);
  process.off('unhandledRejection', onEscape);
});

const textOf = (r: object) =>
  (('content' in r ? (r.content as { type: string; text?: string }[]) : []) ?? [])
    .map((c) => c.text ?? '')
    .join('');

describe('the run store closed under a running script', () => {
  it('late tool-call and log events are dropped, the process lives, the service still closes', async () => {
    const svc = ToolsmithService.open(fx.ws, { sandboxFactory: createSandboxManager });
    const client = new Client({ name: 't', version: '1' });
    try {
      const server = createMcpServer(svc);
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(a);
      await client.connect(b);
      // Tool calls and log lines, one after the other, for far longer than the test takes to close the
      // store: every one after the close is a late event.
      const script = 'for i in range(3000):\n    get_orders()\n    print(i)\nemit_result("done")\n';
      const call = client.callTool(
        { name: 'code', arguments: { code: script, sandbox: 'ecommerce' } },
        undefined,
        { timeout: 300_000 },
      );
      const runs = await svc.runs();
      // The run is emitting: some of its tool calls are recorded.
      const runId = await vi.waitFor(
        () => {
          const [run] = runs.store.list({}).runs;
          expect(
            run && runs.store.events(run.id).filter((e) => e.type === 'tool_call').length,
          ).toBeGreaterThan(3);
          return (run as { id: string }).id;
        },
        { timeout: 180_000, interval: 20 },
      );
      expect(runs.isActive(runId)).toBe(true);
      runs.store.close();
      expect(runs.store.isClosed()).toBe(true);
      // The script goes on emitting into the closed store, then ends; the MCP answer still comes (the
      // run's result, or the error that its record cannot be read back from the closed store).
      const r = await call;
      expect(textOf(r)).toMatch(/"done"|database is not open/);
      expect(runs.store.droppedAfterClose()).toBeGreaterThan(10);
      expect(escaped).toEqual([]);
      // A new run cannot be recorded any more: a clean error, not a crash.
      const again = await client.callTool({
        name: 'code',
        arguments: { code: 'emit_result(1)', sandbox: 'ecommerce' },
      });
      expect(again.isError).toBe(true);
      expect(textOf(again)).toMatch(/closed/);
      expect(escaped).toEqual([]);
    } finally {
      await client.close().catch(() => {});
      // Closing the service closes the store a second time: a no-op.
      await svc.close();
    }
    expect(escaped).toEqual([]);
  }, 360_000);
});
