/**
 * The workspace's own files (config.toml, templates/, kits/) moved, deleted or made unwritable under a
 * live `serve`, as a user's machine meets it. A save never lands in a ghost folder at the old path, a
 * deleted config.toml does not silently drop the config in use (nor does the next save write a file
 * holding only the edit), and every refused write names the file, the cause in words and what to do.
 * When the file comes back, the service goes on without a restart.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { cliProcess, startServe } from './support/processes.ts';
import type { ServeProcess } from './support/processes.ts';

const fx = useScriptedWorkspace({
  dataPerTest: true,
  eachTest: (llm) => (llm.fallback = { text: 'I will not write code.' }),
});
const config = () => join(fx.ws, '.toolsmith', 'config.toml');
let serve: ServeProcess | undefined;
let restore: (() => void) | undefined;
afterEach(async () => {
  restore?.();
  restore = undefined;
  if (serve && serve.child.exitCode === null) await serve.stop();
  serve = undefined;
});

const provider = (id: string) => ({ id, kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' });
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'saved',
    // The helper says which method refused: the message is what follows.
    (e: Error) => e.message.replace(/^[\w.]+: /, ''),
  );
const providerIds = async (s: ServeProcess) =>
  (await s.call<{ providers: { id: string }[] }>('settings.get', {})).providers.map((p) => p.id);
const status = (s: ServeProcess) => s.call<{ configProblem?: string }>('system.status', {});

describe('workspace files changed under a live serve', () => {
  it('the workspace folder moved: a save is refused naming where it went, nothing is made at the old path; moved back, it saves', async () => {
    const moved = `${fx.ws}-moved`;
    serve = await startServe(fx.ws, fx.data);
    const s = serve;
    renameSync(fx.ws, moved);
    restore = () => {
      if (existsSync(moved) && !existsSync(fx.ws)) renameSync(moved, fx.ws);
    };
    // Before: both answered ok and wrote a ghost <ws>/.toolsmith/config.toml at the old path, holding
    // the provider the user saved, while the moved workspace never got it.
    const p = await refusal(s.call('providers.save', provider('p2')));
    expect(p).toContain(`the workspace folder ${fx.ws} is gone: it was moved to ${moved} while this process`);
    expect(p).toContain(`open the workspace at ${moved} (or move it back) and save again`);
    const m = await refusal(s.call('mcp.save', { name: 'm2', url: 'http://127.0.0.1:9/mcp' }));
    expect(m).toMatch(/is gone: it was moved to .* nothing was written at the old path/);
    expect(existsSync(fx.ws)).toBe(false);
    expect(readFileSync(join(moved, '.toolsmith', 'config.toml'), 'utf8')).not.toContain('"p2"');
    // Moved back: the same process saves, into the workspace.
    renameSync(moved, fx.ws);
    await s.call('providers.save', provider('p2'));
    expect(readFileSync(config(), 'utf8')).toContain('id = "p2"');
    expect(s.err()).not.toMatch(/failed: Error/);
  }, 120_000);

  it('the workspace folder moved while a PLAN run retries: the run fails naming the move and where it went, not "no sandbox"; moved back, a run succeeds', async () => {
    const moved = `${fx.ws}-moved`;
    serve = await startServe(fx.ws, fx.data);
    const s = serve;
    restore = () => {
      if (existsSync(moved) && !existsSync(fx.ws)) renameSync(moved, fx.ws);
    };
    // The first script calls a tool that does not exist (refused, the run asks again); the second
    // answer comes late, and the workspace folder is moved while the run waits for it.
    fx.llm.push(
      { text: 'r = no_such_tool(1)\nemit_result(r)' },
      { text: 'r = get_user(user_id="u1")\nemit_result(r.data)', delayMs: 3_000 },
    );
    const { runId } = await s.call<{ runId: string }>('runs.start', {
      task: 'user u1',
      sandbox: 'ecommerce',
    });
    await vi.waitFor(() => expect(fx.llm.requests.length).toBe(2), { timeout: 60_000 });
    renameSync(fx.ws, moved);
    let run: { status: string; error: string | null };
    for (;;) {
      run = await s.call<{ status: string; error: string | null }>('runs.get', { runId });
      if (run.status !== 'running') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    // Before: "no sandbox ecommerce", as if the sandbox had never existed.
    expect(run.status).toBe('failed');
    expect(run.error).toBe(
      `the workspace folder ${fx.ws} is gone: it was moved to ${moved} while this process (pid ${s.child.pid}) had it open; sandbox ecommerce's tools cannot be read from the old path; open the workspace at ${moved} (or move it back)`,
    );
    // A new run is refused with the same words (before: "no sandbox ecommerce in <ws>; available: none").
    expect(await refusal(s.call('runs.start', { task: 'user u1 again', sandbox: 'ecommerce' }))).toContain(
      `the workspace folder ${fx.ws} is gone: it was moved to ${moved}`,
    );
    // Moved back: the same process runs again.
    renameSync(moved, fx.ws);
    fx.llm.push({ text: 'r = get_user(user_id="u1")\nemit_result(r.data)' });
    expect((await s.runToEnd('user u1, back')).status).toBe('succeeded');
  }, 180_000);

  /**
   * Edits of the ecommerce sandbox's description in config.toml (the file put back after the test): a
   * backend change, the next jobs go to a new backend.
   */
  function descriptionEdits(): (description: string) => void {
    const text = readFileSync(config(), 'utf8');
    restore = () => writeFileSync(config(), text);
    return (d) =>
      writeFileSync(config(), text.replace(/description = "A small shop[^"]*"/, `description = "${d}"`));
  }
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it("a good config edit while a run's job is still placing itself on the sandbox backend: the job runs, never aborted", async () => {
    serve = await startServe(fx.ws, fx.data);
    const s = serve;
    const edit = descriptionEdits();
    for (const [i, delay] of [100, 250, 400].entries()) {
      // The backend made anew: the run's job is its first, and its pool and container are still being
      // made when the next edit retires it.
      edit(`a shop, edit ${i}a`);
      await pause(800);
      fx.llm.push({ text: 'r = get_user(user_id="u1")\nemit_result(r.data)' });
      const asked = fx.llm.requests.length;
      const { runId } = await s.call<{ runId: string }>('runs.start', {
        task: `user u1, ${i}`,
        sandbox: 'ecommerce',
      });
      await vi.waitFor(() => expect(fx.llm.requests.length).toBeGreaterThan(asked), { timeout: 30_000 });
      await pause(delay);
      edit(`a shop, edit ${i}b`);
      let run: { status: string; error: string | null };
      for (;;) {
        run = await s.call<{ status: string; error: string | null }>('runs.get', { runId });
        if (run.status !== 'running') break;
        await pause(50);
      }
      // Before: "This operation was aborted" (exitReason infra, no tool called): the retire looked only
      // at the pools' busy and queued jobs, and a job placing itself was in neither.
      expect([delay, run.status, run.error ?? null]).toEqual([delay, 'succeeded', null]);
    }
  }, 180_000);

  it('a good config edit while a tool tried on its own (tools.call) is still placing itself: the call answers, never aborted', async () => {
    serve = await startServe(fx.ws, fx.data);
    const s = serve;
    const edit = descriptionEdits();
    for (const [i, delay] of [50, 150, 300].entries()) {
      edit(`a shop, tool edit ${i}a`);
      await pause(800);
      const call = s.call<{ result: { success: boolean; exitReason: string; error?: { message: string } } }>(
        'tools.call',
        { sandbox: 'ecommerce', tool: 'get_user', args: { user_id: 'u1' } },
      );
      await pause(delay);
      edit(`a shop, tool edit ${i}b`);
      const { result } = await call;
      // Before: the retire waited only for jobs (executor.execute), and disposed the backend under a
      // tool call still placing itself ("This operation was aborted").
      expect([delay, result.exitReason, result.error?.message ?? null]).toEqual([delay, 'ok', null]);
    }
  }, 180_000);

  it('the workspace folder moved: every list of its files says so (the message a save gets), not an empty list; moved back, they list again', async () => {
    const moved = `${fx.ws}-moved`;
    serve = await startServe(fx.ws, fx.data);
    const s = serve;
    const lists: [method: string, params: object, what: string][] = [
      ['templates.list', {}, 'the templates'],
      ['kits.list', {}, 'the kits'],
      ['skills.list', {}, 'the skills'],
      ['suites.list', {}, 'the suites'],
      ['suites.read', { name: 'ecommerce' }, 'the suite'],
      ['tools.list', { sandbox: 'ecommerce' }, "the sandbox's tools"],
      ['sandboxes.list', {}, 'the sandboxes'],
    ];
    renameSync(fx.ws, moved);
    restore = () => {
      if (existsSync(moved) && !existsSync(fx.ws)) renameSync(moved, fx.ws);
    };
    // Before: each answered an empty list (nothing at the old path), as if the workspace had nothing.
    for (const [method, params, what] of lists)
      expect(await refusal(s.call(method, params))).toMatch(
        new RegExp(
          `^the workspace folder ${fx.ws} is gone: it was moved to ${moved} while this process \\(pid \\d+\\) had it open; ${what} cannot be listed from the old path; open the workspace at ${moved} \\(or move it back\\)$`,
        ),
      );
    // The same head as a save's refusal.
    expect(await refusal(s.call('providers.save', provider('p2')))).toMatch(
      new RegExp(`^the workspace folder ${fx.ws} is gone: it was moved to ${moved} while this process`),
    );
    expect(existsSync(fx.ws)).toBe(false);
    renameSync(moved, fx.ws);
    restore = undefined;
    expect((await s.call<unknown[]>('kits.list', {})).length).toBeGreaterThan(0);
    expect((await s.call<unknown[]>('suites.list', {})).length).toBeGreaterThan(0);
    expect((await s.call<unknown[]>('sandboxes.list', {})).length).toBeGreaterThan(0);
    expect(await s.call('templates.list', {})).toEqual({ templates: [], problems: [] });
    expect(s.err()).not.toMatch(/failed: Error/);
  }, 120_000);

  it('recent-workspaces.json with junk in it: kept aside, said once; the next workspace opened starts a new list', async () => {
    const home = join(fx.data, 'home-recent');
    mkdirSync(home, { recursive: true });
    const file = join(home, 'recent-workspaces.json');
    writeFileSync(file, '{"not": "a list"');
    serve = await startServe(fx.ws, fx.data, { TOOLSMITH_HOME: home });
    const s = serve;
    type Recent = { recent: { path: string }[]; problem?: string };
    // Before: read as an empty list, said nowhere, and replaced by the next workspace opened.
    const first = await s.call<Recent>('workspace.recent', {});
    const aside = readdirSync(home).filter((f) => f.startsWith('recent-workspaces.json.unreadable-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(home, aside[0]!), 'utf8')).toBe('{"not": "a list"');
    expect(existsSync(file)).toBe(false);
    expect(first.recent).toEqual([]);
    expect(first.problem).toMatch(
      new RegExp(
        `^${file} was not JSON \\(.*\\): it is kept as ${join(home, aside[0]!)}, and a new list of recent workspaces was started$`,
      ),
    );
    // (serve's stderr may reach this process after its answer: polled)
    await expect.poll(() => s.err(), { timeout: 10_000 }).toContain(`toolsmith: ${first.problem}`);
    // Said once.
    expect((await s.call<Recent>('workspace.recent', {})).problem).toBeUndefined();
    // A list that is JSON but not one of folders is set aside the same way.
    writeFileSync(file, '[1, 2]');
    expect((await s.call<Recent>('workspace.recent', {})).problem).toMatch(
      /was not a JSON list of folders: it is kept as/,
    );
    expect(readdirSync(home).filter((f) => f.startsWith('recent-workspaces.json.unreadable-'))).toHaveLength(
      2,
    );
    // Opening another workspace starts the new list; what was set aside stays.
    const other = `${fx.ws}-other`;
    restore = () => rmSync(other, { recursive: true, force: true });
    await s.call('workspace.init', { path: other, empty: true });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([other, fx.ws]);
    expect(readFileSync(join(home, aside[0]!), 'utf8')).toBe('{"not": "a list"');
  }, 120_000);

  it('config.toml deleted: the config in use is kept and the problem named; a save writes the whole config back; put back, the problem clears', async () => {
    const before = readFileSync(config(), 'utf8');
    restore = () => writeFileSync(config(), before);
    serve = await startServe(fx.ws, fx.data);
    const s = serve;
    const ids = await providerIds(s);
    expect(ids.length).toBeGreaterThan(0);
    rmSync(config());
    // Before: the watcher applied the defaults (no provider, no MCP server, no sandbox settings), said
    // nothing, and a run failed with "no attempt was made".
    await vi.waitFor(async () => expect((await status(s)).configProblem).toContain('config.toml is gone'), {
      timeout: 20_000,
    });
    expect((await status(s)).configProblem).toMatch(
      /config\.toml is gone \(deleted, or renamed away\) while this process runs; put it back, or save a setting .* \(the last good config stays in use\)/,
    );
    expect(await providerIds(s)).toEqual(ids);
    const run = await s.runToEnd('a run while config.toml is gone');
    expect(run.error).not.toBe('no attempt was made');
    expect(fx.llm.requests.length).toBeGreaterThan(0);
    // A save starts from the config in use: before, the new file held the new provider alone.
    await s.call('providers.save', provider('p3'));
    const written = readFileSync(config(), 'utf8');
    for (const id of [...ids, 'p3']) expect(written).toContain(`id = "${id}"`);
    expect(written).toContain('[prices.good]');
    await vi.waitFor(async () => expect((await status(s)).configProblem).toBeUndefined(), {
      timeout: 20_000,
    });
    // Deleted again, then put back as it was: nothing to reload, and the problem no longer holds.
    const now = readFileSync(config(), 'utf8');
    const aside = `${config()}.aside`;
    renameSync(config(), aside);
    await vi.waitFor(async () => expect((await status(s)).configProblem).toContain('is gone'), {
      timeout: 20_000,
    });
    copyFileSync(aside, config());
    rmSync(aside);
    expect(readFileSync(config(), 'utf8')).toBe(now);
    await vi.waitFor(async () => expect((await status(s)).configProblem).toBeUndefined(), {
      timeout: 20_000,
    });
  }, 120_000);

  it('a templates folder that refuses writes, or a file in its place: the save is refused in words naming the file; fixed, it saves', async () => {
    if (process.getuid?.() !== 0) throw new Error('chattr needs root');
    serve = await startServe(fx.ws, fx.data);
    const s = serve;
    const dir = join(fx.ws, 'templates');
    const template = (name: string) => ({
      name,
      body: 'emit_result(1)',
      pattern: `say ${name}`,
      sandbox: 'ecommerce',
    });
    await s.call('templates.create', template('t1'));
    execFileSync('chattr', ['+i', dir]);
    restore = () => execFileSync('chattr', ['-i', dir]);
    // Before: "internal", "EPERM: operation not permitted, open '.../templates/.t2.tmpl.<pid>.tmp'" and a
    // stack trace on serve's stderr.
    const r = await refusal(s.call('templates.create', template('t2')));
    expect(r).toBe(
      `${dir}/t2.tmpl could not be written: not permitted: the file or its folder is immutable, locked or owned by another user (EPERM); the file was left as it was and nothing was saved; make it writable and save again`,
    );
    execFileSync('chattr', ['-i', dir]);
    restore = undefined;
    // A folder where the template file belongs (before: "EISDIR: illegal operation on a directory, rename").
    rmSync(join(dir, 't1.tmpl'));
    execFileSync('mkdir', [join(dir, 't1.tmpl')]);
    const list = await s.call<{ problems: { file: string; error: string }[] }>('templates.list', {});
    expect(list.problems).toEqual([
      {
        file: join(dir, 't1.tmpl'),
        error: `${join(dir, 't1.tmpl')} cannot be read: it is a folder, not a file (EISDIR); move the folder away`,
      },
    ]);
    const f = await refusal(s.call('templates.create', { ...template('t1'), force: true }));
    expect(f).toBe(
      `${dir}/t1.tmpl could not be written: a folder is where the file belongs (EISDIR); the file was left as it was and nothing was saved; make it writable and save again`,
    );
    rmSync(join(dir, 't1.tmpl'), { recursive: true });
    // The templates folder replaced by a file (before: "ENOTDIR: not a directory, scandir", and the
    // whole list failed).
    renameSync(dir, `${dir}.aside`);
    writeFileSync(dir, 'not a folder');
    restore = () => {
      rmSync(dir, { force: true });
      renameSync(`${dir}.aside`, dir);
    };
    const l2 = await s.call<{ problems: { error: string }[] }>('templates.list', {});
    expect(l2.problems.map((p) => p.error)).toEqual([
      `${dir} is a file, not a folder, so nothing in it can be listed or saved; move the file away (a folder of that name holds them)`,
    ]);
    expect(await refusal(s.call('templates.create', template('t3')))).toBe(
      `${dir} cannot be made: a file is where this folder belongs (EEXIST); template t3 was not saved; move the file away and save again`,
    );
    restore();
    restore = undefined;
    await s.call('templates.create', template('t3'));
    expect(existsSync(join(dir, 't3.tmpl'))).toBe(true);
    // The CLI says it in one line, exit 3 (before: the temporary file's name, or an internal error with
    // a stack).
    writeFileSync(join(fx.ws, 'five.py'), 'emit_result(5)\n');
    execFileSync('chattr', ['+i', dir]);
    restore = () => execFileSync('chattr', ['-i', dir]);
    const cli = await cliProcess(fx.ws, fx.data, [
      'template',
      'create',
      't5',
      '--file',
      join(fx.ws, 'five.py'),
      '--pattern',
      'say five',
      '--sandbox',
      'ecommerce',
    ]).done;
    expect(cli.code).toBe(3);
    expect(cli.err).toBe(
      `toolsmith: ${dir}/t5.tmpl could not be written: not permitted: the file or its folder is immutable, locked or owned by another user (EPERM); the file was left as it was and nothing was saved; make it writable and save again\n`,
    );
    expect(s.err()).not.toMatch(/failed: Error/);
  }, 120_000);

  it('a folder in place of tools.py, a kit or a suite, or a file in place of suites/: each named with its cause; put back, read again', async () => {
    serve = await startServe(fx.ws, fx.data);
    const s = serve;
    const tools = join(fx.ws, 'sandboxes', 'ecommerce', 'tools.py');
    const kit = join(fx.ws, 'kits', 'orders.kit');
    const suite = join(fx.ws, 'suites', 'support.toml');
    const saved = new Map([tools, kit, suite].map((f) => [f, readFileSync(f, 'utf8')]));
    restore = () => {
      for (const [f, text] of saved) {
        rmSync(f, { recursive: true, force: true });
        writeFileSync(f, text);
      }
    };
    for (const f of saved.keys()) {
      rmSync(f);
      mkdirSync(f);
    }
    const folder = (f: string) =>
      `${f} cannot be read: it is a folder, not a file (EISDIR); move the folder away`;
    // Before: "internal" and Node's "EISDIR: illegal operation on a directory, read", naming no file;
    // the suite list failed whole.
    expect(await refusal(s.call('tools.list', { sandbox: 'ecommerce' }))).toBe(folder(tools));
    expect(JSON.stringify(await s.call('kits.list', {}))).toContain(JSON.stringify(folder(kit)));
    const suites = await s.call<{ name: string; cases: number; error?: string }[]>('suites.list', {});
    expect(suites.find((x) => x.name === 'support')).toMatchObject({ cases: 0, error: folder(suite) });
    expect(suites.find((x) => x.name === 'ecommerce')?.cases).toBeGreaterThan(0);
    restore();
    // The suites folder replaced by a file (before: "ENOTDIR: not a directory, scandir ...").
    const dir = join(fx.ws, 'suites');
    renameSync(dir, `${dir}.aside`);
    writeFileSync(dir, 'not a folder');
    restore = () => {
      rmSync(dir, { force: true });
      renameSync(`${dir}.aside`, dir);
    };
    expect(await refusal(s.call('suites.list', {}))).toBe(
      `${dir} is a file, not a folder, so nothing in it can be listed or saved; move the file away (a folder of that name holds them)`,
    );
    restore();
    // A file in place of skills/ (before: "internal", "ENOTDIR: not a directory, scandir .../skills").
    const skills = join(fx.ws, 'skills');
    const hadSkills = existsSync(skills);
    if (hadSkills) renameSync(skills, `${skills}.aside`);
    writeFileSync(skills, 'not a folder');
    restore = () => {
      rmSync(skills, { force: true });
      if (hadSkills) renameSync(`${skills}.aside`, skills);
    };
    expect(JSON.stringify(await s.call('skills.list', {}))).toContain(
      JSON.stringify(
        `${skills} is a file, not a folder, so nothing in it can be listed or saved; move the file away (a folder of that name holds them)`,
      ),
    );
    restore();
    restore = undefined;
    // Put back: read again by the same process.
    const back = await s.call<{ name: string; cases: number }[]>('suites.list', {});
    expect(back.find((x) => x.name === 'support')?.cases).toBeGreaterThan(0);
    await vi.waitFor(
      async () =>
        expect(
          (await s.call<{ tools: unknown[] }>('tools.list', { sandbox: 'ecommerce' })).tools.length,
        ).toBeGreaterThan(0),
      { timeout: 20_000 },
    );
    expect(s.err()).not.toMatch(/failed: Error/);
  }, 120_000);

  it('a run with no provider left in a workspace that has templates says there is none, not "no attempt was made"', async () => {
    const before = readFileSync(config(), 'utf8');
    restore = () => writeFileSync(config(), before);
    serve = await startServe(fx.ws, fx.data);
    const s = serve;
    await s.call('templates.create', {
      name: 'greet',
      body: 'emit_result(1)',
      pattern: 'say hello',
      sandbox: 'ecommerce',
    });
    for (const id of await providerIds(s)) await s.call('providers.remove', { id });
    const run = await s.runToEnd('a task no template matches');
    expect(run.status).toBe('failed');
    expect(run.error).toBe('no LLM provider is configured and no template or rule matched');
    rmSync(join(fx.ws, 'templates'), { recursive: true });
  }, 120_000);
});
