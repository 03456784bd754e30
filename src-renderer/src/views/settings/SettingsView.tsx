/**
 * Settings: the LLM providers and where their keys come from (with a form to set a key), the pool,
 * limits and runtimes of `.toolsmith/config.toml` (read-only), run traces (OpenTelemetry: on or off,
 * where, the last trace not sent, the endpoint set here), and the sandbox's state: Docker, the
 * isolation level, images (built here, with the build's output streamed as pushed events) and pools.
 */
import { useStore } from '../../store/index.ts';
import { ConfigSection } from './ConfigParts.tsx';
import { SandboxSection } from './SandboxSection.tsx';
import { ProvidersSection } from './ProvidersSection.tsx';
import '../manage.css';
import { useLoadOnMount } from '../../lib/useLoad.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import { api } from '../../api/client.ts';
import { TelemetrySection } from './TelemetryParts.tsx';
import type { TelemetrySave } from './TelemetryParts.tsx';

export function SettingsView() {
  const info = useStore((s) => s.info);
  const settings = useStore((s) => s.settings);
  const loading = useStore((s) => s.settingsLoading);
  const error = useStore((s) => s.settingsError);
  const reload = useStore((s) => s.loadSettings);
  useLoadOnMount(reload);
  const saveTelemetry = useSubmit(async (req: TelemetrySave) => {
    await api['settings.setTelemetry'](req);
    await reload();
  });

  return (
    <section aria-label="settings" className="manage-view settings-view">
      <div className="view-head">
        <h1>Settings</h1>
        <button onClick={() => void reload()} disabled={loading}>
          {loading ? 'Loading…' : 'Reload'}
        </button>
      </div>
      {error && (
        <div role="alert" className="error callout bad">
          Could not load the settings: {error} <button onClick={() => void reload()}>Retry</button>
        </div>
      )}
      {!settings && loading && <p className="muted">Loading settings…</p>}
      {settings && <ProvidersSection settings={settings} onStored={() => void reload()} />}
      <SandboxSection />
      {settings && (
        <TelemetrySection
          telemetry={settings.telemetry}
          busy={saveTelemetry.busy}
          error={saveTelemetry.error}
          onSave={(req) => void saveTelemetry.run(req)}
        />
      )}
      {settings && <ConfigSection settings={settings} {...(info ? { workspace: info.workspace } : {})} />}
    </section>
  );
}
