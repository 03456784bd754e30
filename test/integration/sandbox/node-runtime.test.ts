/** JS/TS scripts in the Node runtime container, through the service (tools forwarded to the Python sandbox). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { tempWorkspace } from '../../support/workspace.ts';

let svc: ToolsmithService;
beforeAll(() => {
  svc = ToolsmithService.open(tempWorkspace(), { sandboxFactory: createSandboxManager });
});
afterAll(() => svc.close());

const run = (body: string, language: 'js' | 'ts' = 'js', validate = true, timeoutMs = 20_000) =>
  svc.executeScript({ sandbox: 'ecommerce', language, body, validate, timeoutMs });

describe('node runtime', () => {
  it('runs a JS script: awaited tools, logs, intermediates, result, traces', async () => {
    const r = await run(
      'const r = await get_user({ user_id: "u3" });\nconsole.log("looked up");\nemitIntermediate(r.success);\nemitResult(r.data.email);\n',
    );
    expect(r).toMatchObject({
      success: true,
      data: 'grace@example.com',
      intermediates: [true],
      logs: ['looked up'],
      runtime: 'node',
      isolation: 'docker',
    });
    expect(r.toolCalls).toEqual([
      expect.objectContaining({
        name: 'get_user',
        location: 'sandbox',
        result: expect.objectContaining({ success: true }),
      }),
    ]);
  }, 120_000);

  it('runs TypeScript (types stripped) and maps error frames to body lines', async () => {
    const ok = await run('const n: number = 2;\nemitResult(n * 21);\n', 'ts');
    expect(ok.data).toBe(42);
    const bad = await run('const r = await get_orders();\n\nemitResult(r.data.nope.x);\n');
    expect(bad.exitReason).toBe('error');
    expect(bad.error).toMatchObject({ type: 'TypeError', frames: [expect.objectContaining({ line: 3 })] });
  });

  it('the script context has no process, require or code generation from strings', async () => {
    const p = await run(
      'emitResult(typeof process + typeof require + typeof globalThis.fetch);\n',
      'js',
      false,
    );
    expect(p.data).toBe('undefinedundefinedundefined');
    const f = await run('emitResult([].map.constructor("return 1")());\n', 'js', false);
    expect(f.success).toBe(false);
    expect(f.error?.message).toMatch(/Code generation from strings disallowed/);
  });

  it('an endless loop ends with timeout, and the next job runs', async () => {
    const r = await run('while (true) {}\nemitResult(1);\n', 'js', true, 1500);
    expect(r.exitReason).toBe('timeout');
    expect((await run('emitResult(1);\n')).data).toBe(1);
  });

  it('a disabled runtime answers the exact error', async () => {
    const r = await svc.executeScript({ sandbox: 'ecommerce', language: 'js', body: 'emitResult(1);\n' });
    expect(r.success).toBe(true);
    expect(svc.enabledRuntimes()).toEqual(['python', 'node']);
  });
});
