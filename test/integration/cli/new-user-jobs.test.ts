/**
 * The README's jobs as a new user walks them (a real CLI process, real containers, the scripted LLM
 * server): what a retry is told about a tool that failed, what the live progress says when an
 * INTERACTIVE run stops as a loop, and where a traceback says a skill raised.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import { startOtlpReceiver } from '../../support/otlp-receiver.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { createSkills } from '../../support/skill-cli.ts';

let llm: LlmServer;
const ws = tempWorkspace();

const cli = (args: string[]) => runToolsmith(ws, args);
const fence = (s: string) => '```python\n' + s + '\n```';
/** The text of the user message of the LLM request `i`. */
const userText = (i: number): string => {
  const messages = (llm.requests[i]?.body['messages'] ?? []) as { role: string; content: unknown }[];
  return messages
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
};
const run = (task: string, extra: string[] = []) =>
  cli([
    'run',
    task,
    '--sandbox',
    'ecommerce',
    '--base-url',
    llm.openaiUrl,
    '--model',
    'scripted',
    '--no-templates',
    ...extra,
  ]);

beforeAll(async () => {
  llm = await startLlmServer();
});
beforeEach(() => llm.reset());
afterAll(async () => {
  await llm.close();
  removeWorkspace(ws);
});

// The sample's get_user answers an unknown id with ToolResponse(success=False, message="no user with id
// 'u9'; known ids: [...]"); a script reading `.data` of it fails with a TypeError that says none of that.
const failing = 'r = get_user(user_id="u9")\nemit_intermediate(r.data["name"])';

describe('a new user runs tasks', () => {
  it('a PLAN retry is told why the tool call failed (the tool message), not only the traceback', async () => {
    llm.push(
      fence('r = get_user(user_id="u9")\nemit_result(r.data["name"])'),
      fence('r = get_user(user_id="u1")\nemit_result(r.data["name"])'),
    );
    const r = await run('Name of user u9');
    expect(r.code, r.err).toBe(0);
    expect(llm.requests).toHaveLength(2);
    const retry = userText(1);
    expect(retry).toContain("TypeError: 'NoneType' object is not subscriptable");
    expect(retry).toContain(`get_user(user_id="u9") failed: no user with id 'u9'; known ids:`);
  }, 180_000);

  it('INTERACTIVE: the step history keeps the failed call; a repeated failure reads as a loop, not a forced final step', async () => {
    llm.push(fence(failing), fence(failing));
    const r = await run('Name of user u9, step by step', ['--mode', 'interactive']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('stopped as a loop');
    // The progress line of step 2 says what happened: the run stopped, no final step follows.
    expect(r.err).toMatch(
      /step 2: failed with TypeError \(the same failure as the step before: stopped as a loop\)/,
    );
    expect(r.err).not.toContain('forcing a final step');
    expect(llm.requests).toHaveLength(2);
    const step2 = userText(1);
    expect(step2).toContain("<message>no user with id 'u9'; known ids:");
    expect(step2).toContain(`get_user(user_id="u9") failed: no user with id 'u9'`);
  }, 180_000);

  it('runs show of a failed run: each step with its script, the failed tool call and its traceback line', async () => {
    llm.push(fence(failing), fence(failing));
    const r = await run('Name of user u9, shown', ['--mode', 'interactive']);
    expect(r.code).toBe(1);
    const id = /^run (\S+): failed$/m.exec(r.out)?.[1] ?? '';
    const show = await cli(['runs', 'show', id.slice(0, 8)]);
    expect(show.code, show.err).toBe(0);
    expect(show.out).toContain(`run ${id}: failed`);
    expect(show.out).toContain('step 2 (llm cli):');
    expect(show.out).toContain('  1  r = get_user(user_id="u9")\n  2  emit_intermediate(r.data["name"])\n');
    expect(show.out).toContain(`tool get_user({"user_id":"u9"}) FAILED — no user with id 'u9'; known ids:`);
    expect(show.out).toContain(`line 2, in <script>: emit_intermediate(r.data["name"])`);
  }, 180_000);

  it('INTERACTIVE: the same data twice still forces a final step, and says so', async () => {
    const step = 'emit_intermediate(get_user(user_id="u1").data["city"])';
    llm.push(fence(step), fence(step), fence('emit_result(collected[0])'));
    const r = await run('City of user u1, step by step', ['--mode', 'interactive']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(
      'step 2: reported the same data as the step before (stagnant: forcing a final step)',
    );
    expect(r.out).toContain('London');
    // On the budget's last step no final step can follow: the line says so.
    llm.push(fence(step), fence(step));
    const last = await run('City of user u1, in two steps', ['--mode', 'interactive', '--max-steps', '2']);
    expect(last.code).toBe(1);
    expect(last.err).toContain('step 2: reported the same data as the step before (stagnant: no step left)');
    expect(last.err).not.toContain('forcing a final step');
  }, 180_000);
});

const PY_SKILL = `def city_of(user_id: str) -> str:
    """The city a customer lives in.

    Args:
        user_id: The customer's id (e.g. "u1").

    Returns:
        The city.
    """
    r = get_user(user_id=user_id)
    if not r.success:
        raise ValueError(r.message)
    return r.data["city"]
`;
const JS_SKILL = `/**
 * The tier of a customer.
 * @param {string} user_id The customer's id (e.g. "u1").
 * @returns {string} The tier.
 */
async function tier_of(user_id) {
  const r = await get_user({ user_id });
  if (!r.success) {
    throw new Error(r.message);
  }
  return r.data.tier;
}
`;

describe('a new user promotes steps to a skill and calls it', () => {
  interface Frame {
    line: number;
    name: string;
    skill?: string;
    text?: string;
  }
  const frames = (out: string): Frame[] =>
    (JSON.parse(out) as { error?: { frames: Frame[] } }).error?.frames ?? [];

  it('a skill that raises: the frame names the skill and its line in the skill source (Python, JS)', async () => {
    const py = join(ws, 'city_of.py');
    const js = join(ws, 'tier_of.js');
    writeFileSync(py, PY_SKILL);
    writeFileSync(js, JS_SKILL);
    await createSkills(cli, [
      ['city_of', py, { user_id: 'u1' }, 'London'],
      ['tier_of', js, { user_id: 'u1' }, 'gold'],
    ]);
    const pyScript = join(ws, 'use-skill.py');
    writeFileSync(pyScript, 'x = 1\nemit_result(city_of(user_id="u9"))\n');
    const pyRun = await cli(['exec', pyScript, '--sandbox', 'ecommerce', '--json']);
    expect(pyRun.code).toBe(1);
    expect(frames(pyRun.out)).toEqual([
      { line: 2, name: '<script>', text: 'emit_result(city_of(user_id="u9"))' },
      // The 12th line of the function as the skill's file and the Skills view show it (it read -3).
      { line: 12, name: 'city_of', skill: 'city_of', text: 'raise ValueError(r.message)' },
    ]);
    const human = await cli(['exec', pyScript, '--sandbox', 'ecommerce']);
    expect(human.out).toContain('  line 12 of skill city_of, in city_of: raise ValueError(r.message)');

    const jsScript = join(ws, 'use-skill.js');
    writeFileSync(jsScript, 'const x = 1;\nemitResult(await tier_of("u9"));\n');
    const jsRun = await cli(['exec', jsScript, '--sandbox', 'ecommerce', '--json']);
    expect(jsRun.code).toBe(1);
    const jsFrames = frames(jsRun.out);
    expect(jsFrames).toContainEqual(expect.objectContaining({ line: 2, name: '<script>' }));
    // Line 9 of the skill's source (its JSDoc included), not of the assembled script.
    expect(jsFrames).toContainEqual(
      expect.objectContaining({ line: 9, skill: 'tier_of', text: 'throw new Error(r.message);' }),
    );
    expect(jsFrames.every((f) => f.line >= 1)).toBe(true);
  }, 240_000);

  it('eval: a JS skill is no saving in Python runs (their scripts cannot call it)', async () => {
    writeFileSync(
      join(ws, 'suites', 'qa5.toml'),
      [
        'sandbox = "ecommerce"',
        'concurrency = 1',
        '[[cases]]',
        'id = "city"',
        'task = "City of user u1?"',
        '[[cases.assert]]',
        'type = "equals"',
        'value = "London"',
        '',
      ].join('\n'),
    );
    llm.push(fence('emit_result(get_user(user_id="u1").data["city"])'));
    const r = await cli(['eval', 'qa5', '--base-url', llm.openaiUrl, '--models', 'scripted', '--json']);
    expect(r.code, r.err).toBe(0);
    const view = JSON.parse(r.out) as { skillSavings?: { skill: string; runs: number }[] };
    const runsOf = (skill: string) => view.skillSavings?.find((x) => x.skill === skill)?.runs;
    // The Python skill calls get_user as the Python script did; the JS one (tier_of) cannot be called
    // from Python, so it would have saved nothing there (it claimed the same run).
    expect(runsOf('city_of')).toBe(1);
    expect(runsOf('tier_of')).toBe(0);
  }, 180_000);

  it('a PLAN retry after a skill raised reads the skill line, not a negative script line', async () => {
    llm.push(fence('emit_result(city_of(user_id="u9"))'), fence('emit_result(city_of(user_id="u2"))'));
    const r = await run('City of user u9 via the skill');
    expect(r.code, r.err).toBe(0);
    const retry = userText(1);
    expect(retry).toContain('line 12 of skill city_of, in city_of');
    expect(retry).not.toMatch(/line -\d/);
  }, 180_000);
});

describe('a new user exports a run as a trace', () => {
  it('runs export --otlp with the collector address (as OTEL_EXPORTER_OTLP_ENDPOINT is written) sends to /v1/traces', async () => {
    const receiver = await startOtlpReceiver();
    try {
      llm.push(fence('emit_result(get_user(user_id="u2").data["tier"])'));
      const r = await run('Tier of user u2');
      expect(r.code, r.err).toBe(0);
      const id = /^run (\S+): succeeded$/m.exec(r.out)?.[1] ?? '';
      // The README: `OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318`; the same address after --otlp.
      const sent = await cli(['runs', 'export', id.slice(0, 8), '--otlp', receiver.base]);
      expect(sent.code, sent.err).toBe(0);
      expect(sent.out).toContain(`to ${receiver.base}/v1/traces`);
      expect(receiver.spans.some((sp) => sp.attributes['toolsmith.run.id'] === id)).toBe(true);
      // A URL with a path is the traces URL as is.
      const asIs = await cli(['runs', 'export', id.slice(0, 8), '--otlp', `${receiver.base}/v1/traces`]);
      expect(asIs.code, asIs.err).toBe(0);
      expect(asIs.out).toContain(`to ${receiver.base}/v1/traces`);

      // A run whose script failed inside a skill (city_of, saved by the tests above): the job span's
      // error line is the skill's, and says so.
      llm.push(fence('emit_result(city_of(user_id="u9"))'));
      const failed = await run('City of user u9, traced', ['--max-retries', '0']);
      expect(failed.code).toBe(1);
      const failedId = /^run (\S+): failed$/m.exec(failed.out)?.[1] ?? '';
      const again = await cli(['runs', 'export', failedId.slice(0, 8), '--otlp', receiver.base]);
      expect(again.code, again.err).toBe(0);
      const job = receiver.spans.find(
        (sp) =>
          sp.name.startsWith('sandbox.execute') &&
          sp.attributes['toolsmith.sandbox.error_line'] !== undefined,
      );
      expect(job?.attributes).toMatchObject({
        'toolsmith.sandbox.error_line': 12,
        'toolsmith.sandbox.error_skill': 'city_of',
      });
    } finally {
      await receiver.close();
    }
  }, 180_000);
});

describe('a new user calls the MCP server', () => {
  it('code over stdio: a failed tool call says why, in the JSON error and the run XML; a skill frame names the skill', async () => {
    const client = await connectMcp(ws, 'qa5-new-user');
    try {
      const r = (await client.callTool({
        name: 'code',
        arguments: { code: 'r = get_user(user_id="u9")\nemit_result(r.data["name"])', sandbox: 'ecommerce' },
      })) as { isError?: boolean; structuredContent?: { error?: string }; content: { text: string }[] };
      expect(r.isError).toBe(true);
      expect(r.structuredContent?.error).toContain(
        `get_user(user_id="u9") failed: no user with id 'u9'; known ids:`,
      );
      expect(r.content[1]?.text).toContain("<message>no user with id 'u9'; known ids:");
      // city_of (a Python skill of the sandbox, saved by the tests above) raises inside the skill.
      const s = (await client.callTool({
        name: 'code',
        arguments: { code: 'emit_result(city_of(user_id="u9"))', sandbox: 'ecommerce' },
      })) as { structuredContent?: { error?: string }; content: { text: string }[] };
      expect(s.structuredContent?.error).toContain('line 12 of skill city_of, in city_of');
      expect(s.content[1]?.text).toContain('<frame line="12" skill="city_of" name="city_of">');
      expect(s.content[1]?.text).not.toMatch(/line="-\d/);
    } finally {
      await client.close();
    }
  }, 180_000);
});

describe('a new user authors a tool', () => {
  it('a tool defined twice: the later one is the only one in the manual and the count, and the problem is pointed at', async () => {
    const dup = tempWorkspace();
    try {
      // The sample already has get_product; a new user adds their own (the later definition wins).
      appendFileSync(
        join(dup, 'sandboxes', 'ecommerce', 'tools.py'),
        [
          '',
          '',
          '@tool(grade=(1, 0))',
          'def get_product(product_id: str) -> ToolResponse:',
          '    """Look up one product by id, the later definition.',
          '',
          '    Args:',
          '        product_id: The product\'s id (e.g. "p1").',
          '    """',
          '    return ToolResponse(success=False, message=f"later {product_id!r}")',
          '',
        ].join('\n'),
      );
      const manual = await runToolsmith(dup, ['tools', '--sandbox', 'ecommerce', '--format', 'json']);
      expect(manual.code, manual.err).toBe(0);
      const tools = JSON.parse(manual.out) as { name: string; description: string }[];
      const named = tools.filter((t) => t.name === 'get_product');
      expect(named).toHaveLength(1);
      expect(named[0]?.description).toContain('the later definition');
      expect(manual.err).toContain(
        'tool-duplicate: tool get_product is defined twice; the later definition wins',
      );
      // What runs is the later one too.
      const call = await runToolsmith(dup, [
        'tool',
        'call',
        'get_product',
        '--sandbox',
        'ecommerce',
        '--args',
        '{"product_id": "p1"}',
      ]);
      expect(call.out).toContain("FAILED — later 'p1'");
      const list = await runToolsmith(dup, ['sandboxes']);
      expect(list.out).toMatch(new RegExp(`ecommerce\\s+${tools.length} tools \\(1 problem\\)`));
      expect(list.out).toContain('its problems: toolsmith tools --sandbox ecommerce');
    } finally {
      removeWorkspace(dup);
    }
  }, 180_000);
});
