/**
 * One run: a timeline of attempts (PLAN) or steps (INTERACTIVE) and, for the selected one, the script
 * in Monaco (violations as markers and in a list), the traceback whose frames jump to script lines,
 * the prompt as sent, the raw LLM output, logs, emits, the result as a JSON tree, the tool-call trace,
 * tokens, latency and isolation. A running run updates live and can be cancelled; any attempt's script
 * can be edited and run directly, or the run continued from it.
 */
import { memo, useEffect, useMemo, useState } from 'react';
import type {
  AttemptView as AttemptRecord,
  PromptHead,
  RunRecordView as RunRecord,
} from '../../../../src-main/contract/api.ts';
import type { EventPayloads } from '../../../../src-main/core/records/events.ts';
import { api, errorMessage } from '../../api/client.ts';
import { formatMs, formatTime, IsolationBadge, StatusBadge } from '../../components/Badges.tsx';
import { CodeDiff, CodeEditor } from '../../components/Editors.tsx';
import { JsonTree } from '../../components/JsonTree.tsx';
import { Tabs } from '../../components/Tabs.tsx';
import { ToolCallTable } from '../../components/ToolCallTable.tsx';
import { useStore } from '../../store/index.ts';
import { attemptOutcome, defaultDiffTarget, diffPair, OUTCOME_LABEL } from './attempts.ts';

const Timeline = memo(function Timeline({
  run,
  selected,
  onSelect,
}: {
  run: RunRecord;
  selected: number | undefined;
  onSelect: (n: number) => void;
}) {
  const unit = run.started.mode === 'interactive' ? 'Step' : 'Attempt';
  return (
    <ol className="timeline" aria-label={run.started.mode === 'interactive' ? 'steps' : 'attempts'}>
      {run.attempts.map((a) => {
        const o = attemptOutcome(a, run);
        return (
          <li key={a.n}>
            <button
              className={`tl-item outcome-${o} ${a.n === selected ? 'active' : ''}`}
              aria-current={a.n === selected ? 'step' : undefined}
              data-attempt={a.n}
              onClick={() => onSelect(a.n)}
            >
              <span className="tl-title">
                {unit} {a.n}
                {a.step?.final ? ' · final' : ''}
                {a.step?.stagnant ? ' · stagnant' : ''}
              </span>
              <span className={`tl-outcome outcome-${o}`}>{OUTCOME_LABEL[o]}</span>
              <span className="muted small">
                {a.tier ?? ''}
                {a.tokens.prompt + a.tokens.completion > 0
                  ? ` · ${a.tokens.prompt + a.tokens.completion} tok`
                  : ''}
                {a.execution ? ` · ${formatMs(a.execution.durationMs)}` : ''}
              </span>
              {a.step?.summary && <span className="small ellipsis">{a.step.summary}</span>}
            </button>
          </li>
        );
      })}
      {run.attempts.length === 0 && <li className="muted">No {unit.toLowerCase()} yet.</li>}
    </ol>
  );
});

function Section({
  title,
  children,
  open = true,
  testId,
}: {
  title: string;
  children: React.ReactNode;
  open?: boolean;
  testId?: string;
}) {
  return (
    <details className="section" open={open} data-testid={testId}>
      <summary>{title}</summary>
      <div className="section-body">{children}</div>
    </details>
  );
}

/** True when an attempt's prompt is only its head (runs.get); `runs.prompt` has the text. */
const isPromptHead = (p: AttemptRecord['prompt']): p is PromptHead => !!p && !('user' in p);

function PromptPanel({ runId, a }: { runId: string; a: AttemptRecord }) {
  // runs.get carries only the prompt's head; the text is fetched when this panel opens.
  const head = a.prompt;
  const [full, setFull] = useState<EventPayloads['prompt'] | undefined>(
    head && !isPromptHead(head) ? head : undefined,
  );
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (!head || !isPromptHead(head)) return;
    let stale = false;
    api['runs.prompt']({ runId, n: a.n })
      .then((p) => !stale && setFull(p))
      .catch((e: unknown) => !stale && setError(errorMessage(e)));
    return () => {
      stale = true;
    };
  }, [runId, a.n, head]);
  if (!head)
    return <p className="muted">No prompt: this attempt came from the {a.tier ?? 'unknown'} tier.</p>;
  if (error)
    return (
      <div role="alert" className="error">
        Could not load the prompt: {error}
      </div>
    );
  if (!full) return <p className="muted">Loading the prompt…</p>;
  return (
    <div data-testid="prompt-panel">
      <p className="muted small">
        kind: {full.kind}
        {full.hints.length ? ` · hints: ${full.hints.length}` : ''} · {full.user.length} characters
      </p>
      <Section title="System" open={false}>
        <pre>{full.system}</pre>
      </Section>
      {full.sections.map((s, i) => (
        <Section key={i} title={s.title} open={s.title !== 'Tools' && s.title !== 'Rules'}>
          <pre>{s.text}</pre>
        </Section>
      ))}
      <Section title="User message as sent" open={false}>
        <pre>{full.user}</pre>
      </Section>
    </div>
  );
}

function LlmPanel({ a, live }: { a: AttemptRecord; live: string | undefined }) {
  return (
    <div data-testid="llm-panel">
      {!a.llm && live && (
        <Section title="Streaming…">
          <pre>{live}</pre>
        </Section>
      )}
      {a.llm ? (
        <Section title={`Output of ${a.llm.provider} (${a.llm.model})`}>
          <p className="muted small">
            {a.llm.promptTokens} prompt + {a.llm.completionTokens} completion tokens ·{' '}
            {formatMs(a.llm.latencyMs)}
            {a.llm.retries.length ? ` · ${a.llm.retries.length} retries` : ''}
          </p>
          <pre className="raw-output">{a.llm.text}</pre>
        </Section>
      ) : (
        !live && <p className="muted">No LLM output for this attempt.</p>
      )}
      {a.corrections.map((c, i) => (
        <Section key={i} title={`Correction ${i + 1} (${c.provider})`} open={false}>
          <pre>{c.text}</pre>
        </Section>
      ))}
      {a.llmErrors.map((e, i) => (
        <div key={i} className="error">
          {e.provider}: {e.message}
        </div>
      ))}
      {[...(a.llm?.retries ?? []), ...a.llmErrors.flatMap((e) => e.retries)].map((r, i) => (
        <div key={`r${i}`} className="muted small">
          retry {r.attempt}: {r.reason}, waited {formatMs(r.waitMs)}
        </div>
      ))}
    </div>
  );
}

function ExecutionPanel({ a }: { a: AttemptRecord }) {
  const ex = a.execution;
  const emits = a.emits;
  if (!ex && emits.length === 0)
    return (
      <p className="muted">
        {a.validation?.valid === false ? 'Not executed: the script failed validation.' : 'Not executed yet.'}
      </p>
    );
  return (
    <div data-testid="execution-panel">
      {ex && (
        <p className="meta-line">
          <span className={`badge exit-${ex.exitReason}`} data-exit={ex.exitReason}>
            exit: {ex.exitReason}
          </span>
          <IsolationBadge level={ex.isolation} />
          <span className="muted small">
            {ex.runtime} · {formatMs(ex.durationMs)}
          </span>
        </p>
      )}
      {ex?.success && (
        <Section title="Result">
          <JsonTree value={ex.data} label="result" />
        </Section>
      )}
      {(ex?.intermediates.length ?? 0) > 0 && (
        <Section title={`Intermediate emits (${ex?.intermediates.length})`}>
          {ex?.intermediates.map((d, i) => (
            <JsonTree key={i} value={d} label={`intermediate ${i + 1}`} />
          ))}
        </Section>
      )}
      {!ex && emits.length > 0 && (
        <Section title="Live emits">
          {emits.map((e, i) => (
            <div key={i}>
              <span className="muted small">{e.kind}</span>{' '}
              <JsonTree value={e.data} label={`emit ${i + 1}`} />
            </div>
          ))}
        </Section>
      )}
      <Section title={`Logs (${ex?.logs.length ?? 0})`} open={(ex?.logs.length ?? 0) > 0}>
        {ex?.logs.length ? (
          <pre className="logs">{ex.logs.join('\n')}</pre>
        ) : (
          <p className="muted">No logs.</p>
        )}
      </Section>
    </div>
  );
}

function Traceback({
  a,
  onJump,
  onJumpTools,
}: {
  a: AttemptRecord;
  onJump: (line: number) => void;
  /** A frame inside tools.py (a tool that raised): open the sandbox's tools at that line. */
  onJumpTools: (line: number) => void;
}) {
  const err = a.execution?.error;
  if (!err) return null;
  return (
    <div className="traceback" role="region" aria-label="traceback">
      <div className="error">
        <strong>{err.type}</strong>: {err.message}
      </div>
      {err.frames.length > 0 && (
        <ol className="frames">
          {err.frames.map((f, i) => (
            <li key={i}>
              {f.file ? (
                <button
                  className="link"
                  data-frame-file={f.file}
                  data-frame-line={f.line}
                  title="Open tools.py at this line"
                  onClick={() => onJumpTools(f.line)}
                >
                  {f.file} line {f.line}, in {f.name}
                </button>
              ) : (
                <button className="link" data-frame-line={f.line} onClick={() => onJump(f.line)}>
                  line {f.line}, in {f.name}
                </button>
              )}
              {f.text && <code className="small"> {f.text}</code>}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

function AttemptView({ run, a }: { run: RunRecord; a: AttemptRecord }) {
  const live = useStore((s) => s.live[a.n]);
  const jump = useStore((s) => s.jump);
  const jumpTo = useStore((s) => s.jumpTo);
  const runEdited = useStore((s) => s.runEdited);
  const continueRun = useStore((s) => s.continueRun);
  const setPromote = useStore((s) => s.setPromote);
  const navigate = useStore((s) => s.navigate);
  const original = a.script?.body ?? '';
  const [edited, setEdited] = useState(original);
  const [tab, setTab] = useState<'execution' | 'tools' | 'prompt' | 'llm' | 'diff'>('execution');
  const [diffWith, setDiffWith] = useState<number>();
  useEffect(() => setEdited(original), [original, a.n]);
  const dirty = edited !== original && edited.trim() !== '';
  const streaming = !a.script && !!live;
  const violations = a.validation?.violations ?? [];
  const others = run.attempts.filter((x) => x.n !== a.n && x.script);
  const unit = run.started.mode === 'interactive' ? 'step' : 'attempt';
  const diffTarget = others.find((x) => x.n === diffWith) ?? defaultDiffTarget(a, others);
  const diff = diffTarget ? diffPair(a, diffTarget, unit) : undefined;

  return (
    <div className="attempt" data-testid="attempt-view" data-attempt={a.n}>
      <div className="meta-line">
        <strong>
          {unit === 'step' ? 'Step' : 'Attempt'} {a.n}
        </strong>
        <span className={`tl-outcome outcome-${attemptOutcome(a, run)}`}>
          {OUTCOME_LABEL[attemptOutcome(a, run)]}
        </span>
        {a.tier && <span className="badge">tier: {a.tier}</span>}
        {a.provider && <span className="muted small">provider {a.provider}</span>}
        {a.llm && <span className="muted small">model {a.llm.model}</span>}
        <span className="muted small" data-testid="attempt-tokens">
          tokens {a.tokens.prompt}+{a.tokens.completion}
        </span>
        {a.llmLatencyMs > 0 && <span className="muted small">LLM {formatMs(a.llmLatencyMs)}</span>}
        {a.execution && <IsolationBadge level={a.execution.isolation} />}
      </div>
      {a.step && (
        <p className="step-summary">
          {a.step.summary}
          {a.step.stagnant && <span className="badge status-interrupted"> stagnant</span>}
          {a.step.final && <span className="badge"> final</span>}
        </p>
      )}
      <div className="editor-toolbar">
        <span className="muted small">
          {streaming
            ? 'Streaming from the LLM…'
            : a.script
              ? `script (${a.script.language}, from ${a.script.source})`
              : 'no script'}
          {dirty ? ' · edited' : ''}
        </span>
        <span className="spacer" />
        <button
          data-run-action
          disabled={!edited.trim() || streaming}
          onClick={() => void runEdited(edited, a.n)}
          title="Run this script directly in the sandbox, no LLM (Ctrl+Enter)"
        >
          Run script
        </button>
        {run.started.mode === 'plan' && (
          <button
            disabled={!edited.trim() || streaming || run.status === 'running'}
            onClick={() => void continueRun(edited, a.n)}
            title="Continue this run from here with this script; the LLM retries after it if it fails"
          >
            Continue from here
          </button>
        )}
        {dirty && <button onClick={() => setEdited(original)}>Reset</button>}
        <button
          disabled={!a.execution?.success}
          title={
            a.execution?.success
              ? 'Save this script as a template'
              : 'Only a script that succeeded can become a template'
          }
          onClick={() => {
            setPromote({ runId: run.id, attempt: a.n });
            navigate({ view: 'templates' });
          }}
        >
          Promote to template
        </button>
      </div>
      <CodeEditor
        label="script"
        value={streaming ? (live ?? '') : edited}
        readOnly={streaming}
        language={run.started.language}
        onChange={setEdited}
        violations={dirty ? [] : violations}
        jump={jump}
        onRun={() => !streaming && edited.trim() && void runEdited(edited, a.n)}
        height={300}
      />
      {violations.length > 0 && (
        <ul className="violations" aria-label="violations">
          {violations.map((v, i) => (
            <li key={i}>
              <button className="link" onClick={() => jumpTo(v.line, v.column)}>
                line {v.line}:{v.column}
              </button>{' '}
              <code>{v.rule}</code> {v.message}
            </li>
          ))}
        </ul>
      )}
      {a.rejected.length > 0 && (
        <Section title={`Rejected candidates (${a.rejected.length})`} open={false}>
          {a.rejected.map((r, i) => (
            <div key={i} className="rejected" data-testid="rejected-candidate">
              <p className="muted small">
                candidate {i + 1} from {r.script.source}, redone after validation
              </p>
              <CodeEditor
                label={`rejected-${i + 1}`}
                value={r.script.body}
                readOnly
                language={r.script.language}
                violations={r.violations}
                height={Math.min(60 + 19 * r.script.body.split('\n').length, 260)}
              />
              <ul>
                {r.violations.map((v, j) => (
                  <li key={j}>
                    line {v.line}:{v.column} <code>{v.rule}</code> {v.message}
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </Section>
      )}
      <Traceback
        a={a}
        onJump={(line) => jumpTo(line)}
        onJumpTools={(line) => navigate({ view: 'tools', id: run.started.sandbox, line })}
      />
      <Tabs
        tabs={
          [
            ['execution', 'Execution'],
            ['tools', `Tool calls (${a.toolCalls.length})`],
            ['prompt', 'Prompt'],
            ['llm', 'LLM output'],
            ['diff', 'Diff'],
          ] as const
        }
        selected={tab}
        onSelect={setTab}
      />
      <div role="tabpanel" className="tabpanel">
        {tab === 'execution' && <ExecutionPanel a={a} />}
        {tab === 'tools' && <ToolCallTable calls={a.toolCalls} label="tool calls" />}
        {tab === 'prompt' && <PromptPanel runId={run.id} a={a} />}
        {tab === 'llm' && <LlmPanel a={a} live={live} />}
        {tab === 'diff' &&
          (others.length === 0 ? (
            <p className="muted">No other {unit} with a script to compare.</p>
          ) : (
            <div>
              <label>
                Compare {unit} {a.n} with{' '}
                <select
                  aria-label="diff with"
                  value={diffTarget?.n ?? ''}
                  onChange={(e) => setDiffWith(Number(e.target.value))}
                >
                  {others.map((x) => (
                    <option key={x.n} value={x.n}>
                      {unit} {x.n}
                    </option>
                  ))}
                </select>
              </label>
              <div className="diff-labels" data-testid="diff-labels">
                <span data-testid="diff-original-label">{diff?.originalLabel}</span>
                <span data-testid="diff-modified-label">{diff?.modifiedLabel}</span>
              </div>
              <CodeDiff
                label="attempts"
                original={diff?.original ?? ''}
                modified={diff?.modified ?? ''}
                language={run.started.language}
              />
            </div>
          ))}
      </div>
    </div>
  );
}

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
        <span data-testid="run-tokens">{run.tokens.total} tokens</span>
        <span>{formatMs((run.endedAt ?? now) - run.startedAt)}</span>
        <span className="muted">{formatTime(run.startedAt)}</span>
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
