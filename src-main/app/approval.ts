/**
 * Approval per tool call, the app's side (core/tools/approval.ts holds the rules): which of a script
 * context's tools need a person, and the workbench's broker that puts a call to the renderer (a push
 * event, answered through `approvals.answer`) and waits for the answer.
 */
import { randomUUID } from 'node:crypto';
import type { ApprovalView, PushEvent } from '../contract/api.ts';
import type { ScriptContext } from '../core/script/context.ts';
import {
  approvalTools,
  type ApprovalAnswer,
  type ApprovalAsk,
  type ApprovalConfig,
  type ApprovalGate,
  type ApprovalRequest,
  NO_ONE_TO_ASK,
} from '../core/tools/approval.ts';

/** The tool names of a script context (kit aliases resolved) whose calls need approval. */
export function contextApprovalTools(
  config: ApprovalConfig | undefined,
  ctx: Pick<ScriptContext, 'sandbox' | 'kit' | 'tools' | 'toolMap'>,
): string[] {
  return approvalTools(config, {
    sandbox: ctx.sandbox,
    kit: ctx.kit,
    tools: ctx.tools.map((t) => ({ name: ctx.toolMap[t.name] ?? t.name, grade: t.grade })),
  });
}

/**
 * The gate of a script run outside a run's record (`exec`, MCP `execute_script`): the same tools and
 * askers as a run's, without approval events (the result's tool calls show a refusal).
 */
export function directGate(
  config: ApprovalConfig | undefined,
  ctx: Pick<ScriptContext, 'sandbox' | 'kit' | 'tools' | 'toolMap'>,
  ...askers: (ApprovalAsk | undefined)[]
): { approval?: ApprovalGate } {
  const tools = contextApprovalTools(config, ctx);
  if (!tools.length) return {};
  const ask = askers.reverse().find((a) => a !== undefined) ?? (() => Promise.resolve(NO_ONE_TO_ASK));
  return { approval: { tools, ask: (call, signal) => ask({ ...call, sandbox: ctx.sandbox }, signal) } };
}

/**
 * The workbench's questions: each is pushed as `approval_request` and waits for `answer(id, ...)`; the
 * job ending first withdraws it (`approval_withdrawn`). Questions still open when the window goes are
 * refused by `refuseAll`.
 */
export class ApprovalBroker {
  private readonly open = new Map<string, { view: ApprovalView; resolve: (a: ApprovalAnswer) => void }>();
  private readonly push: (e: PushEvent) => void;
  constructor(push: (e: PushEvent) => void) {
    this.push = push;
  }

  readonly ask: ApprovalAsk = (req: ApprovalRequest, signal: AbortSignal) =>
    new Promise<ApprovalAnswer>((resolve) => {
      const id = randomUUID();
      const view: ApprovalView = { id, ...req };
      const done = (a: ApprovalAnswer) => {
        if (!this.open.delete(id)) return;
        signal.removeEventListener('abort', onAbort);
        resolve(a);
      };
      const onAbort = () => {
        done({ approved: false, via: 'workbench', reason: 'the job ended before an answer' });
        this.push({ type: 'approval_withdrawn', id });
      };
      this.open.set(id, { view, resolve: done });
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.push({ type: 'approval_request', request: view });
    });

  /** A person's answer; false when the question is no longer open (answered, withdrawn). */
  answer(id: string, approved: boolean, reason?: string): boolean {
    const q = this.open.get(id);
    if (!q) return false;
    q.resolve({
      approved,
      via: 'workbench',
      ...(approved ? {} : { reason: reason?.trim() || 'refused by a person' }),
    });
    return true;
  }

  /** The questions still waiting (a window that opens late shows them). */
  pending(): ApprovalView[] {
    return [...this.open.values()].map((q) => q.view);
  }
}
