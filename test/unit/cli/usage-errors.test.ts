/**
 * Usage errors found by exploratory testing: each is the user's input, so it exits 2 with a one-line
 * reason (README), and writes nothing. `--workspace` on a folder that is not a workspace, `init` where no
 * folder can be made, names that exist, an unknown tool or server, a bad URL, a group verb without its
 * subcommand, and a template whose script breaks the validation rules.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { cli } from '../../support/cli.ts';
import { sourceBin } from '../../support/cli-bin.ts';
import { cliArgv, toolsmithArgv } from '../../support/toolsmith-process.ts';
import { tempWorkspace } from '../../support/workspace.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'toolsmith-usage-'));

/**
 * A path as literal text inside a RegExp (a person's $TMPDIR may hold `.`, `+` or a space), and as the
 * CLI's `init` hint writes it for a POSIX shell: quoted when it holds more than plain path characters.
 */
const pathRe = (path: string) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const shellPathRe = (path: string) =>
  pathRe(/^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`);

/** The clone's command as a process (Node 24 of node_modules), for what only a process shows. */
function bin(args: string[], timeout = STARTS_PROCESSES_MS) {
  return spawnSync(...cliArgv(args, sourceBin), {
    encoding: 'utf8',
    timeout,
  });
}

function expectUsageError(r: { code: number; err: string }, msg: RegExp): void {
  expect(r.err).toMatch(msg);
  expect(r.err.trim().split('\n')).toHaveLength(1);
  expect(r.code).toBe(2);
}

describe('--workspace on a folder that is not a workspace', { timeout: STARTS_PROCESSES_MS }, () => {
  it('an empty folder: exit 2 saying how to make one, nothing written, and init then works', async () => {
    const dir = join(tmp(), 'plain');
    mkdirSync(dir);
    // `runs list` opens the run store: before the check it left .toolsmith/runs.db and logs/ behind.
    const r = await cli('--workspace', dir, 'runs', 'list');
    expectUsageError(
      r,
      new RegExp(
        `^toolsmith: --workspace ${pathRe(dir)} is not a Toolsmith workspace \\(no \\.toolsmith/config\\.toml\\): make one with .*init ${shellPathRe(dir)}\\n$`,
      ),
    );
    expect(readdirSync(dir)).toEqual([]);
    expect((await cli('init', dir)).code).toBe(0);
    expect((await cli('--workspace', dir, 'runs', 'list')).code).toBe(0);
  });

  it('as a process too (the verb cache and the sandboxes snapshot run first): exit 2, nothing written', () => {
    const dir = join(tmp(), 'plain');
    mkdirSync(dir);
    const r = bin(['--workspace', dir, 'sandboxes']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/is not a Toolsmith workspace \(no \.toolsmith\/config\.toml\)/);
    expect(r.status).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('mcp on stdio: the usage error is its exit code when the client closes the input (it exited 0)', async () => {
    const dir = join(tmp(), 'plain-mcp');
    mkdirSync(dir);
    const child = spawn(...toolsmithArgv(dir, ['mcp'], sourceBin));
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    await vi.waitFor(() => expect(err).toMatch(/is not a Toolsmith workspace/), {
      timeout: STARTS_PROCESSES_MS,
    });
    child.stdin.end();
    expect(await exited).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('runs import of a file that is not JSON: one line quoting what the parser met', async () => {
    const file = join(tmp(), 'garbage.json');
    writeFileSync(file, 'garbage\nmore lines\n');
    expectUsageError(
      await cli('--workspace', tempWorkspace(), 'runs', 'import', file),
      /^toolsmith: .*garbage\.json is not JSON: Unexpected token 'g', "garbage more lines " is not valid JSON\n$/,
    );
  });

  it('a file: exit 2, "is not a folder"', async () => {
    const file = join(tmp(), 'a-file');
    writeFileSync(file, 'x');
    expectUsageError(
      await cli('--workspace', file, 'sandboxes'),
      /^toolsmith: --workspace .*a-file is not a folder\n$/,
    );
  });

  it('a folder holding files: init only fills a new or empty folder, so the message says that', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'notes.txt'), 'x');
    expectUsageError(
      await cli('--workspace', dir, 'kit', 'list'),
      /is not a Toolsmith workspace \(no \.toolsmith\/config\.toml\): .*init makes one in a new or empty folder/,
    );
    expect(readdirSync(dir)).toEqual(['notes.txt']);
  });

  it('a .toolsmith/ without config.toml (what the bug left): named, and init completes it keeping the store', async () => {
    const dir = tmp();
    mkdirSync(join(dir, '.toolsmith', 'logs'), { recursive: true });
    writeFileSync(join(dir, '.toolsmith', 'runs.db'), '');
    expectUsageError(
      await cli('--workspace', dir, 'sandboxes'),
      new RegExp(
        `holds \\.toolsmith/ but no \\.toolsmith/config\\.toml\\): complete it with .*init ${shellPathRe(dir)}\\n$`,
      ),
    );
    const init = await cli('init', dir, '--empty');
    expect(init.err).toBe('');
    expect(init.code).toBe(0);
    expect(existsSync(join(dir, '.toolsmith', 'config.toml'))).toBe(true);
    expect(existsSync(join(dir, '.toolsmith', 'runs.db'))).toBe(true);
    expect(JSON.parse((await cli('--workspace', dir, 'sandboxes', '--json')).out)).toEqual({
      workspace: dir,
      sandboxes: [],
    });
    // Now a workspace: init refuses it, naming what makes it one.
    expectUsageError(await cli('init', dir), /is already a workspace \(it holds \.toolsmith\/config\.toml\)/);
  });
});

describe('init where no folder can be made', { timeout: STARTS_PROCESSES_MS }, () => {
  // Node's recursive mkdir looped forever at 100% CPU on /proc (and ignored SIGTERM): a process with a
  // timeout, so a regression fails here instead of hanging the run.
  it.skipIf(!existsSync('/proc/self'))('/proc/qa: exit 2 with one line, at once', () => {
    const r = bin(['init', '/proc/qa'], 30_000);
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe(
      'toolsmith: cannot create /proc/qa: /proc takes no new folders (mkdir /proc/qa failed: ENOENT)\n',
    );
    expect(r.status).toBe(2);
  });

  it('under a file: exit 2, the file named', async () => {
    const file = join(tmp(), 'a-file');
    writeFileSync(file, 'x');
    expectUsageError(
      await cli('init', join(file, 'ws')),
      new RegExp(`cannot create ${pathRe(file)}/ws: ${pathRe(file)} is not a folder`),
    );
  });
});

describe('usage errors exit 2', { timeout: STARTS_PROCESSES_MS }, () => {
  it('kit create with a tool the sandbox does not have', async () => {
    const ws = tempWorkspace();
    expectUsageError(
      await cli('--workspace', ws, 'kit', 'create', 'K', '--sandbox', 'ecommerce', '--tools', 'nosuch'),
      /kit K: no tool nosuch in sandbox ecommerce; available: /,
    );
    expect(existsSync(join(ws, 'kits', 'K.kit'))).toBe(false);
  });

  it('tool call with --args that lack a required parameter, name one the tool does not have or give a value of the wrong type: exit 2 before any container', async () => {
    const ws = tempWorkspace();
    const call = (tool: string, args?: string) =>
      cli(
        '--workspace',
        ws,
        'tool',
        'call',
        tool,
        '--sandbox',
        'ecommerce',
        ...(args ? ['--args', args] : []),
      );
    // Before: the call ran, and failed with the TypeError of the one-line script it is made with.
    expectUsageError(
      await call('get_user'),
      /^toolsmith: tool get_user: --args lacks user_id; its parameters: user_id \(str, required\)\n$/,
    );
    expectUsageError(
      await call('get_user', '{"user": "u1"}'),
      /^toolsmith: tool get_user: --args lacks user_id and has no parameter user; its parameters: user_id \(str, required\)\n$/,
    );
    expectUsageError(
      await call('check_inventory', '{"product_id": "p1", "city": "Tokyo"}'),
      /--args has no parameter city; its parameters: product_id \(str, required\), warehouse \(str\)\n$/,
    );
    expectUsageError(
      await call('get_orders', '{"x": 1}'),
      /--args has no parameter x; its parameters: none\n$/,
    );
    // A value of the wrong type, as a script's literal would be refused (tool-argument-type): it reached
    // the tool, whose own TypeError came back from the container.
    expectUsageError(
      await call('check_inventory', '{"product_id": 1, "warehouse": null}'),
      /^toolsmith: tool check_inventory: --args: check_inventory\(\) argument 'product_id' must be str, not an int \(check_inventory\(product_id: str, warehouse: str = "New York"\)\); check_inventory\(\) argument 'warehouse' must be str, not None \(check_inventory\(product_id: str, warehouse: str = "New York"\)\)\n$/,
    );
  });

  it('kit create with an alias given twice: refused, naming both tools (the first was silently dropped)', async () => {
    const ws = tempWorkspace();
    const kit = (tools: string) =>
      cli('--workspace', ws, 'kit', 'create', 'K', '--sandbox', 'ecommerce', '--tools', tools);
    expectUsageError(
      await kit('a=get_user,a=get_product'),
      /^toolsmith: kit K: alias a is given twice in --tools \(get_user and get_product\); each alias names one tool\n$/,
    );
    expectUsageError(
      await kit('get_user,get_user'),
      /kit K: alias get_user is given twice in --tools \(get_user\)/,
    );
    expect(existsSync(join(ws, 'kits', 'K.kit'))).toBe(false);
    const ok = await kit('a=get_user,b=get_product');
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toMatch(/tools a, b\n$/);
  });

  it('template create and skill create with a name that exists', async () => {
    const ws = tempWorkspace();
    const dir = tmp();
    const body = join(dir, 'body.py');
    writeFileSync(body, 'r = get_user(user_id={{user_id}})\nemit_result(r.data["name"])\n');
    const args = [
      '--workspace',
      ws,
      'template',
      'create',
      't1',
      '--file',
      body,
      '--pattern',
      'name of user {user_id}',
    ];
    expect((await cli(...args, '--sandbox', 'ecommerce')).code).toBe(0);
    expectUsageError(
      await cli(...args, '--sandbox', 'ecommerce'),
      /template t1 exists; use --force to replace it/,
    );

    // A saved skill, written as its file (saving one through the CLI runs its tests in a sandbox).
    const fn =
      'def user_name(user_id: str) -> str:\n    """The user\'s name.\n\n    Args:\n        user_id: The user\'s id.\n    """\n    r = get_user(user_id=user_id)\n    return r.data["name"]\n';
    mkdirSync(join(ws, 'skills', 'ecommerce'), { recursive: true });
    writeFileSync(join(ws, 'skills', 'ecommerce', 'user_name.py'), `# +++\n# version = 1\n# +++\n${fn}`);
    writeFileSync(join(dir, 'user_name.py'), fn);
    expectUsageError(
      await cli(
        '--workspace',
        ws,
        'skill',
        'create',
        'user_name',
        '--sandbox',
        'ecommerce',
        '--file',
        join(dir, 'user_name.py'),
      ),
      /skill user_name exists in sandbox ecommerce; use --force to save a new version/,
    );
  });

  it('runs export --otlp with something that is not a URL', async () => {
    expectUsageError(
      await cli('--workspace', tempWorkspace(), 'runs', 'export', 'any', '--otlp', 'notaurl'),
      /"notaurl" is not an http:\/\/ or https:\/\/ URL/,
    );
  });

  // `localhost:8080/v1` parses as a URL (scheme `localhost:`): it was taken, and the run failed on its
  // first request without naming the option.
  it('run and eval --base-url without http:// or https://: exit 2 naming the option, the value and the form', async () => {
    const ws = tempWorkspace();
    const form =
      /--base-url: expected an http:\/\/ or https:\/\/ URL with a host, such as http:\/\/localhost:8080\/v1, got "localhost:8080\/v1"/;
    expectUsageError(
      await cli('--workspace', ws, 'run', 'get user u1', '--base-url', 'localhost:8080/v1', '--model', 'm'),
      form,
    );
    expectUsageError(
      await cli('--workspace', ws, 'eval', 'ecommerce', '--base-url', 'localhost:8080/v1', '--models', 'm'),
      form,
    );
  });

  it('a config.toml provider base_url without its scheme: every verb says which line and what is expected', async () => {
    const ws = tempWorkspace();
    const file = join(ws, '.toolsmith', 'config.toml');
    writeFileSync(
      file,
      `${readFileSync(file, 'utf8')}\n[[providers]]\nid = "typo"\nkind = "openai"\nmodel = "m"\nbase_url = "localhost:8080/v1"\n`,
    );
    const r = await cli('--workspace', ws, 'kit', 'list');
    expect(r.err).toMatch(
      /config\.toml:\d+: providers\.\d+\.base_url: expected an http:\/\/ or https:\/\/ URL with a host, such as http:\/\/localhost:8080\/v1, got "localhost:8080\/v1"/,
    );
    expect(r.code).not.toBe(0);
  });

  it('mcp-servers test with a server the config does not declare (as kit info nope)', async () => {
    const ws = tempWorkspace();
    expectUsageError(
      await cli('--workspace', ws, 'mcp-servers', 'test', 'nope'),
      /no MCP server nope; declared: none/,
    );
    expect((await cli('--workspace', ws, 'kit', 'info', 'nope')).code).toBe(2);
  });

  it.each(['kit', 'runs', 'template', 'skill', 'pool', 'tool', 'image', 'mcp-servers'])(
    '%s without a subcommand: its help on stderr, exit 2; --help and help still exit 0',
    async (verb) => {
      const bare = await cli(verb);
      expect(bare.out).toBe('');
      expect(bare.err).toMatch(new RegExp(`^Usage: toolsmith ${verb} `));
      expect(bare.code).toBe(2);
      const help = await cli(verb, '--help');
      expect(help.out).toMatch(new RegExp(`^Usage: toolsmith ${verb} `));
      expect(help.code).toBe(0);
      expect((await cli(verb, 'help')).code).toBe(0);
    },
  );
});

describe('template create validates its script', { timeout: STARTS_PROCESSES_MS }, () => {
  it("refuses a script that breaks the rules, against the sandbox's tools, as skill create does", async () => {
    const ws = tempWorkspace();
    const body = join(tmp(), 'bad.py');
    writeFileSync(
      body,
      'import os\nr = get_user(user_id={{user_id}})\nemit_result(open("/etc/passwd").read())\neval("1")\n',
    );
    const r = await cli(
      '--workspace',
      ws,
      'template',
      'create',
      'sneaky',
      '--file',
      body,
      '--pattern',
      'name of user {user_id}',
      '--sandbox',
      'ecommerce',
    );
    expectUsageError(
      r,
      /template sneaky: the script does not validate: line 1:1 no-import: .*; line 3:13 forbidden-name: open .*; line 4:1 forbidden-name: eval /,
    );
    expect(existsSync(join(ws, 'templates', 'sneaky.tmpl'))).toBe(false);
  });

  it('refuses a tool of another sandbox', async () => {
    const ws = tempWorkspace();
    const body = join(tmp(), 'other.py');
    writeFileSync(body, 'r = get_ticket(ticket_id={{id}})\nemit_result(r.data)\n');
    const args = ['--workspace', ws, 'template', 'create', 'tk', '--file', body, '--pattern', 'ticket {id}'];
    expect((await cli(...args, '--slot', 'id=int', '--sandbox', 'ecommerce')).code).toBe(2);
    expect((await cli(...args, '--slot', 'id=int', '--sandbox', 'support')).code).toBe(0);
  });
});

describe('error lines quote what others chose', { timeout: STARTS_PROCESSES_MS }, () => {
  it('a file name with terminal escapes in an error is shown escaped, not acted on', async () => {
    const ws = tempWorkspace();
    // (a hostile repository's file name: OSC 0 sets the window title, CSI 2K erases the line)
    const r = await cli('--workspace', ws, 'validate', join(tmp(), 'no\u001b]0;PWNED\u0007\u001b[2K.py'));
    expect(r.err).toContain('no\\x1b]0;PWNED\\x07\\x1b[2K.py');
    expect(r.err).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    expect(r.code).not.toBe(0);
  });
});
