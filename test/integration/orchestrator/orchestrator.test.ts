/**
 * End-to-end orchestration against the scripted LLM server and a real sandbox container.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { POLL_MS } from '../../support/budgets.ts';
import { createProviders } from '../../../src-main/app/providers.ts';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { useLlmService } from '../../support/llm-service.ts';
import { fence } from '../../support/suite-oracle.ts';
import { toolsmithArgv } from '../../support/toolsmith-process.ts';

const fx = useLlmService();

const providers = () =>
  createProviders(fx.svc.config, { baseUrl: fx.llm.openaiUrl, model: 'scripted-coder' });

describe('PLAN mode', () => {
  it('fails validation, then fails at runtime with a KeyError, then succeeds: three attempts recorded', async () => {
    fx.llm.push(
      fence('import os\nemit_result(os.getcwd())'),
      fence('import sys\nemit_result(1)'),
      fence('r = get_user(user_id="u1")\nemit_result(r.data[0])'),
      fence('r = get_user(user_id="u1")\nemit_result(r.data["name"])'),
    );
    const { done } = await fx.runs.start({
      task: 'What is the name of user u1?',
      sandbox: 'ecommerce',
      providers: providers(),
      maxRetries: 3,
      noTemplates: true,
    });
    const outcome = await done;
    expect(outcome).toMatchObject({ status: 'succeeded', result: 'Ada Lovelace' });
    const rec = fx.runs.get(outcome.runId);
    expect(rec.attempts.map((a) => a.n)).toEqual([1, 2, 3]);
    const [a1, a2, a3] = rec.attempts;
    // Attempt 1: the script and its corrective retry both fail validation.
    expect(a1?.prompt?.kind).toBe('first');
    expect(a1?.rejected[0]?.violations.map((v) => v.rule)).toContain('no-import');
    expect(a1?.validation?.valid).toBe(false);
    expect(a1?.execution).toBeUndefined();
    expect(a1?.tokens.prompt).toBeGreaterThan(0);
    // Attempt 2: valid, runtime KeyError with a traceback on the body line, prompt carries the violations.
    expect(a2?.prompt?.kind).toBe('retry');
    expect(a2?.prompt?.user).toContain('[no-import]');
    expect(a2?.execution?.exitReason).toBe('error');
    expect(a2?.execution?.error).toMatchObject({
      type: 'KeyError',
      frames: [expect.objectContaining({ line: 2 })],
    });
    expect(a2?.toolCalls.map((t) => t.name)).toEqual(['get_user']);
    // Attempt 3: the retry prompt carries the KeyError and its hint.
    expect(a3?.prompt?.user).toContain('KeyError');
    expect(a3?.prompt?.hints.join(' ')).toMatch(/indexed a dict with the integer 0/);
    expect(a3?.execution?.success).toBe(true);
    expect(rec.tokens.total).toBeGreaterThan(0);
    expect(rec.tier).toBe('llm');
    expect(fx.llm.requests).toHaveLength(4);
    // Structured logs: JSON lines carrying the run id, including script_generated and script_executed.
    const lines = readFileSync(join(fx.ws, '.toolsmith/logs/toolsmith.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { runId?: string; event?: string });
    const mine = lines.filter((l) => l.runId === outcome.runId).map((l) => l.event);
    expect(mine).toEqual(
      expect.arrayContaining(['run_started', 'script_generated', 'script_executed', 'run_finished']),
    );
    expect(mine.filter((e) => e === 'script_executed')).toHaveLength(2);
  });

  it('a tool call with wrong arguments is refused by validation: the LLM is told the argument and the signature', async () => {
    const SIG = '(get_user(user_id: str))';
    fx.llm.push(
      fence('r = get_user()\nemit_result(r.data["name"])'),
      fence('r = get_user("u1", "name")\nemit_result(r.data["name"])'),
      fence('r = get_user(user_id="u1")\nemit_result(r.data["name"])'),
    );
    const { done } = await fx.runs.start({
      task: 'What is the name of user u1?',
      sandbox: 'ecommerce',
      providers: providers(),
      maxRetries: 2,
      noTemplates: true,
    });
    const outcome = await done;
    expect(outcome).toMatchObject({ status: 'succeeded', result: 'Ada Lovelace' });
    const rec = fx.runs.get(outcome.runId);
    const [a1, a2] = rec.attempts;
    // Attempt 1: both candidates refused before any sandbox ran them; the record holds the violations.
    expect(a1?.execution).toBeUndefined();
    expect(a1?.toolCalls).toEqual([]);
    expect(a1?.rejected[0]?.violations).toEqual([
      expect.objectContaining({
        rule: 'tool-arguments',
        message: `get_user() missing required argument 'user_id' ${SIG}`,
        line: 1,
      }),
    ]);
    expect(a1?.validation?.violations.map((v) => v.message)).toEqual([
      `get_user() takes 1 positional argument but 2 were given ${SIG}`,
    ]);
    // What reached the LLM server: the correction request names the missing argument and the signature,
    // and the next attempt's retry prompt the extra positional argument.
    const sent = fx.llm.requests.map((r) => JSON.stringify(r.body));
    expect(sent).toHaveLength(3);
    expect(sent[1]).toContain('[tool-arguments]');
    expect(sent[1]).toContain(`get_user() missing required argument 'user_id' ${SIG}`);
    expect(sent[2]).toContain(`get_user() takes 1 positional argument but 2 were given ${SIG}`);
    expect(a2?.prompt?.kind).toBe('retry');
    expect(a2?.prompt?.user).toContain('[tool-arguments]');
    expect(a2?.toolCalls.map((t) => t.name)).toEqual(['get_user']);
  });

  it('at the retry limit ends failed with the last error', async () => {
    fx.llm.fallback = { text: fence('r = get_orders()\nemit_result(r.data["nope"])') };
    const outcome = await (
      await fx.runs.start({
        task: 'orders',
        sandbox: 'ecommerce',
        providers: providers(),
        maxRetries: 1,
        noTemplates: true,
      })
    ).done;
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/TypeError: list indices must be integers/);
    expect(fx.runs.get(outcome.runId).attempts).toHaveLength(2);
  });

  it('a provider that is down ends in a failed record with a clear message, never a crash', async () => {
    const down = createProviders(fx.svc.config, { baseUrl: 'http://127.0.0.1:9/v1', model: 'x' });
    const outcome = await (
      await fx.runs.start({
        task: 'anything',
        sandbox: 'ecommerce',
        providers: down,
        maxRetries: 0,
        noTemplates: true,
      })
    ).done;
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/no provider produced a script: cli: connection failed/);
  }, 60_000);

  it('a run opened mid-stream gets the text the LLM streamed so far (tokens are not recorded)', async () => {
    const answer = fence('r = get_user(user_id="u1")\nemit_result(r.data["name"])' + ' '.repeat(300));
    fx.llm.push({ text: answer, streamDelayMs: 40 });
    const started = await fx.runs.start({
      task: 'Name of u1, streamed slowly',
      sandbox: 'ecommerce',
      providers: providers(),
      noTemplates: true,
    });
    await vi.waitFor(() => expect(fx.runs.streamedText(started.runId)?.text.length).toBeGreaterThan(40), {
      timeout: POLL_MS,
    });
    const detail = await fx.svc.runActions.detail(started.runId);
    expect(detail.streaming?.n).toBe(1);
    expect(answer.startsWith(detail.streaming?.text ?? '-')).toBe(true);
    expect(
      (await fx.runs.eventViews(started.runId)).streaming?.text.startsWith('```python\nr = get_user'),
    ).toBe(true);
    await started.done;
    // Once the script arrived (and the run ended) there is nothing streaming to give.
    expect((await fx.svc.runActions.detail(started.runId)).streaming).toBeUndefined();
  }, 60_000);

  it('can be cancelled while the LLM streams', async () => {
    const requestsBefore = fx.llm.requests.length;
    fx.llm.push({ text: fence('emit_result(1)' + ' '.repeat(2000)), streamDelayMs: 100 });
    const started = await fx.runs.start({
      task: 'slow',
      sandbox: 'ecommerce',
      providers: providers(),
      noTemplates: true,
    });
    const id = started.runId;
    // Cancelled while the answer streams: once the LLM server has the request (its answer takes 100 ms
    // a chunk), whatever the machine's load.
    await vi.waitFor(() => expect(fx.llm.requests.length).toBeGreaterThan(requestsBefore), {
      timeout: POLL_MS,
      interval: 10,
    });
    expect(fx.runs.cancel(id)).toBe(true);
    const outcome = await started.done;
    expect(outcome.status).toBe('cancelled');
    expect(fx.runs.get(id).status).toBe('cancelled');
  });

  it('replays a recorded run: the same scripts, zero requests to the LLM server', async () => {
    fx.llm.push(
      fence('r = get_user(user_id="u2")\nemit_result(r.data[0])'),
      fence('r = get_user(user_id="u2")\nemit_result(r.data["city"])'),
    );
    const original = await (
      await fx.runs.start({
        task: 'City of u2',
        sandbox: 'ecommerce',
        providers: providers(),
        noTemplates: true,
      })
    ).done;
    expect(original.status).toBe('succeeded');
    const before = fx.llm.requests.length;
    const replay = await (await fx.runs.replay(original.runId)).done;
    expect(fx.llm.requests.length).toBe(before);
    expect(replay).toMatchObject({ status: 'succeeded', result: 'Manchester' });
    const a = fx.runs.get(original.runId).attempts.map((x) => x.script?.code);
    const b = fx.runs.get(replay.runId).attempts.map((x) => x.script?.code);
    expect(b).toEqual(a);
    expect(fx.runs.get(replay.runId).started.origin).toEqual({ runId: original.runId, kind: 'replay' });
  });
  it('Continue from here asks the LLM after the edited script fails, also on a run that had max_retries 0', async () => {
    // A one-shot run (max retries 0) that failed; its edited script fails too.
    fx.llm.push(fence('emit_result(get_orders().data["o2"]["total"])'));
    const original = await (
      await fx.runs.start({
        task: 'What is the total of order o2?',
        sandbox: 'ecommerce',
        providers: providers(),
        noTemplates: true,
        maxRetries: 0,
      })
    ).done;
    expect(original.status).toBe('failed');
    expect(fx.llm.requests).toHaveLength(1);
    // Continue: the edited script, then the LLM; it ran the script alone, "no result after 1 attempt
    // (max_retries 0)", and no LLM request was made.
    fx.llm.push(fence('emit_result([o for o in get_orders().data if o["id"] == "o2"][0]["total"])'));
    const rec = fx.runs.get(original.runId);
    const cont = await (
      await fx.runs.continueFrom(rec, 1, 'emit_result(get_orders().data[1]["totl"])\n', providers())
    ).done;
    expect(fx.llm.requests).toHaveLength(2);
    expect(cont).toMatchObject({ status: 'succeeded', result: 639.98 });
    const attempts = fx.runs.get(cont.runId).attempts;
    expect(attempts.map((a) => a.tier)).toEqual(['edit', 'llm']);
    expect(attempts[0]?.execution?.error?.type).toBe('KeyError');
  }, 120_000);

  it("a replay, a continue and a rerun of a run's script keep its time limit: a timeout reproduces", async () => {
    fx.llm.push(fence('while True:\n    pass\nemit_result(1)'));
    const original = await (
      await fx.runs.start({
        task: 'Spin for a while',
        sandbox: 'ecommerce',
        providers: providers(),
        noTemplates: true,
        maxRetries: 0,
        timeoutMs: 1500,
      })
    ).done;
    expect(original.status).toBe('failed');
    const rec = fx.runs.get(original.runId);
    expect(rec.started.timeoutMs).toBe(1500);
    expect(rec.attempts[0]?.execution?.exitReason).toBe('timeout');
    // The message names the limit (the worker's own says "its time limit": the host knows which).
    expect(rec.attempts[0]?.execution?.error?.message).toBe('the script ran past its 1.5 s time limit');
    const body = rec.attempts[0]?.script?.body ?? '';
    // The workspace's own limit is far longer: each of these would run for minutes without the run's.
    expect(fx.svc.config.limits.timeout_s * 1000).toBeGreaterThan(10_000);
    const timedOut = async (p: Promise<{ done: Promise<{ runId: string }> }>) => {
      const t = performance.now();
      const r = fx.runs.get((await (await p).done).runId);
      expect(r.started.timeoutMs).toBe(1500);
      expect(r.attempts.at(-1)?.execution?.exitReason).toBe('timeout');
      return performance.now() - t;
    };
    const took = [
      await timedOut(fx.runs.replay(original.runId)),
      await timedOut(fx.runs.continueFrom(rec, 1, body, [])),
      await timedOut(
        fx.runs.startEdit({ sandbox: 'ecommerce', body, originRun: original.runId, originAttempt: 1 }),
      ),
    ];
    // (bounded well below the workspace's limit: the run's 1.5 s, its watchdog and the replacement)
    for (const ms of took) expect(ms).toBeLessThan(60_000);
  }, 120_000);
});

describe('INTERACTIVE mode', () => {
  it('stagnates and is forced to finish with `collected`', async () => {
    const step = fence(
      'r = get_orders()\nemit_intermediate([o["id"] for o in r.data if o["status"] == "pending"])',
    );
    fx.llm.push(step, step, fence('emit_result({"pending": collected[0]})'));
    const outcome = await (
      await fx.runs.start({
        task: 'Which orders are pending?',
        sandbox: 'ecommerce',
        mode: 'interactive',
        providers: providers(),
        maxSteps: 6,
      })
    ).done;
    expect(outcome).toMatchObject({ status: 'succeeded', result: { pending: ['o2', 'o4'] } });
    const rec = fx.runs.get(outcome.runId);
    expect(rec.attempts.map((a) => a.step?.stagnant)).toEqual([false, true, false]);
    expect(rec.attempts[1]?.prompt?.user).toContain('do not fetch it again');
    // The history shows each earlier step as the compact execution XML (its tool calls, its outcome).
    expect(rec.attempts[1]?.prompt?.user).toMatch(
      /step 1: reported 1 item\n\s*<tool_execution success="true" exit_reason="ok"[^>]*>[\s\S]*<call name="get_orders"/,
    );
    expect(rec.attempts[2]?.prompt?.kind).toBe('final');
    expect(rec.attempts[2]?.prompt?.user).toContain('variable `collected`');

    // The final step's script run again from the workbench ("Run script"): it gets the `collected` of
    // the steps before it, as the step did (it failed with NameError: collected is not defined).
    const body = rec.attempts[2]?.script?.body ?? '';
    expect(body).toContain('collected[0]');
    const rerun = await (
      await fx.runs.startEdit({ sandbox: 'ecommerce', body, originRun: outcome.runId, originAttempt: 3 })
    ).done;
    expect(rerun).toMatchObject({ status: 'succeeded', result: { pending: ['o2', 'o4'] } });
  });
});

describe('INTERACTIVE mode: failures, loops and the step budget', () => {
  const interactive = (maxSteps: number) =>
    fx.runs.start({
      task: 'How many orders are there?',
      sandbox: 'ecommerce',
      mode: 'interactive',
      providers: providers(),
      maxSteps,
      noTemplates: true,
    });

  it('the same failing step repeated is caught as a loop: the run stops, naming the error', async () => {
    const failing = fence('r = get_orders()\nemit_intermediate(r.data[0]["nope"])');
    fx.llm.push(failing, failing, failing, failing, failing);
    const outcome = await (await interactive(5)).done;
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(
      /step 2 repeated step 1: the same script failed the same way \(KeyError: 'nope'\)/,
    );
    const rec = fx.runs.get(outcome.runId);
    expect(rec.attempts.map((a) => a.step?.stagnant)).toEqual([false, true]);
    expect(fx.llm.requests).toHaveLength(2);
  });

  it('a step budget that runs out says what the last step did', async () => {
    fx.llm.push(
      fence('emit_intermediate(len(get_orders().data))'),
      fence('r = get_orders()\nemit_intermediate(r.data[0]["nope"])'),
    );
    const outcome = await (await interactive(2)).done;
    expect(outcome).toMatchObject({
      status: 'failed',
      error: "no result after 2 steps (max_steps); the last step failed: KeyError: 'nope'",
    });
  });

  /** The user message of a recorded chat request (what reached the network edge). */
  const userText = (i: number): string => {
    const messages = (fx.llm.requests[i]?.body['messages'] ?? []) as { role: string; content: string }[];
    return messages
      .filter((m) => m.role === 'user')
      .map((m) => m.content)
      .join('\n');
  };
  const LAST_STEP = 'This is the last step: no step follows it.';

  it('the last budgeted step is told it is the last and to call emit_result; earlier steps are not', async () => {
    fx.llm.push(
      fence('emit_intermediate(len(get_orders().data))'),
      fence('emit_intermediate([o["id"] for o in get_orders().data][:2])'),
      fence('emit_intermediate(collected[0] + 1)'),
    );
    const outcome = await (await interactive(3)).done;
    expect(outcome).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^no result after 3 steps/),
    });
    expect(fx.llm.requests).toHaveLength(3);
    expect(userText(0)).toContain('Step 1 of at most 3.');
    expect(userText(0)).not.toContain(LAST_STEP);
    expect(userText(1)).toContain('Step 2 of at most 3.');
    expect(userText(1)).not.toContain(LAST_STEP);
    expect(userText(2)).toContain('Step 3 of at most 3.');
    expect(userText(2)).toContain(LAST_STEP);
    expect(userText(2)).toMatch(/must call\s+emit_result\(answer\)/);
    // The workbench's prompt panel shows the notice as its own section, on the last step only.
    const rec = fx.runs.get(outcome.runId);
    expect(rec.attempts.map((a) => a.prompt?.sections.some((s) => s.title === 'Last step'))).toEqual([
      false,
      false,
      true,
    ]);
  });

  it("the last step's correction (its script rejected) still says it is the last step", async () => {
    fx.llm.push(
      fence('emit_intermediate(len(get_orders().data))'),
      fence('import os\nemit_result(collected[0])'),
      fence('emit_result(collected[0])'),
    );
    const outcome = await (await interactive(2)).done;
    expect(outcome).toMatchObject({ status: 'succeeded', result: 6 });
    expect(fx.llm.requests).toHaveLength(3);
    expect(userText(0)).not.toContain(LAST_STEP);
    expect(userText(1)).toContain(LAST_STEP);
    expect(userText(2)).toContain('[no-import]');
    expect(userText(2)).toContain(LAST_STEP);
  });

  it("a step's rejected script is corrected with the step's own prompt: collected data and history kept", async () => {
    fx.llm.push(
      fence('emit_intermediate([o["id"] for o in get_orders().data])'),
      fence('import os\nemit_result(len(collected[0]))'),
      fence('emit_result(len(collected[0]))'),
    );
    const outcome = await (await interactive(4)).done;
    expect(outcome).toMatchObject({ status: 'succeeded', result: 6 });
    // The correction request (the third) is a step prompt, not PLAN's "Attempt N" retry.
    const correction = JSON.stringify(fx.llm.requests[2]?.body);
    expect(correction).toContain('Step 2 of at most 4');
    expect(correction).toContain('variable `collected`');
    expect(correction).toContain('step 1: reported 1 item');
    expect(correction).toContain('import os');
    expect(correction).toContain('[no-import]');
    expect(correction).not.toMatch(/Attempt \d/);
  });
});

describe('templates (the ratchet)', () => {
  it('a promoted script serves the next matching intent with zero LLM calls, counters update', async () => {
    fx.llm.push(fence('r = get_user(user_id="u3")\nemit_result(r.data["email"])'));
    const first = await (
      await fx.runs.start({ task: 'email of user u3', sandbox: 'ecommerce', providers: providers() })
    ).done;
    expect(first.status).toBe('succeeded');
    const templates = await fx.svc.templates();
    const t = templates.create({ name: 'user-email', fromRun: first.runId });
    expect(t.pattern).toBe('email of user {user_id}');
    const before = fx.llm.requests.length;
    const second = await (
      await fx.runs.start({
        task: 'Email of user u1',
        sandbox: 'ecommerce',
        providers: providers(),
      })
    ).done;
    expect(fx.llm.requests.length).toBe(before);
    expect(second).toMatchObject({ status: 'succeeded', result: 'ada@example.com' });
    expect(fx.runs.get(second.runId).tier).toBe('template');
    expect(templates.list().find((x) => x.name === 'user-email')).toMatchObject({
      successes: 1,
      failures: 0,
    });
    const evil = await (
      await fx.runs.start({
        task: `email of user x');write_file('pwn','1');('`,
        sandbox: 'ecommerce',
        providers: [],
      })
    ).done;
    const rec = fx.runs.get(evil.runId);
    expect(rec.tier).toBe('template');
    expect(rec.attempts[0]?.toolCalls.map((c) => c.name)).toEqual(['get_user']);
    const test = await templates.test('user-email');
    expect(test.passed).toBe(true);
  });
});

describe('interrupted runs', () => {
  it('a CLI run killed mid-run reads as interrupted after restart, with what it wrote', async () => {
    fx.llm.push({ text: fence('emit_result(1)'), delayMs: 30_000 });
    const child = spawn(
      ...toolsmithArgv(fx.ws, [
        'run',
        'never finishes',
        '--sandbox',
        'ecommerce',
        '--base-url',
        fx.llm.openaiUrl,
        '--model',
        'm',
        '--no-templates',
      ]),
      { stdio: 'pipe' },
    );
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (fx.llm.requests.length > 0) {
          clearInterval(t);
          resolve();
        }
      }, 50);
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const store = new RunStore(join(fx.ws, '.toolsmith/runs.db'));
    const [run] = store.list({ text: 'never finishes' }).runs;
    expect(run?.status).toBe('interrupted');
    const rec = store.get(run?.id ?? '');
    expect(rec?.status).toBe('interrupted');
    expect(rec?.attempts[0]?.prompt?.user).toContain('never finishes');
    store.close();
  });
});

describe('provider keys', () => {
  it('a key reaches the LLM server and never the run store or the logs', async () => {
    const KEY = 'sk-toolsmith-secret-key-0123456789';
    fx.llm.push(fence('emit_result(get_user(user_id="u1").data["name"])'));
    const outcome = await (
      await fx.runs.start({
        task: 'Name of u1 (with a key)',
        sandbox: 'ecommerce',
        providers: createProviders(
          fx.svc.config,
          { baseUrl: fx.llm.openaiUrl, model: 'scripted-coder' },
          () => KEY,
        ),
        noTemplates: true,
      })
    ).done;
    expect(outcome.status).toBe('succeeded');
    expect(String(fx.llm.requests.at(-1)?.headers['authorization'])).toBe(`Bearer ${KEY}`);
    const stored = readdirSync(join(fx.ws, '.toolsmith'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name)).toString('latin1'));
    expect(stored.length).toBeGreaterThan(1);
    for (const text of stored) expect(text).not.toContain(KEY);
    expect(JSON.stringify(fx.runs.export(outcome.runId))).not.toContain(KEY);
  });
});

describe('inference tiers', () => {
  it('a provider whose script stays invalid after its one correction hands over to the next provider', async () => {
    fx.llm.push(
      fence('import os\nemit_result(1)'),
      fence('import sys\nemit_result(1)'),
      fence('emit_result(2)'),
    );
    const mk = (id: string) =>
      createProviders(fx.svc.config, { baseUrl: fx.llm.openaiUrl, model: `model-${id}`, provider: id })[0]!;
    const outcome = await (
      await fx.runs.start({
        task: 'two providers',
        sandbox: 'ecommerce',
        providers: [mk('first'), mk('second')],
        maxRetries: 0,
        noTemplates: true,
      })
    ).done;
    expect(outcome).toMatchObject({ status: 'succeeded', result: 2 });
    expect(fx.llm.requests.map((r) => r.body['model'])).toEqual([
      'model-first',
      'model-first',
      'model-second',
    ]);
    const rec = fx.runs.get(outcome.runId);
    expect(rec.attempts).toHaveLength(1);
    expect(rec.attempts[0]?.provider).toBe('second');
    expect(rec.attempts[0]?.rejected.map((r) => r.violations[0]?.rule)).toEqual(['no-import', 'no-import']);
  });

  it('the rules tier serves a task that is itself a tool call, with no LLM request', async () => {
    const outcome = await (
      await fx.runs.start({
        task: 'get_user(user_id="u2")',
        sandbox: 'ecommerce',
        providers: providers(),
      })
    ).done;
    expect(outcome.status).toBe('succeeded');
    expect(fx.llm.requests).toHaveLength(0);
    expect(fx.runs.get(outcome.runId).tier).toBe('rule');
  });
});
