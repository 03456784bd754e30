/**
 * gVisor: each rooted job in a network namespace of its own (docs/security.md, "A network of its own
 * (gVisor)"). Before, a rooted job (Python's jobns.enter_rooted, bun's `jobns-launch --rooted`) shared the
 * sandbox's one network stack (runsc `--network=none`: its loopback, TCP/UDP ports and abstract unix
 * sockets) with the worker's side and with any other job's process alive beside it. Now:
 * - a job reaches no TCP port on 127.0.0.1 and no abstract unix socket that a process beside the worker
 *   (root, the sandbox's own stack: `docker exec`) listens on, nor those of a second rooted job's process
 *   set beside the job on purpose (bun: a launcher run from outside; the worker never runs two jobs at once
 *   in a sandbox), each listener first proven to answer where it lives;
 * - a job still has a loopback of its own, up: it listens on 127.0.0.1 and connects to itself;
 * - each job's walls name the namespace (`net`): bun's TOOLSMITH_JOB_WALLS, Python's jobns.WALLS.
 * The sweep and wipe are off, so the namespaces alone hold.
 */
import { spawnSync } from 'node:child_process';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { dockerFactory, runPython, testBackend } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';
import { gvisorBun } from './support/gvisor-bun.ts';

const docker = new Docker();

/** The gVisor sandbox container named `sandbox` of this test process. */
async function sandboxId(sandbox: string): Promise<string> {
  const [c] = await docker.listContainers({
    filters: { label: [`toolsmith.owner=${process.pid}`, `toolsmith.sandbox=${sandbox}`] },
  });
  expect(c).toBeDefined();
  return c!.Id;
}

/** A program run beside the worker (`docker exec`: root, the sandbox's own network stack); its stdout. */
function beside(id: string, args: string[], detach = false): string {
  // (timeout: an exec that never returns fails here, not the whole file)
  const r = spawnSync('docker', ['exec', ...(detach ? ['-d'] : []), id, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`docker exec: ${r.status ?? r.signal} ${r.stderr} ${r.stdout}`);
  return r.stdout.trim();
}

describe('gVisor, Python: a rooted job has a network namespace of its own', () => {
  const TOOLS = `import errno, socket, sys


def _connect(family, addr):
    c = socket.socket(family, socket.SOCK_STREAM)
    try:
        c.settimeout(2)
        c.connect(addr)
        return "reached " + c.recv(64).decode()
    except OSError as e:
        return "error " + errno.errorcode.get(e.errno or 0, str(e))
    finally:
        c.close()


@tool(grade=(0, 0))
def reach(port: int = 0, name: str = "") -> ToolResponse:
    """Connects to 127.0.0.1:port and the abstract socket name; its own loopback; its walls."""
    own = socket.socket()
    own.bind(("127.0.0.1", 0))
    own.listen(1)
    mine = socket.create_connection(own.getsockname(), timeout=2)
    peer, _ = own.accept()
    peer.sendall(b"self")
    jobns = sys.modules.get("toolsmith_worker.jobns")
    return ToolResponse(success=True, data={
        "tcp": _connect(socket.AF_INET, ("127.0.0.1", port)),
        "abstract": _connect(socket.AF_UNIX, "\\0" + name),
        "own": mine.recv(16).decode(),
        "walls": sorted(jobns.WALLS) if jobns else None,
    })
`;
  let factory: TestFactory;
  let backend: SandboxBackend;
  beforeAll(async () => {
    factory = await dockerFactory({ runtime: 'runsc', wallsOff: ['nosweep', 'nowipe'] });
    backend = testBackend(factory, { toolsSource: TOOLS, pool: { maxSize: 1, standby: 0 } });
  }, 300_000);
  afterAll(async () => {
    await backend?.dispose();
    await factory?.dispose();
  });
  const run = (code: string) =>
    runPython(backend, code, { sandbox: 'gvisornetnspy', tools: ['reach'], timeoutMs: 60_000 });

  it("reaches no port or abstract socket of the worker's side; its own loopback works; its walls name net", async () => {
    // (the first job makes the sandbox)
    const first = await run('emit_result(reach(port=1, name="none").data)\n');
    expect(first.error).toBeUndefined();
    const id = await sandboxId('gvisornetnspy');
    // A daemon beside the worker, in the sandbox's own stack: it answers there before the job runs.
    const listener = `import os, socket, sys, time
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); t.bind(("127.0.0.1", 47210)); t.listen(8)
a = socket.socket(socket.AF_UNIX); a.bind("\\0toolsmith-qa-worker-side"); a.listen(8)
if os.fork():
    for addr, fam in ((("127.0.0.1", 47210), socket.AF_INET), ("\\0toolsmith-qa-worker-side", socket.AF_UNIX)):
        c = socket.socket(fam); c.settimeout(5); c.connect(addr); print(c.recv(16).decode()); c.close()
    sys.exit(0)
os.setsid()
end = time.monotonic() + 120
for s in (t, a): s.setblocking(False)
while time.monotonic() < end:
    for s in (t, a):
        try:
            p, _ = s.accept(); p.sendall(b"worker side"); p.close()
        except BlockingIOError:
            pass
    time.sleep(0.02)
`;
    expect(beside(id, ['python3', '-c', listener]).split('\n')).toEqual(['worker side', 'worker side']);
    const r = await run('emit_result(reach(port=47210, name="toolsmith-qa-worker-side").data)\n');
    expect(r.error).toBeUndefined();
    const d = r.data as { tcp: string; abstract: string; own: string; walls: string[] };
    expect(d.tcp).toMatch(/^error /);
    expect(d.abstract).toMatch(/^error /);
    expect(d.own).toBe('self');
    expect(d.walls).toContain('net');
  }, 300_000);
});

describe('gVisor, bun: a rooted job has a network namespace of its own', () => {
  const { run } = gvisorBun('gvisornetnsjs', ['jsescape', 'nosweep', 'nowipe']);
  const SYS = `const sys = (op, ...args) => { const r = JSON.parse(escaped(op, ...args)); if ('error' in r) throw new Error(r.error); return r.ok; };
`;
  /** A bun program that listens on 127.0.0.1:port and the abstract name, answering `says`; `ready` written once both listen. */
  const listener = (port: number, name: string, says: string, ready: string) =>
    `const net = require('net'); const fs = require('fs'); let up = 0;
const done = (what) => { if (++up === 2) fs.writeFileSync(${JSON.stringify(ready)}, what); };
for (const a of [String.fromCharCode(0) + ${JSON.stringify(name)}, ${port}]) {
  const s = net.createServer((c) => c.end(${JSON.stringify(says)}));
  s.on('error', (e) => done('error ' + e.code)); s.listen(a, () => done('listening'));
}
setInterval(() => {}, 1000);`;
  /** What a bun program reaches: each [name, address] as 'reached <answer>' or 'error <code>'. */
  const client = (targets: [string, string | number][]) =>
    `const net = require('net'); const res = {}; let left = ${targets.length};
for (const [k, a] of ${JSON.stringify(targets)}) {
  const c = net.connect(typeof a === 'number' ? { port: a, host: '127.0.0.1' } : String.fromCharCode(0) + a); let got = '';
  c.on('data', (d) => (got += d)); c.on('end', () => { res[k] = 'reached ' + got; if (!--left) done(); });
  c.on('error', (e) => { res[k] = 'error ' + e.code; if (!--left) done(); });
}
const done = () => { console.log(JSON.stringify(res)); process.exit(0); };`;

  /** Once `ready` exists, a second bun program connects to 127.0.0.1:port (the listener's process stays free to answer); `then` gets its output. */
  const selfProbe = (port: number, ready: string, then: string) =>
    `const probe = ${JSON.stringify(client([['tcp', port]]))};
const wait = () => fs.existsSync(${JSON.stringify(ready)}) ? require('child_process').execFile('/usr/local/bin/bun', ['-e', probe], (e, out) => (${then})(out)) : setTimeout(wait, 20); wait();`;

  it("reaches no port or abstract socket of the worker's side or of another job's process beside it; its own loopback works; its walls name net", async () => {
    expect((await run('emitResult(1);\n')).data).toBe(1);
    const id = await sandboxId('gvisornetnsjs');
    // beside the worker (the sandbox's stack), proven to answer there
    beside(
      id,
      [
        '/usr/local/bin/bun',
        '-e',
        listener(4611, 'toolsmith-qa-worker-side', 'worker side', '/tmp/qa-worker-ready'),
      ],
      true,
    );
    // a second rooted job's process, beside the job on purpose (a launcher run from outside, as root)
    beside(
      id,
      [
        '/opt/toolsmith/jobns-launch',
        '--keep',
        '/opt/toolsmith',
        '--rooted',
        '--uid',
        '100778',
        '--',
        '/usr/local/bin/bun',
        '-e',
        `${listener(4612, 'toolsmith-qa-other-job', 'other job', '/tmp/ready')}
${selfProbe(4612, '/tmp/ready', "(out) => fs.writeFileSync('/tmp/self', out)")}`,
      ],
      true,
    );
    const check = `const fs = require('fs'); const r = (p) => { try { return fs.readFileSync(p, 'latin1'); } catch { return null; } };
const other = fs.readdirSync('/mnt').map((l) => r('/mnt/' + l + '/tmp/self')).find((s) => s);
console.log(JSON.stringify({ worker: r('/tmp/qa-worker-ready'), other: other ? JSON.parse(other) : null }));`;
    let seen: { worker: string | null; other: Record<string, string> | null } = { worker: null, other: null };
    for (let i = 0; i < 100 && !(seen.worker && seen.other); i++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = JSON.parse(beside(id, ['/usr/local/bin/bun', '-e', check])) as typeof seen;
    }
    expect(seen.worker).toBe('listening');
    // the other job's listener answers inside its own job
    expect(seen.other).toEqual({ tcp: 'reached other job' });
    expect(
      JSON.parse(
        beside(id, [
          '/usr/local/bin/bun',
          '-e',
          client([
            ['tcp', 4611],
            ['abstract', 'toolsmith-qa-worker-side'],
          ]),
        ]),
      ),
    ).toEqual({ tcp: 'reached worker side', abstract: 'reached worker side' });

    const r =
      await run(`${SYS}const bun = (code) => { const r = sys('run', '/usr/local/bin/bun', '-e', code); if (r.status !== 0) throw new Error('bun -e: ' + r.status + ' ' + r.stderr); return JSON.parse(r.stdout); };
const own = ${JSON.stringify(`${listener(4613, 'toolsmith-qa-own', 'own', '/tmp/own-ready')}
${selfProbe(4613, '/tmp/own-ready', '(out) => (process.stdout.write(out), process.exit(0))')}`)};
emitResult({
  walls: sys('read', '/proc/self/environ').split('\\0').find((l) => l.startsWith('TOOLSMITH_JOB_WALLS=')),
  reach: bun(${JSON.stringify(
    client([
      ['worker_tcp', 4611],
      ['worker_abstract', 'toolsmith-qa-worker-side'],
      ['job_tcp', 4612],
      ['job_abstract', 'toolsmith-qa-other-job'],
    ]),
  )}),
  own: bun(own),
});
`);
    expect(r.error, JSON.stringify(r.error)).toBeUndefined();
    const d = r.data as { walls: string; reach: Record<string, string>; own: Record<string, string> };
    expect(Object.entries(d.reach).filter(([, v]) => !v.startsWith('error '))).toEqual([]);
    expect(Object.keys(d.reach).sort()).toEqual(['job_abstract', 'job_tcp', 'worker_abstract', 'worker_tcp']);
    expect(d.own).toEqual({ tcp: 'reached own' });
    expect(d.walls.split('=')[1]!.split(',')).toContain('net');
    // (the other job's process ends with its launcher)
    beside(id, [
      '/usr/local/bin/bun',
      '-e',
      `const fs = require('fs'); for (const p of fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n))) { let c = ''; try { c = fs.readFileSync('/proc/' + p + '/cmdline', 'latin1'); } catch {} if (c.startsWith('/opt/toolsmith/jobns-launch') && c.includes('100778')) process.kill(Number(p), 'SIGTERM'); }`,
    ]);
  }, 300_000);
});
