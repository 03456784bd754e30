/**
 * A named pipe (FIFO) where a workspace file belongs: tools.py, a kit, a template, a skill, config.toml
 * the skills' verdicts or a sandbox's requirements.txt (a `mkfifo` by mistake, a tool that streams its output through a pipe under the file's name). A read of
 * a FIFO waits for a writer; Node's `readFileSync` did so with the whole process blocked: `serve` stopped
 * answering every call (the page hung, SIGTERM's handler never ran), `toolsmith sandboxes`/`kit list`
 * never ended. Now the file is opened without blocking and refused at once, naming what is there; the
 * process goes on, and the file put back is read again.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { cliProcess, startServe } from './support/processes.ts';
import type { ServeProcess } from './support/processes.ts';
import { nodeBin } from '../../support/toolsmith-process.ts';
import { repoRoot } from '../../support/workspace.ts';

const fx = useScriptedWorkspace({
  dataPerTest: true,
  eachTest: (llm) => (llm.fallback = { text: 'I will not write code.' }),
});
let serve: ServeProcess | undefined;
let restore: (() => void) | undefined;
afterEach(async () => {
  restore?.();
  restore = undefined;
  if (serve && serve.child.exitCode === null) await serve.stop();
  serve = undefined;
});

const fifo = (f: string) => {
  rmSync(f, { force: true });
  execFileSync('mkfifo', [f]);
};
const piped = (f: string) =>
  `${f} cannot be read: it is a named pipe (FIFO), not a file: reading it would wait for a writer (S_IFIFO)`;
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'answered',
    (e: Error) => e.message.replace(/^[\w.]+: /, ''),
  );
const status = (s: ServeProcess) => s.call<{ configProblem?: string }>('system.status', {});

/** A contract call's whole answer ({ok, value} or {ok: false, error: {code, message}}). */
async function raw(s: ServeProcess, method: string, params: unknown): Promise<unknown> {
  const url = new URL(/(http:\/\/\S+)/.exec(s.out())![1]!);
  const res = await fetch(`${url.origin}/api/${method}`, {
    method: 'POST',
    headers: {
      origin: url.origin,
      authorization: `Bearer ${url.searchParams.get('token')!}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(params),
  });
  return res.json();
}

/** A CLI verb to its end; killed after 60 s, so a verb that hangs on the pipe reads as a signal, not an exit. */
async function verb(args: string[]) {
  const p = cliProcess(fx.ws, fx.data, args);
  const kill = setTimeout(() => p.child.kill('SIGKILL'), 60_000);
  const r = await p.done;
  clearTimeout(kill);
  return r;
}

describe('a named pipe in place of a workspace file', () => {
  it('under a live serve: tools.py, a kit, a template, a skill and config.toml are each refused naming the pipe; the server keeps answering; put back, read again', async () => {
    serve = await startServe(fx.ws, fx.data);
    const s = serve;
    const tools = join(fx.ws, 'sandboxes', 'ecommerce', 'tools.py');
    const kit = join(fx.ws, 'kits', 'orders.kit');
    const config = join(fx.ws, '.toolsmith', 'config.toml');
    const template = join(fx.ws, 'templates', 'piped.tmpl');
    const skill = join(fx.ws, 'skills', 'ecommerce', 'piped.py');
    const verdicts = join(fx.ws, '.toolsmith', 'skill-tests.json');
    mkdirSync(join(fx.ws, 'templates'), { recursive: true });
    mkdirSync(join(fx.ws, 'skills', 'ecommerce'), { recursive: true });
    const saved = new Map([tools, kit, config].map((f) => [f, readFileSync(f, 'utf8')]));
    restore = () => {
      for (const [f, text] of saved) {
        rmSync(f, { force: true });
        writeFileSync(f, text);
      }
      rmSync(template, { force: true });
      rmSync(skill, { force: true });
      rmSync(verdicts, { force: true });
    };
    const toolsBefore = (await s.call<{ tools: unknown[] }>('tools.list', { sandbox: 'ecommerce' })).tools;
    expect(toolsBefore.length).toBeGreaterThan(0);
    for (const f of [tools, kit, template, skill, verdicts]) fifo(f);

    // Before: the first of these blocked serve's event loop on the pipe; no call ever answered again.
    expect(await refusal(s.call('tools.list', { sandbox: 'ecommerce' }))).toBe(
      `${piped(tools)}; move it away and put the file back`,
    );
    expect(JSON.stringify(await s.call('kits.list', {}))).toContain(JSON.stringify(piped(kit)).slice(1, -1));
    const templates = await s.call<{ problems: { file: string; error: string }[] }>('templates.list', {});
    expect(templates.problems.map((p) => p.error).join('\n')).toContain(piped(template));
    const skills = JSON.stringify(await s.call('skills.list', {}));
    expect(skills).toContain(JSON.stringify(piped(skill)).slice(1, -1));

    // config.toml: the watcher reads it on change; the last good config stays, the problem is named.
    fifo(config);
    await vi.waitFor(async () => expect((await status(s)).configProblem).toContain('named pipe'), {
      timeout: 20_000,
    });
    expect((await status(s)).configProblem).toBe(
      `${piped(config)}; the workspace's config must be a TOML file (the last good config stays in use)`,
    );
    const settings = await s.call<{ providers: unknown[] }>('settings.get', {});
    expect(settings.providers.length).toBeGreaterThan(0);
    // A save starts from the file: refused naming it, as a machine's refusal (before: `internal`, and
    // "providers.save failed: WorkspaceError ..." with a stack trace on serve's stderr).
    const save = await raw(s, 'providers.save', {
      id: 'p9',
      kind: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'm',
    });
    expect(save).toEqual({
      ok: false,
      error: { code: 'infra', message: `${piped(config)}; the workspace's config must be a TOML file` },
    });
    expect(s.err()).not.toMatch(/failed: WorkspaceError|\n\s+at /);

    // Put back: the same process reads them again.
    restore();
    restore = undefined;
    await vi.waitFor(async () => expect((await status(s)).configProblem).toBeUndefined(), {
      timeout: 20_000,
    });
    await vi.waitFor(
      async () =>
        expect(
          (await s.call<{ tools: unknown[] }>('tools.list', { sandbox: 'ecommerce' })).tools.length,
        ).toBe(toolsBefore.length),
      { timeout: 20_000 },
    );
    expect(JSON.stringify(await s.call('kits.list', {}))).not.toContain('named pipe');
    // And it stops on SIGTERM as usual (a process blocked on a pipe never ran its handler).
    await s.stop();
    expect(s.child.exitCode ?? s.child.signalCode).not.toBe('SIGKILL');
  }, 180_000);

  it('one-shot verbs: sandboxes, tools, kit list and exec (a requirements.txt) end at once naming the pipe (before: they never ended)', async () => {
    const tools = join(fx.ws, 'sandboxes', 'support', 'tools.py');
    const text = readFileSync(tools, 'utf8');
    restore = () => {
      rmSync(tools, { force: true });
      writeFileSync(tools, text);
    };
    fifo(tools);
    const sandboxes = await verb(['sandboxes']);
    expect([sandboxes.signal, sandboxes.code]).toEqual([null, 3]);
    expect(sandboxes.err).toContain(piped(tools));
    const listed = await verb(['tools', '--sandbox', 'support']);
    expect([listed.signal, listed.code]).toEqual([null, 3]);
    expect(listed.err).toContain(piped(tools));
    // kit list lists every kit; the one whose sandbox's tools.py is a pipe is refused naming it.
    const kits = await verb(['kit', 'list']);
    expect([kits.signal, kits.code]).toEqual([null, 0]);
    expect(kits.out).toMatch(/orders\s+ecommerce/);
    expect(kits.out).toContain(piped(tools));
    // A sandbox's requirements.txt, read at every worker start (its derived image's key).
    const req = join(fx.ws, 'sandboxes', 'ecommerce', 'requirements.txt');
    const script = join(fx.data, 'one.py');
    writeFileSync(script, 'emit_result(1)\n');
    fifo(req);
    const before = restore;
    restore = () => {
      before();
      rmSync(req, { force: true });
    };
    const ran = await verb(['exec', '--sandbox', 'ecommerce', script]);
    expect(ran.signal).toBeNull();
    expect(ran.out + ran.err).toContain(`${piped(req)}; move it away and put the file back`);
  }, 240_000);

  it('config.toml this user may not read (mode 000, as nobody): named with what to do, never read as "no config"', () => {
    if (process.getuid?.() !== 0) throw new Error('this test reads the file as nobody: run it as root');
    const config = join(fx.ws, '.toolsmith', 'config.toml');
    chmodSync(config, 0o000);
    restore = () => chmodSync(config, 0o644);
    const probe = `import { readConfigText } from ${JSON.stringify(join(repoRoot, 'src-main/infra/workspace/files.ts'))};
try { readConfigText(${JSON.stringify(config)}); console.log('read'); } catch (e) { console.log(e.name + ': ' + e.message); }`;
    const r = spawnSync(nodeBin, ['--input-type=module', '-e', probe], {
      uid: 65534,
      gid: 65534,
      encoding: 'utf8',
    });
    // Before: "...: permission denied (EACCES); the workspace's config must be a TOML file", and a save
    // from a front end answered `internal` with a stack trace.
    expect(r.stdout.trim()).toBe(
      `WorkspaceFileError: ${config} cannot be read: permission denied: this user may not read it (EACCES); make it readable by this user`,
    );
  });
});
