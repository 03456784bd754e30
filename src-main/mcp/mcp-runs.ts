/**
 * Recorded runs as MCP resources (`toolsmith://runs/<id>`): listed newest first, read as the run's
 * compact agent context (`runAgentContext`, XML), so an agent can read why an earlier run failed.
 */
import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolsmithService } from '../app/service.ts';
import { ToolsmithError } from '../app/errors.ts';
import { readThroughOverwrite } from '../infra/store/read-through.ts';
import { runAgentContext } from '../core/sandbox/agent-context.ts';

export const RUN_URI_PREFIX = 'toolsmith://runs/';
/** How many recent runs the list names (the newest). */
export const LISTED_RUNS = 50;

/** MCP's JSON-RPC error code for a resource that does not exist (the SDK's ErrorCode has no name for it). */
const RESOURCE_NOT_FOUND = -32002;

export const runUri = (id: string): string => `${RUN_URI_PREFIX}${id}`;

/**
 * A run's agent context for the answer of a tool or a resource read, through a copy going on over the
 * store (infra/store/read-through.ts), as the list of run resources is: before, a run tool's answer
 * failed after its run had ended, and a resource read was refused at once. `signal`: the request's
 * cancellation (the client's `notifications/cancelled`, its connection closed), which ends the wait.
 */
export async function runContextText(
  svc: ToolsmithService,
  runId: string,
  signal?: AbortSignal,
): Promise<string> {
  const store = await svc.runs();
  return runAgentContext(await readThroughOverwrite(() => store.get(runId), undefined, signal));
}

export function registerRunResources(server: McpServer, svc: ToolsmithService): void {
  server.registerResource(
    'run',
    new ResourceTemplate(`${RUN_URI_PREFIX}{id}`, {
      list: async (extra) => {
        // (through a copy going on over the store, until the request is cancelled: read-through.ts)
        const store = await svc.runs();
        const { runs } = await readThroughOverwrite(
          () => store.list({ limit: LISTED_RUNS }),
          undefined,
          extra.signal,
        );
        return {
          resources: runs.map((r) => ({
            uri: runUri(r.id),
            name: `run ${r.id.slice(0, 8)}`,
            title: `${r.status}: ${r.task.slice(0, 80)}`,
            description: `${r.status} run in sandbox ${r.sandbox} (${r.mode}, ${r.attempts} attempt(s)), ${new Date(r.createdAt).toISOString()}`,
            mimeType: 'application/xml',
          })),
        };
      },
    }),
    {
      title: 'Recorded run',
      description:
        "A recorded Toolsmith run as compact XML for an agent's next turn: status, task, earlier attempts in one line each, the last attempt's result or error with its failing line.",
      mimeType: 'application/xml',
    },
    async (uri, { id }, extra) => {
      const runId = Array.isArray(id) ? id[0] : id;
      try {
        const text = await runContextText(svc, String(runId), extra.signal);
        return {
          contents: [{ uri: uri.href, mimeType: 'application/xml', text }],
        };
      } catch (e) {
        // The SDK answers a thrown error as a JSON-RPC error with its message and its numeric `code`
        // (-32603 without one). A run that does not exist is MCP's "resource not found", -32002. Not an
        // McpError: it would prefix "MCP error -32002: " to the message.
        if (e instanceof ToolsmithError)
          throw Object.assign(new Error(`${e.message} (${uri.href})`), {
            ...(e.code === 'not_found' ? { code: RESOURCE_NOT_FOUND } : {}),
          });
        throw e;
      }
    },
  );
}
