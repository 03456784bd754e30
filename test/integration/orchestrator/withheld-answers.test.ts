/**
 * Answers that are not the model's text, from the scripted LLM server at the network edge: the model's
 * refusal (OpenAI `refusal`, Anthropic `stop_reason: refusal`), the provider's content filter
 * (`finish_reason: content_filter`), a function call instead of text, and an error the server sends inside
 * a stream it began with 200. Each is said in its own words, to the person and in the correction the model
 * gets, and a filtered or refused answer's text is never run, even where it parses. Before, the first
 * three read "the answer was empty (the model returned no text)" (the refusal's words lost) or ran the
 * filtered half script, and the last "malformed answer", never retried.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createProviders } from '../../../src-main/app/providers.ts';
import { describeRecord } from '../../../src-main/cli/commands/run.ts';
import { LlmError } from '../../../src-main/core/ports/llm.ts';
import { runSpans } from '../../../src-main/infra/telemetry/run-trace.ts';
import { OpenAiProvider } from '../../../src-main/infra/llm/openai.ts';
import { AnthropicProvider } from '../../../src-main/infra/llm/anthropic.ts';
import { useLlmService } from '../../support/llm-service.ts';
import { fence } from '../../support/suite-oracle.ts';

const fx = useLlmService();

const COUNT = fence('emit_result(len(get_orders().data))');
/** A whole script, so a filter that stopped after it would still have run it. */
const WHOLE = '```python\nemit_result(len(get_orders().data) + 100)\n```';

const openaiStream =
  (...chunks: Record<string, unknown>[]) =>
  (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const c of chunks)
      res.write(
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'm', ...c })}\n\n`,
      );
    res.end('data: [DONE]\n\n');
  };
const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});

const anthropicStream = (blocks: Record<string, unknown>[], stop: string) => (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const ev = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  ev('message_start', {
    message: {
      id: 'm1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 10, output_tokens: 0 },
    },
  });
  blocks.forEach((b, index) => {
    if (b['type'] === 'text') {
      ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
      ev('content_block_delta', { index, delta: { type: 'text_delta', text: b['text'] } });
    } else ev('content_block_start', { index, content_block: { ...b, input: {} } });
    ev('content_block_stop', { index });
  });
  ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
  ev('message_stop', {});
  res.end();
};

const plan = async (
  kind: 'openai' | 'anthropic' = 'openai',
  more: { maxRetries?: number; mode?: 'plan' | 'interactive'; maxSteps?: number } = {},
) =>
  (
    await fx.runs.start({
      task: 'How many orders are there?',
      sandbox: 'ecommerce',
      providers: createProviders(fx.svc.config, {
        baseUrl: kind === 'openai' ? fx.llm.openaiUrl : fx.llm.baseUrl,
        model: 'scripted-coder',
        kind,
      }),
      maxRetries: 0,
      noTemplates: true,
      ...more,
    })
  ).done;

/** The user message of the i-th request the LLM server received. */
const userText = (i: number): string =>
  ((fx.llm.requests[i]?.body['messages'] ?? []) as { role: string; content: string }[])
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');

/** Runs one withheld first answer, then a good correction: the first never ran, and both sides read why. */
async function withheldThenFixed(kind: 'openai' | 'anthropic', words: string) {
  const outcome = await plan(kind);
  // Only the correction ran (a filtered WHOLE would have answered 106).
  expect(outcome).toMatchObject({ status: 'succeeded', result: 6 });
  const rec = fx.runs.get(outcome.runId);
  const a = rec.attempts[0];
  expect(a?.rejected.map((r) => r.violations.map((v) => v.rule))).toEqual([['withheld-answer']]);
  expect(a?.rejected[0]?.violations[0]?.message).toBe(
    `${words}, so the answer held no script to run. Answer with the whole script in one fenced \`\`\`python block`,
  );
  expect(a?.llm?.withheld).toBe(words);
  expect(describeRecord(rec)).toContain(`withheld-answer: ${words}, so the answer held no script to run`);
  expect(fx.llm.requests).toHaveLength(2);
  expect(userText(1)).toContain(`[withheld-answer]: ${words}, so the answer held no script to run.`);
  return outcome.runId;
}

describe('an answer that is not the model text', () => {
  it("OpenAI: the model's refusal is quoted, not read as an empty answer", async () => {
    fx.llm.push(
      {
        raw: openaiStream(
          delta({ role: 'assistant', refusal: 'I cannot help ' }),
          delta({ refusal: 'with that.' }),
          delta({}, 'stop'),
        ),
      },
      COUNT,
    );
    const id = await withheldThenFixed('openai', 'the model refused ("I cannot help with that.")');
    // Its trace says so too: a refusal ends with finish_reason stop, as an answer that ran does.
    const chats = runSpans(fx.runs.store.events(id), 'toolsmith').filter((x) => x.name.startsWith('chat '));
    // (by kind only: the words may quote the model)
    expect(chats.map((c) => c.attributes['toolsmith.llm.withheld'])).toEqual(['refusal', undefined]);
  });

  it('OpenAI: a script the content filter stopped is not run, even whole', async () => {
    fx.llm.push(
      { raw: openaiStream(delta({ role: 'assistant', content: WHOLE }), delta({}, 'content_filter')) },
      COUNT,
    );
    await withheldThenFixed(
      'openai',
      "the provider's content filter stopped the answer (finish_reason: content_filter)",
    );
  });

  it('OpenAI: a function call instead of text is named with its function', async () => {
    fx.llm.push(
      {
        raw: openaiStream(
          delta({
            role: 'assistant',
            tool_calls: [
              { index: 0, id: 't1', type: 'function', function: { name: 'get_orders', arguments: '{}' } },
            ],
          }),
          delta({}, 'tool_calls'),
        ),
      },
      COUNT,
    );
    await withheldThenFixed(
      'openai',
      'the model called a function (get_orders) instead of answering with text (finish reason tool_calls; the request offers no functions, so this server or model is set to call them)',
    );
  });

  it('OpenAI: calls a server sent malformed (not a list of objects) still read as a function call', async () => {
    fx.llm.push(
      {
        raw: openaiStream(
          delta({ role: 'assistant', tool_calls: [null, 5, { function: 7 }] }),
          delta({}, 'tool_calls'),
        ),
      },
      COUNT,
    );
    await withheldThenFixed(
      'openai',
      'the model called a function instead of answering with text (finish reason tool_calls; the request offers no functions, so this server or model is set to call them)',
    );
  });

  it('OpenAI: a complete answer (not streamed) with a refusal and no content', async () => {
    fx.llm.push(
      {
        raw: (res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              id: 'c9',
              object: 'chat.completion',
              model: 'm',
              choices: [
                {
                  index: 0,
                  message: { role: 'assistant', content: null, refusal: 'No.' },
                  finish_reason: 'stop',
                },
              ],
            }),
          );
        },
      },
      COUNT,
    );
    await withheldThenFixed('openai', 'the model refused ("No.")');
  });

  it('Anthropic: stop_reason refusal, with the text before it not run', async () => {
    fx.llm.push({ raw: anthropicStream([{ type: 'text', text: WHOLE }], 'refusal') }, COUNT);
    await withheldThenFixed('anthropic', 'the model refused (stop_reason: refusal)');
  });

  it('Anthropic: a tool_use block instead of text', async () => {
    fx.llm.push(
      { raw: anthropicStream([{ type: 'tool_use', id: 'tu1', name: 'get_orders' }], 'tool_use') },
      COUNT,
    );
    await withheldThenFixed(
      'anthropic',
      'the model called a function (get_orders) instead of answering with text (finish reason tool_use; the request offers no functions, so this server or model is set to call them)',
    );
  });

  it('a replay of a run whose answer was filtered rejects that answer again, never running its script', async () => {
    fx.llm.push(
      { raw: openaiStream(delta({ role: 'assistant', content: WHOLE }), delta({}, 'content_filter')) },
      COUNT,
    );
    const original = await plan();
    expect(original).toMatchObject({ status: 'succeeded', result: 6 });
    const before = fx.llm.requests.length;
    const replay = await (await fx.runs.replay(original.runId)).done;
    expect(fx.llm.requests).toHaveLength(before);
    // The filtered WHOLE, replayed as if the model wrote it, answered 106.
    expect(replay).toMatchObject({ status: 'succeeded', result: 6 });
    const a = fx.runs.get(replay.runId).attempts[0];
    expect(a?.rejected.map((r) => r.violations.map((v) => v.rule))).toEqual([['withheld-answer']]);
    expect(a?.llm?.withheld).toBe(
      "the provider's content filter stopped the answer (finish_reason: content_filter)",
    );
  });

  it("a function's name is said in at most 64 characters (a server's 100 000 went whole into the correction)", async () => {
    const name = 'f'.repeat(100_000);
    fx.llm.push(
      {
        raw: openaiStream(
          delta({
            role: 'assistant',
            tool_calls: [{ index: 0, id: 't1', type: 'function', function: { name, arguments: '{}' } }],
          }),
          delta({}, 'tool_calls'),
        ),
      },
      COUNT,
    );
    await withheldThenFixed(
      'openai',
      `the model called a function (${'f'.repeat(64)}…) instead of answering with text (finish reason tool_calls; the request offers no functions, so this server or model is set to call them)`,
    );
    expect(userText(1).length).toBeLessThan(50_000);
  });

  it('Anthropic: a content_block_start with no content_block is passed over, as before, not a malformed answer', async () => {
    fx.llm.push({
      raw: (res: ServerResponse) => {
        const ev = (type: string, data: Record<string, unknown>) =>
          `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          ev('message_start', {
            message: {
              id: 'm1',
              type: 'message',
              role: 'assistant',
              model: 'c',
              content: [],
              usage: { input_tokens: 1, output_tokens: 0 },
            },
          }) +
            ev('content_block_start', { index: 0 }) +
            ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: COUNT } }) +
            ev('content_block_stop', { index: 0 }) +
            ev('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } }) +
            ev('message_stop', {}),
        );
      },
    });
    expect(await plan('anthropic')).toMatchObject({ status: 'succeeded', result: 6 });
  });

  it('an empty answer that says nothing else still reads as empty', async () => {
    fx.llm.push({ raw: openaiStream(delta({ role: 'assistant', content: '' }), delta({}, 'stop')) }, COUNT);
    const outcome = await plan();
    expect(outcome).toMatchObject({ status: 'succeeded', result: 6 });
    const a = fx.runs.get(outcome.runId).attempts[0];
    expect(a?.rejected.map((r) => r.violations.map((v) => v.rule))).toEqual([['empty-script']]);
    expect(a?.llm?.withheld).toBeUndefined();
  });
});

describe('a run whose answers held no script', () => {
  const FILTERED = "the provider's content filter stopped the answer (finish_reason: content_filter)";
  const filtered = {
    raw: openaiStream(delta({ role: 'assistant', content: WHOLE }), delta({}, 'content_filter')),
  };

  it('PLAN: ends saying why each answer held no script, never quoting the filtered text back as a script', async () => {
    fx.llm.fallback = filtered;
    const outcome = await plan('openai', { maxRetries: 1 });
    // Before: "...; the last attempt was rejected: the script failed validation: line 1:1 withheld-answer
    // (...)", of a script that never existed.
    expect(outcome).toMatchObject({
      status: 'failed',
      error: `no result after 2 attempts (max_retries 1); the last attempt was rejected: ${FILTERED}, so the answer held no script to run`,
    });
    // The first prompt, then the correction, the second attempt and its correction: none shows the text
    // the filter stopped as "Previous script" (before, every one of them did), and each says why.
    expect(fx.llm.requests).toHaveLength(4);
    for (const i of [1, 2, 3]) {
      expect(userText(i)).not.toContain('get_orders().data) + 100');
      expect(userText(i)).not.toContain('Previous script');
      expect(userText(i)).toContain('Your previous answer held no script.');
      expect(userText(i)).toContain(`[withheld-answer]: ${FILTERED}, so the answer held no script to run.`);
    }
  });

  it('INTERACTIVE: the correction says why, and a repeat is named as answers with no script, not "the same script"', async () => {
    fx.llm.fallback = {
      // (words of the violation's own end in the refusal: the error keeps the refusal whole)
      raw: openaiStream(
        delta({ role: 'assistant', refusal: 'I will not. Answer with the whole script yourself.' }),
        delta({}, 'stop'),
      ),
    };
    const outcome = await plan('openai', { mode: 'interactive', maxSteps: 3 });
    const refused =
      'the model refused ("I will not. Answer with the whole script yourself."), so the answer held no script to run';
    // Before: "step 2 repeated step 1: the same script failed the same way (the script failed validation:
    // line 1:1 withheld-answer (...))".
    expect(outcome).toMatchObject({
      status: 'failed',
      error: `step 2 repeated step 1: the answer held no script again (${refused}); stopped as a loop instead of spending the remaining steps on it`,
    });
    const rec = fx.runs.get(outcome.runId);
    expect(rec.attempts.map((a) => a.step?.summary)).toEqual([
      'the answer held no script',
      'the answer held no script',
    ]);
    // The step's correction (request 1) told the model nothing before: the rejected script was empty, so
    // the section holding its error was left out, and the request was the first prompt again.
    expect(userText(1)).toContain('Your answer for this step held no script.');
    expect(userText(1)).toContain(`[withheld-answer]: ${refused}.`);
    // The next step's history says what the step was, not "script rejected by the validator".
    expect(userText(2)).toContain(`- step 1: the answer held no script (${refused})`);
  });

  it('prose beside a function call is named as the call, not as text that is not Python', async () => {
    fx.llm.push(
      {
        raw: openaiStream(
          delta({ role: 'assistant', content: 'Let me look up the orders first.' }),
          delta({
            tool_calls: [
              { index: 0, id: 't1', type: 'function', function: { name: 'get_orders', arguments: '{}' } },
            ],
          }),
          delta({}, 'tool_calls'),
        ),
      },
      COUNT,
    );
    const outcome = await plan();
    expect(outcome).toMatchObject({ status: 'succeeded', result: 6 });
    const a = fx.runs.get(outcome.runId).attempts[0];
    const words =
      'the model called a function (get_orders) beside its text (finish reason tool_calls; the request offers no functions, so this server or model is set to call them), and that text is not a script ("Let me look up the orders first.")';
    // Before: syntax, "the answer held no fenced code block, and its text is not Python (...)".
    expect(a?.rejected.map((r) => r.violations.map((v) => [v.rule, v.message]))).toEqual([
      [
        [
          'withheld-answer',
          `${words}, so the answer held no script to run. Answer with the whole script in one fenced \`\`\`python block`,
        ],
      ],
    ]);
    expect(a?.llm?.functionCall).toBe(
      'the model called a function (get_orders) beside its text (finish reason tool_calls; the request offers no functions, so this server or model is set to call them)',
    );
    expect(userText(1)).toContain(`[withheld-answer]: ${words}, so the answer held no script to run.`);
  });

  it('a script beside a function call is still the answer, and runs', async () => {
    fx.llm.push({
      raw: openaiStream(
        delta({ role: 'assistant', content: COUNT }),
        delta({
          tool_calls: [
            { index: 0, id: 't1', type: 'function', function: { name: 'get_orders', arguments: '{}' } },
          ],
        }),
        delta({}, 'tool_calls'),
      ),
    });
    expect(await plan()).toMatchObject({ status: 'succeeded', result: 6 });
    expect(fx.llm.requests).toHaveLength(1);
  });

  it("the trace's kind is the one the provider gave, not read off the words (a function named after a filter)", async () => {
    fx.llm.push(
      {
        raw: openaiStream(
          delta({
            role: 'assistant',
            tool_calls: [
              {
                index: 0,
                id: 't1',
                type: 'function',
                function: { name: 'bypass content filter', arguments: '{}' },
              },
            ],
          }),
          delta({}, 'tool_calls'),
        ),
      },
      COUNT,
    );
    const outcome = await plan();
    expect(outcome).toMatchObject({ status: 'succeeded', result: 6 });
    expect(fx.runs.get(outcome.runId).attempts[0]?.llm?.withheldKind).toBe('function_call');
    const chats = runSpans(fx.runs.store.events(outcome.runId), 'toolsmith').filter((x) =>
      x.name.startsWith('chat '),
    );
    // Before: `content_filter`, from the words "...(bypass content filter)...".
    expect(chats.map((c) => c.attributes['toolsmith.llm.withheld'])).toEqual(['function_call', undefined]);
  });
});

describe('an error the server answers 200 with, as its whole (not streamed) body', () => {
  const retry = { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 50 };
  const providers = () => [
    new OpenAiProvider({ id: 'oa', model: 'm', baseUrl: fx.llm.openaiUrl, retry }),
    new AnthropicProvider({ id: 'an', model: 'm', baseUrl: fx.llm.baseUrl, apiKey: 'k', retry }),
  ];
  const errorBody = (p: OpenAiProvider | AnthropicProvider, message: string, code: number | string) => ({
    raw: (res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          p instanceof OpenAiProvider
            ? { error: { message, code } }
            : { type: 'error', error: { type: code, message } },
        ),
      );
    },
  });

  it("an upstream failure is named in the server's words and retried, as in a stream", async () => {
    for (const p of providers()) {
      fx.llm.reset();
      const code = p instanceof OpenAiProvider ? 502 : 'api_error';
      fx.llm.push(errorBody(p, 'upstream provider failed', code), COUNT);
      // Before: "unexpected answer: the server answered 200 with application/json instead of an event
      // stream (...)", not retried.
      const r = await p.generate({ system: 's', user: 'u' });
      expect(r.text).toBe(COUNT);
      expect(r.retries.map((x) => x.reason)).toEqual([
        `error as the answer: the server answered 200 with an error instead of an answer: "upstream provider failed" (${p instanceof OpenAiProvider ? 'code 502' : 'api_error'})`,
      ]);
    }
  });

  it('a refused request is named and not retried', async () => {
    for (const p of providers()) {
      fx.llm.reset();
      const code = p instanceof OpenAiProvider ? 400 : 'invalid_request_error';
      fx.llm.fallback = errorBody(p, 'prompt is too long', code);
      const e = await p.generate({ system: 's', user: 'u' }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(LlmError);
      expect((e as LlmError).message).toContain(
        `error as the answer: the server answered 200 with an error instead of an answer: "prompt is too long" (${p instanceof OpenAiProvider ? 'code 400' : 'invalid_request_error'})`,
      );
      expect(fx.llm.requests).toHaveLength(1);
    }
  });
});

describe('an error the server sends inside a stream it began with 200', () => {
  const retry = { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 50 };
  const providers = () => [
    new OpenAiProvider({ id: 'oa', model: 'm', baseUrl: fx.llm.openaiUrl, retry }),
    new AnthropicProvider({ id: 'an', model: 'm', baseUrl: fx.llm.baseUrl, apiKey: 'k', retry }),
  ];
  const errorIn = (p: OpenAiProvider | AnthropicProvider, message: string, code: number | string) =>
    p instanceof OpenAiProvider
      ? (res: ServerResponse) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(`data: ${JSON.stringify(delta({ role: 'assistant', content: '```py' }))}\n\n`);
          res.end(`data: ${JSON.stringify({ error: { message, code } })}\n\n`);
        }
      : (res: ServerResponse) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(
            `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: code, message } })}\n\n`,
          );
        };

  it("an upstream failure is named in the server's words and retried", async () => {
    for (const p of providers()) {
      fx.llm.reset();
      const code = p instanceof OpenAiProvider ? 502 : 'api_error';
      fx.llm.push({ raw: errorIn(p, 'upstream provider failed', code) }, COUNT);
      const r = await p.generate({ system: 's', user: 'u' });
      expect(r.text).toBe(COUNT);
      expect(r.retries.map((x) => x.reason)).toEqual([
        `error in the answer stream: the server answered 200, then reported "upstream provider failed" (${p instanceof OpenAiProvider ? 'code 502' : 'api_error'})`,
      ]);
    }
  });

  it("an error said as plain text (not an object) is named in the server's words too, and retried when it says so", async () => {
    for (const p of providers()) {
      fx.llm.reset();
      const words = 'upstream overloaded, try again';
      fx.llm.push(
        {
          raw: (res: ServerResponse) => {
            res.writeHead(200, { 'content-type': 'text/event-stream' });
            res.end(
              p instanceof OpenAiProvider
                ? `data: ${JSON.stringify({ error: words })}\n\n`
                : `event: error\ndata: ${words}\n\n`,
            );
          },
        },
        COUNT,
      );
      const r = await p.generate({ system: 's', user: 'u' });
      expect(r.text).toBe(COUNT);
      expect(r.retries.map((x) => x.reason)).toEqual([
        `error in the answer stream: the server answered 200, then reported "${words}"`,
      ]);
    }
  });

  it('a refused request is named and not retried', async () => {
    for (const p of providers()) {
      fx.llm.reset();
      const code = p instanceof OpenAiProvider ? 400 : 'invalid_request_error';
      fx.llm.fallback = { raw: errorIn(p, 'prompt is too long', code) };
      const e = await p.generate({ system: 's', user: 'u' }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(LlmError);
      expect((e as LlmError).message).toContain(
        `error in the answer stream: the server answered 200, then reported "prompt is too long" (${p instanceof OpenAiProvider ? 'code 400' : 'invalid_request_error'})`,
      );
      expect(fx.llm.requests).toHaveLength(1);
    }
  });
});

describe('a key the server echoes near the 300 characters kept of its words', () => {
  it('is never cut into a prefix the redactor cannot see, in a stream error or a refusal', async () => {
    const KEY = 'sk-live-0123456789abcdefghij0123456789';
    const long = (n: number) => `${'word '.repeat(n)}the key was ${KEY} and more words after it`;
    fx.llm.push(
      {
        raw: (res: ServerResponse) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(`data: ${JSON.stringify({ error: { message: long(57), code: 502 } })}\n\n`);
        },
      },
      { raw: openaiStream(delta({ role: 'assistant', refusal: long(56) }), delta({}, 'stop')) },
      COUNT,
    );
    const outcome = await (
      await fx.runs.start({
        task: 'How many orders are there?',
        sandbox: 'ecommerce',
        providers: createProviders(
          fx.svc.config,
          { baseUrl: fx.llm.openaiUrl, model: 'scripted-coder', kind: 'openai' },
          () => KEY,
        ),
        maxRetries: 0,
        noTemplates: true,
      })
    ).done;
    expect(outcome).toMatchObject({ status: 'succeeded', result: 6 });
    const rec = fx.runs.get(outcome.runId);
    const llm = rec.attempts[0]?.llm;
    // The cut falls inside the key: what is kept ends before it (before, 'sk-live-0123' was kept).
    expect(llm?.retries.map((r) => r.reason)).toEqual([
      `error in the answer stream: the server answered 200, then reported "${'word '.repeat(57)}the key was…" (code 502)`,
    ]);
    expect(llm?.withheld).toBe(`the model refused ("${'word '.repeat(56)}the key was…")`);
    const all = JSON.stringify(rec) + describeRecord(rec);
    expect(all).not.toContain(KEY.slice(0, 8));
  });
});
