/**
 * The MCP `save_skill` tool: an agent that proved a script saves a function of it as a skill. Saving
 * changes what every later script of the workspace may call, so a person confirms it first, as in the
 * workbench: the server asks the client's user through MCP elicitation (the skill's source shown in the
 * question); a client without elicitation, or a person who declines, gets a refusal and nothing is saved.
 */
import { toolConfig } from './mcp-meta.ts';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ToolsmithError } from '../app/errors.ts';
import { expectedReply, malformedReply } from './mcp-approval.ts';
import type { ToolsmithService } from '../app/service.ts';
import type { SkillTest } from '../core/skills/skill.ts';
import { errorMessage } from '../core/errors.ts';
import { visible } from '../core/text/visible.ts';

const text = (v: unknown, isError = false) => ({
  content: [{ type: 'text' as const, text: JSON.stringify(v, null, 2) }],
  ...(isError ? { isError: true } : {}),
});

export function registerSkillTools(server: McpServer, svc: ToolsmithService): void {
  server.registerTool(
    'save_skill',
    toolConfig('save_skill', {
      description:
        'Save a function as a skill of a sandbox: later scripts (and the `code` manual) can call it. ' +
        'Python (the default): exactly one `def name(...)` with typed parameters and a docstring; ' +
        'language "js" or "ts": exactly one `async function name(...)` with a JSDoc comment (TS: typed ' +
        'parameters), called by JS/TS scripts as `await name(arg, ...)`. It calls the ' +
        "sandbox's tools and returns a value (no emit_result/emitResult). Give at least one test case ({args, expect}); " +
        'the skill is offered only once its tests pass in the sandbox. A person confirms every save ' +
        '(MCP elicitation); without that confirmation nothing is saved.',
      inputSchema: {
        sandbox: z.string().min(1),
        name: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/),
        source: z.string().min(1).max(200_000),
        language: z
          .enum(['python', 'js', 'ts'])
          .optional()
          .describe("the skill's language (default python; a saved skill keeps its own)"),
        // Strict: a key the case does not know (`expected`, `assert`) was dropped, and the case then
        // passed on any result, so a wrong skill was saved as tested and offered.
        tests: z
          .array(
            z.object({ args: z.record(z.string(), z.unknown()), expect: z.unknown().optional() }).strict(),
          )
          .min(1)
          .max(50),
        replace: z.boolean().optional().describe('save a new version of an existing skill'),
      },
    }),
    async ({ sandbox, name, source, language: asked, tests, replace }) => {
      try {
        const skills = svc.skills();
        const existing = skills.files.get(sandbox, name);
        const language = asked ?? existing?.skill?.language ?? 'python';
        const check = skills.check({ sandbox, name, source, language });
        if (!check.valid)
          return text(
            {
              error: `skill ${name} does not validate`,
              problems: check.problems,
              violations: check.violations,
            },
            true,
          );
        // Before the person is asked (they were asked, and then told the name exists), and in this
        // tool's words (the service's says `--force`, the CLI's flag).
        if (existing && !replace)
          throw new ToolsmithError(
            'invalid_argument',
            `skill ${name} exists in sandbox ${sandbox}; call save_skill with replace: true to save a new version`,
          );
        if (!server.server.getClientCapabilities()?.elicitation)
          throw new ToolsmithError(
            'refused',
            'saving a skill needs a person to confirm it, and this MCP client cannot ask (no elicitation); save it in the workbench or with `toolsmith skill create`',
          );
        const answer = await server.server
          .elicitInput({
            // The source as it will run: bidirectional overrides and isolates (which reorder how a line
            // reads: "Trojan Source") and control characters shown as escapes, not acting on the question.
            message: `Save the ${language === 'python' ? 'Python' : language.toUpperCase()} skill ${visible(sandbox)}/${name}${replace ? ' (a new version)' : ''}? Every later script of this sandbox may call it.\n\n${visible(source)}`,
            requestedSchema: {
              type: 'object',
              properties: { confirm: { type: 'boolean', title: 'Save this skill' } },
              required: ['confirm'],
            },
          })
          .catch((e: unknown) => {
            const malformed = malformedReply(e, 'confirm');
            if (malformed) throw new ToolsmithError('invalid_argument', `${malformed}; nothing was saved`);
            throw e;
          });
        if (answer.action === 'accept' && typeof answer.content?.['confirm'] !== 'boolean')
          throw new ToolsmithError(
            'invalid_argument',
            `the client's reply to elicitation/create was malformed (content.confirm: missing): expected ${expectedReply('confirm')}; nothing was saved`,
          );
        if (answer.action !== 'accept' || answer.content?.['confirm'] !== true)
          throw new ToolsmithError(
            'refused',
            `the person did not confirm saving skill ${name}; nothing was saved`,
          );
        const r = await skills.save({
          sandbox,
          name,
          source,
          language,
          tests: tests.map((t): SkillTest => ({
            args: t.args as SkillTest['args'],
            assert: 'expect' in t ? [{ type: 'equals', value: t.expect }] : [],
          })),
          ...(replace ? { force: true } : {}),
        });
        return text(
          {
            saved: `${sandbox}/${name}`,
            version: r.skill.version,
            offered: r.test.passed,
            cases: r.test.cases.map((c) => ({
              args: c.args,
              passed: c.passed,
              ...(c.result !== undefined ? { result: c.result } : {}),
              ...(c.error ? { error: c.error } : {}),
            })),
            ...(r.test.failures.length ? { failures: r.test.failures } : {}),
          },
          !r.test.passed,
        );
      } catch (e) {
        if (e instanceof ToolsmithError) return text({ error: e.message, code: e.code }, true);
        return text({ error: errorMessage(e), code: 'internal' }, true);
      }
    },
  );
}
