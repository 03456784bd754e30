/**
 * A template promoted from a run through the CLI (`template create --from-run`) names its slots after
 * what they fill in the run's script (the tool parameter, by keyword or by position, numbered when two
 * fill the same one; the variable a value was assigned to), and serves a matching intent with no LLM
 * call: the scripted LLM server receives no request. A template stored with `slotN` names, as every
 * promoted template was named before, still serves. Real containers, a real HTTP server speaking the
 * OpenAI API, the CLI as a process.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { tempFiles } from '../../support/workspace.ts';
import { cliProcess } from '../faults/support/processes.ts';

const fx = useScriptedWorkspace({ docker: true });
const files = tempFiles('toolsmith-template-slot-names-');
afterAll(() => rmSync(files.dir, { recursive: true, force: true }));

const cli = (args: string[]) => cliProcess(fx.ws, fx.data, args).done;

const TASK = 'Tiers of u1 and u3, and the stock of p2 in "Tokyo"';
const SCRIPT = `where = "Tokyo"
a = get_user(user_id="u1").data["tier"]
b = get_user("u3").data["tier"]
s = check_inventory(product_id="p2", warehouse=where).data["in_stock"]
emit_result([a, b, s])
`;

interface RunJson {
  id: string;
  status: string;
  result: unknown;
  tier?: string;
}

describe('template slots named after what they fill', () => {
  it('template create --from-run names the slots; the template serves a matching intent with no LLM request', async () => {
    fx.llm.push(`\`\`\`python\n${SCRIPT}\`\`\``);
    const first = await cli([
      'run',
      TASK,
      '--sandbox',
      'ecommerce',
      '--no-templates',
      '--lang',
      'python',
      '--json',
    ]);
    expect(first.code, first.err).toBe(0);
    const run = JSON.parse(first.out) as RunJson;
    expect(run).toMatchObject({ status: 'succeeded', result: ['gold', 'gold', 5] });

    const created = await cli(['template', 'create', 'tiers-stock', '--from-run', run.id, '--json']);
    expect(created.code, created.err).toBe(0);
    expect(JSON.parse(created.out)).toMatchObject({
      pattern: 'Tiers of {user_id} and {user_id_2}, and the stock of {product_id} in {where}',
      slots: { user_id: 'str', user_id_2: 'str', product_id: 'str', where: 'str' },
    });
    const file = readFileSync(join(fx.ws, 'templates/tiers-stock.tmpl'), 'utf8');
    expect(file).toContain(
      [
        'where = {{where}}',
        'a = get_user(user_id={{user_id}}).data["tier"]',
        'b = get_user({{user_id_2}}).data["tier"]',
        's = check_inventory(product_id={{product_id}}, warehouse=where).data["in_stock"]',
      ].join('\n'),
    );
    expect(file).not.toMatch(/slot\d/);
    const listed = JSON.parse((await cli(['template', 'list', '--json'])).out) as {
      templates: { name: string; slots: Record<string, string> }[];
    };
    expect(Object.keys(listed.templates.find((t) => t.name === 'tiers-stock')?.slots ?? {})).toEqual([
      'user_id',
      'user_id_2',
      'product_id',
      'where',
    ]);

    const before = fx.llm.requests.length;
    const served = await cli([
      'run',
      'tiers of u2 and u4, and the stock of p3 in "Berlin"',
      '--sandbox',
      'ecommerce',
      '--json',
    ]);
    expect(served.code, served.err).toBe(0);
    expect(JSON.parse(served.out)).toMatchObject({
      status: 'succeeded',
      tier: 'template',
      result: ['silver', 'bronze', 0],
    });
    expect(fx.llm.requests.length).toBe(before);
    // runs show names the template that served the attempt (it said only "#1 template valid ok").
    const shown = await cli(['runs', 'show', (JSON.parse(served.out) as { id: string }).id]);
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toMatch(/^ {2}#1 template tiers-stock valid ok \[/m);
  }, 300_000);

  it('a template stored with slotN names reads unchanged and serves with no LLM request', async () => {
    writeFileSync(
      join(fx.ws, 'templates/user-city.tmpl'),
      [
        '+++',
        'name = "user-city"',
        'pattern = "City of user {slot1}"',
        'sandbox = "ecommerce"',
        'language = "python"',
        '',
        '[slots]',
        'slot1 = "str"',
        '+++',
        'r = get_user(user_id={{slot1}})',
        'emit_result(r.data["city"])',
        '',
      ].join('\n'),
    );
    const listed = JSON.parse((await cli(['template', 'list', '--json'])).out) as {
      templates: { name: string; pattern: string; slots: Record<string, string> }[];
    };
    expect(listed.templates.find((t) => t.name === 'user-city')).toMatchObject({
      pattern: 'City of user {slot1}',
      slots: { slot1: 'str' },
    });
    const before = fx.llm.requests.length;
    const served = await cli(['run', 'City of user u3', '--sandbox', 'ecommerce', '--json']);
    expect(served.code, served.err).toBe(0);
    expect(JSON.parse(served.out)).toMatchObject({
      status: 'succeeded',
      tier: 'template',
      result: 'New York',
    });
    expect(fx.llm.requests.length).toBe(before);
    expect(readFileSync(join(fx.ws, 'templates/user-city.tmpl'), 'utf8')).toContain('{slot1}');
  }, 300_000);
});
