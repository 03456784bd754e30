/**
 * The handler table behind the contract: one entry per method, typed so that every method must have a
 * handler. Front ends (IPC, HTTP) validate the payload with the contract's schema, then call these.
 */
import type { JsonValue } from '../core/tools/model.ts';
import { requests } from '../contract/api.ts';
import type { ApiResult, Method, Response } from '../contract/api.ts';
import { ToolsmithError } from './errors.ts';
import { skillHandlers } from './skill-handlers.ts';
import { suiteHandlers } from './suite-handlers.ts';
import { setupHandlers } from './handlers-setup.ts';
import type { ToolsmithService } from './service.ts';
import type { FrontEndContext, Handlers } from './handler-types.ts';
import { errorMessage } from '../core/errors.ts';
import { WorkspaceFileError, workspaceGone } from '../infra/workspace/atomic.ts';
import { knownSecrets } from '../core/records/redact.ts';
import { StoreOverwrittenError } from '../infra/store/connection.ts';
import { readThroughOverwrite } from '../infra/store/read-through.ts';

export type { FrontEndContext, Handlers } from './handler-types.ts';

const opt = <K extends string, V>(key: K, v: V | undefined): { [P in K]?: V } =>
  v === undefined ? {} : ({ [key]: v } as { [P in K]: V });

export const handlers: Handlers = {
  'workspace.info': (svc) => svc.workspace.info(),
  'sandboxes.list': (svc) => svc.catalog.sandboxes(),
  'tools.list': (svc, { sandbox }) => svc.tools.list(sandbox),
  'tools.extract': (svc, { source }) => svc.tools.extract(source),
  'tools.save': (svc, { sandbox, source }) => svc.tools.save(sandbox, source),
  'tools.call': (svc, { sandbox, tool, args }) =>
    svc.tools.call(sandbox, tool, args as Record<string, JsonValue>),
  'kits.list': (svc) => svc.kits.list(),
  // The kit editor saves over an existing kit (editing is saving over; a new kit's form warns first).
  'kits.save': (svc, { name, sandbox, description, tools }) => {
    const saved = svc.kits.save(
      { name, sandbox, ...opt('description', description), tools },
      { overwrite: true },
    );
    return { name: saved.name, file: saved.file };
  },
  'scripts.validate': (svc, req) =>
    svc.execution.validate({
      code: req.code,
      language: req.language,
      ...opt('sandbox', req.sandbox),
      ...opt('kit', req.kit),
      ...opt('tools', req.tools),
      strict: req.strict ?? false,
    }),
  'prompts.build': (svc, req) =>
    svc.execution.buildPrompt(req.task, req.sandbox, {
      ...opt('kit', req.kit),
      ...opt('language', req.language),
      ...opt('attempt', req.attempt),
      ...opt('previousScript', req.previousScript),
      ...opt('previousError', req.previousError),
    }),
  'runs.list': async (svc, f) =>
    (await svc.runs()).list({
      ...opt('status', f.status),
      ...opt('kind', f.kind),
      ...opt('sandbox', f.sandbox),
      ...opt('mode', f.mode),
      ...opt('model', f.model),
      ...opt('tier', f.tier),
      ...opt('from', f.from),
      ...opt('to', f.to),
      ...opt('text', f.text),
      ...opt('limit', f.limit),
      ...opt('offset', f.offset),
      ...opt('suiteRun', f.suiteRun),
      ...opt('sort', f.sort),
      ...opt('dir', f.dir),
      ...opt('count', f.count),
    }),
  'runs.get': async (svc, { runId, prompts }) => svc.runActions.detail(runId, prompts),
  'runs.prompt': async (svc, { runId, n }) => (await svc.runs()).prompt(runId, n),
  'runs.events': async (svc, { runId, afterSeq }) => (await svc.runs()).eventViews(runId, afterSeq),
  'runs.start': async (svc, r) => {
    const started = await (
      await svc.runs()
    ).start({
      task: r.task,
      sandbox: r.sandbox,
      ...opt('kit', r.kit),
      ...opt('mode', r.mode),
      ...opt('language', r.language),
      providers: svc.settings.providersFor({ ...opt('provider', r.provider), ...opt('model', r.model) }),
      ...opt('maxRetries', r.maxRetries),
      ...opt('maxSteps', r.maxSteps),
      ...opt('timeoutMs', r.timeoutS === undefined ? undefined : r.timeoutS * 1000),
      ...opt('noTemplates', r.noTemplates),
    });
    started.done.catch(() => {});
    return { runId: started.runId };
  },
  'runs.cancel': async (svc, { runId }) => ({ cancelled: (await svc.runs()).cancel(runId) }),
  'runs.delete': async (svc, { runId }) => {
    (await svc.runs()).delete(runId);
    return { deleted: true as const };
  },
  'runs.replay': async (svc, { runId }) => {
    const r = await (await svc.runs()).replay(runId);
    r.done.catch(() => {});
    return { runId: r.runId };
  },
  'runs.export': async (svc, { runId }) => (await svc.runs()).export(runId),
  // Settings › Telemetry says how the last export went: a trace sent clears its failure.
  'runs.sendTrace': async (svc, { runId }) => {
    try {
      const sent = await svc.runActions.exportTrace(runId);
      svc.settings.noteTelemetry(runId);
      return sent;
    } catch (e) {
      if (e instanceof ToolsmithError && e.code === 'infra') svc.settings.noteTelemetry(runId, e.message);
      throw e;
    }
  },
  'runs.import': async (svc, { doc }) => ({ runId: (await svc.runs()).import(doc) }),
  'runs.runScript': async (svc, r) => {
    const started = await (
      await svc.runs()
    ).startEdit({
      sandbox: r.sandbox,
      ...opt('kit', r.kit),
      ...opt('language', r.language),
      body: r.body,
      ...opt('task', r.task),
      ...opt('originRun', r.originRun),
      ...opt('originAttempt', r.originAttempt),
    });
    started.done.catch(() => {});
    return { runId: started.runId };
  },
  'runs.continue': async (svc, { runId, attempt, body }) => {
    const started = await svc.runActions.continue(runId, attempt, body);
    started.done.catch(() => {});
    return { runId: started.runId };
  },
  'templates.list': async (svc) => {
    const templates = await svc.templates();
    return { templates: templates.list(), problems: templates.problems() };
  },
  'templates.propose': async (svc, { runId, attempt }) => (await svc.templates()).propose(runId, attempt),
  'templates.create': async (svc, r) =>
    (await svc.templates()).create({
      name: r.name,
      ...opt('fromRun', r.fromRun),
      ...opt('attempt', r.attempt),
      ...opt('body', r.body),
      ...opt('pattern', r.pattern),
      ...opt('slots', r.slots),
      ...opt('sandbox', r.sandbox),
      ...opt('kit', r.kit),
      ...opt('language', r.language),
      ...opt(
        'examples',
        r.examples?.map((e) => ({ intent: e.intent, ...opt('expect', e.expect as JsonValue | undefined) })),
      ),
      ...opt('description', r.description),
      ...opt('force', r.force),
    }),
  'templates.test': async (svc, { name }) => (await svc.templates()).test(name),
  'templates.delete': async (svc, { name }) => {
    (await svc.templates()).delete(name);
    return { deleted: true as const };
  },
  'settings.get': (svc) => svc.settings.view(),
  'settings.setProviderKey': (svc, { provider, key }, fe) =>
    svc.settings.setProviderKey(provider, key, fe.storeKey),
  'settings.setTelemetry': (svc, { enabled, endpoint }) => {
    svc.admin.saveTelemetry({ enabled, ...(endpoint !== undefined ? { endpoint } : {}) });
    return svc.settings.view().telemetry;
  },
  'system.status': (svc) => svc.system.status(),
  'system.buildImage': (svc, { runtime, sandbox }) => svc.system.buildImage(runtime, sandbox),
  ...suiteHandlers,
  ...skillHandlers,
  'mcp.servers': (svc) => svc.mcpServers.view(),
  'mcp.test': (svc, { name }) => svc.mcpServers.test(name),
  'mcp.save': (svc, { name, sandbox, ...def }) => svc.mcpServers.save(name, def, sandbox),
  'mcp.remove': (svc, { name }) => svc.mcpServers.remove(name),
  ...setupHandlers,
  'approvals.answer': (svc, { id, approved, reason }) => ({
    answered: svc.approvals.answer(id, approved, reason),
  }),
  'approvals.pending': (svc) => svc.approvals.pending(),
};

/**
 * The lists read from the workspace's files, each with what it lists: with the workspace folder moved or
 * deleted under a live service they were empty (nothing at the old path), as if the workspace had
 * nothing; they are refused instead, with the message a save gets (atomic.ts `workspaceGone`).
 */
const WORKSPACE_LISTS: Partial<Record<Method, string>> = {
  'sandboxes.list': 'the sandboxes',
  'tools.list': "the sandbox's tools",
  'kits.list': 'the kits',
  'templates.list': 'the templates',
  'skills.list': 'the skills',
  'skills.get': 'the skill',
  'suites.list': 'the suites',
  'suites.read': 'the suite',
};

/**
 * The reads of the run store (the run list and view, a run's events and prompt, its export, the suite
 * runs' history, a suite run, a comparison) that wait through a copy going on over `runs.db` and then
 * read the content copied in (infra/store/read-through.ts), as the suite runner's own reads do. Before,
 * each was refused at once during a copy, answered as an `internal` error saying "nothing was written".
 */
const STORE_READS: ReadonlySet<string> = new Set([
  'runs.list',
  'runs.get',
  'runs.events',
  'runs.prompt',
  'runs.export',
  'suites.runs',
  'suites.get',
  'suites.compare',
]);

/** Validates `payload` against the method's schema and runs its handler; never throws. */
/**
 * Answers a front end only shows (a tool tried, a server or provider tested, a template's examples, the
 * open approval questions): no known secret in them, as in the store (an upstream MCP server's token in
 * its tool's error). Answers a front end may edit and save back (files, settings) are left whole: a
 * redacted value saved back would be lost.
 */
const SHOWN_ONLY: ReadonlySet<string> = new Set([
  'tools.call',
  'mcp.test',
  'providers.test',
  'templates.test',
  'skills.test',
  'skills.try',
  'approvals.pending',
]);

export async function dispatch(
  svc: ToolsmithService,
  method: string,
  payload: unknown,
  fe: FrontEndContext = {},
): Promise<ApiResult<Method>> {
  const r = await dispatchTo(svc, method, payload, fe);
  if (!r.ok) return { ok: false, error: { ...r.error, message: knownSecrets.text(r.error.message) } };
  return SHOWN_ONLY.has(method) ? knownSecrets.value(r) : r;
}

async function dispatchTo(
  svc: ToolsmithService,
  method: string,
  payload: unknown,
  fe: FrontEndContext,
): Promise<ApiResult<Method>> {
  if (!Object.hasOwn(requests, method))
    return { ok: false, error: { code: 'invalid_argument', message: `unknown method ${method}` } };
  const m = method as Method;
  const parsed = requests[m].safeParse(payload ?? {});
  if (!parsed.success) {
    return {
      ok: false,
      error: {
        code: 'invalid_argument',
        message: parsed.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`).join('; '),
      },
    };
  }
  try {
    const handler = handlers[m] as (svc: ToolsmithService, req: unknown, fe: FrontEndContext) => unknown;
    const listed = WORKSPACE_LISTS[m];
    const gone = listed === undefined ? undefined : workspaceGone(svc.workspaceDir, listed, 'list');
    if (gone) throw gone;
    // A sandbox's MCP servers are connected before anything lists or runs its tools.
    const sb = (parsed.data as { sandbox?: unknown }).sandbox;
    if (typeof sb === 'string' && svc.workspace.config().sandboxes[sb]?.mcp) await svc.prepareMcp(sb);
    if (m === 'runs.replay' || m === 'runs.continue') {
      // The sandbox from the run's summary row: the handler reads the run itself, once.
      await svc.prepareMcp((await svc.runs()).sandboxOf((parsed.data as { runId: string }).runId));
    }
    const call = () => handler(svc, parsed.data, fe);
    // (a read waiting through a copy stops when its request is cancelled: fe.signal)
    const value = STORE_READS.has(m) ? await readThroughOverwrite(call, undefined, fe.signal) : await call();
    return { ok: true, value: value as Response<Method> };
  } catch (e) {
    if (e instanceof ToolsmithError) return { ok: false, error: e.toData() };
    // The run store refusing while a copy goes on over it (named, with what to do): not a bug.
    if (e instanceof StoreOverwrittenError)
      return { ok: false, error: { code: 'infra', message: e.message } };
    // A workspace file the machine refused (named, with its cause and what to do): not a bug.
    if (e instanceof WorkspaceFileError) return { ok: false, error: { code: 'infra', message: e.message } };
    process.stderr.write(
      `toolsmith: ${method} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
    );
    return { ok: false, error: { code: 'internal', message: errorMessage(e) } };
  }
}
