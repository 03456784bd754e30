/**
 * Settings › Run traces (OpenTelemetry), presentational: whether each run's trace is sent when it ends,
 * where it goes and what names that URL, the OTEL_* variables that win over the file, the settings that
 * were ignored, the last trace that was not sent, and a form that writes `[telemetry] enabled` and
 * `endpoint` (docs/telemetry.md). Settings showed nothing of it: a trace not sent was a notice, gone with
 * a reload, and turning export on meant finding the docs and the file.
 */
import { useEffect, useState } from 'react';
import type { TelemetryView } from '../../../../src-main/contract/api.ts';
import { FormRow } from '../../components/FormRow.tsx';
import { formatDateTime } from '../../lib/dates.ts';
import '../manage.css';

export interface TelemetrySave {
  enabled: boolean;
  /** The collector's base URL; absent: the line is removed (traces go to the default). */
  endpoint?: string;
}

export function TelemetrySection({
  telemetry: t,
  busy,
  error,
  onSave,
}: {
  telemetry: TelemetryView;
  busy: boolean;
  /** Why the last save was refused. */
  error: string | undefined;
  onSave: (req: TelemetrySave) => void;
}) {
  const [enabled, setEnabled] = useState(t.configEnabled);
  const [endpoint, setEndpoint] = useState(t.endpoint ?? '');
  // A saved (or reloaded) config is what the form shows next.
  useEffect(() => {
    setEnabled(t.configEnabled);
    setEndpoint(t.endpoint ?? '');
  }, [t.configEnabled, t.endpoint]);
  const typed = endpoint.trim();
  const changed = enabled !== t.configEnabled || typed !== (t.endpoint ?? '');
  return (
    <div className="manage-panel" role="region" aria-label="run traces">
      <h2>Run traces (OpenTelemetry)</h2>
      <p data-testid="telemetry-state">
        {t.enabled ? (
          <>
            <span className="badge status-succeeded">on</span> each run&apos;s trace is sent when it ends
            to{' '}
          </>
        ) : (
          <>
            <span className="badge">off</span> {t.why}. A run&apos;s <em>Send trace</em> sends to{' '}
          </>
        )}
        <code data-testid="telemetry-url">{t.url}</code> <span className="muted small">({t.urlFrom})</span>
      </p>
      {t.envOverrides.length > 0 && (
        <p className="muted small" data-testid="telemetry-env">
          Set in the environment, and deciding over the file: {t.envOverrides.join(', ')}.
        </p>
      )}
      {t.warnings.map((w) => (
        <p key={w} className="callout bad small">
          Ignored: {w}
        </p>
      ))}
      {t.lastError && (
        <p className="callout bad" data-testid="telemetry-last-error">
          Last trace not sent: run <code>{t.lastError.runId.slice(0, 8)}</code> at{' '}
          {formatDateTime(t.lastError.at)}: {t.lastError.message}. Its run&apos;s <em>Send trace</em> sends it
          again.
        </p>
      )}
      <form
        className="telemetry-form"
        aria-label="telemetry settings"
        onSubmit={(e) => {
          e.preventDefault();
          if (!busy) onSave({ enabled, ...(typed ? { endpoint: typed } : {}) });
        }}
      >
        <FormRow label="Send each run's trace when it ends" layout="check">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        </FormRow>
        <FormRow
          label="Collector endpoint"
          help="The collector's OTLP/HTTP base URL (traces go to <endpoint>/v1/traces); empty: http://localhost:4318."
          error={error}
          errorTestId="telemetry-error"
        >
          <input
            type="text"
            inputMode="url"
            value={endpoint}
            placeholder="http://localhost:4318"
            spellCheck={false}
            onChange={(e) => setEndpoint(e.target.value)}
          />
        </FormRow>
        <div className="row-actions">
          <button type="submit" disabled={busy || !changed}>
            {busy ? 'Saving…' : 'Save'}
          </button>
          {t.endpoint !== undefined && (
            <button type="button" disabled={busy} onClick={() => onSave({ enabled })}>
              Clear endpoint
            </button>
          )}
        </div>
        <p className="muted small">
          Written to .toolsmith/config.toml ([telemetry]) and used by the next run.
        </p>
      </form>
    </div>
  );
}
