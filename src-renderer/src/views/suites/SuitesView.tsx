/**
 * Suites: the workspace's test suites (suites/*.toml). Edit a suite in Monaco with its schema problems as
 * markers, start it with live progress, and read a suite run as a matrix (filters, cells open their
 * runs), as charts, or against an earlier run. Its server state lives in the suites slice
 * (store/suites.ts); the view's own state and effects in useSuites.ts (on the pure suite-detail.ts and
 * suite-start.ts); the parts are presentational (SuitesParts.tsx, SuiteMatrixParts.tsx).
 */
import { fitEditorHeight } from '../../lib/editor-size.ts';
import { CodeEditor } from '../../components/Editors.tsx';
import { SuiteCharts } from './SuiteCharts.tsx';
import { SuiteComparison } from './SuiteComparison.tsx';
import { SuiteMatrix } from './SuiteMatrix.tsx';
import { SuiteSkillSavings } from '../skills/SkillSavings.tsx';
import {
  NewSuiteForm,
  SuiteHead,
  SuiteList,
  SuiteProblems,
  SuiteProgress,
  SuiteStartForm,
  SuiteTabs,
} from './SuitesParts.tsx';
import { useSuiteDetail, useSuites } from './useSuites.ts';
import './suites.css';

export function SuitesView({ name }: { name?: string | undefined }) {
  const v = useSuites(name);
  return (
    <section aria-label="suites" className="suites-view">
      <SuiteList suites={v.list} current={v.current} onOpen={v.open} onNew={() => v.setCreating(true)} />
      {v.creating ? (
        <NewSuiteForm
          sandboxes={v.sandboxes}
          busy={v.createBusy}
          error={v.createError}
          onCreate={v.create}
          onCancel={() => v.setCreating(false)}
          initial={v.draft}
          onDraft={v.drafted}
        />
      ) : v.current ? (
        <SuiteDetail onDelete={v.remove} />
      ) : (
        <p className="muted pad">Pick a suite, or create one with New suite.</p>
      )}
    </section>
  );
}

function SuiteDetail({ onDelete }: { onDelete: (name: string) => void }) {
  const d = useSuiteDetail();
  const { state, dispatch, run } = d;
  return (
    <div className="suite-detail">
      <SuiteHead
        name={d.name ?? ''}
        dirty={d.dirty}
        onSave={d.save}
        onRevert={d.revert}
        onDelete={d.name ? () => onDelete(d.name as string) : undefined}
      />
      <CodeEditor
        label="suite"
        language="toml"
        value={d.text}
        onChange={d.edit}
        violations={d.markers}
        height={fitEditorHeight(d.text, { min: 160, max: 420 })}
      />
      <SuiteProblems problems={d.problems} />
      <SuiteStartForm
        fields={state.start}
        onChange={(patch) => dispatch({ type: 'start', patch })}
        onStart={d.start}
        onCancel={d.cancel}
        running={d.running}
        hasProblems={d.problems.length > 0}
        history={d.history}
        selectedRun={run?.id}
        onSelectRun={d.select}
        live={d.live}
      />
      {run && (
        <>
          <SuiteProgress run={run} live={d.live} />
          <SuiteTabs tab={state.tab} onTab={(tab) => dispatch({ type: 'tab', tab })} />
          {state.tab === 'matrix' && <SuiteMatrix run={run} />}
          {state.tab === 'matrix' && <SuiteSkillSavings run={run} />}
          {state.tab === 'charts' && <SuiteCharts run={run} history={d.history} />}
          {state.tab === 'compare' && (
            <SuiteComparison
              history={d.history}
              head={run.id}
              comparison={d.comparison}
              onBase={d.compareWith}
            />
          )}
        </>
      )}
    </div>
  );
}
