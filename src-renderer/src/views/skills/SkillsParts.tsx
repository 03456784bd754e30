/**
 * Parts of the Skills view, presentational (props in, callbacks out): the head with "New skill", the
 * files that do not parse, the skills per sandbox (grade, version, tested/untested/failing), and the open
 * skill's panels: its check (shape problems and the script validator's violations), its test cases and
 * their verdicts, "Try it", and the actions (save a new version, run the tests, delete behind a confirm).
 */
import { useEffect, useId, useState } from 'react';
import type {
  SkillCaseResult,
  SkillCheck,
  SkillTestResult,
  SkillView,
} from '../../../../src-main/contract/api.ts';
import type { Violation } from '../../../../src-main/core/lang/violation.ts';
import { formatDateTime } from '../../components/Badges.tsx';
import { GradeBadge } from '../../components/GradeBadge.tsx';
import { JsonTree } from '../../components/JsonTree.tsx';
import { bySandbox, SKILL_LANGUAGES, statusLabel } from './skills.ts';
import type { Busy, FromRun, Proposal, SkillDraft, SkillLanguage } from './skills.ts';
import { FormRow } from '../../components/FormRow.tsx';

export function SkillsHead({
  loading,
  sandboxes,
  onReload,
  onNew,
}: {
  loading: boolean;
  sandboxes: string[];
  onReload: () => void;
  onNew: (sandbox: string) => void;
}) {
  const [sandbox, setSandbox] = useState('');
  const chosen = sandbox || sandboxes[0] || '';
  return (
    <div className="view-head">
      <h1>Skills</h1>
      <FormRow layout="inline" label={<span className="muted small">sandbox</span>}>
        <select value={chosen} onChange={(e) => setSandbox(e.target.value)}>
          {sandboxes.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </FormRow>
      <button onClick={() => onNew(chosen)} disabled={!chosen}>
        New skill
      </button>
      <button onClick={onReload} disabled={loading}>
        {loading ? 'Loading…' : 'Reload'}
      </button>
    </div>
  );
}

export function SkillFileProblems({ problems }: { problems: { file: string; error: string }[] }) {
  if (problems.length === 0) return null;
  return (
    <div role="alert" className="callout bad" data-testid="skill-file-problems">
      <strong>Skill files that do not load</strong>
      <ul>
        {problems.map((p) => (
          <li key={p.file}>
            <code>{p.file}</code>: {p.error}
          </li>
        ))}
      </ul>
    </div>
  );
}

const statusClass = (s: SkillView): string =>
  s.status === 'passed' ? 'status-succeeded' : s.status === 'failed' ? 'status-failed' : '';

export function SkillsTable({
  skills,
  selected,
  onOpen,
}: {
  skills: SkillView[];
  selected: { sandbox: string; name: string } | undefined;
  onOpen: (skill: SkillView) => void;
}) {
  return (
    <table className="manage-table" aria-label="skills list">
      <thead>
        <tr>
          <th>skill</th>
          <th>version</th>
          <th>grade</th>
          <th>state</th>
          <th>cases</th>
          <th>tested</th>
        </tr>
      </thead>
      {bySandbox(skills).map(([sandbox, group]) => (
        <tbody key={sandbox} data-sandbox={sandbox}>
          <tr>
            <th colSpan={6} scope="rowgroup" className="muted small">
              {sandbox}
            </th>
          </tr>
          {group.map((s) => {
            const on = selected?.sandbox === s.sandbox && selected.name === s.name;
            return (
              <tr key={s.name} data-skill={s.name} className={on ? 'selected' : ''}>
                <td>
                  <button className="link" onClick={() => onOpen(s)} aria-current={on ? 'true' : undefined}>
                    {s.name}
                  </button>
                  <div className="muted small ellipsis" title={s.signature}>
                    {s.description || s.signature}
                  </div>
                </td>
                <td data-testid="skill-version">v{s.version}</td>
                <td>
                  <GradeBadge grade={s.grade} small />
                </td>
                <td>
                  <span
                    className={`badge ${statusClass(s)}`}
                    data-testid="skill-status"
                    data-status={s.status}
                    title={s.failures.join('\n') || undefined}
                  >
                    {statusLabel(s)}
                  </span>
                </td>
                <td>{s.tests.length}</td>
                <td className="muted small">{s.testedAt ? formatDateTime(s.testedAt) : 'never'}</td>
              </tr>
            );
          })}
        </tbody>
      ))}
    </table>
  );
}

/** No skill yet: how to make one, or (a workspace with no sandbox, where New skill is off) where to start. */
export function SkillsEmpty({ noSandbox = false }: { noSandbox?: boolean }) {
  if (noSandbox)
    return (
      <p className="callout" role="note" data-testid="skills-empty">
        No skills yet, and none can be written here: a skill belongs to a sandbox, and this workspace has no
        sandboxes. Create one in <a href="#/workspace">Workspace</a> (or open a workspace that has some).
      </p>
    );
  return (
    <p className="muted" data-testid="skills-empty">
      No skills yet. Write one with “New skill”, or select lines of a successful run&apos;s script and make a
      skill of them.
    </p>
  );
}

/**
 * The skill's language: which scripts may call it (Python; JS for JS and TS scripts; TS for TS ones).
 * Switching it swaps the editor's language and the live check's rules; a saved skill saved in another
 * language becomes a new version in that language.
 */
export function LanguageSelect({
  value,
  onChange,
}: {
  value: SkillLanguage;
  onChange: (language: SkillLanguage) => void;
}) {
  return (
    <FormRow layout="inline" label={<span className="muted small">language</span>}>
      <select value={value} onChange={(e) => onChange(e.target.value as SkillLanguage)}>
        {SKILL_LANGUAGES.map((l) => (
          <option key={l.value} value={l.value}>
            {l.label}
          </option>
        ))}
      </select>
    </FormRow>
  );
}

/** The draft's identity: name and sandbox (editable while it is new), version and state. */
export function DraftHead({
  draft,
  saved,
  sandboxes,
  onEdit,
  onLanguage,
  taken,
  onReplaces,
}: {
  draft: SkillDraft;
  saved: SkillView | undefined;
  sandboxes: string[];
  onEdit: (field: 'name' | 'sandbox', value: string) => void;
  onLanguage: (language: SkillLanguage) => void;
  /** A new skill under the name of one that exists (skills.ts takenBy): offered to save over it. */
  taken?: { skill: SkillView; replacing: boolean } | undefined;
  onReplaces?: (version: number | undefined) => void;
}) {
  const language = <LanguageSelect value={draft.language} onChange={onLanguage} />;
  if (draft.mode === 'edit')
    return (
      <div className="meta-line">
        <h2>{draft.name}</h2>
        <span className="muted">{draft.sandbox}</span>
        <span className="badge">v{draft.version}</span>
        {language}
        {saved && saved.versions.length > 0 && (
          <span className="muted small">earlier: {saved.versions.map((v) => `v${v}`).join(', ')}</span>
        )}
        {saved && <span className="muted small ellipsis">{saved.file}</span>}
      </div>
    );
  return (
    <div className="meta-line">
      <FormRow layout="inline" label={<span className="muted small">name</span>}>
        <input value={draft.name} onChange={(e) => onEdit('name', e.target.value)} />
      </FormRow>
      <FormRow layout="inline" label={<span className="muted small">sandbox</span>}>
        <select value={draft.sandbox} onChange={(e) => onEdit('sandbox', e.target.value)}>
          {sandboxes.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </FormRow>
      {language}
      <span className="muted small">new skill: the function&apos;s name must be the skill&apos;s name</span>
      {taken && (
        <FormRow
          layout="check"
          className="warn"
          label={
            <>
              A skill named {taken.skill.name} exists in sandbox {taken.skill.sandbox} (v{taken.skill.version}
              ): save this as its new version (v{taken.skill.version} stays in its history)
            </>
          }
        >
          <input
            type="checkbox"
            data-testid="skill-replaces"
            checked={taken.replacing}
            onChange={(e) => onReplaces?.(e.target.checked ? taken.skill.version : undefined)}
          />
        </FormRow>
      )}
    </div>
  );
}

/** The live check of the source: shape problems, violations (click to reveal), signature and grade. */
export function SkillCheckPanel({
  check,
  noCheck,
  onJump,
}: {
  check: SkillCheck | undefined;
  /** Why no check is coming (skills.ts noCheckReason): shown in place of "Checking…". */
  noCheck?: string | undefined;
  onJump: (v: Violation) => void;
}) {
  if (!check)
    return noCheck ? (
      <p className="muted small" data-testid="skill-no-check">
        {noCheck}
      </p>
    ) : (
      <p className="muted small">Checking…</p>
    );
  return (
    <div className="tools-problems" data-testid="skill-check" data-valid={check.valid}>
      {check.valid ? (
        <p className="small ok" data-testid="skill-valid">
          Valid: <code>{check.signature}</code>
          {check.grade && (
            <>
              {' '}
              <GradeBadge grade={check.grade} small />
            </>
          )}
          {check.tools.length > 0 && <span className="muted"> · calls {check.tools.join(', ')}</span>}
        </p>
      ) : (
        <ul className="violations" aria-label="skill problems">
          {check.problems.map((p, i) => (
            <li key={`p${i}`} className="error">
              {p}
            </li>
          ))}
          {check.violations.map((v, i) => (
            <li key={`v${i}`} data-rule={v.rule}>
              <button className="link" onClick={() => onJump(v)}>
                line {v.line}:{v.column}
              </button>{' '}
              <code>{v.rule}</code> {v.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function TestCasesInput({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  return (
    <FormRow
      className="field-block"
      label={<span className="muted small">test cases</span>}
      help={
        <>
          JSON:{' '}
          <code>
            [{'{'} &quot;args&quot;: {'{…}'}, &quot;assert&quot;: [{'{'} &quot;type&quot;: &quot;equals&quot;,
            &quot;value&quot;: … {'}'}] {'}'}]
          </code>
        </>
      }
    >
      <textarea
        aria-label="test cases"
        className="mono"
        rows={Math.min(14, Math.max(4, value.split('\n').length))}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        spellCheck={false}
      />
    </FormRow>
  );
}

function CaseResult({ c, i }: { c: SkillCaseResult; i: number }) {
  return (
    <div className={`example ${c.passed ? 'pass' : 'fail'}`} data-case={i} data-passed={c.passed}>
      <div className="meta-line">
        <span>case {i + 1}</span>
        <code className="small">{JSON.stringify(c.args)}</code>
        <span className={`badge ${c.passed ? 'status-succeeded' : 'status-failed'}`}>
          {c.passed ? 'passed' : 'failed'}
        </span>
        {c.runId && <span className="muted small">run {c.runId.slice(0, 8)}</span>}
      </div>
      {c.error && <div className="error small">{c.error}</div>}
      {c.verdicts.length > 0 && (
        <ul className="small" aria-label={`verdicts of case ${i + 1}`}>
          {c.verdicts.map((v, j) => (
            <li key={j} className={v.passed ? 'ok' : 'error'}>
              <span title={v.type}>{v.passed ? '✓' : '✗'}</span> {v.message}
            </li>
          ))}
        </ul>
      )}
      {'result' in c && <JsonTree value={c.result} label={`result of case ${i + 1}`} />}
    </div>
  );
}

export function SkillTestResults({ result }: { result: SkillTestResult }) {
  const failed = result.cases.filter((c) => !c.passed).length;
  return (
    <div className="test-results" data-testid="skill-test-results" data-passed={result.passed}>
      <strong className={result.passed ? 'ok' : 'error'}>
        {result.passed
          ? `All ${result.cases.length} case${result.cases.length === 1 ? '' : 's'} passed`
          : result.cases.length === 0
            ? 'No case ran'
            : `${failed} of ${result.cases.length} case${result.cases.length === 1 ? '' : 's'} failed`}
      </strong>
      {!result.passed && result.failures.length > 0 && (
        <ul className="error small">
          {result.failures.map((f, i) => (
            <li key={i}>{f}</li>
          ))}
        </ul>
      )}
      {result.cases.map((c, i) => (
        <CaseResult key={i} c={c} i={i} />
      ))}
    </div>
  );
}

export function TryPanel({
  args,
  result,
  at,
  earlier = false,
  busy,
  onArgs,
  onTry,
}: {
  args: string;
  result: SkillCaseResult | undefined;
  /** When the result came back (ms). */
  at?: number | undefined;
  /** The result of a Try it made before the page was reloaded (kept in the tab's session). */
  earlier?: boolean;
  busy: boolean;
  onArgs: (v: string) => void;
  onTry: () => void;
}) {
  return (
    <div className="manage-panel" data-testid="skill-try">
      <FormRow className="field-block" label={<span className="muted small">arguments (JSON object)</span>}>
        <textarea
          className="mono"
          rows={3}
          value={args}
          onChange={(e) => onArgs(e.target.value)}
          spellCheck={false}
        />
      </FormRow>
      <div className="actions">
        <button onClick={onTry} disabled={busy}>
          {busy ? 'Running…' : 'Try it'}
        </button>
        <span className="muted small">runs the source as it is in the editor, in the sandbox</span>
      </div>
      {result && (
        <div
          data-testid="skill-try-result"
          data-passed={result.passed}
          data-earlier={earlier ? 'true' : undefined}
        >
          {earlier ? (
            <p className="small warn-note" role="note" data-testid="skill-try-earlier">
              The result of an earlier try
              {at !== undefined ? `, at ${formatDateTime(at, { seconds: true })}` : ''}, with{' '}
              <code>{JSON.stringify(result.args)}</code>: try it again to see what the skill answers now.
            </p>
          ) : at !== undefined ? (
            <p className="muted small" data-testid="skill-tried-at">
              tried at {formatDateTime(at, { seconds: true })}
            </p>
          ) : null}
          {result.error ? (
            <div className="error small" role="alert">
              {result.error}
            </div>
          ) : (
            <JsonTree value={result.result} label="try result" />
          )}
        </div>
      )}
    </div>
  );
}

export function SkillActions({
  draft,
  dirty,
  busy,
  confirmDelete,
  onSave,
  onTest,
  onConfirmDelete,
  onDelete,
  onClose,
  saveWhy,
}: {
  draft: SkillDraft;
  dirty: boolean;
  busy: Busy | undefined;
  confirmDelete: boolean;
  onSave: () => void;
  onTest: () => void;
  onConfirmDelete: (on: boolean) => void;
  onDelete: () => void;
  onClose: () => void;
  /** Why Save waits (a new skill under a name that exists, not chosen to save over it). */
  saveWhy?: string | undefined;
}) {
  const saved = draft.mode === 'edit';
  const testId = useId();
  const saveId = useId();
  /** Why Run tests cannot go, said beside it (it was a tooltip only, and none for a new skill). */
  const testWhy = !busy && (!saved || dirty) ? 'Save first: the tests run on the saved skill.' : undefined;
  return (
    <div className="actions">
      <button
        className="primary"
        onClick={onSave}
        disabled={!!busy || !dirty || !!saveWhy}
        aria-describedby={saveWhy ? saveId : undefined}
      >
        {busy === 'save' ? 'Saving and testing…' : saved ? 'Save new version' : 'Save'}
      </button>
      {saveWhy && !busy && (
        <span id={saveId} className="start-problem" data-testid="save-problem">
          {saveWhy}
        </span>
      )}
      <button
        onClick={onTest}
        disabled={!!busy || !saved || dirty}
        aria-describedby={testWhy ? testId : undefined}
      >
        {busy === 'test' ? 'Running tests…' : 'Run tests'}
      </button>
      {testWhy && (
        <span id={testId} className="start-problem" data-testid="test-problem">
          {testWhy}
        </span>
      )}
      {saved &&
        (confirmDelete ? (
          <span className="confirm" role="group" aria-label="confirm delete">
            Delete {draft.name}?{' '}
            <button onClick={onDelete} disabled={!!busy}>
              Yes, delete
            </button>{' '}
            <button onClick={() => onConfirmDelete(false)}>No</button>
          </span>
        ) : (
          <button onClick={() => onConfirmDelete(true)} disabled={!!busy}>
            Delete
          </button>
        ))}
      <button onClick={onClose}>Close</button>
    </div>
  );
}

/** "Make a skill": what the service proposed from the run's lines, or why it could not. */
export function ProposalInfo({
  fromRun,
  name,
  onBackToRun,
}: {
  fromRun: { from: FromRun; proposal?: Proposal; error?: string };
  /** The skill's name as it is now in the draft (renamed since the proposal, the call follows it). */
  name?: string | undefined;
  onBackToRun: () => void;
}) {
  const { from, proposal, error } = fromRun;
  const where = `lines ${from.start}–${from.end} of run ${from.runId.slice(0, 8)}, attempt ${from.attempt}`;
  if (error)
    return (
      <div className="manage-panel" data-testid="skill-proposal">
        <div role="alert" className="error">
          Could not make a skill from {where}: {error}
        </div>
        <div className="actions">
          <button onClick={onBackToRun}>Back to the run</button>
        </div>
      </div>
    );
  if (!proposal)
    return (
      <div className="manage-panel" data-testid="skill-proposal">
        Proposing a skill from {where}…
      </div>
    );
  return (
    <div className="manage-panel" data-testid="skill-proposal">
      <p className="small">
        Proposed from {where}: a {SKILL_LANGUAGES.find((l) => l.value === proposal.language)?.label} skill.{' '}
        {proposal.language === 'python' ? 'Python' : proposal.language === 'js' ? 'JS and TS' : 'TS'} scripts
        of <strong>{proposal.sandbox}</strong> will be able to call <code>{name || proposal.name}(…)</code>{' '}
        once its test case passes; edit the name and source, then save.
      </p>
      <table className="manage-table" aria-label="proposed parameters">
        <thead>
          <tr>
            <th>parameter</th>
            <th>type</th>
            <th>value in the run</th>
            <th>from</th>
          </tr>
        </thead>
        <tbody>
          {proposal.parameters.map((p) => (
            <tr key={p.name} data-param={p.name}>
              <td>
                <code>{p.name}</code>
              </td>
              <td>{p.type}</td>
              <td>
                {'value' in p ? (
                  <code>{JSON.stringify(p.value)}</code>
                ) : (
                  <span className="muted">unknown</span>
                )}
              </td>
              <td>{p.from === 'task' ? 'the task' : 'the script'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="small muted">
        returns: <ProposalReturns proposal={proposal} /> · first test case:{' '}
        <code>{JSON.stringify(proposal.tests[0]?.args ?? {})}</code>
      </p>
    </div>
  );
}

/**
 * What the proposed function returns: what the lines passed to emit_result (each call became a
 * `return`), else the names they define that the rest of the script used, else nothing. (It said
 * "nothing the script used later" of a function that returns what the script emitted.)
 */
function ProposalReturns({ proposal }: { proposal: Proposal }) {
  // (a proposal kept from before `emitted` was told has none)
  const emitted = proposal.emitted ?? [];
  const emit = proposal.language === 'python' ? 'emit_result' : 'emitResult';
  if (emitted.length > 0)
    return (
      <span data-testid="proposal-returns">
        what the script passed to <code>{emit}</code>:{' '}
        {emitted.map((e, i) => (
          <span key={i}>
            {i > 0 && ' or '}
            <code>{e}</code>
          </span>
        ))}
      </span>
    );
  return (
    <span data-testid="proposal-returns">
      {proposal.returns.length > 0 ? proposal.returns.join(', ') : 'nothing the script used later'}
    </span>
  );
}

/** The run view's "Make a skill": a line range of the script's body, then the Skills view. */
export function MakeSkill({
  lines,
  onMake,
  selection,
}: {
  lines: number;
  onMake: (start: number, end: number) => void;
  /** The lines last selected in the script's editor (mouse or keyboard): they fill from/to. */
  selection?: { start: number; end: number } | undefined;
}) {
  const [start, setStart] = useState(selection?.start ?? 1);
  const [end, setEnd] = useState(selection?.end ?? Math.max(1, lines));
  useEffect(() => {
    if (!selection) return;
    setStart(selection.start);
    setEnd(Math.min(selection.end, lines));
  }, [selection, lines]);
  const ok = start >= 1 && end >= start && end <= lines;
  return (
    <span
      className="make-skill"
      role="group"
      aria-label="make a skill"
      title="Select lines in the script (mouse or Shift+arrows) or type the range"
    >
      <label>
        lines{' '}
        <input
          type="number"
          aria-label="skill from line"
          min={1}
          max={lines}
          value={start}
          onChange={(e) => setStart(Number(e.target.value))}
          style={{ width: '4em' }}
        />
      </label>
      –
      <input
        type="number"
        aria-label="skill to line"
        min={1}
        max={lines}
        value={end}
        onChange={(e) => setEnd(Number(e.target.value))}
        style={{ width: '4em' }}
      />
      <button disabled={!ok} onClick={() => onMake(start, end)} title="Make a tested function of these lines">
        Make a skill
      </button>
    </span>
  );
}
