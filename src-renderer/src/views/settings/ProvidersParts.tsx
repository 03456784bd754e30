/**
 * The providers editor's parts, presentational (props in, callbacks out): a connection test's
 * outcome, the provider form, and the providers table with its row actions.
 */
import type { Dispatch, ReactNode } from 'react';
import { draftValid, needsKeyAgain, PRESETS } from './providers.ts';
import type {
  Draft,
  Kind,
  Provider,
  ProviderFormAction,
  ProviderFormState,
  TestResult,
} from './providers.ts';
import { FormRow } from '../../components/FormRow.tsx';

export function TestOutcome({ result }: { result: TestResult }) {
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

export function ProviderFormView({
  state,
  dispatch,
  initial,
  editing,
  keyStored,
  busy,
  error,
  onTest,
  onSave,
  onCancel,
}: {
  state: ProviderFormState;
  dispatch: Dispatch<ProviderFormAction>;
  /** The draft the form opened with (an edited provider's saved values). */
  initial: Draft;
  /** The id being edited (absent when adding). */
  editing?: string | undefined;
  /** The edited provider has a stored key (bound to the URL it was saved for). */
  keyStored: boolean;
  busy: 'save' | 'test' | undefined;
  error: string | undefined;
  onTest: () => void;
  onSave: () => void;
  onCancel: () => void;
}) {
  const d = state.draft;
  const set = (patch: Partial<Draft>) => dispatch({ type: 'set', patch });
  const valid = draftValid(d);
  return (
    <form
      className="provider-form"
      aria-label={editing ? `edit provider ${editing}` : 'add provider'}
      onSubmit={(e) => {
        e.preventDefault();
        if (valid) onSave();
      }}
    >
      {!editing && (
        <div className="preset-row small">
          <span className="muted">Start from:</span>
          {PRESETS.map((p) => (
            <button type="button" key={p.label} onClick={() => dispatch({ type: 'preset', draft: p.draft })}>
              {p.label}
            </button>
          ))}
        </div>
      )}
      <div className="provider-fields">
        <FormRow label="Provider id">
          <input value={d.id} onChange={(e) => set({ id: e.target.value })} placeholder="local" />
        </FormRow>
        <FormRow label="Kind">
          <select value={d.kind} onChange={(e) => set({ kind: e.target.value as Kind })}>
            <option value="openai">openai (OpenAI-compatible)</option>
            <option value="anthropic">anthropic</option>
          </select>
        </FormRow>
        <FormRow label="Base URL" className="wide">
          <input
            value={d.baseUrl}
            onChange={(e) => set({ baseUrl: e.target.value })}
            placeholder={
              d.kind === 'anthropic'
                ? 'https://api.anthropic.com (default)'
                : 'https://api.openai.com/v1 (default)'
            }
          />
        </FormRow>
        <FormRow label="Model">
          <input value={d.model} onChange={(e) => set({ model: e.target.value })} />
        </FormRow>
        <FormRow label="Key variable">
          <input
            value={d.apiKeyEnv}
            onChange={(e) => set({ apiKeyEnv: e.target.value })}
            placeholder="OPENAI_API_KEY"
          />
        </FormRow>
        <FormRow
          label="API key"
          help={
            needsKeyAgain(d, initial, editing, keyStored) && (
              <span data-testid="key-again">
                A stored key goes only to the URL it was saved for: enter it again for this URL.
              </span>
            )
          }
        >
          <input
            type="password"
            autoComplete="off"
            value={d.apiKey}
            onChange={(e) => set({ apiKey: e.target.value })}
            placeholder={editing ? 'unchanged' : 'optional'}
          />
        </FormRow>
      </div>
      {!editing && (
        <FormRow layout="check" label="Make it the default (tried first)">
          <input
            type="checkbox"
            checked={state.first}
            onChange={(e) => dispatch({ type: 'first', first: e.target.checked })}
          />
        </FormRow>
      )}
      <div className="row-actions">
        <button type="button" onClick={onTest} disabled={!valid || !!busy}>
          {busy === 'test' ? 'Testing…' : 'Test connection'}
        </button>
        <button type="submit" className="primary" disabled={!valid || !!busy}>
          {busy === 'save' ? 'Saving…' : editing ? 'Save changes' : 'Add provider'}
        </button>
        <button type="button" onClick={onCancel} disabled={!!busy}>
          Cancel
        </button>
      </div>
      {state.tested && <TestOutcome result={state.tested} />}
      {error && (
        <div role="alert" className="error">
          {error}
        </div>
      )}
    </form>
  );
}

export function ProvidersTable({
  providers,
  tests,
  keyBadge,
  onMove,
  onTest,
  onEdit,
  onRemove,
}: {
  providers: Provider[];
  tests: Record<string, TestResult | 'running'>;
  keyBadge: (p: Provider) => ReactNode;
  onMove: (id: string, to: number) => void;
  onTest: (id: string) => void;
  onEdit: (id: string) => void;
  onRemove: (id: string) => void;
}) {
  if (providers.length === 0)
    return (
      <p className="warn">No provider is configured: add one below (the LLM tier needs at least one).</p>
    );
  const last = providers.length - 1;
  return (
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
        {providers.map((p, i) => {
          const t = tests[p.id];
          return (
            <tr key={p.id} data-provider={p.id} data-default={i === 0 ? 'true' : undefined}>
              <td>
                <strong>{p.id}</strong>{' '}
                {i === 0 && last > 0 && (
                  <span className="badge" title="Tried first by the LLM tier" data-testid="default-provider">
                    default
                  </span>
                )}
              </td>
              <td>{p.kind}</td>
              <td>
                <code>{p.model}</code>
              </td>
              <td className="small url-cell">{p.baseUrl ?? <span className="muted">default</span>}</td>
              <td>{keyBadge(p)}</td>
              <td className="row-actions">
                {last > 0 && (
                  <>
                    <button
                      onClick={() => onMove(p.id, i - 1)}
                      disabled={i === 0}
                      aria-label={`move ${p.id} up`}
                      title="Try this provider earlier"
                    >
                      ↑
                    </button>
                    <button
                      onClick={() => onMove(p.id, i + 1)}
                      disabled={i === last}
                      aria-label={`move ${p.id} down`}
                      title="Try this provider later"
                    >
                      ↓
                    </button>
                    {i > 0 && (
                      <button onClick={() => onMove(p.id, 0)} aria-label={`make ${p.id} the default`}>
                        Make default
                      </button>
                    )}
                  </>
                )}
                <button onClick={() => onTest(p.id)} disabled={t === 'running'} aria-label={`test ${p.id}`}>
                  {t === 'running' ? 'Testing…' : 'Test'}
                </button>
                <button onClick={() => onEdit(p.id)} aria-label={`edit ${p.id}`}>
                  Edit
                </button>
                <button className="danger" onClick={() => onRemove(p.id)} aria-label={`remove ${p.id}`}>
                  Remove
                </button>
                {t && t !== 'running' && <TestOutcome result={t} />}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
