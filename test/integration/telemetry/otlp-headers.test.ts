/**
 * OTEL_EXPORTER_OTLP_HEADERS written wrong, as users write it: an entry in HTTP's form
 * (`Authorization: Bearer <token>`) was dropped without a word (the collector answered 401 and nothing
 * said why), and a header name with a space or a value with a line break failed the export with Node's
 * "Header name must be a valid HTTP token", naming neither the variable nor the fix. Each is now a
 * warning naming the variable and the entry (never its value) on the CLI's stderr, and the headers that
 * are right are still sent. The CLI as a process, the scripted LLM, real containers, a real receiver.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { startOtlpReceiver } from '../../support/otlp-receiver.ts';
import { cliProcess } from '../faults/support/processes.ts';

const fx = useScriptedWorkspace({ docker: true });
const TOKEN = 'otlp-token-5b7e21c9d0';

describe('OTLP settings written wrong', () => {
  it('each is a warning naming the variable and the entry, never the value; the others are sent', async () => {
    const receiver = await startOtlpReceiver();
    try {
      fx.llm.push('```python\nemit_result(1)\n```');
      const r = await cliProcess(fx.ws, fx.data, ['run', 'One', '--sandbox', 'ecommerce', '--no-templates'], {
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.base,
        // (`X-Api-Key: <token>==` and `x bad=`: the text before a `=` may be a credential, base64's padding
        // after it; it was shown as the name: `"X-Api-Key: otlp-token-..." is not a header name`)
        OTEL_EXPORTER_OTLP_HEADERS: `Authorization: Bearer ${TOKEN},x-team=blue,x bad=${TOKEN},X-Api-Key: ${TOKEN}==`,
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: `x-key=${TOKEN}%0Aevil`,
      }).done;
      expect(r.code, r.err).toBe(0);
      expect(r.err.split('\n').filter((l) => l.startsWith('telemetry:'))).toEqual([
        'telemetry: warning: OTEL_EXPORTER_OTLP_HEADERS: the entry "Authorization..." is not key=value, and is not sent (write key=value pairs separated by commas, values percent-encoded: authorization=Bearer%20<token>)',
        'telemetry: warning: OTEL_EXPORTER_OTLP_HEADERS: "x..." is not a header name (letters, digits, - and the like, no spaces); that header is not sent',
        'telemetry: warning: OTEL_EXPORTER_OTLP_HEADERS: the entry "X-Api-Key..." is not key=value, and is not sent (write key=value pairs separated by commas, values percent-encoded: authorization=Bearer%20<token>)',
        'telemetry: warning: OTEL_EXPORTER_OTLP_TRACES_HEADERS: the value of header x-key holds a control character (a line break?); that header is not sent',
      ]);
      expect(r.err + r.out).not.toContain(TOKEN);
      // Nor in the workspace's log, where each warning goes too.
      const log = readFileSync(join(fx.ws, '.toolsmith/logs/toolsmith.jsonl'), 'utf8');
      expect(log).toContain('the entry \\"X-Api-Key...\\" is not key=value');
      expect(log).not.toContain(TOKEN);
      // The trace went, with the header that was right.
      expect(receiver.requests).toHaveLength(1);
      expect(receiver.requests[0]!.headers['x-team']).toBe('blue');
      expect(receiver.requests[0]!.headers['authorization']).toBeUndefined();
      expect(receiver.spans.some((s) => s.name === 'invoke_agent toolsmith')).toBe(true);
    } finally {
      await receiver.close();
    }
  }, 300_000);

  it('OTEL_RESOURCE_ATTRIBUTES written as an HTTP header: ignored, named by the name before its colon, never the value', async () => {
    // (it showed the whole entry, `"Authorization: Basic <token>=="`, on stderr and in the log)
    const receiver = await startOtlpReceiver();
    try {
      fx.llm.push('```python\nemit_result(3)\n```');
      const r = await cliProcess(
        fx.ws,
        fx.data,
        ['run', 'Three', '--sandbox', 'ecommerce', '--no-templates'],
        {
          OTEL_TRACES_EXPORTER: 'otlp',
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.base,
          OTEL_RESOURCE_ATTRIBUTES: `service.namespace=agents,Authorization: Basic ${TOKEN}==`,
        },
      ).done;
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain(
        'OTEL_RESOURCE_ATTRIBUTES is ignored: "Authorization..." is not key=value (expected key1=value1,key2=value2, values percent-encoded)',
      );
      expect(r.err + r.out).not.toContain(TOKEN);
      const log = readFileSync(join(fx.ws, '.toolsmith/logs/toolsmith.jsonl'), 'utf8');
      expect(log).toContain('OTEL_RESOURCE_ATTRIBUTES is ignored');
      expect(log).not.toContain(TOKEN);
      // The trace went, with none of those attributes (the value is ignored whole).
      expect(receiver.requests).toHaveLength(1);
      expect(JSON.stringify(receiver.spans)).not.toContain(TOKEN);
    } finally {
      await receiver.close();
    }
  }, 300_000);

  it('an endpoint that already ends in /v1/traces is named, with the address to give instead', async () => {
    const receiver = await startOtlpReceiver();
    try {
      fx.llm.push('```python\nemit_result(2)\n```');
      const r = await cliProcess(
        fx.ws,
        fx.data,
        ['run', 'Two', '--sandbox', 'ecommerce', '--no-templates', '--json'],
        {
          OTEL_TRACES_EXPORTER: 'otlp',
          OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.base}/v1/traces`,
        },
      ).done;
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain(
        `telemetry: warning: OTEL_EXPORTER_OTLP_ENDPOINT ends in /v1/traces, and /v1/traces is added to it, so traces go to ${receiver.base}/v1/traces/v1/traces: give the collector's address there (${receiver.base}), or the whole traces URL as OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
      );
      // As [telemetry] endpoint in config.toml: runs export --otlp says it with the collector's 404.
      appendFileSync(
        join(fx.ws, '.toolsmith/config.toml'),
        `\n[telemetry]\nendpoint = "${receiver.base}/v1/traces/"\n`,
      );
      const id = (JSON.parse(r.out) as { id: string }).id;
      const again = await cliProcess(fx.ws, fx.data, ['runs', 'export', id, '--otlp']).done;
      expect(again.code).toBe(3);
      expect(again.err).toContain(
        `HTTP 404; warning: [telemetry] endpoint ends in /v1/traces, and /v1/traces is added to it, so traces go to ${receiver.base}/v1/traces/v1/traces: give the collector's address there (${receiver.base}), or the whole traces URL as [telemetry] traces_endpoint`,
      );
    } finally {
      await receiver.close();
    }
  }, 300_000);
});
