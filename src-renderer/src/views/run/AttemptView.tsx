/**
 * One attempt (PLAN) or step (INTERACTIVE) of a run: its script in Monaco (edit and run it, continue
 * from it), the diff against another attempt, validation violations, and its prompt, LLM and execution
 * panels.
 */
import { MakeSkill } from '../skills/SkillsParts.tsx';
import { fromRunId } from '../skills/skills.ts';
import { useEffect, useState } from 'react';
import type {
  AttemptView as AttemptRecord,
  RunRecordView as RunRecord,
} from '../../../../src-main/contract/api.ts';
import { formatMs, IsolationBadge } from '../../components/Badges.tsx';
import { CodeDiff, CodeEditor } from '../../components/Editors.tsx';
import { fitDiffHeight, fitEditorHeight } from '../../lib/editor-size.ts';
import { Tabs } from '../../components/Tabs.tsx';
import { ToolCallTable } from '../../components/ToolCallTable.tsx';
import { SkillCallTable } from '../../components/SkillCallTable.tsx';
import { attemptOutcome, defaultDiffTarget, diffPair, OUTCOME_LABEL } from './attempts.ts';
import {
  ApprovalsPanel,
  ExecutionPanel,
  LlmPanel,
  NotAsked,
  NotRecorded,
  PromptPanel,
  Section,
  Traceback,
} from './AttemptPanels.tsx';
import { attemptDrafts, attemptState } from './run-detail.ts';
import { AttemptToolbar } from './RunDetailParts.tsx';
import { useAttempt } from './useRunDetail.ts';
import { trackUnsaved } from '../../lib/unsaved.ts';
import { keptMap } from '../../lib/session-draft.ts';

/**
 * Edited scripts survive selecting another attempt or leaving the run, and a reload (kept in the tab's
 * sessionStorage, lib/session-draft.ts: the page asked before a reload, and the edit was gone after it).
 */
const drafts = attemptDrafts(keptMap('attempt-scripts'));
trackUnsaved('attempt scripts', () => drafts.size());

export function AttemptView({ run, a }: { run: RunRecord; a: AttemptRecord }) {
  const { live, sending, jump, jumpTo, navigate, runEdited, continueRun, promote } = useAttempt(run.id, a.n);
  const original = a.script?.body ?? '';
  const [edited, setEditedState] = useState(() => drafts.get(run.id, a.n) ?? original);
  const setEdited = (text: string) => {
    drafts.set(run.id, a.n, text, original);
    setEditedState(text);
  };
  const [tab, setTab] = useState<'execution' | 'tools' | 'prompt' | 'llm' | 'diff'>('execution');
  const [diffWith, setDiffWith] = useState<number>();
  const [diffSideBySide, setDiffSideBySide] = useState(true);
  const [selected, setSelected] = useState<{ start: number; end: number }>();
  useEffect(() => setEditedState(drafts.get(run.id, a.n) ?? original), [original, run.id, a.n]);
  const state = attemptState(run, a, edited, live, sending);
  const { dirty, streaming, unit } = state;
  const violations = a.validation?.violations ?? [];
  const others = run.attempts.filter((x) => x.n !== a.n && x.script);
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
        {a.template && (
          <button
            className="link small"
            data-testid="attempt-template"
            onClick={() => navigate({ view: 'templates', id: a.template })}
          >
            template {a.template}
          </button>
        )}
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
          {/* (the space outside each badge: inside an inline-block it is dropped, and the text read
              "emitted the resultfinal") */}
          {a.step.stagnant && (
            <>
              {' '}
              <span className="badge status-interrupted">stagnant</span>
            </>
          )}
          {a.step.final && (
            <>
              {' '}
              <span className="badge">final</span>
            </>
          )}
          {a.step.repeats !== undefined && (
            <>
              {' '}
              <span className="badge status-interrupted">repeats step {a.step.repeats}</span>
            </>
          )}
        </p>
      )}
      <AttemptToolbar
        state={state}
        onRun={() => runEdited(edited)}
        onContinue={() => continueRun(edited)}
        onReset={() => {
          drafts.drop(run.id, a.n);
          setEditedState(original);
        }}
        onPromote={promote}
        makeSkill={
          <MakeSkill
            lines={original.replace(/\n+$/, '').split('\n').length}
            selection={selected}
            onMake={(start, end) =>
              navigate({ view: 'skills', id: fromRunId({ runId: run.id, attempt: a.n, start, end }) })
            }
          />
        }
      />
      <CodeEditor
        label="script"
        value={state.text}
        readOnly={streaming}
        language={run.started.language}
        onChange={setEdited}
        // (lines of the edited text are not the recorded script's: Make a skill waits for a Reset)
        onSelectLines={(start, end) => !dirty && setSelected({ start, end })}
        violations={dirty ? [] : violations}
        jump={jump}
        onRun={() => state.canRun && runEdited(edited)}
        height={fitEditorHeight(state.text, { max: 420 })}
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
                height={fitEditorHeight(r.script.body, { max: 260, spare: 0 })}
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
        onOpenSkill={(skill) => navigate({ view: 'skills', id: `${run.started.sandbox}/${skill}` })}
      />
      <Tabs
        tabs={
          [
            ['execution', 'Execution'],
            // Every call the script made, those past the bound of recorded ones too (NotRecorded says so).
            // The job's skill calls are in the same tab, above its tool calls.
            [
              'tools',
              `Tool calls (${a.toolCalls.length + (a.execution?.toolCallsNotRecorded ?? 0)})${
                a.execution?.skillCalls?.length
                  ? ` · skill calls (${a.execution.skillCalls.length + (a.execution.skillCallsNotRecorded ?? 0)})`
                  : ''
              }`,
            ],
            ['prompt', 'Prompt'],
            ['llm', 'LLM output'],
            ['diff', 'Diff'],
          ] as const
        }
        selected={tab}
        onSelect={setTab}
      />
      <div role="tabpanel" className="tabpanel">
        {tab === 'execution' && <ExecutionPanel a={a} outcome={attemptOutcome(a, run)} />}
        {tab === 'tools' && (
          <>
            <ApprovalsPanel a={a} />
            <NotAsked a={a} />
            <SkillCallTable
              calls={a.execution?.skillCalls}
              toolCalls={a.toolCalls}
              notRecorded={a.execution?.skillCallsNotRecorded}
            />
            <ToolCallTable calls={a.toolCalls} label="tool calls" />
            <NotRecorded a={a} />
          </>
        )}
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
              {/* Left and right while Monaco shows two sides; in a narrow window (1000 px) it shows one
                  inline view, and the labels say which lines are whose (they still read left, right). */}
              <div
                className={`diff-labels${diffSideBySide ? '' : ' inline'}`}
                data-testid="diff-labels"
                data-layout={diffSideBySide ? 'side-by-side' : 'inline'}
              >
                <span data-testid="diff-original-label">
                  {diff?.originalLabel}
                  {diffSideBySide ? '' : ': the lines marked −'}
                </span>
                <span data-testid="diff-modified-label">
                  {diff?.modifiedLabel}
                  {diffSideBySide ? '' : ': the lines marked +'}
                </span>
              </div>
              <CodeDiff
                label="attempts"
                onSideBySide={setDiffSideBySide}
                original={diff?.original ?? ''}
                modified={diff?.modified ?? ''}
                language={run.started.language}
                height={fitDiffHeight(diff?.original ?? '', diff?.modified ?? '', window.innerHeight)}
              />
            </div>
          ))}
      </div>
    </div>
  );
}
