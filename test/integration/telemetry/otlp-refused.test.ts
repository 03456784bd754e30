/**
 * A collector that refuses connections (nothing listens on its port) never holds a command up: the CLI as
 * a process runs a task against the scripted LLM server and real containers with OTLP export pointed at a
 * closed port, and ends about as soon as it has printed the run (OpenTelemetry's exporter retried the
 * refused connection until its 10 s timeout before). The failure is said once on stderr, naming the
 * endpoint and the cause; stdout and the exit code are those of the same run without export. A collector
 * that takes the connection and never answers holds the command up for the 15 s a stopping process waits
 * for its runs, not for the export's own timeout. Credentials in the endpoint's URL (`user:token@`) are
 * never shown nor logged. The workspace is made by `toolsmith init` in a temp
 * folder, with a Toolsmith home of its own.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { requireDocker } from '../../support/sandbox.ts';
import { scriptedConfig } from '../../support/suite-oracle.ts';
import { cliProcess } from '../faults/support/processes.ts';
import { initCliWorkspace } from '../skills/support/cli-workspace.ts';

/** A port nothing listens on: bound by the system, then closed. */
async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let llm: LlmServer;
let base: string;
let ws: string;
let env: Record<string, string>;

beforeAll(async () => {
  await requireDocker();
  llm = await startLlmServer();
  llm.fallback = { text: '```python\nr = get_user(user_id="u4")\nemit_result(r.data["tier"])\n```' };
  const w = initCliWorkspace('toolsmith-otlp-refused-');
  ({ base, ws, env } = w);
  expect(w.initErr).toBe('');
  scriptedConfig(ws, llm.openaiUrl);
});

afterAll(async () => {
  await llm?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

/** `toolsmith run` as a process: its output, and how long it took from printing the run to exiting. */
async function run(extra: Record<string, string>) {
  const p = cliProcess(ws, env.TOOLSMITH_DATA_DIR!, ['run', 'Tier of user u4', '--sandbox', 'ecommerce'], {
    ...env,
    ...extra,
  });
  let printedAt: number | undefined;
  p.child.stdout?.on('data', () => {
    if (printedAt === undefined && p.out().includes('\nresult: ')) printedAt = Date.now();
  });
  const r = await p.done;
  const tailMs = Date.now() - (printedAt ?? Number.NaN);
  return { ...r, tailMs, out: r.out.replace(/^run [0-9a-f-]+:/, 'run ID:') };
}

describe('run traces to a collector that refuses connections or never answers', () => {
  it('the command ends without waiting on it, says so once on stderr, and keeps its output and exit code', async () => {
    const plain = await run({});
    expect(plain.code, plain.err).toBe(0);
    expect(plain.out).toContain('result: "bronze"');
    expect(plain.err).not.toContain('telemetry');

    const port = await refusedPort();
    const endpoint = `http://127.0.0.1:${port}`;
    const refused = await run({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    // From the run printed to the process gone (the pool's containers removed), beside the same run
    // without export: tens of ms more here, 8 s more when the exporter retried. Generous: a loaded
    // machine is slower to exit either way.
    expect(refused.tailMs - plain.tailMs).toBeLessThan(5_000);
    expect(refused.code, refused.err).toBe(0);
    expect(refused.out).toBe(plain.out);
    const said = refused.err.split('\n').filter((l) => l.includes('telemetry'));
    expect(said).toEqual([`telemetry: could not export to ${endpoint}/v1/traces (connection refused)`]);
  }, 180_000);

  it('a collector that never answers holds the command up for the stop wait (15 s), not the export timeout', async () => {
    // Takes every connection, reads it, never answers.
    const held: Socket[] = [];
    const silent = createServer((socket) => {
      held.push(socket);
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const r = await run({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_TIMEOUT: '120000',
      });
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain('result: "bronze"');
      // The request was taken, then given up when the process had waited 15 s to stop; it held the
      // process for its own 120 s timeout before. Generous: a loaded machine is slower to exit.
      expect(held.length).toBe(1);
      expect(r.tailMs).toBeGreaterThanOrEqual(14_000);
      expect(r.tailMs).toBeLessThan(60_000);
      const said = r.err.split('\n').filter((l) => l.includes('telemetry'));
      expect(said).toEqual([
        `telemetry: could not export to ${endpoint}/v1/traces (no answer after the process waited 15 s to stop)`,
      ]);
    } finally {
      for (const s of held) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  }, 180_000);

  it("never shows nor logs the credentials of the endpoint's URL", async () => {
    const TOKEN = 'tok3n'; // shorter than a secret the redactor learns: the URL's part is cut whatever its length
    const port = await refusedPort();
    const url = `http://ingest:${TOKEN}@127.0.0.1:${port}/v1/traces`;
    const shown = `http://[redacted]@127.0.0.1:${port}/v1/traces`;
    const r = await run({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url });
    expect(r.code, r.err).toBe(0);
    expect(r.err.split('\n').filter((l) => l.includes('telemetry'))).toEqual([
      `telemetry: could not export to ${shown} (connection refused)`,
    ]);
    const id = /^([0-9a-f-]{36}) /m.exec(
      (await cliProcess(ws, env.TOOLSMITH_DATA_DIR!, ['runs', 'list'], env).done).out,
    )?.[1];
    expect(id).toBeDefined();
    const exported = await cliProcess(
      ws,
      env.TOOLSMITH_DATA_DIR!,
      ['runs', 'export', id!, '--otlp', url],
      env,
    ).done;
    expect(exported.code).toBe(3);
    expect(exported.err).toBe(
      `toolsmith: the OTLP endpoint ${shown} did not take the trace: connection refused. No collector answers there: start one (an OpenTelemetry collector or Jaeger, OTLP/HTTP on port 4318), or check the URL after --otlp\n`,
    );
    // A collector whose own address says "proxy" (a gateway in front of collectors) is no failed proxy:
    // the advice is given (it was left out for any message holding the word).
    const gateway = `http://127.0.0.1:${port}/otel-proxy/v1/traces`;
    const viaGateway = await cliProcess(
      ws,
      env.TOOLSMITH_DATA_DIR!,
      ['runs', 'export', id!, '--otlp', gateway],
      env,
    ).done;
    expect(viaGateway.code).toBe(3);
    expect(viaGateway.err).toBe(
      `toolsmith: the OTLP endpoint ${gateway} did not take the trace: connection refused. No collector answers there: start one (an OpenTelemetry collector or Jaeger, OTLP/HTTP on port 4318), or check the URL after --otlp\n`,
    );
    // With no URL typed, the refusal says which setting named the address and what to do (it said only
    // "connection refused", so where the address came from was left to guess).
    const configured = await cliProcess(ws, env.TOOLSMITH_DATA_DIR!, ['runs', 'export', id!, '--otlp'], {
      ...env,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    }).done;
    expect(configured.code).toBe(3);
    expect(configured.err).toBe(
      `toolsmith: the OTLP endpoint http://127.0.0.1:${port}/v1/traces did not take the trace: connection refused. No collector answers there (the address OTEL_EXPORTER_OTLP_ENDPOINT names): start that collector, correct OTEL_EXPORTER_OTLP_ENDPOINT, or give another address after --otlp\n`,
    );
    // Nothing written under the workspace or the data folder (run log, run store) holds the token.
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
        d.isDirectory() ? files(join(dir, d.name)) : d.isFile() ? [join(dir, d.name)] : [],
      );
    const holding = files(base).filter((f) => readFileSync(f).includes(TOKEN));
    expect(holding).toEqual([]);
  }, 180_000);
});
