/**
 * The handler table behind the contract: one entry per method, typed so that every method must have a
 * handler. Front ends (IPC, HTTP) validate the payload with the contract's schema, then call these.
 */
import { readFileSync } from 'node:fs';
import { extractTools } from '../core/tools/extract.ts';
import { toolsPrompt } from '../core/tools/prompt.ts';
import { openAiFunctionSchema } from '../core/tools/schema.ts';
import { requests } from '../contract/api.ts';
import type { ApiResult, Method, Request, Response } from '../contract/api.ts';
import { ToolsmithError } from './errors.ts';
import type { ToolsmithService } from './service.ts';

type Handlers = { [M in Method]: (svc: ToolsmithService, req: Request<M>) => Response<M> | Promise<Response<M>> };

const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export const handlers: Handlers = {
  'workspace.info': (svc) => ({ workspace: svc.workspaceDir, name: svc.config.workspace.name, version }),
  'sandboxes.list': (svc) => svc.sandboxes(),
  'tools.list': (svc, { sandbox }) => {
    const r = svc.registry(sandbox);
    return { sandbox, tools: r.tools, problems: r.problems, prompt: r.prompt(), openai: r.tools.map(openAiFunctionSchema) };
  },
  'tools.extract': (_svc, { source }) => {
    const { tools, problems } = extractTools(source);
    return { tools, problems, prompt: toolsPrompt(tools), openai: tools.map(openAiFunctionSchema) };
  },
  'kits.list': (svc) =>
    svc.kits().map((k) => ({ name: k.name, sandbox: k.sandbox, ...(k.kit ? { kit: { ...k.kit, tools: k.kit.tools } } : {}), ...(k.error ? { error: k.error } : {}) })),
  'scripts.validate': (svc, req) =>
    svc.validate({
      code: req.code,
      language: req.language,
      ...(req.sandbox ? { sandbox: req.sandbox } : {}),
      ...(req.kit ? { kit: req.kit } : {}),
      ...(req.tools ? { tools: req.tools } : {}),
      strict: req.strict ?? false,
    }),
  'prompts.build': (svc, req) =>
    svc.buildPrompt(req.task, req.sandbox, {
      ...(req.kit ? { kit: req.kit } : {}),
      ...(req.language ? { language: req.language } : {}),
      ...(req.attempt ? { attempt: req.attempt } : {}),
      ...(req.previousScript !== undefined ? { previousScript: req.previousScript } : {}),
      ...(req.previousError !== undefined ? { previousError: req.previousError } : {}),
    }),
};

/** Validates `payload` against the method's schema and runs its handler; never throws. */
export async function dispatch(svc: ToolsmithService, method: string, payload: unknown): Promise<ApiResult<Method>> {
  if (!Object.hasOwn(requests, method)) return { ok: false, error: { code: 'invalid_argument', message: `unknown method ${method}` } };
  const m = method as Method;
  const parsed = requests[m].safeParse(payload ?? {});
  if (!parsed.success) {
    return { ok: false, error: { code: 'invalid_argument', message: parsed.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`).join('; ') } };
  }
  try {
    const handler = handlers[m] as (svc: ToolsmithService, req: unknown) => unknown;
    return { ok: true, value: (await handler(svc, parsed.data)) as Response<Method> };
  } catch (e) {
    if (e instanceof ToolsmithError) return { ok: false, error: e.toData() };
    return { ok: false, error: { code: 'internal', message: e instanceof Error ? e.message : String(e) } };
  }
}
