/**
 * LLM providers edited from Settings: add, edit, remove and "test connection" (a TCP connect and a
 * one-line completion; the answer names the URL and the failure). Saving writes
 * `.toolsmith/config.toml` and the service uses it at once; a key typed here is kept like keys set
 * below (the desktop keychain, or the service process only), never in the file. State and actions:
 * useProviders.ts (on the pure providers.ts); parts: ProvidersParts.tsx.
 */
import type { ReactNode } from 'react';
import { currentTests, initialDraft, keyStored, providerTested } from './providers.ts';
import type { Draft, Provider, Settings } from './providers.ts';
import { ProviderFormView, ProvidersTable } from './ProvidersParts.tsx';
import { useProviderForm, useProvidersEditor } from './useProviders.ts';

function ProviderForm({
  initial,
  editing,
  stored,
  onDone,
}: {
  initial: Draft;
  editing?: string;
  stored: boolean;
  onDone: (message?: string) => void;
}) {
  const f = useProviderForm(initial, editing, onDone);
  return (
    <ProviderFormView
      state={f.state}
      dispatch={f.dispatch}
      initial={initial}
      editing={editing}
      keyStored={stored}
      busy={f.busy}
      error={f.error}
      onTest={() => void f.test()}
      onSave={() => void f.save()}
      onCancel={() => onDone()}
    />
  );
}

/** The providers table with per-row Test, Edit and Remove, and the add form. */
export function ProvidersEditor({
  settings,
  keysSet = {},
  keyBadge,
  onChanged,
}: {
  settings: Settings;
  /** Keys set per provider in this page (a test older than the last one is not shown). */
  keysSet?: Record<string, number>;
  keyBadge: (p: Provider) => ReactNode;
  onChanged: () => void;
}) {
  const e = useProvidersEditor(onChanged);
  const { editing, notice, error } = e.state;
  const tests = currentTests(e.state, settings.providers, keysSet);
  return (
    <div className="providers-editor">
      <ProvidersTable
        providers={settings.providers}
        tests={tests}
        keyBadge={keyBadge}
        onMove={(id, to) => void e.move(id, to)}
        onTest={(id) =>
          void e.test(
            id,
            providerTested(
              settings.providers.find((p) => p.id === id),
              keysSet[id],
            ),
          )
        }
        onEdit={e.edit}
        onRemove={(id) => void e.remove(id)}
      />
      {notice && (
        <p role="status" className="callout good" data-testid="provider-notice">
          {notice}
        </p>
      )}
      {error && (
        <div role="alert" className="error">
          {error}
        </div>
      )}
      {editing === undefined ? (
        <button onClick={() => e.edit('new')} data-testid="add-provider">
          Add provider
        </button>
      ) : (
        <ProviderForm
          key={editing}
          initial={initialDraft(editing, settings.providers)}
          {...(editing === 'new' ? {} : { editing })}
          stored={editing !== 'new' && keyStored(settings.providers.find((p) => p.id === editing))}
          onDone={e.done}
        />
      )}
    </div>
  );
}
