/**
 * A tools.py that parses but fails while the worker loads it (a missing module, an exception at its top
 * level): every script of that sandbox gets an infra result naming tools.py, the line and the error (not
 * the script), other sandboxes keep working, and a fixed tools.py is picked up without a restart.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { requireDocker } from './support/processes.ts';

let ws: string;
let svc: ToolsmithService;
let original: string;
const toolsFile = () => join(ws, 'sandboxes', 'ecommerce', 'tools.py');
const run = (sandbox: string, body: string) =>
  svc.execution.executeScript({ sandbox, language: 'python', body });

beforeAll(async () => {
  await requireDocker();
  ws = tempWorkspace();
  original = readFileSync(toolsFile(), 'utf8');
  svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
});
afterAll(async () => {
  await svc?.close();
  removeWorkspace(ws);
});

describe('a tools.py that fails to load in the worker', () => {
  it.each([
    [
      'a missing module',
      'import nonexistent_module_xyz\n',
      /tools\.py failed to load \(line 1\): ModuleNotFoundError: No module named 'nonexistent_module_xyz'/,
    ],
    [
      'an exception at the top level',
      'x = 1\nraise RuntimeError("config missing")\n',
      /tools\.py failed to load \(line 2\): RuntimeError: config missing/,
    ],
  ])(
    '%s: an infra result naming tools.py, the line and the error; the fix is picked up',
    async (_what, head, message) => {
      writeFileSync(toolsFile(), head + original);
      svc.catalog.invalidateRegistry('ecommerce');
      await (await svc.execution.sandbox()).reload('ecommerce');
      const r = await run('ecommerce', 'emit_result(get_user(user_id="u1").data["name"])\n');
      expect(r.success).toBe(false);
      expect(r.exitReason).toBe('infra');
      expect(r.error?.message).toMatch(message);
      // Another sandbox is not touched.
      const other = await run('support', 'emit_result(1)\n');
      expect(other.success).toBe(true);
      // Fixed: the next script runs with the tools.
      writeFileSync(toolsFile(), original);
      svc.catalog.invalidateRegistry('ecommerce');
      await (await svc.execution.sandbox()).reload('ecommerce');
      const fixed = await run('ecommerce', 'emit_result(get_user(user_id="u1").data["name"])\n');
      expect(fixed.success).toBe(true);
      expect(fixed.data).toBe('Ada Lovelace');
    },
    180_000,
  );
});
