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

  it('a script with plain Python in an untagged block keeps the plain syntax message', async () => {
    fx.llm.push('```\nemit_result(len(get_orders().data)\n```', COUNT);
    await plan(1);
    expect(userText(1)).toMatch(/\[syntax\]: syntax error/);
    expect(userText(1)).not.toMatch(/no fenced code block|this run's scripts are/);
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
    // Each retry carries the one previous script and its error: the prompt does not grow with attempts.
    expect(userText(2).length).toBe(userText(1).length);
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
