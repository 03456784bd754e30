/**
 * An OTLP endpoint written without its scheme (`127.0.0.1:4318`, `collector:4318`): a URL parser reads
 * the host as the scheme, so it was accepted wherever it was set and every export failed later, blaming
 * the collector ("the OTLP endpoint 127.0.0.1:4318/v1/traces did not take the trace: not a URL"), or, in
 * live export, on a line that never said which setting was wrong. Each entry point, through the CLI as a
 * process in a workspace made by `toolsmith init`, against a real OTLP/HTTP receiver:
 *
 * - `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`: as the OpenTelemetry
 *   specification says of an invalid value, warned about (naming the variable and what is expected) and
 *   treated as not set: the trace goes to config.toml's endpoint, in `runs export --otlp` and in the live
 *   export at the end of `toolsmith run` (the scripted LLM server, a real container);
 * - `[telemetry] endpoint` / `traces_endpoint` in config.toml: refused at load, naming the line and what
 *   is expected;
 * - `runs export --otlp URL`: a usage error (exit 2) naming what is expected.
 */
import { appendFileSync, copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { startOtlpReceiver } from '../../support/otlp-receiver.ts';
import type { OtlpReceiver } from '../../support/otlp-receiver.ts';
import { requireDocker } from '../../support/sandbox.ts';
import { scriptedConfig } from '../../support/suite-oracle.ts';
import { repoRoot } from '../../support/workspace.ts';
import { cliProcess } from '../faults/support/processes.ts';
import { initCliWorkspace } from '../skills/support/cli-workspace.ts';

const RUN_ID = '6f1c2a9e-0b7d-4c55-9a31-3f0e8d2b7c41'; // test/fixtures/runs/run-v1.json

let llm: LlmServer;
let receiver: OtlpReceiver;
let base: string;
let ws: string;
let config: string;
let env: Record<string, string>;
/** The receiver's address as people mistype it: host:port, no scheme. */
let bare: string;

const cli = (args: string[], extra: Record<string, string> = {}) =>
  cliProcess(ws, env.TOOLSMITH_DATA_DIR!, args, { ...env, ...extra }).done;

/** config.toml as `init` and the scripted set-up left it, plus a `[telemetry]` table. */
function telemetryTable(lines: string): void {
  copyFileSync(`${config}.orig`, config);
  appendFileSync(config, `\n[telemetry]\n${lines}\n`);
}

beforeAll(async () => {
  await requireDocker();
  llm = await startLlmServer();
  llm.fallback = { text: '```python\nr = get_user(user_id="u4")\nemit_result(r.data["tier"])\n```' };
  receiver = await startOtlpReceiver();
  bare = receiver.base.replace(/^http:\/\//, '');
  const w = initCliWorkspace('toolsmith-otlp-endpoint-');
  ({ base, ws, env } = w);
  scriptedConfig(ws, llm.openaiUrl);
  config = join(ws, '.toolsmith/config.toml');
  copyFileSync(config, `${config}.orig`);
  const imported = await cli(['runs', 'import', join(repoRoot, 'test/fixtures/runs/run-v1.json')]);
  expect(imported.code, imported.err).toBe(0);
});

beforeEach(() => copyFileSync(`${config}.orig`, config));

afterAll(async () => {
  await llm?.close();
  await receiver?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

describe('an OTLP endpoint without http:// or https://', () => {
  it('OTEL_EXPORTER_OTLP_ENDPOINT / _TRACES_ENDPOINT: runs export --otlp warns, ignores it, and sends to the config', async () => {
    telemetryTable(`endpoint = "${receiver.base}"`);
    for (const [name, value] of [
      ['OTEL_EXPORTER_OTLP_ENDPOINT', bare],
      ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', `${bare}/v1/traces`],
    ] as const) {
      const before = receiver.requests.length;
      const r = await cli(['runs', 'export', RUN_ID, '--otlp'], { [name]: value });
      expect(r.code, r.err).toBe(0);
      expect(r.err).toBe(
        `warning: ${name}=${JSON.stringify(value)} is ignored: an OTLP/HTTP endpoint is an http:// or https:// URL with a host and port, such as http://localhost:4318; traces go to ${receiver.base}/v1/traces\n`,
      );
      expect(r.out).toMatch(
        new RegExp(
          `^sent run ${RUN_ID} as trace [0-9a-f]{32} \\(\\d+ spans\\) to ${receiver.base}/v1/traces\\n$`,
        ),
      );
      expect(receiver.requests.length).toBe(before + 1);
    }
  });

  it('[telemetry] endpoint / traces_endpoint in config.toml: refused, naming the line and what is expected', async () => {
    for (const [key, value, example] of [
      ['endpoint', bare, 'http://localhost:4318'],
      ['traces_endpoint', `${bare}/v1/traces`, 'http://localhost:4318/v1/traces'],
    ] as const) {
      telemetryTable(`${key} = "${value}"`);
      const before = receiver.requests.length;
      const r = await cli(['runs', 'export', RUN_ID, '--otlp']);
      expect(r.err).toMatch(
        new RegExp(
          `^toolsmith: ${config}:\\d+: telemetry\\.${key}: expected an http:// or https:// URL with a host and port, such as ${example}, got "${value}"\\n$`,
        ),
      );
      expect(r.code).toBe(3);
      expect(receiver.requests.length).toBe(before);
    }
  });

  it('runs export --otlp URL: a usage error naming what is expected', async () => {
    const r = await cli(['runs', 'export', RUN_ID, '--otlp', `${bare}/v1/traces`]);
    expect(r.err).toBe(
      `toolsmith: "${bare}/v1/traces" is not an http:// or https:// URL (an OTLP/HTTP traces endpoint, e.g. http://127.0.0.1:4318/v1/traces)\n`,
    );
    expect(r.code).toBe(2);
  });

  it('live export after toolsmith run: warned once on stderr, and the trace reaches the configured endpoint', async () => {
    telemetryTable(`endpoint = "${receiver.base}"`);
    const before = receiver.requests.length;
    const r = await cli(['run', 'Tier of user u4', '--sandbox', 'ecommerce', '--json'], {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: bare,
    });
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ status: 'succeeded' });
    const telemetryLines = r.err.split('\n').filter((l) => l.startsWith('telemetry:'));
    expect(telemetryLines).toEqual([
      `telemetry: warning: OTEL_EXPORTER_OTLP_ENDPOINT=${JSON.stringify(bare)} is ignored: an OTLP/HTTP endpoint is an http:// or https:// URL with a host and port, such as http://localhost:4318; traces go to ${receiver.base}/v1/traces`,
    ]);
    expect(receiver.requests.length).toBe(before + 1);
    expect(receiver.spans.some((s) => s.name === 'invoke_agent toolsmith')).toBe(true);
  }, 240_000);
});
