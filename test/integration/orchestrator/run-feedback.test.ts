/**
 * What a run tells the model and the person, against the scripted LLM server and real sandboxes: a PLAN
 * retry says how many attempts are left; an answer cut at max_tokens is counted, never run, and the
 * model is told it was cut (OpenAI `finish_reason: length`, Anthropic `stop_reason: max_tokens`); a
 * template's attempt keeps the slot values it matched with (and `runs show` prints them); an OutputLimit
 * says whether prints or emits went over the cap, the cap and what to do.
 */
import { describe, expect, it } from 'vitest';
import { createProviders } from '../../../src-main/app/providers.ts';
import { describeRecord } from '../../../src-main/cli/commands/run.ts';
import { useLlmService } from '../../support/llm-service.ts';
import { fence } from '../../support/suite-oracle.ts';

const fx = useLlmService();

const providers = (kind: 'openai' | 'anthropic' = 'openai') =>
  createProviders(fx.svc.config, {
    baseUrl: kind === 'openai' ? fx.llm.openaiUrl : fx.llm.baseUrl,
    model: 'scripted-coder',
    kind,
  });

/** The user message of the i-th request the LLM server received. */
const userText = (i: number): string => {
  const body = fx.llm.requests[i]?.body ?? {};
  const messages = (body['messages'] ?? []) as { role: string; content: string }[];
  return messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');
};

const COUNT = fence('emit_result(len(get_orders().data))');
const FAILS = fence('emit_result(get_orders().data["nope"])');

const plan = async (
  maxRetries: number,
  kind: 'openai' | 'anthropic' = 'openai',
  task = 'How many orders are there?',
) =>
  (
    await fx.runs.start({
      task,
      sandbox: 'ecommerce',
      providers: providers(kind),
      maxRetries,
      noTemplates: true,
    })
  ).done;

describe('PLAN: a retry prompt says the attempts left', () => {
  it('how many more after this one, then that this one is the last and what its failure means', async () => {
    fx.llm.push(FAILS, FAILS, COUNT);
    const outcome = await plan(2);
    expect(outcome).toMatchObject({ status: 'succeeded', result: 6 });
    expect(fx.llm.requests).toHaveLength(3);
    expect(userText(0)).not.toMatch(/more attempt|last attempt/);
    expect(userText(1)).toContain(
      'Attempt 2. Your previous script failed. You have 1 more attempt after this one (3 in all).',
    );
    expect(userText(2)).toContain(
      'Attempt 3. Your previous script failed. This is your last attempt (3 in all): if this script fails, the run ends without a result.',
    );
  });

  it("a provider's correction of a rejected script is the same attempt: the same budget", async () => {
    fx.llm.push(fence('import os\nemit_result(1)'), COUNT);
    await plan(1);
    expect(userText(1)).toContain(
      'Attempt 1. Your previous script failed. You have 1 more attempt after this one (2 in all).',
    );
  });
});

describe('PLAN: a JS script that emits nothing', () => {
  it("is told in JS's words: emitResult, never emit_result", async () => {
    fx.llm.push(
      '```javascript\nconst r = await get_orders();\nif (r.data.length > 100) emitResult(r.data.length);\n```',
      '```javascript\nemitResult((await get_orders()).data.length);\n```',
    );
    const outcome = await (
      await fx.runs.start({
        task: 'How many orders are there?',
        sandbox: 'ecommerce',
        language: 'js',
        providers: providers(),
        maxRetries: 1,
        noTemplates: true,
      })
    ).done;
    expect(outcome).toMatchObject({ status: 'succeeded', result: 6 });
    expect(userText(1)).toContain(
      'NoResult: the script ran to its end but no result was emitted: no emitResult(...) call was reached on the path it took. Make every path end with emitResult(answer)',
    );
    expect(userText(1)).toContain('End the script by calling emitResult(value) with the final answer.');
    expect(userText(1)).not.toContain('emit_result');
  });
});

describe('an answer cut at max_tokens', () => {
  for (const [kind, stop] of [
    ['openai', 'finish_reason: length'],
    ['anthropic', 'stop_reason: max_tokens'],
  ] as const) {
    it(`${kind}: its tokens are counted, its script is not run, and the model is told it was cut`, async () => {
      // A cut that falls between two lines parses: it must not run as a script missing its end.
      fx.llm.push(
        {
          text: '```python\norders = get_orders().data\nemit_result(len(orders))\n',
          finishReason: kind === 'openai' ? 'length' : 'max_tokens',
          promptTokens: 40,
          completionTokens: 77,
        },
        { text: COUNT, promptTokens: 50, completionTokens: 9 },
      );
      const outcome = await plan(1, kind);
      expect(outcome).toMatchObject({ status: 'succeeded', result: 6 });
      const rec = fx.runs.get(outcome.runId);
      // Before: the provider failed ("truncated answer"), 0 tokens counted, the model never told.
      expect(rec.tokens).toEqual({ prompt: 90, completion: 86, total: 176 });
      expect(rec.attempts).toHaveLength(1);
      const a = rec.attempts[0];
      expect(a?.llmErrors).toEqual([]);
      expect(a?.llm).toMatchObject({ completionTokens: 77, truncated: { reason: stop, maxTokens: 2048 } });
      expect(a?.rejected.map((r) => r.violations.map((v) => v.rule))).toEqual([['truncated-answer']]);
      // Only the whole answer ran: one execution, of the corrected script.
      expect(a?.script?.body).toBe('emit_result(len(get_orders().data))\n');
      // runs show says the attempt's first answer was cut and not run.
      expect(describeRecord(rec)).toContain(
        `\nattempt 1 (llm cli):\n  rejected llm script (2 lines): truncated-answer: the answer was cut at the token limit before it ended (${stop}, max_tokens 2048)`,
      );
      expect(fx.llm.requests).toHaveLength(2);
      expect(userText(1)).toContain(
        `[truncated-answer]: the answer was cut at the token limit before it ended (${stop}, max_tokens 2048): its script is incomplete and was not run. Write a shorter script`,
      );
    });
  }

  it('cut every time: the run ends failed saying so, every answer counted', async () => {
    const cut = { text: '```python\nemit_result(len(get_', finishReason: 'length', completionTokens: 5 };
    fx.llm.push(cut, cut);
    const outcome = await plan(0);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/the last attempt was rejected: .*truncated-answer/);
    expect(fx.runs.get(outcome.runId).tokens.completion).toBe(10);
  });
});

describe("a template's attempt", () => {
  it('keeps the slot values the task matched with; runs show prints them', async () => {
    fx.llm.push(
      fence('r = check_inventory(product_id="p3", warehouse="Berlin")\nemit_result(r.data["in_stock"])'),
    );
    const first = await (
      await fx.runs.start({ task: 'stock of p3 in "Berlin"', sandbox: 'ecommerce', providers: providers() })
    ).done;
    expect(first.status).toBe('succeeded');
    (await fx.svc.templates()).create({ name: 'stock-in', fromRun: first.runId });
    fx.llm.reset();
    const served = await (
      await fx.runs.start({ task: 'stock of p1 in "New York"', sandbox: 'ecommerce', providers: providers() })
    ).done;
    expect(served).toMatchObject({ status: 'succeeded', result: 12 });
    expect(fx.llm.requests).toHaveLength(0);
    const rec = fx.runs.get(served.runId);
    expect(rec.attempts[0]).toMatchObject({ tier: 'template', template: 'stock-in' });
    expect(Object.values(rec.attempts[0]?.slots ?? {})).toEqual(['p1', 'New York']);
    const names = Object.keys(rec.attempts[0]?.slots ?? {});
    expect(describeRecord(rec)).toContain(
      `\nattempt 1 (template):\n  template stock-in matched with ${names[0]}="p1", ${names[1]}="New York"\n  script (python):\n`,
    );
  });
});

describe('OutputLimit says which output went over the cap', () => {
  const exec = (language: 'python' | 'js', body: string) =>
    fx.svc.execution.executeScript({ sandbox: 'ecommerce', language, body });
  const CAP = 'the output cap of 51200 bytes (limits.output_kb = 50 in .toolsmith/config.toml)';

  it('prints (Python and JS): named, with the cap and what to do', async () => {
    for (const [language, body] of [
      ['python', 'for i in range(20000):\n    emit_log("x" * 10)\nemit_result(1)\n'],
      ['js', 'for (let i = 0; i < 20000; i++) console.log("x".repeat(10));\nemitResult(1);\n'],
    ] as const) {
      const r = await exec(language, body);
      expect(r.exitReason).toBe('output_limit');
      expect(r.error?.message).toMatch(
        new RegExp(
          `^the script's output exceeded 51200 bytes: its prints \\(stdout and log lines\\) went over ${CAP.replace(/[().]/g, '\\$&')} \\(\\d+ bytes printed and 0 emitted before the script was stopped\\): print little or nothing`,
        ),
      );
    }
  });

  it('emits: named, with the cap and what to do', async () => {
    const r = await exec(
      'python',
      'for i in range(100):\n    emit_intermediate("q" * 1000)\nemit_result(1)\n',
    );
    expect(r.exitReason).toBe('output_limit');
    expect(r.error?.message).toContain(
      `: its emits (results and intermediates) went over ${CAP} (0 bytes printed and `,
    );
    expect(r.error?.message).toContain('emit only the answer the task asks for');
  });

  it('one piece over the cap: the worker says which it was (before 2026-12-06 neither could be named)', async () => {
    for (const [language, body, which] of [
      ['python', 'emit_result("y" * 200000)\n', 'emits (results and intermediates)'],
      ['python', 'print("y" * 200000)\nemit_result(1)\n', 'prints (stdout and log lines)'],
      ['js', 'emitResult("y".repeat(200000));\n', 'emits (results and intermediates)'],
      ['js', 'console.log("y".repeat(200000));\nemitResult(1);\n', 'prints (stdout and log lines)'],
    ] as const) {
      const r = await exec(language, body);
      expect({ language, body, exit: r.exitReason }).toEqual({ language, body, exit: 'output_limit' });
      expect(r.error?.message).toMatch(
        new RegExp(
          `^the script's output exceeded 51200 bytes: its ${which.replace(/[()]/g, '\\$&')} went over`,
        ),
      );
    }
  });
});

describe("a JS/TS script's run-time tool lookups", () => {
  it('searchTools and describeTool write the tools as a JS script calls them (they read Python signatures)', async () => {
    const r = await fx.svc.execution.executeScript({
      sandbox: 'ecommerce',
      language: 'ts',
      body: 'const found = await searchTools("how many units of a product a warehouse holds");\nconst entry = await describeTool("check_inventory");\nemitResult({ found, entry });\n',
    });
    expect(r.error).toBeUndefined();
    const data = r.data as { found: { name: string; summary: string }[]; entry: string };
    expect(data.found.find((t) => t.name === 'check_inventory')?.summary).toBe(
      'check_inventory({ product_id: string, warehouse?: string = "New York" }): Check how many units of a product a warehouse holds.',
    );
    expect(data.entry).toContain(
      '<signature>check_inventory({ product_id: string, warehouse?: string = "New York" })</signature>',
    );
    expect(data.entry).toContain('<parameter name="product_id" type="string" required="true">');
    // A Python script's lookups keep Python's.
    const py = await fx.svc.execution.executeScript({
      sandbox: 'ecommerce',
      language: 'python',
      body: 'emit_result(search_tools("how many units of a product a warehouse holds"))\n',
    });
    expect(
      (py.data as { name: string; summary: string }[]).find((t) => t.name === 'check_inventory')?.summary,
    ).toBe(
      'check_inventory(product_id: str, warehouse: str = "New York"): Check how many units of a product a warehouse holds.',
    );
  });
});
