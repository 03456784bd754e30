/** The CLI end to end: a real process, the scripted LLM server and real containers. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { tempFiles, tempWorkspace } from '../../support/workspace.ts';

let llm: LlmServer;
let ws: string;
const { dir: tmp, file } = tempFiles('toolsmith-cli-it-');

/** stdin is always a pipe, given `input` and closed. */
const cli = (args: string[], input = '', env: Record<string, string> = {}) =>
  runToolsmith(ws, args, env, input);
/** The options of a `run` against the scripted LLM server. */
const scripted = () => ['--base-url', llm.openaiUrl, '--model', 'scripted'];

beforeAll(async () => {
  llm = await startLlmServer();
  ws = tempWorkspace();
});
afterAll(() => llm.close());

describe('toolsmith CLI with containers', () => {
  it('no Docker engine where Docker is required: an infra result with a clear message, not a crash', async () => {
    const r = await cli(
      ['exec', file('infra.py', 'emit_result(1)\n'), '--sandbox', 'ecommerce', '--json'],
      '',
      {
        DOCKER_HOST: 'unix:///nonexistent/docker.sock',
        TOOLSMITH_BACKEND: 'docker',
      },
    );
    expect(r.code).toBe(1);
    const result = JSON.parse(r.out) as { exitReason: string; isolation: string; error: { message: string } };
    expect(result.exitReason).toBe('infra');
    expect(result.isolation).toBe('none');
    expect(result.error.message).toMatch(/no Docker engine answers: start dockerd/);
  });

  it('exec: ExecutionResult as JSON, exit codes, --no-validate still re-checked by the worker', async () => {
    const ok = await cli([
      'exec',
      file('a.py', 'r = check_inventory(product_id="p3")\nemit_result(r.data["in_stock"])\n'),
      '--sandbox',
      'ecommerce',
      '--json',
    ]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({
      success: true,
      data: 4,
      exitReason: 'ok',
      isolation: 'docker',
    });
    const rejected = await cli([
      'exec',
      file('b.py', 'import os\nemit_result(1)\n'),
      '--sandbox',
      'ecommerce',
      '--json',
    ]);
    expect(rejected.code).toBe(1);
    expect(JSON.parse(rejected.out)).toMatchObject({
      exitReason: 'rejected',
      error: { type: 'ValidationError' },
    });
    const worker = await cli([
      'exec',
      file('c.py', 'import os\nemit_result(1)\n'),
      '--sandbox',
      'ecommerce',
      '--no-validate',
      '--json',
    ]);
    expect(JSON.parse(worker.out)).toMatchObject({
      exitReason: 'rejected',
      error: { message: expect.stringMatching(/imports are not available/) },
    });
    const timeout = await cli([
      'exec',
      file('d.py', 'while True:\n    pass\nemit_result(1)\n'),
      '--sandbox',
      'ecommerce',
      '--timeout',
      '1',
    ]);
    expect(timeout.code).toBe(1);
    expect(timeout.out).toMatch(/FAILED · timeout/);
    const js = await cli([
      'exec',
      file('e.js', 'const r = await get_orders();\nemitResult(r.data.length);\n'),
      '--sandbox',
      'ecommerce',
      '--json',
    ]);
    expect(JSON.parse(js.out)).toMatchObject({ success: true, data: 6, runtime: 'node' });
  }, 180_000);

  it("exec: a script's logs, result and error show control characters as escapes; --json is unchanged", async () => {
    // Escape sequences a script chose: a clipboard write (OSC 52), a title set, a cursor move with a line
    // erase, a CR overwrite, an 8-bit CSI, a bidi override, and a log line posing as the CLI's own output.
    const script = [
      'r = check_inventory(product_id="p3")',
      'emit_log("\\x1b]52;c;ZWNobyBwd25lZA==\\x07copied")',
      'emit_log("\\x1b]0;owned\\x07title")',
      'emit_log("above\\x1b[2A\\x1b[2K")',
      'emit_log("rm -rf /\\rsafe")',
      'emit_log("fine\\nresult: 42")',
      'emit_result({"x": "\\x9b31mred \\u202eevil"})',
      'raise ValueError("bad\\x1b]0;t\\x07")',
      '',
    ].join('\n');
    const human = await cli(['exec', file('esc.py', script), '--sandbox', 'ecommerce']);
    expect(human.code).toBe(1);
    expect(human.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(human.out).toContain('log: \\x1b]52;c;ZWNobyBwd25lZA==\\x07copied');
    expect(human.out).toContain('log: \\x1b]0;owned\\x07title');
    expect(human.out).toContain('log: above\\x1b[2A\\x1b[2K');
    expect(human.out).toContain('log: rm -rf /\\x0dsafe');
    expect(human.out).toContain('log: fine\n  log| result: 42');
    expect(human.out).not.toMatch(/^result: 42/m);
    expect(human.out).toContain('ValueError: bad\\x1b]0;t\\x07');
    const machine = await cli(['exec', file('esc.py', script), '--sandbox', 'ecommerce', '--json']);
    const r = JSON.parse(machine.out) as { logs: string[]; error: { message: string } };
    expect(r.logs.slice(0, 4)).toEqual([
      '\u001b]52;c;ZWNobyBwd25lZA==\u0007copied',
      '\u001b]0;owned\u0007title',
      'above\u001b[2A\u001b[2K',
      'rm -rf /\rsafe',
    ]);
    expect(r.error.message).toBe('bad\u001b]0;t\u0007');
  });

  it("skill create/test and runs list show a skill's error and result, and a run's task, with control characters as escapes", async () => {
    // A skill an LLM wrote (MCP save_skill, "Make a skill") is the attacker: its error holds a clipboard
    // write (OSC 52) and a title set, its result an 8-bit CSI and a line erase.
    const source = [
      'def esc_skill(user_id: str) -> str:',
      '    """A skill whose error and result hold escape sequences.',
      '',
      '    Args:',
      '        user_id: The customer\'s id (e.g. "u1").',
      '',
      '    Returns:',
      '        A string.',
      '    """',
      '    if user_id == "u1":',
      '        raise ValueError("bad\\x1b]52;c;ZWNobyBwd25lZA==\\x07 \\x1b]0;owned\\x07")',
      '    return "\\x9b31m\\x1b[2K" + get_user(user_id=user_id).data["name"]',
      '',
    ].join('\n');
    const made = await cli([
      'skill',
      'create',
      'esc_skill',
      '--sandbox',
      'ecommerce',
      '--file',
      file('esc_skill.py', source),
      '--case',
      '{"args": {"user_id": "u1"}, "expect": "x"}',
      '--case',
      '{"args": {"user_id": "u2"}, "expect": "x"}',
    ]);
    const tested = await cli(['skill', 'test', 'esc_skill', '--sandbox', 'ecommerce']);
    for (const r of [made, tested]) {
      expect(r.code).toBe(1);
      expect(r.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      expect(r.out).toContain('ValueError: bad\\x1b]52;c;ZWNobyBwd25lZA==\\x07 \\x1b]0;owned\\x07');
      expect(r.out).toMatch(/-> "\\x9b31m\\u001b\[2K/);
    }
    // A run's task (an MCP client's, an imported run's) listed on the terminal.
    llm.push('```python\nemit_result(1)\n```');
    const run = await cli([
      'run',
      'Escapes \u001b]0;owned\u0007 in a task\nsecond line',
      '--sandbox',
      'ecommerce',
      ...scripted(),
      '--json',
    ]);
    expect(run.code).toBe(0);
    const list = await cli(['runs', 'list', '--search', 'Escapes']);
    expect(list.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(list.out).toContain('Escapes \\x1b]0;owned\\x07 in a task second line\n');
  }, 180_000);

  it("validate and run: a violation quoting the script and an LLM endpoint's error show control characters as escapes", async () => {
    // The script quotes a format field holding a line erase; the validator's message quotes it back.
    const script = 'r = get_user(user_id="u1")\nemit_result("{0.a\\x1b[2K\\x1b]0;owned\\x07}".format(r))\n';
    const v = await cli(['validate', file('esc-validate.py', script), '--sandbox', 'ecommerce']);
    expect(v.code).toBe(1);
    expect(v.out).toContain('format-attribute-walk');
    expect(v.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(v.out).toContain('{0.a\\x1b[2K\\x1b]0;owned\\x07}');
    // An LLM endpoint answers an error holding a clipboard write (OSC 52) and a title set.
    llm.push({ status: 400, text: 'bad request\u001b]52;c;ZWNobyBwd25lZA==\u0007\u001b]0;owned\u0007 end' });
    const run = await cli(['run', 'Tier of user u1', '--sandbox', 'ecommerce', ...scripted()]);
    expect(run.code).not.toBe(0);
    expect(run.err).toContain('bad request\\x1b]52;c;ZWNobyBwd25lZA==\\x07\\x1b]0;owned\\x07 end');
    expect(run.err + run.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  }, 180_000);

  it('exec: a tool that answered success=False is shown FAILED with its message, not ok', async () => {
    const script =
      'a = get_user(user_id="nobody")\nb = get_user(user_id="u1")\nemit_result([a.success, b.success])\n';
    const r = await cli(['exec', file('tool-failed.py', script), '--sandbox', 'ecommerce']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/tool get_user\(\{"user_id":"nobody"\}\) FAILED — no user with id 'nobody'.* ms/);
    expect(r.out).toMatch(/tool get_user\(\{"user_id":"u1"\}\) ok \d/);
    expect(r.out).toContain('result: [false,true]');
  });

  it("exec: a failed script's error comes with the hint a retry prompt would give (a field read off a tool's response)", async () => {
    const py = await cli([
      'exec',
      file('response-field.py', 'u = get_user(user_id="u1")\nemit_result(u.name.upper())\n'),
      '--sandbox',
      'ecommerce',
    ]);
    expect(py.code).toBe(1);
    expect(py.out).toContain(
      `AttributeError: 'ToolResponse' object has no attribute 'name'\nhint: A ToolResponse has only .success, .message and .data. The field 'name' is inside .data: write r.data["name"] (after checking r.success).\n`,
    );
    const js = await cli([
      'exec',
      file(
        'response-field.js',
        'const u = await get_user({ user_id: "u1" });\nemitResult(u.name.toUpperCase());\n',
      ),
      '--sandbox',
      'ecommerce',
    ]);
    expect(js.code).toBe(1);
    expect(js.out).toMatch(
      /TypeError: Cannot read properties of undefined \(reading 'toUpperCase'\)\nhint: A tool call resolves to \{ success, message, data \}/,
    );
    // An error no hint knows: nothing more is said; --json is the ExecutionResult alone.
    const plain = await cli(['exec', file('zero.py', 'emit_result(1/0)\n'), '--sandbox', 'ecommerce']);
    expect(plain.out).toMatch(/ZeroDivisionError: division by zero\n$/);
    const asJson = await cli([
      'exec',
      file('response-field.py', 'u = get_user(user_id="u1")\nemit_result(u.name)\n'),
      '--sandbox',
      'ecommerce',
      '--json',
    ]);
    expect(() => JSON.parse(asJson.out)).not.toThrow();
  });

  it('tool call and pool status', async () => {
    const t = await cli([
      'tool',
      'call',
      'get_ticket',
      '--sandbox',
      'support',
      '--args',
      '{"ticket_id": 104}',
      '--json',
    ]);
    expect(t.code).toBe(0);
    expect(JSON.parse(t.out)).toMatchObject({
      response: { success: true, data: { id: 104, priority: 'high' } },
      result: { toolCalls: [{ name: 'get_ticket' }] },
    });
    const bad = await cli(['tool', 'call', 'nope', '--sandbox', 'support']);
    expect(bad.code).toBe(2);
    const s = await cli(['pool', 'status', '--warm', 'ecommerce', '--json']);
    expect(JSON.parse(s.out)).toMatchObject({
      docker: { available: true },
      isolation: 'docker',
      // The sample workspace keeps one standby beside the pool (not counted in its size).
      pools: [expect.objectContaining({ size: 1, standbyTarget: 1 })],
    });
    const text = await cli(['pool', 'status', '--warm', 'ecommerce']);
    expect(text.out).toMatch(/pool ecommerce \(python\): 1 workers .*, standby [01]\/1 ready/);
  }, 120_000);

  it('run --mode interactive: the live progress counts steps, not attempts (and so does its replay)', async () => {
    llm.push(
      '```python\nemit_intermediate(len(get_orders().data))\n```',
      '```python\nemit_result(collected[0])\n```',
    );
    const run = await cli([
      'run',
      'How many orders are there?',
      '--sandbox',
      'ecommerce',
      '--mode',
      'interactive',
      '--no-templates',
      ...scripted(),
      '--json',
    ]);
    expect(run.code, run.err).toBe(0);
    const rec = JSON.parse(run.out) as { id: string };
    expect(rec).toMatchObject({ status: 'succeeded', result: 6 });
    const steps = (err: string) => err.split('\n').filter((l) => /^\S/.test(l));
    expect(steps(run.err)).toEqual(['step 1: llm (cli)', 'step 2: llm (cli)']);
    expect(run.err).toMatch(/^ {2}step 1: reported 1 item/m);
    expect(run.err).not.toMatch(/attempt/);
    const replay = await cli(['runs', 'replay', rec.id]);
    expect(replay.code, replay.err).toBe(0);
    expect(steps(replay.err)).toEqual([
      `replaying run ${rec.id}: How many orders are there?`,
      'step 1: replay (the recorded LLM answer)',
      'step 2: replay (the recorded LLM answer)',
    ]);
  }, 180_000);

  it('run --json, runs list/show/export/import/replay, template create/list/test/delete', async () => {
    llm.push('```python\nr = get_user(user_id="u4")\nemit_result(r.data["tier"])\n```');
    const run = await cli(['run', 'Tier of user u4', '--sandbox', 'ecommerce', ...scripted(), '--json']);
    expect(run.code).toBe(0);
    expect(run.err).toMatch(/attempt 1: llm \(cli\)[\s\S]*validation: ok[\s\S]*execution: ok/);
    const rec = JSON.parse(run.out) as { id: string; status: string; result: unknown };
    expect(rec).toMatchObject({ status: 'succeeded', result: 'bronze' });

    const list = JSON.parse(
      (await cli(['runs', 'list', '--status', 'succeeded', '--search', 'Tier of', '--json'])).out,
    ) as { runs: { id: string }[] };
    expect(list.runs.map((r) => r.id)).toContain(rec.id);
    expect((await cli(['runs', 'show', rec.id])).out).toContain('result: "bronze"');
    const exported = join(tmp, 'run.json');
    expect((await cli(['runs', 'export', rec.id, '-o', exported])).code).toBe(0);
    const other = tempWorkspace();
    const imp = await runToolsmith(other, ['runs', 'import', exported]);
    expect(imp).toMatchObject({ code: 0, out: `imported run ${rec.id}\n` });
    const before = llm.requests.length;
    const replay = await cli(['runs', 'replay', rec.id, '--json']);
    expect(JSON.parse(replay.out)).toMatchObject({
      status: 'succeeded',
      result: 'bronze',
      started: { origin: { runId: rec.id, kind: 'replay' } },
    });
    expect(llm.requests.length).toBe(before);

    const created = await cli(['template', 'create', 'user-tier', '--from-run', rec.id, '--json']);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.out)).toMatchObject({
      pattern: 'Tier of user {user_id}',
      slots: { user_id: 'str' },
    });
    expect(readFileSync(join(ws, 'templates/user-tier.tmpl'), 'utf8')).toMatch(
      /^\+\+\+\n[\s\S]*pattern = "Tier of user \{user_id\}"[\s\S]*\+\+\+\nr = get_user\(user_id=\{\{user_id\}\}\)/,
    );
    const served = await cli(['run', 'tier of user u1', '--sandbox', 'ecommerce', ...scripted(), '--json']);
    expect(JSON.parse(served.out)).toMatchObject({ status: 'succeeded', result: 'gold', tier: 'template' });
    expect(llm.requests.length).toBe(before);
    const test = await cli(['template', 'test', 'user-tier']);
    expect(test).toMatchObject({ code: 0 });
    expect(test.out).toMatch(/^PASS Tier of user u4 -> "bronze"/);
    const tl = JSON.parse((await cli(['template', 'list', '--json'])).out) as {
      templates: { name: string; successes: number }[];
    };
    // The served run is a use; the template test is not (issue 10).
    expect(tl.templates.find((t) => t.name === 'user-tier')?.successes).toBe(1);
    expect((await cli(['template', 'delete', 'user-tier'])).code).toBe(0);
    expect((await cli(['template', 'delete', 'user-tier'])).code).toBe(2);
  }, 180_000);
});
