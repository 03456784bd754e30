/**
 * The panels of an attempt in the run view: a collapsible section, the prompt (its head, the full text on
 * demand), the LLM's answer (streamed while it writes), the execution (result, tool calls, logs) and a
 * traceback whose frames reveal their line.
 */
import { useState } from 'react';
import type { AttemptView as AttemptRecord, PromptHead } from '../../../../src-main/contract/api.ts';
import type { EventPayloads } from '../../../../src-main/core/records/events.ts';
import { api } from '../../api/client.ts';
import { formatMs, IsolationBadge } from '../../components/Badges.tsx';
import { JsonTree } from '../../components/JsonTree.tsx';
import {
  intermediatesNote,
  notAskedNote,
  notRecordedNote,
} from '../../../../src-main/core/sandbox/execution.ts';
import { useGuardedLoad } from '../../lib/useLoad.ts';
import type { Outcome } from './attempts.ts';
import { executionFix } from './run-detail.ts';

export function Section({
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

export function PromptPanel({ runId, a }: { runId: string; a: AttemptRecord }) {
  // runs.get carries only the prompt's head; the text is fetched when this panel opens.
  const head = a.prompt;
  // What was fetched, and for which attempt: the panel stays open while another attempt is picked, and
  // until that one's answer comes it says it is loading (it showed the prompt of the attempt it left).
  const attempt = `${runId}/${a.n}`;
  const [fetched, setFetched] = useState<{
    attempt: string;
    prompt?: EventPayloads['prompt'];
    error?: string;
  }>();
  const mine = fetched?.attempt === attempt ? fetched : undefined;
  const full = head && !isPromptHead(head) ? head : mine?.prompt;
  const error = mine?.error;
  useGuardedLoad(
    () => (head && isPromptHead(head) ? api['runs.prompt']({ runId, n: a.n }) : undefined),
    (prompt) => setFetched({ attempt, prompt }),
    (message) => setFetched({ attempt, error: message }),
    [runId, a.n, head],
  );
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

/**
 * Why an answer's text is not a script that ran, where the API said so: cut at the token limit, or not
 * the model's text at all (its refusal, a content filter, a function call). Its text below is shown as it
 * came (an empty box said nothing of a refusal).
 */
function AnswerNote({ answer }: { answer: NonNullable<AttemptRecord['llm']> }) {
  if (answer.withheld)
    return (
      <p className="warn-note" data-testid="llm-answer-note">
        Not the model's text: {answer.withheld}. Its script was not run.
      </p>
    );
  if (answer.truncated)
    return (
      <p className="warn-note" data-testid="llm-answer-note">
        Cut at the token limit ({answer.truncated.reason}, max_tokens {answer.truncated.maxTokens}): its
        script was not run.
      </p>
    );
  return answer.text ? null : (
    <p className="muted small" data-testid="llm-answer-note">
      The answer held no text.
    </p>
  );
}

export function LlmPanel({ a, live }: { a: AttemptRecord; live: string | undefined }) {
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
          <AnswerNote answer={a.llm} />
          <pre className="raw-output">{a.llm.text}</pre>
        </Section>
      ) : (
        !live && <p className="muted">No LLM output for this attempt.</p>
      )}
      {a.corrections.map((c, i) => (
        <Section key={i} title={`Correction ${i + 1} (${c.provider})`} open={false}>
          <AnswerNote answer={c} />
          <pre>{c.text}</pre>
        </Section>
      ))}
      {a.llmErrors.map((e, i) => (
        <div key={i} className="error" data-testid="llm-error">
          {/* The provider's errors name it already ("local: connection failed …"). */}
          {e.message.startsWith(`${e.provider}:`) ? e.message : `${e.provider}: ${e.message}`}
        </div>
      ))}
      {(a.retries.length
        ? a.retries
        : [...(a.llm?.retries ?? []), ...a.llmErrors.flatMap((e) => e.retries)]
      ).map((r, i) => (
        <div key={`r${i}`} className="muted small" data-testid="llm-retry">
          {'provider' in r ? `${r.provider}: ` : ''}retry {r.attempt}: {r.reason}, wait {formatMs(r.waitMs)}
        </div>
      ))}
    </div>
  );
}

/** Why an attempt has no execution, by its outcome (only one still in progress may run later). */
const NOT_EXECUTED: Partial<Record<Outcome, string>> = {
  invalid: 'Not executed: the script failed validation.',
  llm_error: 'Not executed: the LLM produced no script.',
  cancelled: 'Not executed: the run was cancelled.',
  interrupted: 'Not executed: the run was interrupted.',
};

/**
 * The tool calls a script made past its bound (limits.tool_calls): counted, not recorded. Said where
 * the calls are listed and in the execution, so a trace that stops at the bound is not taken for all.
 */
export function NotRecorded({ a }: { a: AttemptRecord }) {
  return <BoundNote note={a.execution && notRecordedNote(a.execution)} testId="tool-calls-not-recorded" />;
}

/**
 * The calls that needed approval past the job's bound of requests (limits.approvals): refused without
 * asking anyone. Said with the approvals and in the execution, so the person sees why no one was asked.
 */
export function NotAsked({ a }: { a: AttemptRecord }) {
  return <BoundNote note={a.execution && notAskedNote(a.execution)} testId="approvals-not-asked" />;
}

/** What a job's bound left out (NotRecorded, NotAsked, IntermediatesNotRecorded), as a callout; nothing when it left nothing out. */
function BoundNote({ note, testId }: { note: string | undefined; testId: string }) {
  if (!note) return null;
  return (
    <p className="callout small" data-testid={testId}>
      {note}
    </p>
  );
}

/** The intermediates past the job's bound (limits.intermediates): counted, not in the record. */
export function IntermediatesNotRecorded({ a }: { a: AttemptRecord }) {
  return (
    <BoundNote note={a.execution && intermediatesNote(a.execution)} testId="intermediates-not-recorded" />
  );
}

export function ExecutionPanel({ a, outcome }: { a: AttemptRecord; outcome?: Outcome }) {
  const ex = a.execution;
  const emits = a.emits;
  if (!ex && emits.length === 0)
    return (
      <p className="muted">
        {a.validation?.valid === false
          ? NOT_EXECUTED.invalid
          : ((outcome && NOT_EXECUTED[outcome]) ?? 'Not executed yet.')}
      </p>
    );
  // A job the person cancelled ends as an `error` of type Cancelled: said as what happened.
  const exit =
    ex && ex.exitReason === 'error' && ex.error?.type === 'Cancelled' ? 'cancelled' : ex?.exitReason;
  return (
    <div data-testid="execution-panel">
      {ex && (
        <p className="meta-line">
          <span className={`badge exit-${exit}`} data-exit={exit}>
            exit: {exit}
          </span>
          <IsolationBadge level={ex.isolation} />
          <span className="muted small">
            {ex.runtime} · {formatMs(ex.durationMs)}
          </span>
        </p>
      )}
      <NotRecorded a={a} />
      <NotAsked a={a} />
      <IntermediatesNotRecorded a={a} />
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
          {emits.map((e, i) =>
            // Consecutive log lines come as one event (their text joined by newlines): shown as text.
            e.kind === 'log' ? (
              <div key={i} data-testid="live-log">
                <span className="muted small">log{e.lines ? ` (${e.lines} lines)` : ''}</span>
                <pre className="logs">{String(e.data)}</pre>
              </div>
            ) : (
              <div key={i}>
                <span className="muted small">{e.kind}</span>{' '}
                <JsonTree value={e.data} label={`emit ${i + 1}`} />
              </div>
            ),
          )}
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

export function Traceback({
  a,
  onJump,
  onJumpTools,
  onOpenSkill,
}: {
  a: AttemptRecord;
  onJump: (line: number) => void;
  /** A frame inside tools.py (a tool that raised): open the sandbox's tools at that line. */
  onJumpTools: (line: number) => void;
  /** A frame inside a skill the script called: open the skill (its line is in the skill's source). */
  onOpenSkill?: (skill: string) => void;
}) {
  const err = a.execution?.error;
  if (!err) return null;
  const fix = executionFix(a.execution?.exitReason);
  return (
    <div className="traceback" role="region" aria-label="traceback">
      <div className="error">
        <strong>{err.type}</strong>: {err.message}
      </div>
      {fix && (
        <p className="small error-fix" data-testid="error-fix">
          {fix}
        </p>
      )}
      {err.frames.length > 0 && (
        <ol className="frames">
          {err.frames.map((f, i) => (
            <li key={i}>
              {f.skill ? (
                <button
                  className="link"
                  data-frame-skill={f.skill}
                  data-frame-line={f.line}
                  title={`Open skill ${f.skill} (the line is in its source)`}
                  onClick={() => onOpenSkill?.(f.skill ?? '')}
                >
                  skill {f.skill} line {f.line}, in {f.name}
                </button>
              ) : f.file ? (
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

/** A person's answers to the attempt's calls that needed approval (docs/tools.md, "Approval"). */
export function ApprovalsPanel({ a }: { a: AttemptRecord }) {
  if (!a.approvals?.length) return null;
  return (
    <table className="kv-table small" aria-label="approvals">
      <thead>
        <tr>
          <th>Tool</th>
          <th>Line</th>
          <th>Answer</th>
          <th>By</th>
          <th>Waited</th>
        </tr>
      </thead>
      <tbody>
        {a.approvals.map((x, i) => (
          <tr key={i} data-testid="approval-row">
            <td>
              <code>{x.tool}</code>
            </td>
            <td>{x.line ?? ''}</td>
            <td className={x.approved ? '' : 'error'}>
              {x.approved ? 'allowed' : `refused${x.reason ? ` (${x.reason})` : ''}`}
            </td>
            <td>{x.via}</td>
            <td>{formatMs(x.waitedMs)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
