/**
 * MCP `save_skill` over stdio with the official SDK client: saved only when the person confirms through
 * elicitation; refused (nothing saved) when the client cannot ask or the person declines. A saved skill
 * shows in the `code` manual and in search_tools / describe_tool.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';

const ws = tempWorkspace();
const clients: Client[] = [];
let answer: 'accept' | 'decline' = 'accept';
const asked: string[] = [];

/** What the person answers when asked: the question kept, then `answer`. */
function elicit(message: string): ElicitResult {
  asked.push(message);
  return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
}

async function connect(elicitation: boolean): Promise<Client> {
  const client = await connectMcp(ws, 'toolsmith-skill-test', undefined, elicitation ? elicit : undefined);
  clients.push(client);
  return client;
}
afterAll(async () => {
  for (const c of clients) await c.close();
  removeWorkspace(ws);
});

const textOf = (r: unknown): string => (r as { content: { text: string }[] }).content[0]?.text ?? '';
const SOURCE = `def user_tier(user_id: str) -> str:
    """A customer's tier (gold, silver, bronze).

    Args:
        user_id: The customer's id.
    """
    return get_user(user_id=user_id).data["tier"]
`;
const args = {
  sandbox: 'ecommerce',
  name: 'user_tier',
  source: SOURCE,
  tests: [{ args: { user_id: 'u1' }, expect: 'gold' }],
};
const file = join(ws, 'skills/ecommerce/user_tier.py');

describe('MCP save_skill', () => {
  it('is refused without a person to confirm, or when the person declines', async () => {
    const plain = await connect(false);
    const r = await plain.callTool({ name: 'save_skill', arguments: args });
    expect(r.isError).toBe(true);
    expect(JSON.parse(textOf(r))).toMatchObject({ code: 'refused' });
    expect(textOf(r)).toMatch(/needs a person to confirm/);
    expect(existsSync(file)).toBe(false);

    answer = 'decline';
    const asking = await connect(true);
    const d = await asking.callTool({ name: 'save_skill', arguments: args });
    expect(d.isError).toBe(true);
    expect(textOf(d)).toMatch(/did not confirm/);
    expect(asked[0]).toContain('def user_tier(user_id: str) -> str:');
    expect(existsSync(file)).toBe(false);

    // A source that does not validate is refused before anyone is asked.
    const n = asked.length;
    const bad = await asking.callTool({
      name: 'save_skill',
      arguments: { ...args, source: SOURCE.replace('return', 'return open("/etc/passwd") or') },
    });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/does not validate/);
    expect(asked.length).toBe(n);

    // A case with a key it does not know is refused, naming the key: dropped, the case passed on any
    // result and a wrong skill was saved as tested and offered.
    answer = 'accept';
    const typo = await asking.callTool({
      name: 'save_skill',
      arguments: { ...args, tests: [{ args: { user_id: 'u1' }, expected: 'platinum' }] },
    });
    expect(typo.isError).toBe(true);
    expect(textOf(typo)).toMatch(/Unrecognized key: "expected" at tests\[0\]/);
    expect(asked.length).toBe(n);
    expect(existsSync(file)).toBe(false);
  }, 120_000);

  it('saves once confirmed, runs its tests, and the skill is in the manual and found by search', async () => {
    answer = 'accept';
    const client = await connect(true);
    const r = await client.callTool({ name: 'save_skill', arguments: args });
    expect(r.isError).toBeFalsy();
    expect(JSON.parse(textOf(r))).toMatchObject({
      saved: 'ecommerce/user_tier',
      version: 1,
      offered: true,
      cases: [{ args: { user_id: 'u1' }, passed: true, result: 'gold' }],
    });
    expect(existsSync(file)).toBe(true);

    // Saving it again without `replace` is refused before the person is asked, in this tool's words.
    const before = asked.length;
    const again = await client.callTool({ name: 'save_skill', arguments: args });
    expect(again.isError).toBe(true);
    expect(JSON.parse(textOf(again))).toMatchObject({
      code: 'invalid_argument',
      error:
        'skill user_tier exists in sandbox ecommerce; call save_skill with replace: true to save a new version',
    });
    expect(asked.length).toBe(before);

    // A new session sees it in the code manual, search_tools and describe_tool.
    const next = await connect(false);
    const { tools } = await next.listTools();
    expect(tools.find((t) => t.name === 'code')?.description).toContain(
      '<tool name="user_tier" location="skill">',
    );
    const found = await next.callTool({
      name: 'search_tools',
      arguments: { query: 'tier', sandbox: 'ecommerce' },
    });
    expect(textOf(found)).toContain('user_tier(user_id: str)');
    const described = await next.callTool({
      name: 'describe_tool',
      arguments: { name: 'user_tier', sandbox: 'ecommerce' },
    });
    expect(textOf(described)).toContain('location=\\"skill\\"');
    const run = await next.callTool({
      name: 'code',
      arguments: { code: 'emit_result(user_tier(user_id="u3"))\n', sandbox: 'ecommerce' },
    });
    expect(JSON.parse(textOf(run))).toMatchObject({ status: 'succeeded', result: 'gold' });

    // execute_code runs a script directly: the calls the skill made are under its name in the trace.
    const direct = await next.callTool({
      name: 'execute_code',
      arguments: {
        code: 'emit_result([user_tier(user_id="u3"), get_user(user_id="u4").data["tier"]])\n',
        sandbox: 'ecommerce',
        include_trace: true,
      },
    });
    const executed = JSON.parse(textOf(direct)) as {
      data: unknown;
      toolCalls: { name: string; skill?: string; skillCall?: number }[];
      skillCalls?: { id: number; name: string; args: unknown; ms: number }[];
    };
    expect(executed.data).toEqual(['gold', 'bronze']);
    expect(executed.toolCalls.map((c) => [c.name, c.skill, c.skillCall])).toEqual([
      ['get_user', 'user_tier', 1],
      ['get_user', undefined, undefined],
    ]);
    // The skill call itself, with its arguments (it had no record before).
    expect(executed.skillCalls?.map((c) => [c.id, c.name, c.args])).toEqual([
      [1, 'user_tier', { user_id: 'u3' }],
    ]);
    // Without include_trace, neither trace.
    const plain = await next.callTool({
      name: 'execute_code',
      arguments: { code: 'emit_result(user_tier(user_id="u3"))\n', sandbox: 'ecommerce' },
    });
    const brief = JSON.parse(textOf(plain)) as Record<string, unknown>;
    expect(brief['data']).toBe('gold');
    expect(brief['toolCalls']).toBeUndefined();
    expect(brief['skillCalls']).toBeUndefined();
  }, 300_000);

  it('saves a JS skill with its language; JS scripts of `code` call it, search says which scripts do', async () => {
    answer = 'accept';
    const client = await connect(true);
    const r = await client.callTool({
      name: 'save_skill',
      arguments: {
        sandbox: 'ecommerce',
        name: 'user_email',
        language: 'js',
        source:
          "/**\n * A customer's email.\n * @param {string} user_id The customer's id.\n */\nasync function user_email(user_id) {\n  return (await get_user({ user_id })).data.email;\n}\n",
        tests: [{ args: { user_id: 'u1' }, expect: 'ada@example.com' }],
      },
    });
    expect(asked.at(-1)).toMatch(/^Save the JS skill ecommerce\/user_email\?/);
    expect(JSON.parse(textOf(r))).toMatchObject({ saved: 'ecommerce/user_email', offered: true });
    expect(existsSync(join(ws, 'skills/ecommerce/user_email.js'))).toBe(true);
    const next = await connect(false);
    const described = await next.callTool({
      name: 'describe_tool',
      arguments: { name: 'user_email', sandbox: 'ecommerce' },
    });
    expect(textOf(described)).toContain('declare function user_email(user_id: string)');
    expect(textOf(described)).toContain('(A skill: js and ts scripts call it.)');
    const run = await next.callTool({
      name: 'code',
      arguments: { code: 'emitResult(await user_email("u1"));\n', sandbox: 'ecommerce', language: 'js' },
    });
    expect(JSON.parse(textOf(run))).toMatchObject({ status: 'succeeded', result: 'ada@example.com' });
  }, 300_000);
});
