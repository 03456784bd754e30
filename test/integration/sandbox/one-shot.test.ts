/**
 * A one-shot process (most CLI verbs) runs without standby workers: a standby would cost a container start
 * that nothing uses before the process exits. A server keeps the configured standby.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { tempWorkspace } from '../../support/workspace.ts';

let svc: ToolsmithService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

async function poolAfterOneJob(oneShot: boolean) {
  svc = ToolsmithService.open(tempWorkspace(), { sandboxFactory: createSandboxManager, oneShot });
  const r = await svc.execution.executeScript({
    sandbox: 'ecommerce',
    language: 'python',
    body: 'emit_result(1)\n',
  });
  expect(r).toMatchObject({ success: true, data: 1 });
  const status = await (await svc.execution.sandbox()).status();
  return status.pools.find((p) => p.sandbox === 'ecommerce (python)');
}

describe('standby workers and the kind of process', () => {
  it('a one-shot process starts no standby', async () => {
    expect(await poolAfterOneJob(true)).toMatchObject({ standbyTarget: 0, standby: 0, standbyStarting: 0 });
  }, 120_000);

  it('a server keeps the configured standby', async () => {
    const pool = await poolAfterOneJob(false);
    expect(pool?.standbyTarget).toBe(1);
    expect((pool?.standby ?? 0) + (pool?.standbyStarting ?? 0)).toBe(1);
  }, 120_000);
});
