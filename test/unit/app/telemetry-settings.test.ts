/**
 * Settings › Telemetry through the handlers: `settings.get` says whether run traces are sent, where and
 * what names that URL, and the last trace that was not sent; `settings.setTelemetry` writes `[telemetry]
 * enabled` and `endpoint` into config.toml (the rest of the file as it was), clears the endpoint, and
 * refuses a URL without its scheme and a new endpoint that would take the collector's credentials away.
 * (Settings showed nothing of telemetry: a trace that was not sent was a notice gone with a reload.)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { SettingsView, TelemetryView } from '../../../src-main/contract/api.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const OTEL = Object.keys(process.env).filter((k) => k.startsWith('OTEL_'));
const saved = Object.fromEntries(OTEL.map((k) => [k, process.env[k]]));
beforeAll(() => {
  for (const k of OTEL) delete process.env[k];
});
afterAll(() => {
  Object.assign(process.env, saved);
});
// Each test its own workspace and service: one test's [telemetry] table is not the next one's, so each
// passes alone and in any order.
let ws: string;
let configFile: string;
let svc: ToolsmithService;
beforeEach(() => {
  ws = tempWorkspace();
  configFile = join(ws, '.toolsmith', 'config.toml');
  svc = ToolsmithService.open(ws);
});
afterEach(async () => {
  await svc.close();
  removeWorkspace(ws);
});

/** The config read again, as the service's file watcher does after a hand edit. */
const reload = () => (svc as unknown as { reloadConfig(): unknown }).reloadConfig();

const telemetry = async (): Promise<TelemetryView> => {
  const r = await dispatch(svc, 'settings.get', {});
  if (!r.ok) throw new Error(r.error.message);
  return (r.value as SettingsView).telemetry;
};

describe('Settings › Telemetry', () => {
  it('off by default: says why and where Send trace would send', async () => {
    expect(await telemetry()).toEqual({
      enabled: false,
      why: 'off by default: set [telemetry] enabled = true or OTEL_TRACES_EXPORTER=otlp',
      url: 'http://localhost:4318/v1/traces',
      urlFrom: 'the default',
      configEnabled: false,
      envOverrides: [],
      warnings: [],
    });
  });

  it('sets the endpoint and turns it on in config.toml, the rest of the file kept; clears it again', async () => {
    const before = readFileSync(configFile, 'utf8');
    const r = await dispatch(svc, 'settings.setTelemetry', {
      enabled: true,
      endpoint: 'http://127.0.0.1:9/',
    });
    expect(r).toMatchObject({
      ok: true,
      value: { enabled: true, url: 'http://127.0.0.1:9/v1/traces', urlFrom: '[telemetry] endpoint' },
    });
    const text = readFileSync(configFile, 'utf8');
    expect(text.startsWith(before.trimEnd())).toBe(true);
    expect(text.slice(before.trimEnd().length)).toBe(
      '\n\n[telemetry]\nenabled = true\nendpoint = "http://127.0.0.1:9"\n',
    );
    expect(svc.config.telemetry).toMatchObject({ enabled: true, endpoint: 'http://127.0.0.1:9' });
    expect(await telemetry()).toMatchObject({
      enabled: true,
      endpoint: 'http://127.0.0.1:9',
      configEnabled: true,
    });

    // Cleared: the line goes, the table's other keys and comments stay; traces go to the default.
    writeFileSync(
      configFile,
      text.replace(
        '[telemetry]\nenabled = true\n',
        '[telemetry]\n# mine\nenabled = true\nservice_name = "kept"\n',
      ),
    );
    reload();
    const cleared = await dispatch(svc, 'settings.setTelemetry', { enabled: false });
    expect(cleared).toMatchObject({
      ok: true,
      value: { enabled: false, url: 'http://localhost:4318/v1/traces', urlFrom: 'the default' },
    });
    const after = readFileSync(configFile, 'utf8');
    expect(after).not.toContain('endpoint');
    expect(after).toContain('[telemetry]\nenabled = false\n# mine\nservice_name = "kept"\n');
    expect(svc.config.telemetry).toMatchObject({ enabled: false, service_name: 'kept' });
    expect(svc.config.telemetry.endpoint).toBeUndefined();
  });

  it('refuses an endpoint without its scheme, naming the fix; the file unchanged', async () => {
    const before = readFileSync(configFile, 'utf8');
    const r = await dispatch(svc, 'settings.setTelemetry', { enabled: true, endpoint: 'localhost:4318' });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    if (!r.ok) expect(r.error.message).toContain('http://localhost:4318');
    expect(readFileSync(configFile, 'utf8')).toBe(before);
  });

  it("refuses a new endpoint while the collector's headers would follow it; on and off still change", async () => {
    const before = readFileSync(configFile, 'utf8');
    writeFileSync(configFile, before + '\n[telemetry.headers]\nauthorization = "env:QA9_OTLP_KEY"\n');
    process.env['QA9_OTLP_KEY'] = 'Bearer s3cret';
    try {
      reload();
      const r = await dispatch(svc, 'settings.setTelemetry', {
        enabled: true,
        endpoint: 'http://evil.example:4318',
      });
      expect(r).toMatchObject({ ok: false, error: { code: 'refused' } });
      if (!r.ok) expect(r.error.message).toContain('header authorization');
      expect(readFileSync(configFile, 'utf8')).not.toContain('evil.example');
      expect(await dispatch(svc, 'settings.setTelemetry', { enabled: true })).toMatchObject({ ok: true });
      expect(svc.config.telemetry.enabled).toBe(true);
    } finally {
      delete process.env['QA9_OTLP_KEY'];
      writeFileSync(configFile, before);
      reload();
    }
  });

  it("turning export on or off keeps the endpoint as the file writes it: its credentials, its final slash, beside the collector's headers", async () => {
    const before = readFileSync(configFile, 'utf8');
    // (this test writes a [telemetry] table of its own)
    const base = before.replace(/\n\[telemetry[^\n]*\][\s\S]*?(?=\n\[|$)/g, '');
    try {
      writeFileSync(
        configFile,
        base + '\n[telemetry]\nenabled = false\nendpoint = "https://user:s3cret@collector.example:4318"\n',
      );
      reload();
      const shown = (await telemetry()).endpoint;
      expect(shown).toMatch(/^https:\/\/\[redacted\]@collector\.example:4318\/?$/);
      // What the form sends back: the endpoint as it showed it. Before, the file got "[redacted]" in
      // place of the credentials, and the collector refused every trace after.
      expect(await dispatch(svc, 'settings.setTelemetry', { enabled: true, endpoint: shown })).toMatchObject({
        ok: true,
      });
      expect(readFileSync(configFile, 'utf8')).toContain(
        'endpoint = "https://user:s3cret@collector.example:4318"',
      );
      expect(svc.config.telemetry).toMatchObject({
        enabled: true,
        endpoint: 'https://user:s3cret@collector.example:4318',
      });
      // An edit of the shown form keeps no credentials it cannot see: refused, naming the fix.
      const r = await dispatch(svc, 'settings.setTelemetry', {
        enabled: true,
        endpoint: 'https://[redacted]@collector.example:4319',
      });
      expect(r).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
      if (!r.ok) expect(r.error.message).toContain('edit .toolsmith/config.toml yourself');
      expect(readFileSync(configFile, 'utf8')).not.toContain('[redacted]');

      writeFileSync(
        configFile,
        base +
          '\n[telemetry]\nenabled = false\nendpoint = "http://127.0.0.1:9/"\n\n[telemetry.headers]\nauthorization = "env:QA9_OTLP_KEY"\n',
      );
      process.env['QA9_OTLP_KEY'] = 'Bearer s3cret';
      reload();
      // Before: refused ("a new endpoint is not set from here"), the final slash read as another endpoint.
      expect(
        await dispatch(svc, 'settings.setTelemetry', {
          enabled: true,
          endpoint: (await telemetry()).endpoint,
        }),
      ).toMatchObject({ ok: true });
      expect(svc.config.telemetry.enabled).toBe(true);
    } finally {
      delete process.env['QA9_OTLP_KEY'];
      writeFileSync(configFile, before);
      reload();
    }
  });

  it('the last trace not sent is shown until one is sent', async () => {
    const doc = JSON.parse(readFileSync(new URL('../../fixtures/runs/run-v1.json', import.meta.url), 'utf8'));
    const imported = await dispatch(svc, 'runs.import', { doc });
    if (!imported.ok) throw new Error(imported.error.message);
    const { runId } = imported.value as { runId: string };
    // Port 9 (discard) on loopback: nothing listens, the connection is refused.
    await dispatch(svc, 'settings.setTelemetry', { enabled: false, endpoint: 'http://127.0.0.1:9' });
    const sent = await dispatch(svc, 'runs.sendTrace', { runId });
    expect(sent).toMatchObject({ ok: false, error: { code: 'infra' } });
    const t = await telemetry();
    expect(t.lastError).toMatchObject({ runId });
    expect(t.lastError?.message).toContain('http://127.0.0.1:9/v1/traces');
    svc.settings.noteTelemetry(runId);
    expect((await telemetry()).lastError).toBeUndefined();
  });
});
