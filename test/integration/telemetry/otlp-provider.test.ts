/**
 * The provider a trace's chat spans name, on every way a run reaches its LLM: a configured provider, an
 * ad-hoc `--base-url` (OpenAI-compatible or, with `--kind anthropic`, Anthropic) and a configured id
 * pointed elsewhere with another kind. The CLI runs against the scripted LLM server (it speaks both APIs)
 * and real containers; the trace reaches a real OTLP/HTTP receiver. Following the GenAI conventions,
 * gen_ai.provider.name is the API spoken (`openai` for any OpenAI-compatible endpoint, `anthropic`), never
 * a provider id such as `cli`, and server.address/server.port say which server answered. `runs export
 * --otlp` later reads the same from the run's record, whatever the config says by then.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { startOtlpReceiver } from '../../support/otlp-receiver.ts';
import type { OtlpReceiver, ReceivedSpan } from '../../support/otlp-receiver.ts';
import type { ScriptedAnswer } from '../../support/llm-server.ts';
import { cliProcess } from '../faults/support/processes.ts';

const fx = useScriptedWorkspace({ docker: true, eachTest: () => {} });
let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

const ANSWER = '```python\nemit_result(len(get_orders().data))\n```';

/** Runs a task with the CLI (live export on) and answers the chat spans of its trace and its run id. */
async function tracedRun(
  args: string[],
  answer: ScriptedAnswer | string = ANSWER,
): Promise<{ runId: string; chats: ReceivedSpan[] }> {
  fx.llm.push(answer);
  const before = receiver.spans.length;
  const run = await cliProcess(
    fx.ws,
    fx.data,
    ['run', 'How many orders are there?', '--sandbox', 'ecommerce', '--no-templates', '--json', ...args],
    { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.base },
  ).done;
  expect(run.code, run.err).toBe(0);
  const rec = JSON.parse(run.out) as { id: string; status: string };
  expect(rec.status).toBe('succeeded');
  const chats = receiver.spans.slice(before).filter((s) => s.name.startsWith('chat '));
  expect(chats).toHaveLength(1);
  return { runId: rec.id, chats };
}

const llmPort = () => Number(new URL(fx.llm.baseUrl).port);

/** `runs export ID --otlp` by hand (a process): the attributes of the chat span it sends. */
async function exportedChat(runId: string): Promise<Record<string, unknown> | undefined> {
  const before = receiver.spans.length;
  const again = await cliProcess(fx.ws, fx.data, [
    'runs',
    'export',
    runId,
    '--otlp',
    `${receiver.base}/v1/traces`,
  ]).done;
  expect(again.code, again.err).toBe(0);
  return receiver.spans.slice(before).find((s) => s.name.startsWith('chat '))?.attributes;
}

describe('gen_ai.provider.name and the server of chat spans', () => {
  it('an ad-hoc OpenAI-compatible --base-url: openai, with the server it went to (not the id "cli")', async () => {
    const { runId, chats } = await tracedRun(['--base-url', fx.llm.openaiUrl, '--model', 'adhoc-coder']);
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.system': 'openai',
      'server.address': '127.0.0.1',
      'server.port': llmPort(),
      'toolsmith.provider.id': 'cli',
      'gen_ai.request.model': 'adhoc-coder',
    });

    // Sent again later by hand: the same attributes, read from the run's record (the config has no `cli`).
    expect(await exportedChat(runId)).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'server.address': '127.0.0.1',
      'server.port': llmPort(),
    });
  });

  it('an ad-hoc Anthropic --base-url (--kind anthropic): anthropic, with its server', async () => {
    const { chats } = await tracedRun([
      '--base-url',
      fx.llm.baseUrl,
      '--kind',
      'anthropic',
      '--model',
      'claude-scripted',
    ]);
    expect(fx.llm.requests.at(-1)?.api).toBe('anthropic');
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.system': 'anthropic',
      'server.address': '127.0.0.1',
      'server.port': llmPort(),
    });
  });

  it("gen_ai.response.id, response.model and finish_reasons: the answer's own, OpenAI and Anthropic", async () => {
    for (const [args, id, finish] of [
      [['--base-url', fx.llm.openaiUrl, '--model', 'coder-x'], 'chatcmpl-9QxZ2aB7', 'stop'],
      [
        ['--base-url', fx.llm.baseUrl, '--kind', 'anthropic', '--model', 'coder-x'],
        'msg_01XFDUDYJgAACzvnptvVoYEL',
        'end_turn',
      ],
    ] as const) {
      // The server answers under the model's dated name, as vendors do for an alias.
      const { runId, chats } = await tracedRun([...args], { text: ANSWER, id, model: 'coder-x-2026-01-01' });
      const expected = {
        'gen_ai.request.model': 'coder-x',
        'gen_ai.response.model': 'coder-x-2026-01-01',
        'gen_ai.response.id': id,
        'gen_ai.response.finish_reasons': [finish],
      };
      expect(chats[0]!.name).toBe('chat coder-x');
      expect(chats[0]!.attributes).toMatchObject(expected);
      // Kept with the run: sent again later, the same.
      expect(await exportedChat(runId)).toMatchObject(expected);
    }
  });

  it("a configured provider: its kind and its base_url's server", async () => {
    const { chats } = await tracedRun([]);
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'server.address': '127.0.0.1',
      'server.port': llmPort(),
      'toolsmith.provider.id': 'local',
    });
  });

  it("gen_ai.request.max_tokens and temperature: what the run's requests sent, kept with the run", async () => {
    const configFile = join(fx.ws, '.toolsmith', 'config.toml');
    const original = readFileSync(configFile, 'utf8');
    try {
      writeFileSync(
        configFile,
        original.replace('id = "local"\n', 'id = "local"\nmax_tokens = 1500\ntemperature = 0.3\n'),
      );
      const { runId, chats } = await tracedRun([]);
      // What the server was sent is what the span says.
      const sent = fx.llm.requests.at(-1)!.body;
      expect([sent['max_tokens'], sent['temperature']]).toEqual([1500, 0.3]);
      expect(chats[0]!.attributes).toMatchObject({
        'gen_ai.request.max_tokens': 1500,
        'gen_ai.request.temperature': 0.3,
      });
      // The config changes later: the run's export still says what it sent.
      writeFileSync(configFile, original);
      expect(await exportedChat(runId)).toMatchObject({
        'gen_ai.request.max_tokens': 1500,
        'gen_ai.request.temperature': 0.3,
      });
    } finally {
      writeFileSync(configFile, original);
    }
  });

  it('a configured id sent elsewhere with another kind: the API actually spoken, not the config entry', async () => {
    // `local` is an OpenAI-compatible provider in the config; this run speaks Anthropic's API through it.
    const { runId, chats } = await tracedRun([
      '--provider',
      'local',
      '--base-url',
      fx.llm.baseUrl,
      '--kind',
      'anthropic',
      '--model',
      'claude-scripted',
    ]);
    expect(fx.llm.requests.at(-1)?.api).toBe('anthropic');
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'toolsmith.provider.id': 'local',
      'server.address': '127.0.0.1',
      'server.port': llmPort(),
    });

    // The config changes afterwards (the provider moves to another host): an export keeps what ran.
    const cfg = join(fx.ws, '.toolsmith/config.toml');
    const text = readFileSync(cfg, 'utf8');
    writeFileSync(cfg, text.replace(fx.llm.openaiUrl, 'https://llm.example.com:8443/v1'));
    try {
      expect(await exportedChat(runId)).toMatchObject({
        'gen_ai.provider.name': 'anthropic',
        'server.address': '127.0.0.1',
        'server.port': llmPort(),
      });
    } finally {
      writeFileSync(cfg, text);
    }
  });
});
