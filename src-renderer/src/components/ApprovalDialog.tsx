/**
 * A tool call waiting for a person (docs/tools.md, "Approval"): a modal dialog showing the tool, the
 * script line that calls it and its arguments, with Refuse (the default: Esc or Enter on it) and Allow.
 * `Approvals` keeps the questions pushed by the main process and answers them through the contract.
 */
import { useEffect, useRef, useState } from 'react';
import type { ApprovalView, PushEvent } from '../../../src-main/contract/api.ts';
import { api } from '../api/client.ts';

export function ApprovalDialog({
  request,
  waiting = 0,
  onAnswer,
}: {
  request: ApprovalView;
  /** Further questions after this one. */
  waiting?: number;
  onAnswer: (approved: boolean) => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const refuse = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    // Refusing is the safe default: focus is on Refuse, so Enter alone never allows a call.
    refuse.current?.focus();
  }, [request.id]);
  return (
    <dialog
      ref={ref}
      className="keyboard-help approval-dialog"
      aria-label={`approve a call of ${request.tool}`}
      onCancel={(e) => {
        e.preventDefault();
        onAnswer(false);
      }}
    >
      <h2>Allow this tool call?</h2>
      <p>
        The script wants to call <code data-testid="approval-tool">{request.tool}</code>
        {request.alias && request.alias !== request.tool ? (
          <>
            {' '}
            (as <code>{request.alias}</code>)
          </>
        ) : null}{' '}
        in sandbox <strong>{request.sandbox}</strong>.
      </p>
      {request.line ? (
        <p data-testid="approval-line">
          Line {request.line}: <code>{request.text ?? ''}</code>
        </p>
      ) : null}
      <h3>Arguments</h3>
      <pre className="approval-args" data-testid="approval-args" tabIndex={0}>
        {JSON.stringify(request.args, null, 2)}
      </pre>
      {waiting > 0 && (
        <p className="muted">
          {waiting} more call{waiting > 1 ? 's' : ''} waiting
        </p>
      )}
      <div className="row">
        <button ref={refuse} onClick={() => onAnswer(false)}>
          Refuse
        </button>
        <button className="primary" onClick={() => onAnswer(true)}>
          Allow
        </button>
      </div>
    </dialog>
  );
}

/** The questions of the running service, first asked first shown; each answered once. */
export function Approvals() {
  const [queue, setQueue] = useState<ApprovalView[]>([]);
  useEffect(() => {
    const off = api.onEvent((e: PushEvent) => {
      if (e.type === 'approval_request')
        setQueue((q) => (q.some((x) => x.id === e.request.id) ? q : [...q, e.request]));
      else if (e.type === 'approval_withdrawn') setQueue((q) => q.filter((x) => x.id !== e.id));
    });
    // Questions asked before this window listened.
    void api['approvals.pending']({})
      .then((open) => setQueue((q) => [...q, ...open.filter((o) => !q.some((x) => x.id === o.id))]))
      .catch(() => {});
    return off;
  }, []);
  const first = queue[0];
  if (!first) return null;
  return (
    <ApprovalDialog
      key={first.id}
      request={first}
      waiting={queue.length - 1}
      onAnswer={(approved) => {
        setQueue((q) => q.filter((x) => x.id !== first.id));
        void api['approvals.answer']({ id: first.id, approved }).catch(() => {});
      }}
    />
  );
}
