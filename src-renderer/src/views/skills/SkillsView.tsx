/**
 * Skills, the ratchet's second level: tested functions in the script subset that later scripts call.
 * The list shows each sandbox's skills with grade, version and state (tested, untested, failing); the
 * open skill's source is edited in Monaco with live validation (`skills.check`), its test cases are run
 * in the sandbox (`skills.test`), it can be tried with arguments (`skills.try`), saved as a new version
 * (`skills.save`) and deleted. State and actions: useSkills.ts (on the pure skills.ts); parts:
 * SkillsParts.tsx.
 */
import { useState } from 'react';
import { CodeEditor } from '../../components/Editors.tsx';
import { useStore } from '../../store/index.ts';
import { brokenFileWords, isDirty, noCheckReason } from './skills.ts';
import {
  DraftHead,
  ProposalInfo,
  SkillActions,
  SkillCheckPanel,
  SkillFileProblems,
  SkillsEmpty,
  SkillsHead,
  SkillsTable,
  SkillTestResults,
  TestCasesInput,
  TryPanel,
} from './SkillsParts.tsx';
import { useSkills } from './useSkills.ts';
import '../manage.css';
import './skills.css';

export function SkillsView() {
  const routeId = useStore((s) => s.route.id);
  const v = useSkills(routeId);
  const { state, dispatch, list } = v;
  const { draft } = state;
  const [jump, setJump] = useState<{ line: number; column?: number; seq: number } | undefined>();
  const skills = list?.skills ?? [];
  const reload = () => void v.reload();
  return (
    <section aria-label="skills" className="manage-view skills-view">
      <SkillsHead loading={v.loading} sandboxes={v.sandboxes} onReload={reload} onNew={v.create} />
      <p className="muted small">
        A skill is a tested function in the script subset (Python for Python scripts, JavaScript for JS and TS
        scripts, TypeScript for TS scripts): once its test cases pass, scripts of its sandbox can call it, and
        it appears in their manual after the tools.
      </p>
      {v.loadError && (
        <div role="alert" className="error callout bad">
          Could not load the skills: {v.loadError} <button onClick={reload}>Retry</button>
        </div>
      )}
      <SkillFileProblems problems={list?.problems ?? []} />
      {!list && v.loading && <p className="muted">Loading skills…</p>}
      {list && skills.length === 0 && !draft && <SkillsEmpty noSandbox={v.sandboxes.length === 0} />}
      {skills.length > 0 && (
        <SkillsTable skills={skills} selected={draft?.mode === 'edit' ? draft : undefined} onOpen={v.open} />
      )}

      {state.fromRun && (
        <ProposalInfo
          fromRun={state.fromRun}
          name={draft?.mode === 'new' ? draft.name : undefined}
          onBackToRun={() => v.backToRun(state.fromRun!.from.runId)}
        />
      )}
      {draft && (
        <div className="manage-panel" data-testid="skill-editor" data-mode={draft.mode}>
          <DraftHead
            draft={draft}
            saved={v.saved}
            sandboxes={v.sandboxes}
            onEdit={(field, value) => dispatch({ type: 'edit', field, value })}
            onLanguage={(language) => dispatch({ type: 'language', language })}
            taken={v.taken}
            onReplaces={(version) => dispatch({ type: 'replaces', version })}
          />
          <CodeEditor
            label="skill-source"
            language={draft.language}
            value={draft.source}
            onChange={(value) => dispatch({ type: 'edit', field: 'source', value })}
            violations={state.check?.violations ?? []}
            {...(jump ? { jump } : {})}
            height={320}
          />
          <SkillCheckPanel
            check={state.check}
            noCheck={noCheckReason(state)}
            onJump={(x) => setJump({ line: x.line, column: x.column, seq: (jump?.seq ?? 0) + 1 })}
          />
          <TestCasesInput
            value={draft.tests}
            onChange={(value) => dispatch({ type: 'edit', field: 'tests', value })}
          />
          {state.error && (
            <div role="alert" className="error">
              {state.error}
            </div>
          )}
          <SkillActions
            draft={draft}
            dirty={isDirty(draft, v.saved)}
            busy={state.busy}
            confirmDelete={state.confirmDelete}
            onSave={() => void v.save()}
            onTest={() => void v.test()}
            onConfirmDelete={(on) => dispatch({ type: 'confirmDelete', on })}
            onDelete={() => void v.remove()}
            onClose={v.close}
            saveWhy={
              v.taken && !v.taken.replacing
                ? `A skill named ${draft.name} exists in sandbox ${draft.sandbox}: tick "save this as its new version" above, or choose another name.`
                : v.broken
                  ? brokenFileWords(draft, v.broken)
                  : undefined
            }
          />
          {state.testResult && <SkillTestResults result={state.testResult} />}
          <TryPanel
            args={state.tryArgs}
            result={state.tryResult}
            at={state.triedAt}
            earlier={state.triedEarlier === true}
            busy={state.busy === 'try'}
            onArgs={(value) => dispatch({ type: 'tryArgs', value })}
            onTry={() => void v.tryIt()}
          />
        </div>
      )}
    </section>
  );
}
