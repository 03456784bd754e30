/**
 * The MCP server for agents, with the official SDK client over stdio (real containers, the scripted LLM
 * server): server instructions, tool titles and annotations, the run's compact agent context in the
 * `code` and `delegate` answers beside their structured content, and recorded runs as resources
 * (`toolsmith://runs/<id>`, listed and read). Prints the agent context's size against the full record.
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';

const fx = useScriptedWorkspace({ docker: true });
let client: Client;

type Answer = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

beforeAll(async () => {
  client = await connectMcp(fx.ws, 'agent-ecosystem-test', { ...process.env, TOOLSMITH_DATA_DIR: fx.data });
}, 120_000);
afterAll(async () => {
  await client?.close();
});

function fullRecord(runId: string): string {
  const store = new RunStore(join(fx.ws, '.toolsmith', 'runs.db'));
  try {
    return JSON.stringify(store.get(runId));
  } finally {
    store.close();
  }
}

describe('the MCP server for agents', () => {
  it('says how to use it, and titles and annotates every tool', async () => {
    expect(client.getInstructions()).toMatch(/Prefer `code`/);
    expect(client.getInstructions()).toContain('toolsmith://runs/<id>');
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(10);
    for (const t of tools) {
      expect(t.title, t.name).toBeTruthy();
      expect(typeof t.annotations?.readOnlyHint, t.name).toBe('boolean');
      expect(typeof t.annotations?.destructiveHint, t.name).toBe('boolean');
      expect(typeof t.annotations?.idempotentHint, t.name).toBe('boolean');
      expect(typeof t.annotations?.openWorldHint, t.name).toBe('boolean');
    }
    const by = (n: string) => tools.find((t) => t.name === n)!;
    expect(by('validate').annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(by('code').annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: true,
    });
  });

  it('code and delegate answer the run as compact XML beside their structured content; runs are resources', async () => {
    // A script that raises: the answer's XML names the error and its line.
    const failed = (await client.callTool({
      name: 'code',
      arguments: {
        code: 'u = get_user(user_id="u4")\nemit_result(u.data["no_such_key"])\n',
        sandbox: 'ecommerce',
      },
    })) as Answer;
    expect(failed.isError).toBe(true);
    expect(JSON.parse(failed.content[0]!.text)).toEqual(failed.structuredContent);
    const runId = failed.structuredContent?.['runId'] as string;
    const xml = failed.content[1]!.text;
    expect(xml).toMatch(new RegExp(`^<run id="${runId}" status="failed"`));
    expect(xml).toMatch(/<error type="KeyError">/);
    expect(xml).toMatch(
      /<frame line="2" name="&lt;script&gt;">emit_result\(u\.data\["no_such_key"\]\)<\/frame>/,
    );
    expect(xml).toContain('<call name="get_user"');

    // delegate: the LLM's script succeeds; the outcome is structured, the run is XML.
    fx.llm.push('```python\nr = get_user(user_id="u4")\nemit_result(r.data["tier"])\n```');
    const ok = (await client.callTool({
      name: 'delegate',
      arguments: { task: 'Tier of user u4', sandbox: 'ecommerce' },
    })) as Answer;
    expect(ok.isError).toBeFalsy();
    expect(ok.structuredContent).toMatchObject({ status: 'succeeded', result: 'bronze' });
    const okId = ok.structuredContent?.['runId'] as string;
    expect(ok.content[1]!.text).toMatch(new RegExp(`^<run id="${okId}" status="succeeded" mode="plan"`));
    expect(ok.content[1]!.text).toContain('<result>"bronze"</result>');

    // Both runs are listed as resources, newest first, and read as the same XML.
    const { resources } = await client.listResources();
    expect(resources.slice(0, 2).map((r) => r.uri)).toEqual([
      `toolsmith://runs/${okId}`,
      `toolsmith://runs/${runId}`,
    ]);
    expect(resources[1]).toMatchObject({
      mimeType: 'application/xml',
      title: expect.stringMatching(/^failed: /),
    });
    const read = await client.readResource({ uri: `toolsmith://runs/${runId}` });
    expect(read.contents[0]).toMatchObject({ mimeType: 'application/xml', text: xml });
    await expect(client.readResource({ uri: 'toolsmith://runs/no-such-run' })).rejects.toThrow(
      /no run no-such-run/,
    );

    // The size of what an agent reads against the full record.
    const sizes = [runId, okId].map((id, i) => {
      const context = i === 0 ? xml : ok.content[1]!.text;
      const full = fullRecord(id);
      return {
        run: i === 0 ? 'code (failed)' : 'delegate (succeeded)',
        contextBytes: context.length,
        fullRecordBytes: full.length,
        ratio: Number((full.length / context.length).toFixed(1)),
      };
    });
    process.stdout.write(`${JSON.stringify({ agentContextVsFullRecord: sizes }, null, 1)}\n`);
    // Measured: 689 vs 1,781 bytes for the script run, 506 vs 14,173 for the LLM run (its prompt).
    expect(sizes[0]!.contextBytes).toBeLessThan(sizes[0]!.fullRecordBytes / 2);
    expect(sizes[1]!.contextBytes).toBeLessThan(sizes[1]!.fullRecordBytes / 10);
  }, 180_000);
});
