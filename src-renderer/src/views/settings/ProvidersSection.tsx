/**
 * Settings › LLM providers: the provider list and editor (ProvidersEditor), each provider's key source,
 * and the form that sets a provider's API key.
 */
import { useEffect, useState } from 'react';
import { api } from '../../api/client.ts';
import { ProvidersEditor } from './ProvidersEditor.tsx';
import { useSubmit } from '../../lib/useSubmit.ts';
import type { Settings } from '../../store/settings.ts';
import { keyChip } from './key-chip.ts';
import { FormRow } from '../../components/FormRow.tsx';

function ProviderKeyForm({
  settings,
  onStored,
}: {
  settings: Settings;
  /** `provider`: the provider whose key was set. */
  onStored: (provider: string) => void;
}) {
  const [provider, setProvider] = useState(settings.providers[0]?.id ?? '');
  const [key, setKey] = useState('');
  const [stored, setStored] = useState<{ provider: string; where: 'keychain' | 'memory' }>();
  const { busy, error, run } = useSubmit(async () => {
    setStored(undefined);
    const r = await api['settings.setProviderKey']({ provider, key });
    setStored({ provider, where: r.where });
    setKey('');
    onStored(provider);
  });
  useEffect(() => {
    if (!settings.providers.some((p) => p.id === provider)) setProvider(settings.providers[0]?.id ?? '');
  }, [settings, provider]);
  if (settings.providers.length === 0) return null;
  const submit = async () => {
    if (!provider || !key || busy) return;
    await run();
  };
  return (
    <form
      className="key-form"
      aria-label="set provider key"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <FormRow label="Provider">
        <select value={provider} onChange={(e) => setProvider(e.target.value)}>
          {settings.providers.map((p) => (
            <option key={p.id} value={p.id}>
              {p.id}
            </option>
          ))}
        </select>
      </FormRow>
      <FormRow label="API key">
        <input
          type="password"
          autoComplete="off"
          value={key}
          placeholder="paste the key"
          onChange={(e) => setKey(e.target.value)}
        />
      </FormRow>
      <button type="submit" className="primary" disabled={!provider || !key || busy}>
        {busy ? 'Storing…' : 'Set key'}
      </button>
      {error && (
        <div role="alert" className="error" style={{ flexBasis: '100%' }}>
          Could not set the key: {error}
        </div>
      )}
      {stored && (
        <div role="status" className="callout good" style={{ flexBasis: '100%' }} data-testid="key-stored">
          Key for <strong>{stored.provider}</strong> stored in{' '}
          <strong data-testid="key-stored-where">{stored.where}</strong>
          {stored.where === 'memory'
            ? ': this process only. In the browser front end keys live in the Toolsmith service process (never in the page or on disk) and are gone when it stops; for a lasting key, export the environment variable named in the config (api_key_env) or use the desktop app, which stores keys in the OS keychain.'
            : ': the OS keychain of this desktop, used again the next time the app starts.'}
        </div>
      )}
    </form>
  );
}

export function ProvidersSection({ settings, onStored }: { settings: Settings; onStored: () => void }) {
  // How many keys were set for each provider here: a test made before a key was set (another key
  // replacing one, which the settings cannot tell apart) is no longer shown.
  const [keysSet, setKeysSet] = useState<Record<string, number>>({});
  return (
    <div className="manage-panel" role="region" aria-label="providers">
      <h2>LLM providers</h2>
      <p className="muted small">
        Tried in this order by the LLM tier. Changes are saved to <code>.toolsmith/config.toml</code> and used
        by the next run; keys are never written to the config file.
      </p>
      <ProvidersEditor
        settings={settings}
        keysSet={keysSet}
        onChanged={onStored}
        keyBadge={(p) => {
          if (p.keyFor)
            return (
              <span
                className="badge status-cancelled"
                title={`The stored key was saved for ${p.keyFor}; it is not sent to this provider's URL. Enter the key again.`}
                data-key-source="other-url"
              >
                key saved for another URL
              </span>
            );
          const chip = keyChip(p);
          return (
            <span
              className={`badge ${chip.tone === 'warn' ? 'status-cancelled' : chip.tone === 'good' ? 'status-succeeded' : 'muted'}`}
              title={chip.title}
              data-key-source={p.keySource}
              data-key-tone={chip.tone}
            >
              {chip.label}
            </span>
          );
        }}
      />
      <ProviderKeyForm
        settings={settings}
        onStored={(provider) => {
          setKeysSet((k) => ({ ...k, [provider]: (k[provider] ?? 0) + 1 }));
          onStored();
        }}
      />
    </div>
  );
}
