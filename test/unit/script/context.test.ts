/**
 * The one script context (core/script/context.ts) and the service's use of it: tools under their kit
 * aliases, the alias -> tool map, the helpers of the language and the tools manual, for runs, `exec`,
 * prompts and templates alike.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { ResolvedKit } from '../../../src-main/core/kits/kit.ts';
import { JS_FRAMEWORK_NAMES, PYTHON_FRAMEWORK_NAMES } from '../../../src-main/core/lang/builtins.ts';
import {
  assembleIn,
  frameworkHelpers,
  sandboxContext,
  scriptContext,
  scriptToolNames,
} from '../../../src-main/core/script/context.ts';
import type { SandboxTool } from '../../../src-main/core/tools/extract.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const tool = (name: string): SandboxTool => ({
  name,
  description: `${name} tool`,
  parameters: [],
  location: 'sandbox',
  grade: { w: 0, d: 0 },
});
const kit: ResolvedKit = {
  name: 'orders',
  sandbox: 'shop',
  description: '',
  tools: [
    { alias: 'orders', tool: tool('get_orders'), group: '' },
    { alias: 'user', tool: tool('get_user'), group: '' },
  ],
  grade: { w: 0, d: 0 },
};

describe('scriptContext', () => {
  it('with a kit: aliased tools and map, no cached manual (the prompt renders the kit)', () => {
    const manual = vi.fn(() => 'MANUAL');
    const ctx = scriptContext({ sandbox: 'shop', kit, kitName: 'orders', language: 'python', manual });
    expect(ctx.tools.map((t) => t.name)).toEqual(['orders', 'user']);
    expect(ctx.toolMap).toEqual({ orders: 'get_orders', user: 'get_user' });
    expect(scriptToolNames(ctx)).toEqual(['orders', 'user']);
    expect(ctx.helpers).toBe(PYTHON_FRAMEWORK_NAMES);
    expect(ctx.kit).toBe('orders');
    expect(ctx.toolsPrompt).toBeUndefined();
    expect(sandboxContext(ctx)).toEqual({
      name: 'shop',
      tools: ctx.tools,
      language: 'python',
      kit: 'orders',
    });
    expect(manual).not.toHaveBeenCalled();
  });

  it('without a kit: the cached manual of the tools, rendered only when a prompt needs it', () => {
    const manual = vi.fn((tools: SandboxTool[]) => `manual of ${tools.map((t) => t.name).join(',')}`);
    const ctx = scriptContext({ sandbox: 'shop', kit, language: 'ts', manual });
    expect(ctx.kit).toBeUndefined();
    expect(ctx.helpers).toBe(JS_FRAMEWORK_NAMES);
    expect(manual).not.toHaveBeenCalled();
    expect(sandboxContext(ctx)).toEqual({
      name: 'shop',
      tools: ctx.tools,
      language: 'ts',
      toolsPrompt: 'manual of get_orders,get_user',
    });
  });

  it('assembles a body with the tools and helpers in its preamble', () => {
    const ctx = scriptContext({ sandbox: 'shop', kit, kitName: 'orders', language: 'js', manual: () => '' });
    const s = assembleIn(ctx, 'emitResult(1);\n');
    expect(s.code).toContain('// tools: orders, user');
    expect(s.code).toContain(`// helpers: ${frameworkHelpers('js').join(', ')}`);
    expect(s.body).toBe('emitResult(1);\n');
    expect(s.code.split('\n')[s.bodyStartLine - 1]).toBe('emitResult(1);');
  });
});

describe('ToolsmithService.scriptContext', () => {
  const ws = tempWorkspace();
  const svc = ToolsmithService.open(ws);
  afterAll(async () => {
    await svc.close();
    removeWorkspace(ws);
  });

  it('is what scriptTools, the prompt and validation see', () => {
    const ctx = svc.execution.scriptContext('ecommerce', 'orders', 'python');
    expect(ctx.tools).toEqual(svc.catalog.scriptTools('ecommerce', 'orders').tools);
    expect(ctx.toolMap).toMatchObject({ orders: 'get_orders', user: 'get_user' });
    const all = svc.execution.scriptContext('ecommerce', undefined, 'python');
    expect(Object.keys(all.toolMap)).toEqual(svc.catalog.scriptTools('ecommerce').tools.map((t) => t.name));
    expect(all.toolsPrompt?.()).toBe(
      svc.catalog
        .registry('ecommerce')
        .prompt(svc.catalog.scriptTools('ecommerce').kit.tools.map((k) => k.tool)),
    );
    // The prompt a run gets and the one `toolsmith prompt` prints are built from the same context.
    expect(svc.execution.buildPrompt('orders of u1', 'ecommerce').user).toContain(all.toolsPrompt?.() ?? '');
  });
});
