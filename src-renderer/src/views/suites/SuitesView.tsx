/**
 * Suites: the workspace's test suites (suites/*.toml). Edit a suite in Monaco with its schema problems as
 * markers, start it with live progress, and read a suite run as a matrix (filters, cells open their
 * runs), as charts, or against an earlier run. Its server state lives in the suites slice
 * (store/suites.ts); the list and the start form are presentational parts (SuitesParts.tsx).
 */
import { defaultBase } from './derive.ts';
import { fitEditorHeight } from '../../lib/editor-size.ts';
import { useEffect, useMemo, useState } from 'react';
import type { Violation } from '../../../../src-main/core/lang/violation.ts';
import { CodeEditor } from '../../components/Editors.tsx';
import { SuiteCharts } from './SuiteCharts.tsx';
import { SuiteComparison } from './SuiteComparison.tsx';
import { SuiteMatrix } from './SuiteMatrix.tsx';
import { useStore } from '../../store/index.ts';
import { initialSuiteStart } from './suite-start.ts';
import { SuiteList, SuiteStartForm } from './SuitesParts.tsx';
import './suites.css';

type Tab = 'matrix' | 'charts' | 'compare';

export function SuitesView({ name }: { name?: string | undefined }) {
  const list = useStore((s) => s.suiteList);
  const loadSuites = useStore((s) => s.loadSuites);
  const openSuite = useStore((s) => s.openSuite);
  const current = useStore((s) => s.suiteName);
  const navigate = useStore((s) => s.navigate);

  useEffect(() => void loadSuites(), [loadSuites]);
  useEffect(() => {
    const target = name ?? list[0]?.name;
    if (target && target !== current) void openSuite(target);
  }, [name, list, current, openSuite]);

  return (
    <section aria-label="suites" className="suites-view">
      <SuiteList suites={list} current={current} onOpen={(id) => navigate({ view: 'suites', id })} />
      {current ? <SuiteDetail /> : <p className="muted pad">Pick a suite.</p>}
    </section>
  );
}

function SuiteDetail() {
  const name = useStore((s) => s.suiteName);
  const text = useStore((s) => s.suiteText);
  const saved = useStore((s) => s.suiteSaved);
  const problems = useStore((s) => s.suiteProblems);
  const edit = useStore((s) => s.editSuite);
  const save = useStore((s) => s.saveSuite);
  const start = useStore((s) => s.startSuite);
  const cancel = useStore((s) => s.cancelSuite);
  const run = useStore((s) => s.suiteRun);
  const progress = useStore((s) => s.suiteProgress);
  const history = useStore((s) => s.suiteHistory);
  const select = useStore((s) => s.selectSuiteRun);
  const comparison = useStore((s) => s.comparison);
  const compareWith = useStore((s) => s.compareWith);
  const [startFields, setStartFields] = useState(initialSuiteStart);
  const [tab, setTab] = useState<Tab>('matrix');
  const markers = useMemo<Violation[]>(
    () =>
      problems.map((p) => ({
        rule: 'suite',
        message: `${p.path ? `${p.path}: ` : ''}${p.message}`,
        line: p.line,
        column: p.column,
        endLine: p.line,
        endColumn: 1000,
      })),
    [problems],
  );
  const running = run?.status === 'running';
  // Compare opens on the previous run of the suite (the base `eval --compare` uses) until one is chosen.
  const base = run ? defaultBase(history, run) : undefined;
  useEffect(() => {
    if (tab === 'compare' && run && base && comparison?.head !== run.id) void compareWith(base);
  }, [tab, run, base, comparison?.head, compareWith]);
  const live = progress && progress.suiteRun === run?.id ? progress : undefined;
  const done = live?.done ?? run?.done ?? 0;
  const planned = run?.spec.planned ?? 0;

  return (
    <div className="suite-detail">
      <div className="view-head">
        <h2>{name}</h2>
        <span className="muted small">suites/{name}.toml</span>
        <span className="spacer" />
        <button onClick={() => void save()} disabled={text === saved}>
          Save
        </button>
      </div>
      <CodeEditor
        label="suite"
        language="toml"
        value={text}
        onChange={edit}
        violations={markers}
        height={fitEditorHeight(text, { min: 160, max: 420 })}
      />
      <ul className="suite-problems" data-testid="suite-problems">
        {problems.map((p, i) => (
          <li key={i} className="error small">
            line {p.line}:{p.column} {p.path ? `${p.path}: ` : ''}
            {p.message}
          </li>
        ))}
      </ul>
      <SuiteStartForm
        fields={startFields}
        onChange={(patch) => setStartFields((f) => ({ ...f, ...patch }))}
        onStart={(options) => void start(options)}
        onCancel={() => void cancel()}
        running={running}
        hasProblems={problems.length > 0}
        history={history}
        selectedRun={run?.id}
        onSelectRun={(id) => void select(id)}
      />
      {run && (
        <>
          <div className="suite-progress" data-testid="suite-progress" data-status={run.status}>
            <progress max={planned || 1} value={done} />
            <span>
              <span className={`badge status-${run.status === 'passed' ? 'succeeded' : run.status}`}>
                {run.status}
              </span>{' '}
              {done}/{planned} runs · {live?.passed ?? run.passed} passed ·{' '}
              {live
                ? live.failed
                : done - run.passed - run.results.filter((r) => r.infra !== undefined).length}{' '}
              failed
              {(live?.errors ?? run.matrix.overall.errors) > 0
                ? ` · ${live?.errors ?? run.results.filter((r) => r.infra !== undefined).length} error(s) (infrastructure)`
                : ''}
              {live?.running ? ` · ${live.running} running` : ''} · {run.matrix.overall.met}/
              {run.matrix.overall.cells} cells meet their threshold · tools {run.spec.toolsHash}
            </span>
          </div>
          <div role="tablist" className="tabs">
            {(['matrix', 'charts', 'compare'] as const).map((t) => (
              <button
                key={t}
                role="tab"
                aria-selected={tab === t}
                className={tab === t ? 'active' : ''}
                onClick={() => setTab(t)}
              >
                {t === 'matrix' ? 'Matrix' : t === 'charts' ? 'Charts' : 'Compare'}
              </button>
            ))}
          </div>
          {tab === 'matrix' && <SuiteMatrix run={run} />}
          {tab === 'charts' && <SuiteCharts run={run} history={history} />}
          {tab === 'compare' && (
            <SuiteComparison
              history={history}
              head={run.id}
              comparison={comparison}
              onBase={(id) => void compareWith(id)}
            />
          )}
        </>
      )}
    </div>
  );
}
