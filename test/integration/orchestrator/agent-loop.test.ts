/**
 * The agent loop as an LLM sees it, against the scripted LLM server and real sandboxes: what a PLAN
 * retry is told (an answer that is no script of the run, a script that emits nothing), what the stop at
 * the retry limit says, and INTERACTIVE loop detection.
 */
import { describe, expect, it } from 'vitest';
import { createProviders } from '../../../src-main/app/providers.ts';
import { useLlmService } from '../../support/llm-service.ts';
import { fence } from '../../support/suite-oracle.ts';

const fx = useLlmService();

const providers = () =>
  createProviders(fx.svc.config, { baseUrl: fx.llm.openaiUrl, model: 'scripted-coder' });

/** The user message of the i-th request the LLM server received. */
const userText = (i: number): string => {
  const messages = (fx.llm.requests[i]?.body['messages'] ?? []) as { role: string; content: string }[];
  return messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');
};

const COUNT = fence('emit_result(len(get_orders().data))');

const plan = async (maxRetries: number) =>
  (
    await fx.runs.start({
      task: 'How many orders are there?',
      sandbox: 'ecommerce',
      providers: providers(),
      maxRetries,
      noTemplates: true,
    })
  ).done;

describe('PLAN: answers that are not a script of the run', () => {
  it('a refusal (prose, no code block) is told it held no code block, not only "syntax error"', async () => {
    fx.llm.push('I am sorry, but I cannot help with that request.', COUNT);
    const outcome = await plan(1);
    expect(outcome).toMatchObject({ status: 'succeeded', result: 6 });
    // The correction request names what was wrong with the answer and how to answer.
    expect(fx.llm.requests).toHaveLength(2);
    expect(userText(1)).toMatch(
      /\[syntax\]: the answer held no fenced code block, and its text is not Python \(syntax error: [^)]*; the answer began "I am sorry, but I cannot help with that request\."\): answer with the whole script in one fenced ```python block/,
    );
  });

  it('a ```javascript block for a Python run is told the language is wrong', async () => {
    fx.llm.push('```javascript\nconst r = await get_orders();\nemit_result(r.data.length);\n```', COUNT);
    const outcome = await plan(1);
    expect(outcome).toMatchObject({ status: 'succeeded', result: 6 });
    expect(userText(1)).toMatch(
      /\[syntax\]: the answer's code is a ```javascript block, but this run's scripts are Python \(syntax error: [^)]*\): write the script in Python and answer with the whole script in one fenced ```python block/,
    );
  });

  it('a ```javascript block that parses as Python is told the language is wrong too, not only its violations', async () => {
    // `emitResult(getOrders().data.length)` is a Python call: no syntax error, only missing-emit and
    // unknown-function, which never said the answer was JavaScript.
    fx.llm.push('```javascript\nemitResult(getOrders().data.length)\n```', COUNT);
    const outcome = await plan(1);
    expect(outcome).toMatchObject({ status: 'succeeded', result: 6 });
    expect(userText(1)).toMatch(
      /\[wrong-language\]: the answer's code is a ```javascript block, but this run's scripts are Python: write the script in Python and answer with the whole script in one fenced ```python block/,
    );
    // Its own violations still follow.
    expect(userText(1)).toMatch(/\[missing-emit\]/);
    const rec = fx.runs.get(outcome.runId);
    expect(rec.attempts[0]?.rejected[0]?.violations.map((x) => x.rule) ?? []).toContain('wrong-language');
  });

  it('a script with plain Python in an untagged block keeps the plain syntax message', async () => {
    fx.llm.push('```\nemit_result(len(get_orders().data)\n```', COUNT);
    await plan(1);
    expect(userText(1)).toMatch(/\[syntax\]: syntax error/);
    expect(userText(1)).not.toMatch(/no fenced code block|this run's scripts are/);
  });
});

describe('PLAN: an empty answer', () => {
  it('is an answer with no script: told to the model and retried, its tokens counted (before: the run failed after one request, its retries unused)', async () => {
    fx.llm.push(
      { text: '', promptTokens: 40, completionTokens: 7 },
      { text: '', completionTokens: 3 },
      COUNT,
    );
    const outcome = await plan(1);
    expect(outcome).toMatchObject({ status: 'succeeded', result: 6 });
    // The empty answer, its correction (also empty), then the retry's answer.
    expect(fx.llm.requests).toHaveLength(3);
    expect(userText(1)).toMatch(
      /\[empty-script\]: the answer was empty \(the model returned no text\): answer with the whole script in one fenced ```python block/,
    );
    // The first attempt counts both empty answers' tokens (7 + 3), the run all three answers'.
    const rec = fx.runs.get(outcome.runId);
    expect(rec.attempts[0]?.tokens.completion).toBe(10);
    expect(rec.tokens.completion).toBeGreaterThan(10);
  });
});

describe('PLAN: an answer with several code blocks', () => {
  it('the retry says only the longest block was taken (at run time, and when the validator rejects it)', async () => {
    // Two blocks meant as one script: the longest ran alone and failed with NameError.
    fx.llm.push(
      'First fetch:\n```python\no = get_orders().data\n```\nThen answer:\n```python\nemit_result(len([x for x in o]))\n```',
      COUNT,
    );
    expect(await plan(1)).toMatchObject({ status: 'succeeded', result: 6 });
    expect(userText(1)).toMatch(
      /Your answer held 2 ```python blocks; only the longest was taken, as the whole script\. Put the whole script in one block\.\nTraceback[\s\S]*NameError: name 'o' is not defined/,
    );
    // The longest block has no emit call (it is in the other one): the correction says why.
    fx.llm.reset();
    fx.llm.push('```python\nn = len(get_orders().data) + 0\n```\nand\n```python\nemit_result(n)\n```', COUNT);
    expect(await plan(1)).toMatchObject({ status: 'succeeded', result: 6 });
    expect(userText(1)).toMatch(
      /Your answer held 2 ```python blocks; only the longest was taken[\s\S]*\[missing-emit\]/,
    );
    // One block: no such note.
    expect(userText(0)).not.toContain('Your answer held');
  });
});

describe('PLAN: a script that emits nothing, and the retry limit', () => {
  it('a script that ran to its end without emitting is a failed attempt, retried with the reason', async () => {
    // Validation sees an emit_result call; the path the script takes never reaches it.
    fx.llm.push(
      fence('for o in get_orders().data:\n    if o["id"] == "o99":\n        emit_result(o)'),
      COUNT,
    );
    const outcome = await plan(1);
    expect(outcome).toMatchObject({ status: 'succeeded', result: 6 });
    const rec = fx.runs.get(outcome.runId);
    expect(rec.attempts).toHaveLength(2);
    // Its record says the attempt failed, and why (it read success: runs show printed "#1 llm valid ok").
    expect(rec.attempts[0]?.execution).toMatchObject({
      success: false,
      exitReason: 'error',
      error: { type: 'NoResult' },
    });
    expect(userText(1)).toContain('Attempt 2. Your previous script failed.');
    expect(userText(1)).toContain('NoResult: the script ran to its end but no result was emitted');
    expect(rec.attempts[1]?.prompt?.hints).toContain(
      'End the script by calling emit_result(value) with the final answer.',
    );
  });

  it('the stop at the retry limit says the attempts ran out, how many, and how the last one ended', async () => {
    fx.llm.fallback = { text: fence('r = get_orders()\nemit_result(r.data["nope"])') };
    const outcome = await plan(2);
    expect(outcome).toMatchObject({
      status: 'failed',
      error:
        'no result after 3 attempts (max_retries 2); the last attempt failed: TypeError: list indices must be integers or slices, not str',
    });
    expect(fx.llm.requests).toHaveLength(3);
    // Each retry carries the one previous script and its error: the prompt does not grow with attempts
    // (its "Attempt N" line, which says the attempts left, aside).
    const withoutBudget = (t: string) => t.replace(/^Attempt \d+\..*$/m, '');
    expect(withoutBudget(userText(2)).length).toBe(withoutBudget(userText(1)).length);
  });

  it('a last attempt the validator rejected says so', async () => {
    fx.llm.fallback = { text: fence('import os\nemit_result(1)') };
    const outcome = await plan(0);
    expect(outcome.error).toMatch(
      /^no result after 1 attempt \(max_retries 0\); the last attempt was rejected: the script failed validation: line 1:1 no-import/,
    );
  });

  it('a script that emits nothing at the retry limit ends failed, never succeeded without a result', async () => {
    fx.llm.fallback = { text: fence('if len(get_orders().data) > 100:\n    emit_result("many")') };
    const outcome = await plan(0);
    expect(outcome).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/the last attempt failed: NoResult: /),
    });
    expect(outcome.result).toBeUndefined();
  });
});
describe('INTERACTIVE: loop detection', () => {
  const interactive = async (maxSteps: number, task = 'How many orders are there?') =>
    (
      await fx.runs.start({
        task,
        sandbox: 'ecommerce',
        mode: 'interactive',
        providers: providers(),
        maxSteps,
        noTemplates: true,
      })
    ).done;

  it('the same failing step in other whitespace is the same step: stopped as a loop', async () => {
    fx.llm.push(
      fence('r = get_orders()\nemit_intermediate(r.data[0]["nope"])'),
      fence('r  =  get_orders( )\n\nemit_intermediate( r.data[0][ "nope" ] )   \n'),
      COUNT,
    );
    const outcome = await interactive(6);
    expect(outcome).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(
        /^step 2 repeated step 1: the same script failed the same way \(KeyError: 'nope'\)/,
      ),
    });
    expect(fx.llm.requests).toHaveLength(2);
  });

  it('steps that alternate between two failing scripts (A-B-A-B) are told once, then stopped', async () => {
    const A = fence('r = get_orders()\nemit_intermediate(r.data[0]["nope"])');
    const B = fence('r = get_user(user_id="u99")\nemit_intermediate(r.data["name"])');
    fx.llm.push(A, B, A, B, A, B);
    const outcome = await interactive(8);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(
      /^step 4 repeated step 2: the same script failed the same way \(TypeError: 'NoneType' object is not subscriptable\), after step 3 had repeated an earlier step/,
    );
    expect(fx.llm.requests).toHaveLength(4);
    // Step 4's prompt told the model that step 3 repeated step 1, and to change course.
    expect(userText(3)).toMatch(
      /- step 3 repeated step 1: the same script failed the same way again \(KeyError: 'nope'\)\. Do not write it again/,
    );
    expect(userText(2)).not.toMatch(/repeated step/);
    const rec = fx.runs.get(outcome.runId);
    // Only the step that stopped the run is marked (front ends read a stagnant failed step as the stop).
    expect(rec.attempts.map((a) => a.step?.stagnant)).toEqual([false, false, false, true]);
    // Each repeat names the step it repeated (the CLI's progress line says which).
    expect(rec.attempts.map((a) => a.step?.repeats)).toEqual([undefined, undefined, 1, 2]);
  });

  it('the same data from the same calls as an older step (A-B-A) forces the final step', async () => {
    const A = fence('emit_intermediate(get_user(user_id="u1").data["name"])');
    const B = fence('emit_intermediate(get_user(user_id="u2").data["name"])');
    fx.llm.push(A, B, A, fence('emit_result(len(collected))'));
    const outcome = await interactive(8, 'names of users u1 and u2');
    expect(outcome).toMatchObject({ status: 'succeeded', result: 3 });
    const rec = fx.runs.get(outcome.runId);
    expect(rec.attempts.map((a) => a.step?.summary)).toEqual([
      'reported 1 item',
      'reported 1 item',
      'reported the same data with the same calls as step 1',
      'emitted the result',
    ]);
    expect(rec.attempts[3]?.prompt?.kind).toBe('final');
  });

  it('the same data from calls with other arguments (polling other warehouses) is not stagnation', async () => {
    // p1 in Tokyo and p2 in New York both hold 0 units: equal data, different calls.
    fx.llm.push(
      fence('emit_intermediate(check_inventory(product_id="p1", warehouse="Tokyo").data["in_stock"])'),
      fence('emit_intermediate(check_inventory(product_id="p2", warehouse="New York").data["in_stock"])'),
      fence('emit_intermediate(check_inventory(product_id="p3", warehouse="Berlin").data["in_stock"])'),
      fence('emit_result(collected)'),
    );
    const outcome = await interactive(8, 'stock of p1 in Tokyo, p2 in New York and p3 in Berlin');
    expect(outcome).toMatchObject({ status: 'succeeded', result: [0, 0, 0] });
    const rec = fx.runs.get(outcome.runId);
    expect(rec.attempts.map((a) => a.step?.stagnant)).toEqual([false, false, false, false]);
    expect(rec.attempts.map((a) => a.prompt?.kind)).toEqual(['step', 'step', 'step', 'step']);
  });
});

describe('templates: a near miss and a template that fails', () => {
  it('a task that says more than the pattern goes to the LLM, the record saying why; a matching template that fails hands over to the LLM even with max_retries 0', async () => {
    fx.llm.push(fence('r = get_user(user_id="u3")\nemit_result(r.data["email"])'));
    const first = await (
      await fx.runs.start({ task: 'email of user u3', sandbox: 'ecommerce', providers: providers() })
    ).done;
    const templates = await fx.svc.templates();
    templates.create({ name: 'user-email', fromRun: first.runId });

    // A near miss: not served with "u1 and u2" as the user id.
    fx.llm.reset();
    fx.llm.push(fence('emit_result([get_user(user_id=u).data["email"] for u in ["u1", "u2"]])'));
    const near = await (
      await fx.runs.start({ task: 'email of user u1 and u2', sandbox: 'ecommerce', providers: providers() })
    ).done;
    expect(near).toMatchObject({ status: 'succeeded', result: ['ada@example.com', 'alan@example.com'] });
    const nearRec = fx.runs.get(near.runId);
    expect(nearRec.tier).toBe('llm');
    expect(nearRec.templateMiss?.reason).toMatch(
      /nearest template user-email .* found "u1 and u2" \({user_id} takes one word or a quoted text, and the task says more\)/,
    );

    // A match whose script fails (no user u9): the LLM gets its one attempt, told whose script failed.
    fx.llm.reset();
    fx.llm.push(fence('r = get_user(user_id="u9")\nemit_result(r.message)'));
    const failing = await (
      await fx.runs.start({
        task: 'email of user u9',
        sandbox: 'ecommerce',
        providers: providers(),
        maxRetries: 0,
      })
    ).done;
    expect(failing).toMatchObject({
      status: 'succeeded',
      result: "no user with id 'u9'; known ids: ['u1', 'u2', 'u3', 'u4']",
    });
    const rec = fx.runs.get(failing.runId);
    expect(rec.attempts.map((a) => a.tier)).toEqual(['template', 'llm']);
    expect(fx.llm.requests).toHaveLength(1);
    expect(userText(0)).toContain("This script is template user-email's, which matched the task; it failed:");
    expect(userText(0)).toContain(`get_user(user_id="u9") failed: no user with id 'u9'`);
    expect(templates.list().find((x) => x.name === 'user-email')).toMatchObject({ failures: 1 });

    // With no LLM answer left either, the error names the template's script and the LLM's attempts.
    fx.llm.reset();
    fx.llm.fallback = { text: fence('r = get_user(user_id="u9")\nemit_result(r.data["email"])') };
    const spent = await (
      await fx.runs.start({
        task: 'email of user u8',
        sandbox: 'ecommerce',
        providers: providers(),
        maxRetries: 0,
      })
    ).done;
    expect(spent.error).toMatch(
      /^no result after template user-email's script and 1 attempt \(max_retries 0\); the last attempt failed: TypeError: /,
    );
  });
});
