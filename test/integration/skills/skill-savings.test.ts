/**
 * A suite run reports what the sandbox's skills would have saved: the real scripted LLM server answers
 * the sample ecommerce suite with scripts that make the steps inline, the cases run in real containers,
 * and the suite run (its JSON, and the CLI's text) names the runs whose recorded tool calls are a
 * skill's sequence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { formatMatrix } from '../../../src-main/cli/commands/eval.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { oracleAnswer, scriptedConfig } from '../../support/suite-oracle.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let llm: LlmServer;
let svc: ToolsmithService;
const ws = tempWorkspace();

beforeAll(async () => {
  llm = await startLlmServer();
  scriptedConfig(ws, llm.openaiUrl);
  svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
});
afterAll(async () => {
  await svc?.close();
  await llm?.close();
  removeWorkspace(ws);
});

const CITY = `def city_of_order(order_id: str) -> str:
    """The city of the customer who placed an order.

    Args:
        order_id: The order's id (e.g. "o4").
    """
    order = [o for o in get_orders().data if o["id"] == order_id][0]
    return get_user(user_id=order["user_id"]).data["city"]
`;

describe('skill savings in a suite run', () => {
  it('reports the skill would have saved N tool-call lines in M runs, in the JSON and the CLI text', async () => {
    const saved = await svc.skills().save({
      sandbox: 'ecommerce',
      name: 'city_of_order',
      source: CITY,
      tests: [{ args: { order_id: 'o4' }, assert: [{ type: 'equals', value: 'New York' }] }],
    });
    expect(saved.test.failures).toEqual([]);
    // The scripted model writes every task's steps inline (it does not call the skill).
    llm.responder = oracleAnswer;
    const suites = await svc.suites();
    const { done } = await suites.start({ suite: 'ecommerce', models: ['local:good'] });
    const view = await done;
    expect(view.status).toBe('passed');
    // Two tasks call get_orders then get_user inline: order-city (2 lines) and gold-spend (lines 1 and 4,
    // get_user once per order in a loop); no other case calls that sequence.
    const saving = view.skillSavings?.find((s) => s.skill === 'city_of_order');
    expect(saving).toMatchObject({
      status: 'passed',
      sequence: ['get_orders', 'get_user'],
      lines: 4,
      runs: 2,
    });
    expect(saving?.matches.map((m) => [m.caseId, m.lines]).sort()).toEqual([
      ['gold-spend', [1, 4]],
      ['order-city', [1, 2]],
    ]);
    for (const m of saving?.matches ?? [])
      expect(view.results.find((r) => r.caseId === m.caseId)?.runId).toBe(m.runId);
    // The same through the contract's get, and in the CLI's report.
    expect(suites.get(view.id).skillSavings).toEqual(view.skillSavings);
    expect(formatMatrix(view)).toContain(
      'skills:\n  city_of_order would have saved 4 tool-call lines in 2 runs (get_orders → get_user)',
    );
  });
});
