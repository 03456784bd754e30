import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import type { TelemetryView } from '../../../../src-main/contract/api.ts';
import { TelemetrySection } from './TelemetryParts.tsx';
import '../../styles.css';

const off: TelemetryView = {
  enabled: false,
  why: 'off by default: set [telemetry] enabled = true or OTEL_TRACES_EXPORTER=otlp',
  url: 'http://localhost:4318/v1/traces',
  urlFrom: 'the default',
  configEnabled: false,
  envOverrides: [],
  warnings: [],
};

describe('Settings › Run traces', () => {
  it('off: says why and where Send trace sends; saving turns it on with the endpoint typed', async () => {
    const onSave = vi.fn();
    const screen = await render(
      <TelemetrySection telemetry={off} busy={false} error={undefined} onSave={onSave} />,
    );
    await expect
      .element(screen.getByTestId('telemetry-state'))
      .toHaveTextContent(
        "off off by default: set [telemetry] enabled = true or OTEL_TRACES_EXPORTER=otlp. A run's Send trace sends to http://localhost:4318/v1/traces (the default)",
      );
    const save = screen.getByRole('button', { name: 'Save' });
    await expect.element(save).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Clear endpoint' }).query()).toBeNull();
    await screen.getByLabelText("Send each run's trace when it ends").click();
    await screen.getByLabelText('Collector endpoint').fill('  http://collector:4318 ');
    await save.click();
    expect(onSave).toHaveBeenCalledWith({ enabled: true, endpoint: 'http://collector:4318' });
  });

  it('on, with the last trace not sent said in words, the variables that win, and Clear endpoint', async () => {
    const onSave = vi.fn();
    const t: TelemetryView = {
      enabled: true,
      url: 'http://127.0.0.1:9/v1/traces',
      urlFrom: '[telemetry] endpoint',
      endpoint: 'http://127.0.0.1:9',
      configEnabled: true,
      envOverrides: ['OTEL_TRACES_EXPORTER'],
      warnings: ['[telemetry] header x-key: OTLP_KEY is not set'],
      lastError: {
        runId: '011da13d-aaaa-bbbb',
        at: Date.UTC(2026, 0, 2, 3, 4),
        message: 'could not export to http://127.0.0.1:9/v1/traces (connection refused)',
      },
    };
    const screen = await render(
      <TelemetrySection
        telemetry={t}
        busy={false}
        error="endpoint: expected an http:// URL"
        onSave={onSave}
      />,
    );
    await expect.element(screen.getByTestId('telemetry-state')).toBeVisible();
    expect(screen.getByTestId('telemetry-state').element().textContent).toMatch(
      /each run.s trace is sent when it ends to http:\/\/127\.0\.0\.1:9\/v1\/traces/,
    );
    await expect.element(screen.getByTestId('telemetry-last-error')).toBeVisible();
    // (the text read directly: toHaveTextContent with a RegExp never matched here)
    expect(screen.getByTestId('telemetry-last-error').element().textContent).toMatch(
      /Last trace not sent: run 011da13d at .*: could not export to http:\/\/127\.0\.0\.1:9\/v1\/traces \(connection refused\)/,
    );
    await expect
      .element(screen.getByTestId('telemetry-env'))
      .toHaveTextContent('Set in the environment, and deciding over the file: OTEL_TRACES_EXPORTER.');
    await expect
      .element(screen.getByText('Ignored: [telemetry] header x-key: OTLP_KEY is not set'))
      .toBeVisible();
    await expect.element(screen.getByRole('alert')).toHaveTextContent('endpoint: expected an http:// URL');
    await expect.element(screen.getByLabelText('Collector endpoint')).toHaveValue('http://127.0.0.1:9');
    await screen.getByRole('button', { name: 'Clear endpoint' }).click();
    expect(onSave).toHaveBeenCalledWith({ enabled: true });
  });
});
