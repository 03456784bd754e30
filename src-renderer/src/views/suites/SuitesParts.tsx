/**
 * The Suites view's parts, presentational (props in, callbacks out): the list of suites, the open
 * suite's head and schema problems, the start form with the suite-run picker, the progress of a suite
 * run and the tabs that read it.
 */
import { useEffect, useState } from 'react';
import type {
  Request,
  Response,
  SuiteProgressView,
  SuiteRunFullView,
} from '../../../../src-main/contract/api.ts';
import { formatDateTime } from '../../lib/dates.ts';
import { problemText, progressLine, SUITE_TABS } from './suite-detail.ts';
import type { SuiteProblem, SuiteTab } from './suite-detail.ts';
import type { NewSuiteFields } from './new-suite.ts';
import { suiteStartOptions } from './suite-start.ts';
import type { SuiteStartFields, SuiteStartOptions } from './suite-start.ts';
import { FormRow } from '../../components/FormRow.tsx';
import { rovingTabIndex, tabListKeys } from '../../components/Tabs.tsx';

export function SuiteList({
  suites,
  current,
  onOpen,
  onNew,
}: {
  suites: Response<'suites.list'>;
  current: string | undefined;
  onOpen: (name: string) => void;
  /** Opens the New suite form. */
  onNew?: () => void;
}) {
  return (
    <aside className="suite-list">
      <h1>Suites</h1>
      {onNew && (
        <button className="primary" onClick={onNew}>
          New suite
        </button>
      )}
      {suites.length === 0 && (
        <p className="muted small">
          No suites yet: create one with New suite (it is saved as suites/NAME.toml).
        </p>
      )}
      <ul>
        {suites.map((s) => (
          <li key={s.name}>
            <button
              className={s.name === current ? 'active' : ''}
              aria-current={s.name === current ? 'page' : undefined}
              onClick={() => onOpen(s.name)}
            >
              {s.name}
              <span className="small muted">
                {' '}
                {s.cases} cases{s.last ? ` · ${s.last.status}` : ''}
              </span>
              {s.error && <span className="small error"> · problems</span>}
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}

export interface SuiteRunChoice {
  id: string;
  createdAt: number;
  status: string;
  passed: number;
  done: number;
  spec: { planned: number };
}

/** A suite run in the picker: the same counts as the progress line beside it (live while it runs). */
export function suiteRunChoiceText(r: SuiteRunChoice, live: SuiteProgressView | undefined): string {
  const p = live?.suiteRun === r.id ? live : undefined;
  const status = p?.status ?? r.status;
  return `${formatDateTime(r.createdAt)} · ${status} · ${p?.done ?? r.done}/${p?.planned ?? r.spec.planned} runs · ${p?.passed ?? r.passed} passed`;
}

export function SuiteStartForm({
  fields,
  onChange,
  onStart,
  onCancel,
  running,
  hasProblems,
  history,
  selectedRun,
  onSelectRun,
  live,
}: {
  fields: SuiteStartFields;
  onChange: (patch: Partial<SuiteStartFields>) => void;
  onStart: (options: SuiteStartOptions) => void;
  onCancel: () => void;
  /** The shown suite run is under way (Start is disabled, Cancel shown). */
  running: boolean;
  /** The suite has schema problems: it cannot start. */
  hasProblems: boolean;
  history: SuiteRunChoice[];
  selectedRun: string | undefined;
  onSelectRun: (id: string) => void;
  /** The pushed progress of the run under way. */
  live?: SuiteProgressView | undefined;
}) {
  return (
    <form
      className="toolbar suite-start"
      onSubmit={(e) => {
        e.preventDefault();
        onStart(suiteStartOptions(fields));
      }}
    >
      <input
        aria-label="models"
        placeholder="models (default: the suite's)"
        value={fields.models}
        onChange={(e) => onChange({ models: e.target.value })}
      />
      <input
        aria-label="repeat"
        type="number"
        min={1}
        max={100}
        placeholder="repeat"
        value={fields.repeat}
        onChange={(e) => onChange({ repeat: e.target.value })}
      />
      <input
        aria-label="concurrency"
        type="number"
        min={1}
        max={64}
        placeholder="concurrency"
        value={fields.concurrency}
        onChange={(e) => onChange({ concurrency: e.target.value })}
      />
      <button className="primary" type="submit" disabled={running || hasProblems} data-run-action>
        Start suite
      </button>
      {running && (
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      )}
      <span className="spacer" />
      {history.length === 0 ? (
        <span className="muted small" data-no-suite-runs>
          no suite runs yet
        </span>
      ) : (
        <label className="small">
          Suite run{' '}
          <select
            aria-label="suite run"
            value={selectedRun ?? ''}
            onChange={(e) => onSelectRun(e.target.value)}
          >
            {history.map((r) => (
              <option key={r.id} value={r.id}>
                {suiteRunChoiceText(r, live)}
              </option>
            ))}
          </select>
        </label>
      )}
    </form>
  );
}

export function SuiteHead({
  name,
  dirty,
  onSave,
  onRevert,
  onDelete,
}: {
  name: string;
  dirty: boolean;
  onSave: () => void;
  /** Drops the unsaved edit (kept across suites and views until saved or reverted). */
  onRevert?: () => void;
  onDelete?: () => void;
}) {
  return (
    <div className="view-head">
      <h2>{name}</h2>
      <span className="muted small">suites/{name}.toml</span>
      {dirty && <span className="badge">unsaved changes</span>}
      <span className="spacer" />
      {dirty && onRevert && (
        <button onClick={onRevert} title="Drop the unsaved edit: back to the file's text">
          Revert
        </button>
      )}
      <button onClick={onSave} disabled={!dirty}>
        Save
      </button>
      {onDelete && <DeleteSuite key={name} name={name} onDelete={onDelete} />}
    </div>
  );
}

export function SuiteProblems({ problems }: { problems: SuiteProblem[] }) {
  return (
    <ul className="suite-problems" data-testid="suite-problems">
      {problems.map((p, i) => (
        <li key={i} className="error small">
          line {p.line}:{p.column} {problemText(p)}
        </li>
      ))}
    </ul>
  );
}

export function SuiteProgress({
  run,
  live,
}: {
  run: SuiteRunFullView;
  /** The pushed progress of this run while it runs. */
  live: SuiteProgressView | undefined;
}) {
  const p = progressLine(run, live);
  return (
    <div className="suite-progress" data-testid="suite-progress" data-status={run.status}>
      <progress max={p.planned || 1} value={p.done} />
      <span>
        <span className={`badge status-${run.status === 'passed' ? 'succeeded' : run.status}`}>
          {run.status}
        </span>{' '}
        {p.text}
      </span>
    </div>
  );
}

const SUITE_IDS = SUITE_TABS.map((t) => t.id);

export function SuiteTabs({ tab, onTab }: { tab: SuiteTab; onTab: (tab: SuiteTab) => void }) {
  return (
    <div role="tablist" className="tabs" onKeyDown={tabListKeys(SUITE_IDS, onTab)}>
      {SUITE_TABS.map((t) => (
        <button
          key={t.id}
          role="tab"
          aria-selected={tab === t.id}
          tabIndex={rovingTabIndex(SUITE_IDS, tab, t.id)}
          className={tab === t.id ? 'active' : ''}
          onClick={() => onTab(t.id)}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}

/** New suite: its name, sandbox and first case's task (more cases come from runs or the editor). */
export function NewSuiteForm({
  sandboxes,
  busy,
  error,
  onCreate,
  onCancel,
  initial,
  onDraft,
}: {
  sandboxes: string[];
  busy: boolean;
  error: string | undefined;
  onCreate: (req: Request<'suites.create'>) => void;
  onCancel: () => void;
  /** The fields it opens with (a draft kept across a reload); else empty, in the first sandbox. */
  initial?: NewSuiteFields | undefined;
  /** The fields as they change (kept by the view, so a reload finds them again). */
  onDraft?: ((fields: NewSuiteFields) => void) | undefined;
}) {
  const [name, setName] = useState(initial?.name ?? '');
  const [sandbox, setSandbox] = useState(initial?.sandbox || (sandboxes[0] ?? ''));
  const [task, setTask] = useState(initial?.task ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  useEffect(() => onDraft?.({ name, sandbox, task, description }), [name, sandbox, task, description]);
  // The sandbox list came after the form opened (a reload on it): the first one is picked, as the select shows.
  useEffect(() => {
    if (!sandbox && sandboxes[0]) setSandbox(sandboxes[0]);
  }, [sandbox, sandboxes]);
  const nameOk = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(name);
  const problem = !name
    ? 'Name the suite.'
    : !nameOk
      ? 'A name has letters, digits, _ . - only.'
      : !sandbox
        ? 'Pick a sandbox.'
        : !task.trim()
          ? 'Write the first case’s task.'
          : undefined;
  return (
    <form
      className="manage-panel new-suite"
      aria-label="new suite"
      onSubmit={(e) => {
        e.preventDefault();
        if (!problem && !busy)
          onCreate({ name, sandbox, task: task.trim(), ...(description ? { description } : {}) });
      }}
    >
      <h2>New suite</h2>
      <FormRow label="name">
        <input value={name} onChange={(e) => setName(e.target.value)} placeholder="smoke" autoFocus />
      </FormRow>
      <FormRow label="sandbox">
        <select aria-label="sandbox" value={sandbox} onChange={(e) => setSandbox(e.target.value)}>
          {sandboxes.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </FormRow>
      <FormRow label="first case’s task">
        <textarea
          aria-label="first case’s task"
          value={task}
          rows={2}
          onChange={(e) => setTask(e.target.value)}
        />
      </FormRow>
      <FormRow label="description">
        <input value={description} onChange={(e) => setDescription(e.target.value)} />
      </FormRow>
      <p className="muted small">
        Saved as <code>suites/{name || 'NAME'}.toml</code>; add cases in the editor or from a run (“Add to
        suite”).
      </p>
      {error && (
        <div role="alert" className="error">
          {error}
        </div>
      )}
      <div className="actions">
        <button className="primary" type="submit" disabled={!!problem || busy} title={problem}>
          {busy ? 'Creating…' : 'Create suite'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Delete a suite's file, after a second click that names it. */
export function DeleteSuite({ name, onDelete }: { name: string; onDelete: () => void }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button className="danger" onClick={() => setAsking(true)}>
        Delete
      </button>
    );
  return (
    <span className="confirm" role="group" aria-label="confirm delete">
      Delete suites/{name}.toml? (its recorded runs stay){' '}
      <button className="danger" onClick={onDelete}>
        Delete suite
      </button>{' '}
      <button onClick={() => setAsking(false)}>Keep it</button>
    </span>
  );
}
