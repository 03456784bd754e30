/** JS/TS scripts in the Node runtime container, through the service (tools forwarded to the Python sandbox). */
import { PassThrough } from 'node:stream';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { tempWorkspace } from '../../support/workspace.ts';

let svc: ToolsmithService;
beforeAll(() => {
  svc = ToolsmithService.open(tempWorkspace(), { sandboxFactory: createSandboxManager });
});
afterAll(() => svc.close());

const run = (body: string, language: 'js' | 'ts' = 'js', validate = true, timeoutMs = 20_000) =>
  svc.execution.executeScript({ sandbox: 'ecommerce', language, body, validate, timeoutMs });

describe('node runtime', () => {
  it('runs a JS script: awaited tools, logs, intermediates, result, traces', async () => {
    const r = await run(
      'const r = await get_user({ user_id: "u3" });\nconsole.log("looked up");\nemitIntermediate(r.success);\nemitResult(r.data.email);\n',
    );
    expect(r).toMatchObject({
      success: true,
      data: 'grace@example.com',
      intermediates: [true],
      logs: ['looked up'],
      runtime: 'node',
      isolation: 'docker',
    });
    expect(r.toolCalls).toEqual([
      expect.objectContaining({
        name: 'get_user',
        location: 'sandbox',
        result: expect.objectContaining({ success: true }),
      }),
    ]);
  }, 120_000);

  it('runs TypeScript (types stripped) and maps error frames to body lines', async () => {
    const ok = await run('const n: number = 2;\nemitResult(n * 21);\n', 'ts');
    expect(ok.data).toBe(42);
    const bad = await run('const r = await get_orders();\n\nemitResult(r.data.nope.x);\n');
    expect(bad.exitReason).toBe('error');
    expect(bad.error).toMatchObject({ type: 'TypeError', frames: [expect.objectContaining({ line: 3 })] });
  });

  it('the script context has no process, require or code generation from strings', async () => {
    const p = await run(
      'emitResult(typeof process + typeof require + typeof globalThis.fetch);\n',
      'js',
      false,
    );
    expect(p.data).toBe('undefinedundefinedundefined');
    const f = await run('emitResult([].map.constructor("return 1")());\n', 'js', false);
    expect(f.success).toBe(false);
    expect(f.error?.message).toMatch(/Code generation from strings disallowed/);
  });

  it('an endless loop ends with timeout, and the next job runs', async () => {
    const r = await run('while (true) {}\nemitResult(1);\n', 'js', true, 1500);
    expect(r.exitReason).toBe('timeout');
    expect((await run('emitResult(1);\n')).data).toBe(1);
  });

  it('a disabled runtime answers the exact error', async () => {
    const r = await svc.execution.executeScript({
      sandbox: 'ecommerce',
      language: 'js',
      body: 'emitResult(1);\n',
    });
    expect(r.success).toBe(true);
    expect(svc.system.enabledRuntimes()).toEqual(['python', 'node']);
  });
});

// Between jobs on one warm node container (docs/sandboxes.md, "Between jobs"). A script's vm context has
// no way to start a process or write a file, so what an escaped script would leave is planted from
// outside, as the sandbox user, while the job runs; the worker must remove all of it before the next job.
describe('node runtime: nothing of a job outlives it', () => {
  const docker = new Docker();
  const exec = async (id: string, user: string, cmd: string[]) => {
    const e = await docker
      .getContainer(id)
      .exec({ Cmd: cmd, User: user, AttachStdout: true, AttachStderr: true });
    const stream = await e.start({ hijack: true, stdin: false });
    const out = new PassThrough();
    docker.modem.demuxStream(stream, out, out);
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    await new Promise((r) => stream.on('end', r));
    return Buffer.concat(chunks).toString();
  };
  const nodeContainers = async () =>
    (
      await docker.listContainers({
        filters: { label: ['toolsmith.pool=1', `toolsmith.owner=${process.pid}`] },
      })
    ).filter((c) => c.Image.startsWith('toolsmith/node'));
  // What a later job would find: live processes but init and the worker, files in the writable folders.
  const LOOK = `const fs = require('node:fs');
const me = process.pid;
const w = Number(process.argv[1]);
const stat = (p) => { try { return fs.readFileSync('/proc/' + p + '/stat', 'latin1'); } catch { return ''; } };
const ppid = (p) => Number(stat(p).slice(stat(p).lastIndexOf(')') + 2).split(' ')[1]);
const all = fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p));
// (the job's process: the worker's launcher child and what it runs; after a job, the next job's,
// made ahead once the sweep is done)
const next = all.filter((p) => stat(p).includes('(jobns-launch)') && ppid(p) === w).map(Number);
const procs = all.filter((p) => ![1, me, w, ...next].includes(Number(p)) && !next.includes(ppid(p)))
  .filter((p) => stat(p) !== '' && !/\\) [ZX] /.test(stat(p)));
const files = ['/tmp', '/dev/shm', '/dev/mqueue'].flatMap((d) => { try { return fs.readdirSync(d).map((n) => d + '/' + n); } catch { return []; } });
let mem = 'denied'; try { fs.readFileSync('/proc/' + w + '/environ'); mem = 'readable'; } catch {}
console.log(JSON.stringify({ procs, files, mem }));`;
  const PLANT = `const { spawn } = require('node:child_process');
const fs = require('node:fs');
for (const d of ['/tmp', '/dev/shm']) fs.writeFileSync(d + '/left-by-an-earlier-job', 'secret');
// What a plain recursive delete cannot remove: folders with no permissions and read-only ones, a FIFO-free
// tree deeper than any recursion limit.
for (const d of ['/tmp', '/dev/shm']) {
  for (const mode of [0o000, 0o500]) {
    const f = d + '/left-by-an-earlier-job-d' + mode.toString(8);
    fs.mkdirSync(f + '/inner', { recursive: true });
    fs.writeFileSync(f + '/inner/secret', 'secret');
    fs.chmodSync(f + '/inner', mode);
    fs.chmodSync(f, mode);
  }
  const here = process.cwd();
  fs.mkdirSync(d + '/left-by-an-earlier-job-deep');
  process.chdir(d + '/left-by-an-earlier-job-deep');
  for (let i = 0; i < 3000; i++) { fs.mkdirSync('a'); process.chdir('a'); }
  fs.writeFileSync('secret', 'secret');
  process.chdir(here);
}
// setsid (detached) and a double fork: an orphan in a new session.
const c = spawn(process.execPath, ['-e', "require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' }).unref()"], { detached: true, stdio: 'ignore' });
c.on('exit', () => console.log('planted'));`;

  it('a daemonized survivor and files in /tmp and /dev/shm are gone before the next job; the worker is unreadable', async () => {
    expect((await run('emitResult(0);\n')).data).toBe(0); // (the image is built, a worker is up)
    // A job that stays alive while its leftovers are planted.
    const running = run(
      'const t = Date.now();\nwhile (Date.now() - t < 12000) {}\nemitResult(1);\n',
      'js',
      false,
      40_000,
    );
    let id = '';
    let worker = 0;
    for (let i = 0; i < 200 && !worker; i++) {
      for (const c of await nodeContainers()) {
        // (a container of the pool may be gone since it was listed: a standby retired, a worker replaced)
        const ps = await exec(c.Id, '0', [
          '/usr/local/bin/node',
          '-e',
          "const fs=require('node:fs');console.log(fs.readdirSync('/proc').filter(p=>/^\\d+$/.test(p)).map(p=>p+' '+fs.readFileSync('/proc/'+p+'/cmdline','latin1').replace(/\\0/g,' ')).join('\\n'))",
        ]).catch((e: unknown) => {
          if ((e as { statusCode?: number }).statusCode === 404) return '';
          throw e;
        });
        // The worker's job child (--job) runs now: this is the container of the running job.
        if (/--job/.test(ps)) {
          id = c.Id;
          worker = Number(
            /^(\d+) \S*node --disallow-code-generation-from-strings \/opt\/toolsmith\/worker\.mjs\s*$/m.exec(
              ps,
            )?.[1],
          );
        }
      }
      if (!worker) await new Promise((r) => setTimeout(r, 50));
    }
    expect(worker, 'found the running job and its worker').toBeGreaterThan(0);
    expect(await exec(id, '65534', ['/usr/local/bin/node', '-e', PLANT])).toMatch(/planted/);
    const during = JSON.parse(await exec(id, '0', ['/usr/local/bin/node', '-e', LOOK, String(worker)])) as {
      procs: string[];
      files: string[];
    };
    // The attack is in place while the job runs (so the check after it is meaningful).
    expect(during.files).toEqual(
      expect.arrayContaining(['/tmp/left-by-an-earlier-job', '/dev/shm/left-by-an-earlier-job']),
    );
    // (the planted survivor: LOOK leaves out the worker's launcher child and what it runs, here the job)
    expect(during.procs.length).toBeGreaterThan(0);
    expect((await running).data).toBe(1);
    // The worker cleans right after it sends the result, before it reads the next line.
    const look = async (user: string) =>
      JSON.parse(await exec(id, user, ['/usr/local/bin/node', '-e', LOOK, String(worker)])) as {
        procs: string[];
        files: string[];
        mem: string;
      };
    await expect
      .poll(async () => look('0'), { timeout: 10_000, interval: 200 })
      .toMatchObject({ procs: [], files: [] });
    const sandboxUser = await look('65534');
    // The worker runs an execute-only binary: the kernel makes it non-dumpable, so the sandbox user
    // cannot read its /proc files (memory, environment).
    expect(sandboxUser.mem).toBe('denied');
    expect((await run('emitResult(2);\n')).data).toBe(2);
  }, 120_000);
});

describe('skills in the node runtime', () => {
  it("a tool call made from a skill's function is recorded under the skill's name", async () => {
    const ctx = svc.execution.scriptContext('ecommerce', undefined, 'js');
    const code = [
      '/** What a customer spent. */',
      'async function spent_by(user_id) {',
      '  const orders = (await get_orders({})).data;',
      '  const mine = orders.filter((o) => o.user_id === user_id);',
      '  await Promise.all(mine.slice(0, 1).map((o) => get_user({ user_id: o.user_id })));',
      '  return mine.reduce((a, o) => a + o.total, 0);',
      '}',
      '/** Not a skill of this job. */',
      'async function helper() {',
      '  return (await get_user({ user_id: "u2" })).data.name;',
      '}',
      'const spent = await spent_by("u1");',
      'const name = await helper();',
      'await get_product({ product_id: "p1" });',
      'emitResult({ spent, name });',
    ].join('\n');
    const r = await (
      await svc.execution.sandbox()
    ).executor.execute({
      sandbox: 'ecommerce',
      language: 'js',
      code,
      bodyStartLine: 1,
      tools: ctx.toolMap,
      skills: ['spent_by'],
      timeoutMs: 60_000,
    });
    expect(r.success).toBe(true);
    expect(r.data).toEqual({ spent: 201, name: expect.any(String) });
    // The skill's calls carry its name (after an await, and from a callback inside it); others do not.
    expect(r.toolCalls.map((t) => [t.name, t.skill])).toEqual([
      ['get_orders', 'spent_by'],
      ['get_user', 'spent_by'],
      ['get_user', undefined],
      ['get_product', undefined],
    ]);
  }, 300_000);
});
