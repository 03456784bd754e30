/** Handlers for the suites part of the contract (see contract/suites.ts), spread into the handler table. */
import type { Request, Response } from '../contract/api.ts';
import type { SuiteResponses } from '../contract/suites.ts';
import type { ToolsmithService } from './service.ts';

type SuiteHandlers = {
  [M in keyof SuiteResponses]: (svc: ToolsmithService, req: Request<M>) => Response<M> | Promise<Response<M>>;
};

export const suiteHandlers: SuiteHandlers = {
  'suites.list': async (svc) => (await svc.suites()).list(),
  'suites.read': async (svc, { name }) => {
    const s = await svc.suites();
    const text = s.read(name);
    return { name, text, problems: (await s.check(text)).problems };
  },
  'suites.check': async (svc, { text }) => (await svc.suites()).check(text),
  'suites.save': async (svc, { name, text }) => (await svc.suites()).save(name, text, true),
  'suites.create': async (svc, r) => (await svc.suites()).create(r),
  'suites.delete': async (svc, { name }) => (await svc.suites()).remove(name),
  'suites.addCase': async (svc, r) => (await svc.suites()).addCase(r),
  'suites.start': async (svc, r) => {
    const s = await svc.suites();
    const { suiteRun, done } = await s.start({
      suite: r.name,
      ...(r.models ? { models: r.models } : {}),
      ...(r.repeat !== undefined ? { repeat: r.repeat } : {}),
      ...(r.concurrency !== undefined ? { concurrency: r.concurrency } : {}),
      keyFor: (p) => svc.settings.providerKey(p),
    });
    // The outcome reaches the front end through suite_progress events; errors are recorded on the run.
    done.catch(() => {});
    return { suiteRun };
  },
  'suites.cancel': async (svc, { suiteRun }) => ({ cancelled: (await svc.suites()).cancel(suiteRun) }),
  'suites.runs': async (svc, { suite, limit }) => (await svc.suites()).history(suite, limit),
  'suites.get': async (svc, { suiteRun }) => (await svc.suites()).get(suiteRun),
  'suites.compare': async (svc, { head, base }) => (await svc.suites()).compare(head, base),
};
