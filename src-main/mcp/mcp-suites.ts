/** The MCP `run_suite` tool: runs a workspace test suite and answers with its matrix and totals. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ToolsmithError } from '../app/errors.ts';
import type { ToolsmithService } from '../app/service.ts';
import { SuiteFiles } from '../infra/workspace/suite-files.ts';
import { errorMessage } from '../core/errors.ts';
import { toolConfig } from './mcp-meta.ts';

export function registerSuiteTools(server: McpServer, svc: ToolsmithService): void {
  // Listed from the files alone: describing the tool needs neither the run store nor a sandbox.
  const names = new SuiteFiles(svc.workspaceDir).names();
  server.registerTool(
    'run_suite',
    toolConfig('run_suite', {
      description:
        'Run a test suite of the workspace (suites/NAME.toml): every case against every model, each as a recorded run; ' +
        'answers with pass rates per case and model, attempts, tokens, cost, latency and the failures. ' +
        `Suites: ${names.join(', ') || 'none'}.`,
      inputSchema: {
        suite: z.string().min(1).describe('the suite name'),
        models: z
          .array(z.string().min(1))
          .optional()
          .describe('provider ids, provider:model, or model names'),
        repeat: z.number().int().min(1).max(100).optional().describe('runs per case and model'),
        concurrency: z.number().int().min(1).max(64).optional(),
      },
    }),
    async ({ suite, models, repeat, concurrency }, extra) => {
      try {
        const suites = await svc.suites();
        const { suiteRun, done } = await suites.start({
          suite,
          ...(models?.length ? { models } : {}),
          ...(repeat !== undefined ? { repeat } : {}),
          ...(concurrency !== undefined ? { concurrency } : {}),
        });
        // The call cancelled (`notifications/cancelled`, the session gone): so is its suite run, as a
        // `code` call's run is (its cases' runs, and its reads of the run store: app/suites.ts).
        const cancel = () => void suites.cancel(suiteRun);
        if (extra.signal.aborted) cancel();
        extra.signal.addEventListener('abort', cancel, { once: true });
        const v = await done.finally(() => extra.signal.removeEventListener('abort', cancel));
        const answer = {
          suiteRun: v.id,
          status: v.status,
          met: v.matrix.overall.met,
          cells: v.matrix.overall.cells,
          totals: v.matrix.totals,
          cases: v.matrix.cells.map((c) => ({
            case: c.caseId,
            model: c.column,
            passRate: c.passRate,
            meets: c.meets,
            attempts: c.attempts,
            tokens: c.tokens,
            cost: c.cost,
            latencyMs: c.latencyMs,
            runIds: c.runIds,
            ...(c.failure ? { failure: c.failure } : {}),
          })),
        };
        return {
          content: [{ type: 'text' as const, text: JSON.stringify(answer, null, 2) }],
          structuredContent: answer,
        };
      } catch (e) {
        const err =
          e instanceof ToolsmithError
            ? { error: e.message, code: e.code }
            : { error: errorMessage(e), code: 'internal' };
        return { content: [{ type: 'text' as const, text: JSON.stringify(err, null, 2) }], isError: true };
      }
    },
  );
}
