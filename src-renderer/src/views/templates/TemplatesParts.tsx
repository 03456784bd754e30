/**
 * Parts of the Templates view, presentational (props in, callbacks out): the head, a promotion being
 * proposed or failing, the files that do not parse, and the list with each template's actions (test,
 * edit, delete behind a confirmation) and its test results.
 */
import { Fragment } from 'react';
import type { Response, TemplateInfo } from '../../../../src-main/contract/api.ts';
import { formatDateTime } from '../../components/Badges.tsx';
import type { TemplateTest } from '../../store/templates.ts';
import { TestResults } from './TestResults.tsx';

export function TemplatesHead({ loading, onReload }: { loading: boolean; onReload: () => void }) {
  return (
    <div className="view-head">
      <h1>Templates</h1>
      <button onClick={onReload} disabled={loading}>
        {loading ? 'Loading…' : 'Reload'}
      </button>
    </div>
  );
}

export function PromoteLoading({ what }: { what: string }) {
  return (
    <div className="manage-panel" data-testid="promote-loading">
      Proposing a template from {what}…
    </div>
  );
}

export function PromoteFailed({
  what,
  error,
  onClose,
  onBackToRun,
}: {
  what: string;
  error: string;
  onClose: () => void;
  /** Offered while the promotion's run is known. */
  onBackToRun: (() => void) | undefined;
}) {
  return (
    <div className="manage-panel">
      <div role="alert" className="error">
        Could not propose a template from {what}: {error}
      </div>
      <div className="actions">
        <button onClick={onClose}>Close</button>
        {onBackToRun && <button onClick={onBackToRun}>Back to the run</button>}
      </div>
    </div>
  );
}

export function LoadError({ error, onRetry }: { error: string; onRetry: () => void }) {
  return (
    <div role="alert" className="error callout bad">
      Could not load the templates: {error} <button onClick={onRetry}>Retry</button>
    </div>
  );
}

export function TemplateProblems({ problems }: { problems: Response<'templates.list'>['problems'] }) {
  if (problems.length === 0) return null;
  return (
    <div className="callout bad" data-testid="template-problems">
      <strong>
        {problems.length} template file{problems.length > 1 ? 's' : ''} could not be read (not served):
      </strong>
      <ul>
        {problems.map((p) => (
          <li key={p.file}>
            <code>{p.file}</code>: <span className="error">{p.error}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function TemplatesEmpty() {
  return (
    <p className="muted empty" data-testid="templates-empty">
      No templates yet. Open a run that succeeded and click <em>Promote to template</em>: the next task that
      matches its pattern runs with zero LLM calls.
    </p>
  );
}

export interface RowActions {
  onTest: (name: string) => void;
  onEdit: (t: TemplateInfo) => void;
  /** Ask to confirm deleting (a name) or stop asking (undefined). */
  onConfirmDelete: (name: string | undefined) => void;
  onDelete: (name: string) => void;
  onCloseTest: (name: string) => void;
}

export function TemplatesTable({
  templates,
  tests,
  confirmDelete,
  deleting,
  ...actions
}: {
  templates: TemplateInfo[];
  tests: Record<string, TemplateTest>;
  confirmDelete: string | undefined;
  deleting: boolean;
} & RowActions) {
  return (
    <table className="manage-table" aria-label="templates list">
      <thead>
        <tr>
          <th>Name</th>
          <th>Pattern</th>
          <th>Slots</th>
          <th>Sandbox</th>
          <th className="num">Examples</th>
          <th className="num" title="successes / failures">
            Uses ✓ / ✗
          </th>
          <th>Last used</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {templates.map((t) => (
          <TemplateRow
            key={t.name}
            t={t}
            test={tests[t.name]}
            confirming={confirmDelete === t.name}
            deleting={deleting}
            {...actions}
          />
        ))}
      </tbody>
    </table>
  );
}

function TemplateRow({
  t,
  test: ts,
  confirming,
  deleting,
  onTest,
  onEdit,
  onConfirmDelete,
  onDelete,
  onCloseTest,
}: {
  t: TemplateInfo;
  test: TemplateTest | undefined;
  confirming: boolean;
  deleting: boolean;
} & RowActions) {
  return (
    <Fragment>
      <tr data-template={t.name}>
        <td>
          <strong>{t.name}</strong>
          {t.description && <div className="small">{t.description}</div>}
          <div className="muted small ellipsis" title={t.file}>
            {t.file.replace(/^.*[/\\]/, '')}
          </div>
        </td>
        <td>
          <code>{t.pattern}</code>
        </td>
        <td>
          {Object.entries(t.slots).map(([k, v]) => (
            <span key={k} className="badge">
              {k}: {v}
            </span>
          ))}
          {Object.keys(t.slots).length === 0 && <span className="muted small">none</span>}
        </td>
        <td>
          {t.sandbox}
          {t.kit ? `/${t.kit}` : ''}
          <div className="muted small">{t.language}</div>
        </td>
        <td className="num">{t.examples.length}</td>
        <td className="num">
          <span className="counter-ok" data-testid="template-successes" title="successes">
            {t.successes}
          </span>{' '}
          /{' '}
          <span
            className={t.failures ? 'counter-bad' : 'muted'}
            data-testid="template-failures"
            title="failures"
          >
            {t.failures}
          </span>
        </td>
        <td className="small">
          {t.lastUsed ? formatDateTime(t.lastUsed) : <span className="muted">never</span>}
        </td>
        <td>
          <div className="row-actions">
            <button
              onClick={() => onTest(t.name)}
              disabled={ts?.running || t.examples.length === 0}
              title={
                t.examples.length
                  ? 'Run every example in the sandbox (counts as uses)'
                  : 'This template has no examples to test'
              }
            >
              {ts?.running ? 'Testing…' : 'Test'}
            </button>
            <button onClick={() => onEdit(t)}>Edit</button>
            {confirming ? (
              <span className="inline-confirm" role="group" aria-label={`confirm delete ${t.name}`}>
                <span className="small">Delete the file and its counters?</span>
                <button className="danger" disabled={deleting} onClick={() => onDelete(t.name)}>
                  {deleting ? 'Deleting…' : 'Yes, delete'}
                </button>
                <button onClick={() => onConfirmDelete(undefined)} disabled={deleting}>
                  Keep
                </button>
              </span>
            ) : (
              <button className="danger" onClick={() => onConfirmDelete(t.name)}>
                Delete
              </button>
            )}
          </div>
        </td>
      </tr>
      {ts && (
        <tr className="expanded" data-template-test={t.name}>
          <td colSpan={8}>
            <div className="meta-line">
              <strong className="small">Test of {t.name}</strong>
              <span className="spacer" />
              {!ts.running && (
                <button className="link" onClick={() => onCloseTest(t.name)}>
                  close
                </button>
              )}
            </div>
            <TestResults state={ts} />
          </td>
        </tr>
      )}
    </Fragment>
  );
}
