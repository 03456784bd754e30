/**
 * The standard OTLP transport variables, through the CLI as a process against real HTTPS receivers:
 * OTEL_EXPORTER_OTLP_CERTIFICATE (the collector's CA), OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and
 * _CLIENT_KEY (mTLS) and OTEL_EXPORTER_OTLP_COMPRESSION=gzip. They were ignored: a collector behind a
 * private CA failed with "self-signed certificate" whatever was set, one that asks for a client certificate
 * could not be reached at all, and gzip was never sent.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { startOtlpReceiver } from '../../support/otlp-receiver.ts';
import type { OtlpReceiver } from '../../support/otlp-receiver.ts';
import { cliProcess } from '../faults/support/processes.ts';
import { selfSignedCert } from '../../support/certs.ts';

const fx = useScriptedWorkspace({ docker: true });
const certs = mkdtempSync(join(tmpdir(), 'toolsmith-otlp-tls-'));
const pem = (name: string) => join(certs, name);

let tls: OtlpReceiver;
let mtls: OtlpReceiver;
let runId = '';

const cli = (args: string[], env: Record<string, string> = {}) => cliProcess(fx.ws, fx.data, args, env).done;

beforeAll(async () => {
  selfSignedCert(certs, 'server', { san: 'IP:127.0.0.1' });
  selfSignedCert(certs, 'client', { san: 'IP:127.0.0.1' });
  const server = { key: readFileSync(pem('server-key.pem')), cert: readFileSync(pem('server-cert.pem')) };
  tls = await startOtlpReceiver({ tls: server });
  mtls = await startOtlpReceiver({
    tls: { ...server, requestCert: true, rejectUnauthorized: true, ca: readFileSync(pem('client-cert.pem')) },
  });
});
afterAll(async () => {
  await tls?.close();
  await mtls?.close();
  rmSync(certs, { recursive: true, force: true });
});

describe('OTLP over TLS and gzip, from the standard variables', () => {
  it("a run's live trace reaches an https collector behind its own CA, gzipped", async () => {
    fx.llm.push('```python\nemit_result(get_user(user_id="u1").data["tier"])\n```');
    const run = await cli(['run', 'Tier of u1', '--sandbox', 'ecommerce', '--no-templates', '--json'], {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: tls.base,
      OTEL_EXPORTER_OTLP_CERTIFICATE: pem('server-cert.pem'),
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
    });
    expect(run.code, run.err).toBe(0);
    runId = (JSON.parse(run.out) as { id: string }).id;
    expect(run.err).not.toContain('telemetry');
    expect(tls.requests).toHaveLength(1);
    expect(tls.requests[0]!.headers['content-encoding']).toBe('gzip');
    expect(tls.spans.find((s) => s.name === 'invoke_agent toolsmith')?.attributes['toolsmith.run.id']).toBe(
      runId,
    );
  }, 300_000);

  it('without the CA the export fails naming the variable that trusts it', async () => {
    expect(runId).not.toBe('');
    const r = await cli(['runs', 'export', runId, '--otlp'], { OTEL_EXPORTER_OTLP_ENDPOINT: tls.base });
    expect(r.code).toBe(3);
    expect(r.err).toContain(`the OTLP endpoint ${tls.base}/v1/traces did not take the trace`);
    expect(r.err).toContain(
      "the collector's certificate is not trusted; give its CA's PEM file in OTEL_EXPORTER_OTLP_CERTIFICATE",
    );
    // A CA file that cannot be read is named, not silently skipped.
    const missing = await cli(['runs', 'export', runId, '--otlp'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: tls.base,
      OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE: pem('nowhere.pem'),
    });
    expect(missing.code).toBe(3);
    expect(missing.err).toContain(
      `warning: OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE="${pem('nowhere.pem')}" is ignored: the file could not be read (no such file)`,
    );
  }, 120_000);

  it('a collector that asks for a client certificate gets the one the variables name (mTLS)', async () => {
    expect(runId).not.toBe('');
    const base = {
      OTEL_EXPORTER_OTLP_ENDPOINT: mtls.base,
      OTEL_EXPORTER_OTLP_CERTIFICATE: pem('server-cert.pem'),
    };
    const without = await cli(['runs', 'export', runId, '--otlp'], base);
    expect(without.code).toBe(3);
    expect(mtls.spans).toHaveLength(0);

    const keyOnly = await cli(['runs', 'export', runId, '--otlp'], {
      ...base,
      OTEL_EXPORTER_OTLP_CLIENT_KEY: pem('client-key.pem'),
    });
    expect(keyOnly.code).toBe(3);
    expect(keyOnly.err).toContain(
      'warning: OTEL_EXPORTER_OTLP_CLIENT_KEY is ignored: a client certificate needs its key and the key its certificate',
    );

    const sent = await cli(['runs', 'export', runId, '--otlp'], {
      ...base,
      OTEL_EXPORTER_OTLP_CLIENT_KEY: pem('client-key.pem'),
      OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: pem('client-cert.pem'),
    });
    expect(sent.code, sent.err).toBe(0);
    expect(sent.out).toContain(`sent run ${runId} as trace`);
    expect(mtls.spans.some((s) => s.attributes['toolsmith.run.id'] === runId)).toBe(true);

    // Typed for one export, another URL gets the CA but not the client certificate (a credential).
    const elsewhere = await cli(['runs', 'export', runId, '--otlp', `${tls.base}/v1/traces`], {
      ...base,
      OTEL_EXPORTER_OTLP_CLIENT_KEY: pem('client-key.pem'),
      OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: pem('client-cert.pem'),
      OTEL_EXPORTER_OTLP_CERTIFICATE: pem('server-cert.pem'),
    });
    expect(elsewhere.code, elsewhere.err).toBe(0);
    expect(elsewhere.out + elsewhere.err).toContain(
      `the configured OTLP client certificate is for ${mtls.base}/v1/traces; it is not sent to ${tls.base}/v1/traces`,
    );
  }, 120_000);
});
