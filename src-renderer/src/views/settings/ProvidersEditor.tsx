/**
 * LLM providers edited from Settings: add, edit, remove and "test connection" (a TCP connect and a
 * one-line completion; the answer names the URL and the failure). Saving writes
 * `.toolsmith/config.toml` and the service uses it at once; a key typed here is kept like keys set
 * below (the desktop keychain, or the service process only), never in the file.
 */
import { useState } from 'react';
import type { Response } from '../../../../src-main/contract/api.ts';
import { api, errorMessage } from '../../api/client.ts';
import { useSubmit } from '../../lib/useSubmit.ts';

type Settings = Response<'settings.get'>;
type Provider = Settings['providers'][number];
type TestResult = Response<'providers.test'>;
type Kind = 'openai' | 'anthropic';

interface Draft {
  id: string;
  kind: Kind;
  baseUrl: string;
  model: string;
  apiKeyEnv: string;
  apiKey: string;
}

const EMPTY: Draft = { id: '', kind: 'openai', baseUrl: '', model: '', apiKeyEnv: '', apiKey: '' };

const PRESETS: { label: string; draft: Partial<Draft> }[] = [
  {
    label: 'Ollama',
    draft: { id: 'ollama', kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5-coder:7b' },
  },
  { label: 'vLLM', draft: { id: 'vllm', kind: 'openai', baseUrl: 'http://127.0.0.1:8000/v1', model: '' } },
  {
    label: 'LM Studio',
    draft: { id: 'lmstudio', kind: 'openai', baseUrl: 'http://127.0.0.1:1234/v1', model: '' },
  },
  {
    label: 'OpenAI',
    draft: { id: 'openai', kind: 'openai', baseUrl: '', model: 'gpt-4.1-mini', apiKeyEnv: 'OPENAI_API_KEY' },
  },
  {
    label: 'Anthropic',
    draft: {
      id: 'anthropic',
      kind: 'anthropic',
      baseUrl: '',
      model: 'claude-sonnet-4-5',
      apiKeyEnv: 'ANTHROPIC_API_KEY',
    },
  },
];

function TestOutcome({ result }: { result: TestResult }) {
  return (
    <div
      role="status"
      className={`callout ${result.ok ? 'good' : 'bad'}`}
      data-testid="provider-test-result"
      data-ok={result.ok ? 'true' : 'false'}
    >
      {result.ok ? (
        <>
          Connected to <code>{result.url}</code>: <code>{result.model}</code> answered in {result.latencyMs}{' '}
          ms
          {result.reply ? (
            <>
              {' '}
              (<q>{result.reply.trim().slice(0, 60)}</q>)
            </>
          ) : null}
          .
        </>
      ) : (
        <>
          Failed after {result.latencyMs} ms: {result.error ?? `cannot reach ${result.url}`}
        </>
      )}
    </div>
  );
}

function ProviderForm({
  initial,
  editing,
  onDone,
}: {
  initial: Draft;
  /** The id being edited (absent when adding). */
  editing?: string;
  onDone: (message?: string) => void;
}) {
  const [d, setD] = useState<Draft>(initial);
  const [tested, setTested] = useState<TestResult>();
  /** A new provider: try it first (the default) rather than last. */
  const [first, setFirst] = useState(true);
  const set = (patch: Partial<Draft>) => setD((x) => ({ ...x, ...patch }));
  const valid = d.id.trim() !== '' && d.model.trim() !== '';
  const fields = () => ({
    kind: d.kind,
    model: d.model.trim(),
    ...(d.baseUrl.trim() ? { baseUrl: d.baseUrl.trim() } : {}),
    ...(d.apiKey ? { apiKey: d.apiKey } : {}),
  });
  const testing = useSubmit(async () => {
    setTested(undefined);
    setTested(await api['providers.test']({ ...(d.id.trim() ? { id: d.id.trim() } : {}), ...fields() }));
  });
  const saving = useSubmit(async () => {
    const r = await api['providers.save']({
      id: d.id.trim(),
      ...fields(),
      ...(d.apiKeyEnv.trim() ? { apiKeyEnv: d.apiKeyEnv.trim() } : {}),
      ...(editing ? { previousId: editing } : {}),
    });
    if (!editing && first) await api['providers.move']({ id: r.id, to: 0 });
    onDone(
      `Provider ${r.id} saved to the workspace config${r.keyStored ? ` (key kept in ${r.keyStored})` : ''}${!editing && first ? ', as the default (tried first)' : ''}.`,
    );
  });
  // One error line for both actions: starting either clears it.
  const busy = saving.busy ? 'save' : testing.busy ? 'test' : undefined;
  const error = testing.error ?? saving.error;
  const test = () => {
    saving.setError(undefined);
    return testing.run();
  };
  const save = () => {
    testing.setError(undefined);
    return saving.run();
  };
  return (
    <form
      className="provider-form"
      aria-label={editing ? `edit provider ${editing}` : 'add provider'}
      onSubmit={(e) => {
        e.preventDefault();
        if (valid) void save();
      }}
    >
      {!editing && (
        <div className="preset-row small">
          <span className="muted">Start from:</span>
          {PRESETS.map((p) => (
            <button type="button" key={p.label} onClick={() => setD({ ...EMPTY, ...p.draft })}>
              {p.label}
            </button>
          ))}
        </div>
      )}
      <div className="provider-fields">
        <label className="field">
          Provider id
          <input value={d.id} onChange={(e) => set({ id: e.target.value })} placeholder="local" />
        </label>
        <label className="field">
          Kind
          <select value={d.kind} onChange={(e) => set({ kind: e.target.value as Kind })}>
            <option value="openai">openai (OpenAI-compatible)</option>
            <option value="anthropic">anthropic</option>
          </select>
        </label>
        <label className="field wide">
          Base URL
          <input
            value={d.baseUrl}
            onChange={(e) => set({ baseUrl: e.target.value })}
            placeholder={
              d.kind === 'anthropic'
                ? 'https://api.anthropic.com (default)'
                : 'https://api.openai.com/v1 (default)'
            }
          />
        </label>
        <label className="field">
          Model
          <input value={d.model} onChange={(e) => set({ model: e.target.value })} />
        </label>
        <label className="field">
          Key variable
          <input
            value={d.apiKeyEnv}
            onChange={(e) => set({ apiKeyEnv: e.target.value })}
            placeholder="OPENAI_API_KEY"
          />
        </label>
        <label className="field">
          API key
          <input
            type="password"
            autoComplete="off"
            value={d.apiKey}
            onChange={(e) => set({ apiKey: e.target.value })}
            placeholder={editing ? 'unchanged' : 'optional'}
          />
          {editing && d.baseUrl.trim() !== initial.baseUrl.trim() && !d.apiKey && (
            <span className="muted small" data-testid="key-again">
              A stored key goes only to the URL it was saved for: enter it again for this URL.
            </span>
          )}
        </label>
      </div>
      {!editing && (
        <label className="check">
          <input type="checkbox" checked={first} onChange={(e) => setFirst(e.target.checked)} /> Make it the
          default (tried first)
        </label>
      )}
      <div className="row-actions">
        <button type="button" onClick={() => void test()} disabled={!valid || !!busy}>
          {busy === 'test' ? 'Testing…' : 'Test connection'}
        </button>
        <button type="submit" className="primary" disabled={!valid || !!busy}>
          {busy === 'save' ? 'Saving…' : editing ? 'Save changes' : 'Add provider'}
        </button>
        <button type="button" onClick={() => onDone()} disabled={!!busy}>
          Cancel
        </button>
      </div>
      {tested && <TestOutcome result={tested} />}
      {error && (
        <div role="alert" className="error">
          {error}
        </div>
      )}
    </form>
  );
}

const draftOf = (p: Provider): Draft => ({
  id: p.id,
  kind: p.kind === 'anthropic' ? 'anthropic' : 'openai',
  baseUrl: p.baseUrl ?? '',
  model: p.model,
  apiKeyEnv: p.apiKeyEnv ?? '',
  apiKey: '',
});

/** The providers table with per-row Test, Edit and Remove, and the add form. */
export function ProvidersEditor({
  settings,
  keyBadge,
  onChanged,
}: {
  settings: Settings;
  keyBadge: (p: Provider) => React.ReactNode;
  onChanged: () => void;
}) {
  const [editing, setEditing] = useState<string | 'new'>();
  const [tests, setTests] = useState<Record<string, TestResult | 'running'>>({});
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<string>();
  const done = (message?: string) => {
    setEditing(undefined);
    if (message) {
      setNotice(message);
      onChanged();
    }
  };
  const test = async (id: string) => {
    setTests((t) => ({ ...t, [id]: 'running' }));
    try {
      const r = await api['providers.test']({ id });
      setTests((t) => ({ ...t, [id]: r }));
    } catch (e) {
      setError(errorMessage(e));
      setTests((t) => {
        const { [id]: _gone, ...rest } = t;
        return rest;
      });
    }
  };
  const move = async (id: string, to: number) => {
    setError(undefined);
    try {
      const r = await api['providers.move']({ id, to });
      setNotice(
        to === 0 ? `${id} is now the default provider (tried first).` : `Order: ${r.order.join(', ')}.`,
      );
      onChanged();
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  const remove = async (id: string) => {
    if (!confirm(`Remove provider ${id} from the workspace config?`)) return;
    setError(undefined);
    try {
      await api['providers.remove']({ id });
      setNotice(`Provider ${id} removed.`);
      onChanged();
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  return (
    <div className="providers-editor">
      {settings.providers.length === 0 ? (
        <p className="warn">No provider is configured: add one below (the LLM tier needs at least one).</p>
      ) : (
        <table className="manage-table" aria-label="providers list">
          <thead>
            <tr>
              <th>id</th>
              <th>kind</th>
              <th>model</th>
              <th>base URL</th>
              <th>key</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {settings.providers.map((p, i) => {
              const t = tests[p.id];
              const last = settings.providers.length - 1;
              return (
                <tr key={p.id} data-provider={p.id} data-default={i === 0 ? 'true' : undefined}>
                  <td>
                    <strong>{p.id}</strong>{' '}
                    {i === 0 && last > 0 && (
                      <span
                        className="badge"
                        title="Tried first by the LLM tier"
                        data-testid="default-provider"
                      >
                        default
                      </span>
                    )}
                  </td>
                  <td>{p.kind}</td>
                  <td>
                    <code>{p.model}</code>
                  </td>
                  <td className="small">{p.baseUrl ?? <span className="muted">default</span>}</td>
                  <td>{keyBadge(p)}</td>
                  <td className="row-actions">
                    {last > 0 && (
                      <>
                        <button
                          onClick={() => void move(p.id, i - 1)}
                          disabled={i === 0}
                          aria-label={`move ${p.id} up`}
                          title="Try this provider earlier"
                        >
                          ↑
                        </button>
                        <button
                          onClick={() => void move(p.id, i + 1)}
                          disabled={i === last}
                          aria-label={`move ${p.id} down`}
                          title="Try this provider later"
                        >
                          ↓
                        </button>
                        {i > 0 && (
                          <button onClick={() => void move(p.id, 0)} aria-label={`make ${p.id} the default`}>
                            Make default
                          </button>
                        )}
                      </>
                    )}
                    <button
                      onClick={() => void test(p.id)}
                      disabled={t === 'running'}
                      aria-label={`test ${p.id}`}
                    >
                      {t === 'running' ? 'Testing…' : 'Test'}
                    </button>
                    <button onClick={() => setEditing(p.id)} aria-label={`edit ${p.id}`}>
                      Edit
                    </button>
                    <button
                      className="danger"
                      onClick={() => void remove(p.id)}
                      aria-label={`remove ${p.id}`}
                    >
                      Remove
                    </button>
                    {t && t !== 'running' && <TestOutcome result={t} />}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
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
        <button onClick={() => setEditing('new')} data-testid="add-provider">
          Add provider
        </button>
      ) : (
        <ProviderForm
          key={editing}
          initial={
            editing === 'new'
              ? EMPTY
              : draftOf(settings.providers.find((p) => p.id === editing) ?? settings.providers[0]!)
          }
          {...(editing === 'new' ? {} : { editing })}
          onDone={done}
        />
      )}
    </div>
  );
}
