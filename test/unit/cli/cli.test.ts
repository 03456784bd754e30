import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { sourceBin } from '../../support/cli-bin.ts';
import { cli } from '../../support/cli.ts';
import { cliArgv } from '../../support/toolsmith-process.ts';
import { tempWorkspace } from '../../support/workspace.ts';

function tmpFile(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolsmith-cli-'));
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
}

const GOOD =
  'r = get_user(user_id="u1")\nif r.success:\n    emit_result(r.data["name"])\nelse:\n    emit_result(None)\n';
const BAD = 'import os\nx = get_user\n';

describe('toolsmith CLI', () => {
  it("runs through the bin on the machine's Node 20, which starts the Node 24 of node_modules", () => {
    // /usr/bin/node is Debian's Node 20 on these machines; the bin must not need npx nor Node 24 on PATH.
    const machineNode = '/usr/bin/node';
    const v = spawnSync(machineNode, ['--version'], { encoding: 'utf8' });
    expect(v.status, `${machineNode} is needed for this test (Debian's nodejs)`).toBe(0);
    const r = spawnSync(machineNode, [sourceBin, '--help'], {
      cwd: tmpdir(),
      encoding: 'utf8',
      env: { ...process.env, PATH: '/usr/bin:/bin' },
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: toolsmith');
    for (const verb of ['validate', 'prompt', 'tools', 'kit', 'sandboxes', 'serve'])
      expect(r.stdout).toContain(verb);
  }, 30_000);

  it.each(['validate', 'prompt', 'tools', 'kit', 'kit list', 'kit info', 'kit create', 'sandboxes', 'serve'])(
    '%s --help exits 0',
    async (verb) => {
      const r = await cli(...verb.split(' '), '--help');
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/Usage: toolsmith/);
    },
    STARTS_PROCESSES_MS,
  );

  it.each([
    [['validate'], /validate: missing FILE/],
    [['validate', 'x.py', '--bogus'], /unknown option '--bogus'/],
    [['validate', 'x.py', '--lang', 'cobol'], /--lang must be one of python, js, ts/],
    [['tools', '--sandbox', 'ecommerce', '--format', 'yaml'], /--format must be one of xml, openai, json/],
    [['prompt', '--sandbox', 'ecommerce'], /required option '--task <text>' not specified/],
    [['nope'], /unknown command 'nope'/],
    [['validate', '/does/not/exist.py'], /cannot read \/does\/not\/exist.py: ENOENT: no such file or folder/],
    [['validate', '/tmp'], /cannot read \/tmp: EISDIR: it is a folder/],
    [['tools', '--sandbox', 'nope'], /no sandbox nope in .*; available: ecommerce, support/],
    [['--workspace', '/does/not/exist', 'sandboxes'], /--workspace \/does\/not\/exist does not exist/],
    [
      ['prompt', '--task', 't', '--sandbox', 'ecommerce', '--attempt', '0'],
      /--attempt must be an integer from 1 to 100/,
    ],
  ])(
    'usage error %j exits 2 with one line',
    async (argv, msg) => {
      const r = await cli(...argv);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(msg);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    },
    STARTS_PROCESSES_MS,
  );

  it('validate: exit 0 when valid, 1 with violations, --json shape', async () => {
    const good = tmpFile('good.py', GOOD);
    expect((await cli('validate', good, '--sandbox', 'ecommerce')).code).toBe(0);
    const bad = tmpFile('bad.py', BAD);
    const r = await cli('validate', bad, '--tools', 'get_user', '--json');
    expect(r.code).toBe(1);
    const body = JSON.parse(r.out) as { valid: boolean; violations: { rule: string; line: number }[] };
    expect(body.valid).toBe(false);
    expect(body.violations.map((v) => v.rule)).toEqual(
      expect.arrayContaining(['no-import', 'tool-not-called', 'missing-emit']),
    );
    const human = await cli('validate', bad, '--tools', 'get_user');
    expect(human.out).toMatch(/bad\.py:1:1: no-import: /);
  });

  it('validate --sandbox --kit uses kit aliases', async () => {
    const f = tmpFile('k.py', 'u = user(user_id="u1")\nemit_result(u.data)\n');
    expect((await cli('validate', f, '--sandbox', 'ecommerce', '--kit', 'orders')).code).toBe(0);
    expect((await cli('validate', f, '--sandbox', 'ecommerce')).code).toBe(1);
    // Without --sandbox: the kit of the workspace's default sandbox (ecommerce), as the README says.
    expect((await cli('validate', f, '--kit', 'orders')).code).toBe(0);
    const both = await cli('validate', f, '--tools', 'get_user', '--kit', 'orders');
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/--kit picks tools of a sandbox: use it without --tools/);
  });

  it('validate reads JS by extension', async () => {
    const f = tmpFile('s.js', 'const r = await get_orders();\nemitResult(r.data.length);\n');
    const r = await cli('validate', f, '--sandbox', 'ecommerce', '--json');
    expect(JSON.parse(r.out)).toEqual({ valid: true, violations: [] });
  });

  it('tools: xml, openai and json formats', async () => {
    const xml = await cli('tools', '--sandbox', 'ecommerce');
    expect(xml.out).toMatch(/^<tools>\n {2}<tool name="get_orders"/);
    const openai = JSON.parse((await cli('tools', '--sandbox', 'ecommerce', '--format', 'openai')).out) as {
      name: string;
      parameters: unknown;
    }[];
    expect(openai.map((t) => t.name)).toEqual(['get_orders', 'get_user', 'check_inventory', 'get_product']);
    expect(Object.keys(openai[0]!)).toEqual(['name', 'description', 'parameters']);
    const json = JSON.parse((await cli('tools', '--sandbox', 'support', '--format', 'json')).out) as {
      name: string;
      schema: { required: string[] };
    }[];
    expect(json.find((t) => t.name === 'get_ticket')?.schema.required).toEqual(['ticket_id']);
  });

  it('prompt: first attempt and retry from files', async () => {
    const first = await cli('prompt', '--task', 'Which orders are pending?', '--sandbox', 'ecommerce');
    expect(first.code).toBe(0);
    expect(first.out).toContain('Task: Which orders are pending?');
    const script = tmpFile('prev.py', 'r = get_user(user_id="u1")\nemit_result(r.data[0])\n');
    const error = tmpFile('err.txt', 'KeyError: 0\n');
    const retry = JSON.parse(
      (
        await cli(
          'prompt',
          '--task',
          't',
          '--sandbox',
          'ecommerce',
          '--attempt',
          '2',
          '--previous-script',
          script,
          '--previous-error',
          error,
          '--json',
        )
      ).out,
    ) as { kind: string; hints: string[]; user: string };
    expect(retry.kind).toBe('retry');
    expect(retry.user).toContain('emit_result(r.data[0])');
    expect(retry.hints.join(' ')).toMatch(/indexed a dict with the integer 0/);
  });

  it('kit list/info show the sample kits with their grades', async () => {
    const list = await cli('kit', 'list', '--json');
    const kits = JSON.parse(list.out) as { name: string; grade?: { w: number; d: number }; error?: string }[];
    expect(kits.find((k) => k.name === 'orders')?.grade).toEqual({ w: 1, d: 0 });
    expect(kits.find((k) => k.name === 'helpdesk')?.grade).toEqual({ w: 1, d: 1 });
    const info = await cli('kit', 'info', 'orders');
    expect(info.out).toContain('user -> get_user (w=1, d=0)');
  });

  it('kit create writes a .kit file and refuses one above the maximum grade', async () => {
    const ws = tempWorkspace();
    writeFileSync(
      join(ws, 'sandboxes/ecommerce/tools.py'),
      readFileSync(join(ws, 'sandboxes/ecommerce/tools.py'), 'utf8') +
        '\n\n@tool(grade=(2, 2))\ndef wipe() -> ToolResponse:\n    """Irreversible."""\n    return ToolResponse(success=True)\n',
    );
    const ok = await cli(
      '--workspace',
      ws,
      'kit',
      'create',
      'mine',
      '--sandbox',
      'ecommerce',
      '--tools',
      'orders=get_orders,get_user',
    );
    expect(ok.code).toBe(0);
    expect(readFileSync(join(ws, 'kits/mine.kit'), 'utf8')).toContain('orders = "get_orders"');
    const info = await cli('--workspace', ws, 'kit', 'info', 'mine', '--json');
    expect((JSON.parse(info.out) as { tools: { alias: string }[] }).tools.map((t) => t.alias)).toEqual([
      'orders',
      'get_user',
    ]);
    const refused = await cli(
      '--workspace',
      ws,
      'kit',
      'create',
      'wiper',
      '--sandbox',
      'ecommerce',
      '--tools',
      'wipe',
    );
    expect(refused.code).toBe(3);
    expect(refused.err).toMatch(/grade \(w=2, d=2\), above the workspace maximum \(w=2, d=1\)/);
    const traversal = await cli(
      '--workspace',
      ws,
      'kit',
      'create',
      '../evil',
      '--sandbox',
      'ecommerce',
      '--tools',
      'get_orders',
    );
    expect(traversal.code).not.toBe(0);
  });

  it(
    '--workspace defaults to the current folder when it holds .toolsmith/',
    () => {
      const ws = mkdtempSync(join(tmpdir(), 'toolsmith-cwd-'));
      mkdirSync(join(ws, '.toolsmith'));
      // A workspace holds .toolsmith/config.toml (isWorkspace); a .toolsmith/ without it is refused
      // with how to complete it (usage-errors.test.ts).
      writeFileSync(join(ws, '.toolsmith', 'config.toml'), '[workspace]\nname = "cwd"\n');
      mkdirSync(join(ws, 'sandboxes/mine'), { recursive: true });
      writeFileSync(
        join(ws, 'sandboxes/mine/tools.py'),
        '@tool\ndef hello(name: str) -> ToolResponse:\n    """Say hello."""\n',
      );
      const r = spawnSync(...cliArgv(['sandboxes', '--json'], sourceBin), { cwd: ws, encoding: 'utf8' });
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ workspace: ws, sandboxes: [{ name: 'mine', tools: 1 }] });
    },
    STARTS_PROCESSES_MS,
  );
});
