/** Handlers for the skills part of the contract (see contract/skills.ts), spread into the handler table. */
import type { Request, Response } from '../contract/api.ts';
import type { SkillResponses } from '../contract/skills.ts';
import type { JsonValue } from '../core/tools/model.ts';
import type { SkillTest } from '../core/skills/skill.ts';
import type { ToolsmithService } from './service.ts';

type SkillHandlers = {
  [M in keyof SkillResponses]: (svc: ToolsmithService, req: Request<M>) => Response<M> | Promise<Response<M>>;
};

export const skillHandlers: SkillHandlers = {
  'skills.list': (svc, { sandbox }) => {
    const skills = svc.skills();
    return { skills: skills.list(sandbox), problems: skills.problems() };
  },
  'skills.get': (svc, { sandbox, name }) => svc.skills().get(sandbox, name),
  'skills.check': (svc, r) =>
    svc.skills().check({
      sandbox: r.sandbox,
      name: r.name,
      source: r.source,
      ...(r.language ? { language: r.language } : {}),
    }),
  'skills.save': (svc, r) =>
    svc.skills().save({
      sandbox: r.sandbox,
      name: r.name,
      source: r.source,
      ...(r.language ? { language: r.language } : {}),
      ...(r.tests ? { tests: r.tests as SkillTest[] } : {}),
      ...(r.origin ? { origin: r.origin } : {}),
      ...(r.force ? { force: true } : {}),
      ...(r.version !== undefined ? { version: r.version } : {}),
    }),
  'skills.test': (svc, { sandbox, name }) => svc.skills().test(sandbox, name),
  'skills.try': (svc, r) =>
    svc.skills().tryIt({
      sandbox: r.sandbox,
      name: r.name,
      source: r.source,
      ...(r.language ? { language: r.language } : {}),
      args: r.args as Record<string, JsonValue>,
    }),
  'skills.delete': (svc, { sandbox, name }) => {
    svc.skills().delete(sandbox, name);
    return { deleted: true as const };
  },
  'skills.propose': (svc, r) =>
    svc.skills().propose({
      runId: r.runId,
      start: r.start,
      end: r.end,
      ...(r.attempt !== undefined ? { attempt: r.attempt } : {}),
      ...(r.name ? { name: r.name } : {}),
    }),
};
