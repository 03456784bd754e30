/** The skills part of the contract: requests (zod) and responses for the Skills view and "Make a skill". */
import { z } from 'zod';
import type { SkillProposal } from '../core/skills/propose.ts';
import type { SkillTest } from '../core/skills/skill.ts';
import type { SkillCaseResult, SkillCheck, SkillTestResult, SkillView } from '../core/skills/views.ts';
import { assertionSchema } from '../core/suites/schema.ts';

const sandbox = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/, 'letters, digits, _ . - only');
/** As core/skills/skill.ts SKILL_NAME (not imported: the contract loads no parser). */
const skillName = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,63}$/, 'lower case letters, digits and _, starting with a letter');
const source = z.string().min(1).max(200_000);
/** A skill's language (Python by default; a saved skill keeps its own unless another is given). */
const language = z.enum(['python', 'js', 'ts']);
const args = z.record(z.string(), z.unknown());
const runId = z.string().min(1).max(64);
const test = z.object({ args, assert: z.array(assertionSchema).max(50).default([]) }).strict();

export const skillRequests = {
  'skills.list': z.object({ sandbox: sandbox.optional() }).strict(),
  'skills.get': z.object({ sandbox, name: skillName }).strict(),
  'skills.check': z.object({ sandbox, name: skillName, source, language: language.optional() }).strict(),
  'skills.save': z
    .object({
      sandbox,
      name: skillName,
      source,
      language: language.optional(),
      tests: z.array(test).max(100).optional(),
      origin: runId.optional(),
      /** Save a new version of an existing skill. */
      force: z.boolean().optional(),
      /**
       * The saved version this edit started from: refused when the skill is at another now (saved or
       * deleted since, by the CLI, MCP or another window), so a stale draft never silently replaces it.
       */
      version: z.number().int().min(1).optional(),
    })
    .strict(),
  'skills.test': z.object({ sandbox, name: skillName }).strict(),
  'skills.try': z.object({ sandbox, name: skillName, source, language: language.optional(), args }).strict(),
  'skills.delete': z.object({ sandbox, name: skillName }).strict(),
  'skills.propose': z
    .object({
      runId,
      attempt: z.number().int().min(1).optional(),
      /** The selected lines of the script's body, 1-based, inclusive. */
      start: z.number().int().min(1),
      end: z.number().int().min(1),
      name: skillName.optional(),
    })
    .strict(),
} as const;

export type { SkillCaseResult, SkillCheck, SkillProposal, SkillTest, SkillTestResult, SkillView };

export interface SkillResponses {
  'skills.list': { skills: SkillView[]; problems: { file: string; error: string }[] };
  'skills.get': SkillView;
  'skills.check': SkillCheck;
  'skills.save': { skill: SkillView; test: SkillTestResult };
  'skills.test': SkillTestResult;
  'skills.try': SkillCaseResult;
  'skills.delete': { deleted: true };
  'skills.propose': SkillProposal & { sandbox: string; origin: string };
}
