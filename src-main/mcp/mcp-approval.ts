/**
 * Over MCP, a tool call that needs approval (core/tools/approval.ts) is put to the client's person through
 * elicitation (a form with one yes/no field, sent as part of the tool call's request); a client without
 * the elicitation capability cannot ask anyone, so the call is refused with how to allow it.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalAsk, ApprovalRequest } from '../core/tools/approval.ts';
import { errorMessage } from '../core/errors.ts';

/** The server each tool request came in on (its handler's `extra`), set by the tool table. */
const servers = new WeakMap<object, Server>();
export const rememberServer = (extra: object, server: Server): void => void servers.set(extra, server);

interface Extra {
  sendRequest: (
    r: { method: 'elicitation/create'; params: Record<string, unknown> },
    schema: typeof ElicitResultSchema,
    options?: { signal?: AbortSignal; timeout?: number },
  ) => Promise<{ action: string; content?: Record<string, unknown> }>;
}

/** The longest a question waits (the job's own timeout, at most 600 s, ends it sooner). */
const ASK_TIMEOUT_MS = 600_000;

export const CANNOT_ELICIT =
  'this MCP client cannot ask a person (no elicitation capability): run the script from the workbench or a terminal, or remove the tool from [approval] in .toolsmith/config.toml';

export function approvalMessage(r: ApprovalRequest): string {
  const args = JSON.stringify(r.args, null, 2);
  return [
    `Allow the script to call ${r.tool}${r.alias ? ` (as ${r.alias})` : ''} in sandbox ${r.sandbox}${r.runId ? ` (run ${r.runId})` : ''}?`,
    ...(r.line ? [`Line ${r.line}: ${r.text ?? ''}`] : []),
    `Arguments: ${args.length > 4000 ? `${args.slice(0, 4000)}… (${args.length} characters)` : args}`,
  ].join('\n');
}

/** The elicitation result a yes/no question with one boolean field `field` expects, in words. */
export const expectedReply = (field: string): string =>
  `a result {"action": "accept" | "decline" | "cancel", "content": {"${field}": true | false}} (content with "accept")`;

/**
 * Why a client's reply to elicitation/create was refused when it was of the wrong shape (the SDK's
 * check of the result, or of its content against the requested schema), with what was expected; else
 * undefined (no answer at all: a timeout, a closed connection). Before, the SDK's issue list was the
 * error: save_skill ended as an `internal` error quoting it, and a tool call's approval said "the client
 * did not answer".
 */
export function malformedReply(e: unknown, field: string): string | undefined {
  const issues = (e as { issues?: unknown } | undefined)?.issues;
  let why: string | undefined;
  if (e instanceof Error && Array.isArray(issues))
    why = (issues as { path?: PropertyKey[]; message?: string }[])
      .map(
        (i) => `${i.path?.length ? i.path.map(String).join('.') : 'the result'}: ${i.message ?? 'invalid'}`,
      )
      .join('; ');
  else if (
    e instanceof McpError &&
    e.code === (ErrorCode.InvalidParams as number) &&
    /elicitation response content/i.test(e.message)
  )
    why = e.message.replace(/^MCP error -?\d+: /, '');
  return why === undefined
    ? undefined
    : `the client's reply to elicitation/create was malformed (${why}): expected ${expectedReply(field)}`;
}

/** The asker of one MCP tool request (its handler's `extra`). */
export function elicitApproval(extra: object): ApprovalAsk {
  return async (r, signal) => {
    const server = servers.get(extra);
    if (!server?.getClientCapabilities()?.elicitation)
      return { approved: false, via: 'mcp', reason: CANNOT_ELICIT };
    try {
      const answer = await (extra as unknown as Extra).sendRequest(
        {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: approvalMessage(r),
            requestedSchema: {
              type: 'object',
              properties: { approve: { type: 'boolean', title: `Allow this call of ${r.tool}` } },
              required: ['approve'],
            },
          },
        },
        ElicitResultSchema,
        { signal, timeout: ASK_TIMEOUT_MS },
      );
      if (answer.action === 'accept' && answer.content?.['approve'] === true)
        return { approved: true, via: 'mcp' };
      // An accept whose content has no yes or no (`approve` missing, or "yes") is no answer of the form.
      if (answer.action === 'accept' && typeof answer.content?.['approve'] !== 'boolean')
        return {
          approved: false,
          via: 'mcp',
          reason: `the client's reply to elicitation/create was malformed (content.approve: ${answer.content?.['approve'] === undefined ? 'missing' : `${JSON.stringify(answer.content['approve'])}, not a boolean`}): expected ${expectedReply('approve')}`,
        };
      return {
        approved: false,
        via: 'mcp',
        reason: answer.action === 'accept' ? 'refused by the person' : `the person chose ${answer.action}`,
      };
    } catch (e) {
      return {
        approved: false,
        via: 'mcp',
        reason: malformedReply(e, 'approve') ?? `the client did not answer: ${errorMessage(e)}`,
      };
    }
  };
}
