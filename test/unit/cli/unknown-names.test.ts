/**
 * A name the workspace does not have (a sandbox, a kit, a template, a skill, a suite, an MCP server) is a
 * usage error on every verb that takes one: exit 2, one line naming what is missing (and, for a sandbox
 * or kit, the ones that exist), nothing on stdout. `skill list --sandbox nosuch` printed nothing and
 * exited 0, `skill show|test|delete X --sandbox nosuch` said "no skill X in sandbox nosuch" (as if the
 * sandbox existed), `runs list --sandbox nosuch` printed "0 of 0 run(s)" and exited 0, and `image build
 * --sandbox nosuch` built the runtime image before saying the sandbox does not exist.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { cli } from '../../support/cli.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let ws: string;
let script: string;
let skillFile: string;

const SKILL = `def first_city(user_id: str) -> str:
    """A customer's city.

    Args:
        user_id: The customer's id (e.g. "u1").

    Returns:
        The city.
    """
    return get_user(user_id=user_id).data["city"]
`;

beforeAll(() => {
  ws = tempWorkspace();
  script = join(ws, 'script.py');
  writeFileSync(script, 'emit_result(get_user(user_id="u1").data)\n');
  skillFile = join(ws, 'skill.py');
  writeFileSync(skillFile, SKILL);
});
afterAll(() => removeWorkspace(ws));

const SANDBOXES = /available: ecommerce, support$/;
const NO_SANDBOX = (name: string) => new RegExp(`^toolsmith: (skill \\w+: )?no sandbox ${name} in `);

/** Each verb that takes a sandbox, kit, template, skill, suite or server name, given one that does not exist. */
const cases: { argv: string[]; err: RegExp[] }[] = [
  // --sandbox
  { argv: ['skill', 'list', '--sandbox', 'nosuch'], err: [NO_SANDBOX('nosuch'), SANDBOXES] },
  { argv: ['skill', 'show', 'x', '--sandbox', 'nosuch'], err: [NO_SANDBOX('nosuch'), SANDBOXES] },
  {
    argv: ['skill', 'show', 'x', '--sandbox', 'nosuch', '--revision', '1'],
    err: [NO_SANDBOX('nosuch'), SANDBOXES],
  },
  { argv: ['skill', 'test', 'x', '--sandbox', 'nosuch'], err: [NO_SANDBOX('nosuch'), SANDBOXES] },
  { argv: ['skill', 'delete', 'x', '--sandbox', 'nosuch'], err: [NO_SANDBOX('nosuch'), SANDBOXES] },
  {
    argv: ['skill', 'create', 'first_city', '--sandbox', 'nosuch', '--file', 'F'],
    err: [NO_SANDBOX('nosuch'), SANDBOXES],
  },
  {
    argv: ['runs', 'list', '--sandbox', 'nosuch'],
    err: [NO_SANDBOX('nosuch'), /no recorded run/, SANDBOXES],
  },
  { argv: ['image', 'build', '--sandbox', 'nosuch'], err: [NO_SANDBOX('nosuch'), SANDBOXES] },
  { argv: ['tools', '--sandbox', 'nosuch'], err: [NO_SANDBOX('nosuch'), SANDBOXES] },
  { argv: ['prompt', '--task', 't', '--sandbox', 'nosuch'], err: [NO_SANDBOX('nosuch'), SANDBOXES] },
  { argv: ['validate', 'S', '--sandbox', 'nosuch'], err: [NO_SANDBOX('nosuch'), SANDBOXES] },
  { argv: ['exec', 'S', '--sandbox', 'nosuch'], err: [NO_SANDBOX('nosuch'), SANDBOXES] },
  { argv: ['run', 't', '--sandbox', 'nosuch'], err: [NO_SANDBOX('nosuch'), SANDBOXES] },
  {
    argv: ['tool', 'call', 'get_user', '--sandbox', 'nosuch', '--args', '{}'],
    err: [NO_SANDBOX('nosuch'), SANDBOXES],
  },
  {
    argv: ['kit', 'create', 'k', '--sandbox', 'nosuch', '--tools', 'get_user'],
    err: [NO_SANDBOX('nosuch'), SANDBOXES],
  },
  {
    argv: ['template', 'create', 't', '--file', 'S', '--pattern', 'p', '--sandbox', 'nosuch'],
    err: [NO_SANDBOX('nosuch'), SANDBOXES],
  },
  // --kit, and a kit named as an argument
  {
    argv: ['tools', '--sandbox', 'ecommerce', '--kit', 'nokit'],
    err: [/^toolsmith: no kit nokit; available: helpdesk, inventory, orders$/],
  },
  {
    argv: ['prompt', '--task', 't', '--sandbox', 'ecommerce', '--kit', 'nokit'],
    err: [/^toolsmith: no kit nokit; available: /],
  },
  { argv: ['validate', 'S', '--kit', 'nokit'], err: [/^toolsmith: no kit nokit; available: /] },
  {
    argv: ['exec', 'S', '--sandbox', 'ecommerce', '--kit', 'nokit'],
    err: [/^toolsmith: no kit nokit; available: /],
  },
  {
    argv: ['run', 't', '--sandbox', 'ecommerce', '--kit', 'nokit'],
    err: [/^toolsmith: no kit nokit; available: /],
  },
  {
    argv: [
      'template',
      'create',
      't',
      '--file',
      'S',
      '--pattern',
      'p',
      '--sandbox',
      'ecommerce',
      '--kit',
      'nokit',
    ],
    err: [/^toolsmith: no kit nokit; available: /],
  },
  { argv: ['kit', 'info', 'nokit'], err: [/^toolsmith: no kit nokit; available: /] },
  // a kit of another sandbox
  {
    argv: ['tools', '--sandbox', 'support', '--kit', 'orders'],
    err: [/kit orders belongs to sandbox ecommerce, not support$/],
  },
  // template, skill, tool, suite, MCP server names
  { argv: ['template', 'test', 'notpl'], err: [/^toolsmith: no template notpl; available: none$/] },
  { argv: ['template', 'delete', 'notpl'], err: [/^toolsmith: no template notpl; available: none$/] },
  {
    argv: ['skill', 'show', 'noskill', '--sandbox', 'ecommerce'],
    err: [/^toolsmith: no skill noskill in sandbox ecommerce; available: none$/],
  },
  {
    argv: ['skill', 'test', 'noskill', '--sandbox', 'ecommerce'],
    err: [/^toolsmith: no skill noskill in sandbox ecommerce; available: none$/],
  },
  {
    argv: ['skill', 'delete', 'noskill', '--sandbox', 'ecommerce'],
    err: [/^toolsmith: no skill noskill in sandbox ecommerce; available: none$/],
  },
  {
    argv: ['tool', 'call', 'notool', '--sandbox', 'ecommerce', '--args', '{}'],
    err: [/^toolsmith: no tool notool in sandbox ecommerce; available: /],
  },
  { argv: ['eval', 'nosuite'], err: [/^toolsmith: no suite nosuite in .*; available: ecommerce, support$/] },
  { argv: ['mcp-servers', 'test', 'noserver'], err: [/^toolsmith: no MCP server noserver; declared: none/] },
];

describe('unknown names on the command line', { timeout: STARTS_PROCESSES_MS }, () => {
  it.each(cases.map((c) => ({ ...c, name: c.argv.join(' ') })))(
    '$name: exit 2 naming it',
    async ({ argv, err }) => {
      const args = argv.map((a) => (a === 'S' ? script : a === 'F' ? skillFile : a));
      const r = await cli('--workspace', ws, ...args);
      expect(r.out).toBe('');
      const lines = r.err.trimEnd().split('\n');
      expect(lines, r.err).toHaveLength(1);
      for (const re of err) expect(lines[0]).toMatch(re);
      expect(r.code).toBe(2);
    },
  );
});

describe('a sandbox that is gone keeps what it left', { timeout: STARTS_PROCESSES_MS }, () => {
  it('its skills are still listed, and its recorded runs too', async () => {
    const dir = tempWorkspace();
    try {
      mkdirSync(join(dir, 'skills', 'retired'), { recursive: true });
      writeFileSync(join(dir, 'skills', 'retired', 'first_city.py'), SKILL);
      const svc = ToolsmithService.open(dir);
      const store = (await svc.runs()).store;
      const id = store.createRun({
        task: 'a run of a retired sandbox',
        sandbox: 'retired',
        mode: 'plan',
        language: 'python',
        maxRetries: 0,
        maxSteps: 1,
      });
      store.append(id, 'run_finished', { status: 'succeeded', result: 1 });
      await svc.close();

      const skills = await cli('--workspace', dir, 'skill', 'list', '--sandbox', 'retired');
      expect(skills.code).toBe(0);
      expect(skills.out).toMatch(/^retired\/first_city +python/);
      const runs = await cli('--workspace', dir, 'runs', 'list', '--sandbox', 'retired');
      expect(runs.code).toBe(0);
      expect(runs.out).toMatch(/a run of a retired sandbox/);
      // Filtered to nothing, a sandbox with recorded runs is not "unknown".
      const none = await cli(
        '--workspace',
        dir,
        'runs',
        'list',
        '--sandbox',
        'retired',
        '--status',
        'failed',
      );
      expect(none).toMatchObject({ code: 0, out: '0 of 0 run(s)\n' });
      // A sandbox of the workspace with no skill and no run: nothing to list, not an error.
      expect(await cli('--workspace', dir, 'skill', 'list', '--sandbox', 'support')).toMatchObject({
        code: 0,
        out: '',
      });
      expect(await cli('--workspace', dir, 'runs', 'list', '--sandbox', 'support')).toMatchObject({
        code: 0,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
