/**
 * The single-run view's presentational parts (props in, callbacks out; tested in Chromium):
 * the head with the run's facts and actions, its outcome, the open error, and an attempt's toolbar.
 */
import type { ReactNode } from 'react';
import type { RunRecordView } from '../../../../src-main/contract/api.ts';
import { formatDateTime, formatMs, StatusBadge } from '../../components/Badges.tsx';
import { JsonTree } from '../../components/JsonTree.tsx';
import type { AttemptState, RunActions, RunOutcome } from './run-detail.ts';

/** The run could not be opened. */
export function RunOpenError({ runId, error, onBack }: { runId: string; error: string; onBack: () => void }) {
  return (
    <section aria-label="run">
      <div role="alert" className="error">
        Could not open run {runId}: {error}
      </div>
      <button onClick={onBack}>Back to runs</button>
    </section>
  );
}

/** The run's title line: back to the list, the task, the status. */
export function RunTitle({ run, onBack }: { run: RunRecordView; onBack: () => void }) {
  return (
    <div className="view-head">
      <button className="link" onClick={onBack}>
        ← Runs
      </button>
      <h1 className="ellipsis" title={run.started.task}>
        {run.started.task}
      </h1>
      <StatusBadge status={run.status} />
    </div>
  );
}

/**
 * The run's facts (sandbox, mode, model, tier, template, tokens, duration, origin) and its actions.
 * `now` is the clock a running run's duration counts to; `extra` holds parts that reach the store
 * (add to a suite, the suite run link).
 */
export function RunMeta(props: {
  run: RunRecordView;
  now: number;
  origin: string | undefined;
  actions: RunActions;
  suiteLink?: ReactNode;
  addToSuite?: ReactNode;
  onTemplate: (name: string) => void;
  onOrigin: (runId: string) => void;
  onCancel: () => void;
  onReplay: () => void;
  onExport: () => void;
  onSendTrace: () => void;
  onDelete: () => void;
}) {
  const { run, actions } = props;
  const origin = run.started.origin;
  return (
    <div className="meta-line">
      <span>
        {run.started.sandbox}
        {run.started.kit ? `/${run.started.kit}` : ''}
      </span>
      <span>{run.started.mode}</span>
      <span>{run.started.language}</span>
      {run.model && <span>model {run.model}</span>}
      {run.tier && <span>tier {run.tier}</span>}
      {run.template && (
        <span data-testid="served-by-template">
          served by template{' '}
          <button
            className="link"
            onClick={() => props.onTemplate(run.template!)}
            title="Open the template that served this run (no LLM call)"
          >
            {run.template}
          </button>
        </span>
      )}
      <span data-testid="run-tokens">{run.tokens.total} tokens</span>
      <span data-testid="run-duration">{formatMs((run.endedAt ?? props.now) - run.startedAt)}</span>
      <span className="muted">{formatDateTime(run.startedAt, { seconds: true })}</span>
      <span className="muted small">{run.id}</span>
      {origin && (
        <button className="link" data-testid="run-origin" onClick={() => props.onOrigin(origin.runId)}>
          {props.origin}
        </button>
      )}
      {props.suiteLink}
      <span className="spacer" />
      {actions.cancel && (
        <button className="danger" onClick={props.onCancel}>
          Cancel
        </button>
      )}
      <button
        onClick={props.onReplay}
        disabled={!actions.replay}
        title={actions.replayWhy ?? 'Replay from the recorded LLM outputs (no LLM call)'}
        aria-describedby={actions.replayWhy ? 'replay-why' : undefined}
      >
        Replay
      </button>
      {actions.replayWhy && (
        <span id="replay-why" className="muted small replay-why" data-testid="replay-why">
          {actions.replayWhy}
        </span>
      )}
      {props.addToSuite}
      <button onClick={props.onExport}>Export</button>
      <button
        onClick={props.onSendTrace}
        disabled={run.status === 'running'}
        title="Send the run as an OpenTelemetry trace to the configured OTLP endpoint (as toolsmith runs export --otlp)"
      >
        Send trace
      </button>
      <button
        className="danger"
        disabled={!actions.delete}
        onClick={() => {
          if (confirm('Delete this run and its history?')) props.onDelete();
        }}
      >
        Delete
      </button>
    </div>
  );
}

/** Why no template served the run, its result, or its error. */
export function RunOutcomePanel({
  outcome,
  templateMiss,
}: {
  outcome: RunOutcome;
  templateMiss?: { reason: string } | undefined;
}) {
  return (
    <>
      {templateMiss && (
        <p className="template-miss small" data-testid="template-miss">
          <strong>No template matched:</strong> {templateMiss.reason}
        </p>
      )}
      {outcome.kind === 'result' && (
        <div className="outcome ok" data-testid="run-result">
          <strong>Result</strong>
          <JsonTree value={outcome.value} label="run result" />
        </div>
      )}
      {outcome.kind === 'error' && (
        <div className="outcome error" role="alert" data-testid="run-error">
          <strong>{outcome.label}:</strong> {outcome.message}
        </div>
      )}
      {outcome.kind === 'interrupted' && (
        <div className="outcome error" data-testid="run-error">
          This run was interrupted: the process that ran it stopped before it finished. Everything recorded
          until then is shown.
        </div>
      )}
    </>
  );
}

/** An attempt's script toolbar: run the (edited) script, continue from it, reset, promote, make a skill. */
export function AttemptToolbar(props: {
  state: AttemptState;
  makeSkill?: ReactNode;
  onRun: () => void;
  onContinue: () => void;
  onReset: () => void;
  onPromote: () => void;
}) {
  const s = props.state;
  return (
    <div className="editor-toolbar">
      <span className="muted small" data-testid="script-caption">
        {s.caption}
      </span>
      <span className="spacer" />
      <button
        data-run-action
        disabled={!s.canRun}
        onClick={props.onRun}
        title="Run this script directly in the sandbox, no LLM (Ctrl+Enter)"
      >
        Run script
      </button>
      {s.canContinue !== undefined && (
        <button
          disabled={!s.canContinue}
          onClick={props.onContinue}
          title="Continue this run from here with this script; the LLM retries after it if it fails"
        >
          Continue from here
        </button>
      )}
      {s.dirty && <button onClick={props.onReset}>Reset</button>}
      <button
        disabled={!s.canPromote}
        title={s.canPromote ? 'Save this script as a template' : s.promoteWhy}
        aria-describedby={s.promoteWhy && !s.streaming ? 'promote-why' : undefined}
        onClick={props.onPromote}
      >
        Promote to template
      </button>
      {s.promoteWhy && !s.streaming && (
        <span id="promote-why" className="muted small promote-why" data-testid="promote-why">
          {s.promoteWhy}
        </span>
      )}
      {s.canMakeSkill &&
        (s.makeSkillWhy ? (
          <span className="muted small" data-testid="make-skill-why">
            {s.makeSkillWhy}
          </span>
        ) : (
          props.makeSkill
        ))}
    </div>
  );
}
