/**
 * One run: a timeline of attempts (PLAN) or steps (INTERACTIVE) and, for the selected one, the script
 * in Monaco (violations as markers and in a list), the traceback whose frames jump to script lines,
 * the prompt as sent, the raw LLM output, logs, emits, the result as a JSON tree, the tool-call trace,
 * tokens, latency and isolation. A running run updates live and can be cancelled; any attempt's script
 * can be edited and run directly, or the run continued from it.
 */
import { useEffect, useMemo, useState } from 'react';
import { formatMs, formatDateTime, StatusBadge } from '../../components/Badges.tsx';
import { JsonTree } from '../../components/JsonTree.tsx';
import { useStore } from '../../store/index.ts';
import { AddToSuite } from './AddToSuite.tsx';
import { AttemptView } from './AttemptView.tsx';
import { Timeline } from './Timeline.tsx';

export function RunDetailView({ runId }: { runId: string }) {
  const run = useStore((s) => (s.runId === runId ? s.run : undefined));
  const runLoading = useStore((s) => s.runLoading);
  const runError = useStore((s) => s.runError);
  const attemptN = useStore((s) => s.attemptN);
  const openRun = useStore((s) => s.openRun);
  const selectAttempt = useStore((s) => s.selectAttempt);
  const cancelRun = useStore((s) => s.cancelRun);
  const replayRun = useStore((s) => s.replayRun);
  const exportRun = useStore((s) => s.exportRun);
  const deleteRun = useStore((s) => s.deleteRun);
  const navigate = useStore((s) => s.navigate);
  const [now, setNow] = useState(Date.now());

  useEffect(() => void openRun(runId), [runId, openRun]);
  useEffect(() => {
    if (run?.status !== 'running') return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [run?.status]);

  const attempt = useMemo(
    () => run?.attempts.find((a) => a.n === attemptN) ?? run?.attempts[run.attempts.length - 1],
    [run, attemptN],
  );

  if (runError && !run)
    return (
      <section aria-label="run">
        <div role="alert" className="error">
          Could not open run {runId}: {runError}
        </div>
        <button onClick={() => navigate({ view: 'runs' })}>Back to runs</button>
      </section>
    );
  if (!run) return <p className="muted pad">{runLoading ? 'Loading run…' : ''}</p>;

  const origin = run.started.origin;
  return (
    <section aria-label="run" className="run-detail" data-run-status={run.status}>
      <div className="view-head">
        <button className="link" onClick={() => navigate({ view: 'runs' })}>
          ← Runs
        </button>
        <h1 className="ellipsis" title={run.started.task}>
          {run.started.task}
        </h1>
        <StatusBadge status={run.status} />
      </div>
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
              onClick={() => navigate({ view: 'templates', id: run.template })}
              title="Open the template that served this run (no LLM call)"
            >
              {run.template}
            </button>
          </span>
        )}
        <span data-testid="run-tokens">{run.tokens.total} tokens</span>
        <span>{formatMs((run.endedAt ?? now) - run.startedAt)}</span>
        <span className="muted">{formatDateTime(run.startedAt, { seconds: true })}</span>
        <span className="muted small">{run.id}</span>
        {origin && (
          <button className="link" onClick={() => navigate({ view: 'run', id: origin.runId })}>
            {origin.kind} of {origin.runId.slice(0, 8)}
            {origin.attempt ? ` #${origin.attempt}` : ''}
          </button>
        )}
        {run.suite && <SuiteRunLink suite={run.suite} />}
        <span className="spacer" />
        {run.status === 'running' && (
          <button className="danger" onClick={() => void cancelRun()}>
            Cancel
          </button>
        )}
        <button
          onClick={() => void replayRun()}
          disabled={run.status === 'running' || !run.attempts.some((a) => a.llm)}
          title="Replay from the recorded LLM outputs (no LLM call)"
        >
          Replay
        </button>
        <AddToSuite key={run.id} task={run.started.task} sandbox={run.started.sandbox} />
        <button onClick={() => void exportRun()}>Export</button>
        <button
          className="danger"
          disabled={run.status === 'running'}
          onClick={() => {
            if (confirm('Delete this run and its history?')) void deleteRun(run.id);
          }}
        >
          Delete
        </button>
      </div>
      {run.templateMiss && (
        <p className="template-miss small" data-testid="template-miss">
          <strong>No template matched:</strong> {run.templateMiss.reason}
        </p>
      )}
      {run.status === 'succeeded' && (
        <div className="outcome ok" data-testid="run-result">
          <strong>Result</strong>
          <JsonTree value={run.result} label="run result" />
        </div>
      )}
      {run.error && (
        <div className="outcome error" role="alert" data-testid="run-error">
          <strong>{run.status === 'interrupted' ? 'Interrupted' : 'Error'}:</strong> {run.error}
        </div>
      )}
      {run.status === 'interrupted' && !run.error && (
        <div className="outcome error" data-testid="run-error">
          This run was interrupted: the process that ran it stopped before it finished. Everything recorded
          until then is shown.
        </div>
      )}
      <div className="detail-body">
        <Timeline run={run} selected={attempt?.n} onSelect={selectAttempt} />
        <div className="detail-main">
          {attempt ? (
            <AttemptView run={run} a={attempt} />
          ) : (
            <p className="muted">
              {run.status === 'running' ? 'Waiting for the first attempt…' : 'This run has no attempts.'}
            </p>
          )}
        </div>
      </div>
    </section>
  );
}

/** A case of a suite run: opens the Suites view on that suite run (its matrix, charts and comparison). */
function SuiteRunLink({ suite }: { suite: { id: string; name: string } }) {
  const openSuite = useStore((s) => s.openSuite);
  const selectSuiteRun = useStore((s) => s.selectSuiteRun);
  const navigate = useStore((s) => s.navigate);
  return (
    <button
      className="link"
      data-testid="run-suite-link"
      title="Open the suite run this run is a case of"
      onClick={() =>
        void (async () => {
          await openSuite(suite.name);
          await selectSuiteRun(suite.id);
          navigate({ view: 'suites', id: suite.name });
        })()
      }
    >
      suite {suite.name} · run {suite.id.slice(0, 8)}
    </button>
  );
}
