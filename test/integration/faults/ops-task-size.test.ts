/**
 * One task size limit (MAX_TASK_CHARS, core) on every way in: CLI run, MCP delegate and code, the web /
 * desktop contract, suite cases, and the service itself. Each refusal names the limit; nothing is
 * recorded for a refused task.
 */
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { checkSuiteText } from '../../../src-main/app/suites.ts';
import { MAX_TASK_CHARS } from '../../../src-main/core/records/events.ts';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { cliProcess } from './support/processes.ts';

let ws: string;
let data: string;
const long = 'x'.repeat(MAX_TASK_CHARS + 1);
const limit = new RegExp(`limit (is|of) ${MAX_TASK_CHARS} characters`);

beforeAll(() => {
  ws = tempWorkspace();
  data = mkdtempSync(join(tmpdir(), 'toolsmith-data-'));
});
afterAll(() => {
  removeWorkspace(ws);
  rmSync(data, { recursive: true, force: true });
});

const recorded = () => {
  const s = new RunStore(join(ws, '.toolsmith', 'runs.db'));
  try {
    return s.list({ count: true }).total;
  } finally {
    s.close();
  }
};

describe('one task size limit everywhere', () => {
  it('CLI run refuses it with exit 2, naming the limit, recording nothing', async () => {
    const r = await cliProcess(ws, data, ['run', long, '--sandbox', 'ecommerce']).done;
    expect(r.code).toBe(2);
    expect(r.err).toMatch(limit);
    expect(r.err).toMatch(new RegExp(`the task is ${MAX_TASK_CHARS + 1} characters long`));
    expect(recorded()).toBe(0);
  }, 60_000);

  it('MCP delegate and code refuse 1 MB and 3.5 MB tasks, naming the limit', async () => {
    const client = await connectMcp(ws, 'size-test', { ...process.env, TOOLSMITH_DATA_DIR: data });
    try {
      for (const size of [1_000_000, 3_500_000]) {
        const r = (await client.callTool({
          name: 'delegate',
          arguments: { task: 'y'.repeat(size), sandbox: 'ecommerce' },
        })) as { isError?: boolean; content: { text: string }[] };
        expect(r.isError).toBe(true);
        expect(r.content.map((c) => c.text).join('\n')).toMatch(limit);
      }
      const c = (await client.callTool({
        name: 'code',
        arguments: { code: 'emit_result(1)', sandbox: 'ecommerce', task: long },
      })) as { isError?: boolean; content: { text: string }[] };
      expect(c.isError).toBe(true);
      expect(c.content.map((x) => x.text).join('\n')).toMatch(limit);
    } finally {
      await client.close();
    }
    expect(recorded()).toBe(0);
  }, 120_000);

  it('the contract (web and desktop IPC) and suite cases refuse it too', async () => {
    const svc = ToolsmithService.open(ws);
    try {
      const r = await dispatch(svc, 'runs.start', { task: long, sandbox: 'ecommerce' }, {});
      expect(r.ok).toBe(false);
      expect(JSON.stringify(r)).toMatch(limit);
      const suite = checkSuiteText(
        {
          scriptTools: (sandbox, kit) => svc.catalog.scriptTools(sandbox, kit),
          validateCode: (code, language, options) => svc.execution.validateCode(code, language, options),
        },
        `sandbox = "ecommerce"\n[[cases]]\nid = "big"\ntask = "${long}"\nexpect = { equals = 1 }\n`,
      );
      expect(suite.problems.map((p) => p.message).join('\n')).toMatch(limit);
      // The service itself (a front end that skipped the contract): the same refusal.
      await expect(
        (await svc.runs()).start({ task: long, sandbox: 'ecommerce', providers: [] }),
      ).rejects.toThrow(limit);
    } finally {
      await svc.close();
    }
    expect(recorded()).toBe(0);
  });
});
