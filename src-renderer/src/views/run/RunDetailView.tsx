/**
 * One run: a timeline of attempts (PLAN) or steps (INTERACTIVE) and, for the selected one, the script
 * in Monaco (violations as markers and in a list), the traceback whose frames jump to script lines,
 * the prompt as sent, the raw LLM output, logs, emits, the result as a JSON tree, the tool-call trace,
 * tokens, latency and isolation. A running run updates live and can be cancelled; any attempt's script
 * can be edited and run directly, or the run continued from it.
 */
import { useStore } from '../../store/index.ts';
import { AddToSuite } from './AddToSuite.tsx';
import { AttemptView } from './AttemptView.tsx';
import { RunMeta, RunOpenError, RunOutcomePanel, RunTitle } from './RunDetailParts.tsx';
import { Timeline } from './Timeline.tsx';
import { useRunDetail } from './useRunDetail.ts';

export function RunDetailView({ runId }: { runId: string }) {
  const v = useRunDetail(runId);
  const { run, attempt, navigate } = v;
  const toRuns = () => navigate({ view: 'runs' });

  if (v.error && !run) return <RunOpenError runId={runId} error={v.error} onBack={toRuns} />;
  if (!run || !v.actions || !v.outcome) return <p className="muted pad">{v.loading ? 'Loading run…' : ''}</p>;

  return (
    <section aria-label="run" className="run-detail" data-run-status={run.status}>
      <RunTitle run={run} onBack={toRuns} />
      <RunMeta
        run={run}
        now={v.now}
        origin={v.origin}
        actions={v.actions}
        suiteLink={run.suite && <SuiteRunLink suite={run.suite} />}
        addToSuite={<AddToSuite key={run.id} task={run.started.task} sandbox={run.started.sandbox} />}
        onTemplate={(id) => navigate({ view: 'templates', id })}
        onOrigin={(id) => navigate({ view: 'run', id })}
        onCancel={v.cancel}
        onReplay={v.replay}
        onExport={v.exportRun}
        onSendTrace={v.sendTrace}
        onDelete={() => v.remove(run.id)}
      />
      <RunOutcomePanel outcome={v.outcome} templateMiss={run.templateMiss} />
      <div className="detail-body">
        <Timeline run={run} selected={attempt?.n} onSelect={v.select} />
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
