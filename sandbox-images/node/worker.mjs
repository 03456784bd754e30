// Toolsmith sandbox worker (Node, and unchanged under bun and deno). The same NDJSON protocol as the
// Python worker (docs/protocol.md). Each job runs in a fresh child process, in a vm context holding only
// the script's helpers; code generation from strings is disabled. Tools are called through the host
// (tool_call), which runs sandbox tools in the sandbox's Python pool and host tools on the host.
import { fork, spawn } from 'node:child_process';
import { openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { createInterface } from 'node:readline';
import vm from 'node:vm';

const PROTOCOL = 1;
const isChild = process.argv[2] === '--job';
// The runtime this file runs on: node, or bun / deno through their node compatibility.
const RUNTIME = globalThis.Deno ? 'deno' : globalThis.Bun ? 'bun' : 'node';
const VERSION =
  RUNTIME === 'deno'
    ? globalThis.Deno.version.deno
    : RUNTIME === 'bun'
      ? globalThis.Bun.version
      : process.versions.node;
const credentialEnv = (name) => `TOOLSMITH_CRED_${name.replace(/\W/g, '_').toUpperCase()}`;

function jsonSafe(v, path = '$', seen = new Set()) {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return undefined;
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : `${path} (${v})`;
  if (typeof v !== 'object') return `${path} (${typeof v})`;
  if (seen.has(v)) return `${path} (circular)`;
  seen.add(v);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const bad = jsonSafe(v[i], `${path}[${i}]`, seen);
      if (bad) return bad;
    }
    return undefined;
  }
  // Objects made inside the script's vm context have that context's Object.prototype: accept any plain
  // object (one whose prototype is a prototype of nothing else).
  const proto = Object.getPrototypeOf(v);
  if (
    proto !== null &&
    (Object.prototype.toString.call(v) !== '[object Object]' || Object.getPrototypeOf(proto) !== null)
  ) {
    return `${path} (${v.constructor?.name ?? 'object'})`;
  }
  for (const [k, x] of Object.entries(v)) {
    const bad = jsonSafe(x, `${path}.${k}`, seen);
    if (bad) return bad;
  }
  return undefined;
}

if (isChild) {
  // ---------------------------------------------------------------- one job
  const send = (m, cb) => process.send(m, cb);
  const pending = new Map();
  let calls = 0;
  process.on('message', (m) => {
    if (m?.type === 'tool_result') {
      const p = pending.get(m.call_id);
      if (p) {
        pending.delete(m.call_id);
        p(m);
      }
    } else if (m?.type === 'job') run(m);
  });
  const checked = (v, what) => {
    const bad = jsonSafe(v);
    if (bad) throw new TypeError(`${what} takes JSON-safe data; ${bad} is not`);
    return v;
  };
  function frames(err, lines) {
    const out = [];
    for (const l of String(err?.stack ?? '').split('\n')) {
      const m = /<script>:(\d+):(\d+)/.exec(l);
      if (m && Number(m[1]) <= lines.length) {
        const line = Number(m[1]);
        out.push({
          line,
          name: /at (\S+) \(/.exec(l)?.[1] ?? '<script>',
          text: (lines[line - 1] ?? '').trim(),
        });
      }
    }
    return out;
  }
  async function run(job) {
    const lines = String(job.code).split('\n');
    const log = (...a) =>
      send({
        type: 'emit',
        kind: 'log',
        data: a.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(' '),
      });
    const ctx = {
      emitResult: (v) => send({ type: 'emit', kind: 'result', data: checked(v, 'emitResult') }),
      emitIntermediate: (v) =>
        send({ type: 'emit', kind: 'intermediate', data: checked(v, 'emitIntermediate') }),
      emitLog: (t) => send({ type: 'emit', kind: 'log', data: String(t) }),
      credential: (name) => {
        if (!(job.credentials ?? []).includes(name))
          throw new Error(`credential ${JSON.stringify(name)} is not declared for this sandbox`);
        const v = process.env[credentialEnv(name)];
        if (v === undefined) throw new Error(`credential ${JSON.stringify(name)} has no value on the host`);
        return v;
      },
      console: { log, info: log, warn: log, error: log },
      ...(job.inputs ?? {}),
    };
    for (const [alias, name] of Object.entries(job.tools ?? {})) {
      ctx[alias] = (args = {}) =>
        new Promise((resolve, reject) => {
          try {
            checked(args, alias);
          } catch (e) {
            return reject(e);
          }
          const call_id = `c${++calls}`;
          pending.set(call_id, (m) =>
            m.error ? reject(new Error(`${alias}: ${m.error}`)) : resolve(m.response),
          );
          send({ type: 'tool_call', call_id, name, alias, args });
        });
    }
    const context = vm.createContext(ctx, { codeGeneration: { strings: false, wasm: false } });
    try {
      let code = String(job.code);
      if (job.language === 'ts') {
        // bun has no stripTypeScriptTypes: its host strips the types and sends plain JS.
        if (typeof nodeModule.stripTypeScriptTypes !== 'function')
          throw new Error(`TypeScript must be stripped by the host on ${RUNTIME}`);
        code = nodeModule.stripTypeScriptTypes(code, { mode: 'strip' });
      }
      const script = new vm.Script(`(async () => {${code}\n})()`, { filename: '<script>' });
      await script.runInContext(context);
      return send({ type: 'done', ok: true }, () => process.exit(0));
    } catch (e) {
      // Errors thrown inside the vm context come from another realm: duck-type them.
      const err = e && typeof e === 'object' && typeof e.message === 'string' ? e : new Error(String(e));
      send(
        {
          type: 'done',
          ok: false,
          error: { type: err.name || 'Error', message: err.message, frames: frames(err, lines) },
        },
        () => process.exit(0),
      );
    }
  }
} else {
  // ---------------------------------------------------------------- the persistent parent
  const out = (m) => process.stdout.write(JSON.stringify(m) + '\n');
  const hygiene = betweenJobs();
  let credentials = [];
  let job;
  out({ type: 'hello', protocol: PROTOCOL, runtime: RUNTIME, version: VERSION });
  // Every handler names the job it belongs to: a late event of a finished job never touches the next one.
  const finish = (which, done) => {
    if (!which || which.finished) return;
    which.finished = true;
    clearTimeout(which.timer);
    try {
      which.child.kill('SIGKILL');
    } catch {}
    if (job === which) job = undefined;
    out({ ...done, id: which.id });
    // Before the next line is read (so before the next job): nothing of this job may be left.
    if (!hygiene.clean()) {
      process.stderr.write(
        'toolsmith worker: a job left processes that could not be ended; the worker stops\n',
      );
      process.exit(1);
    }
  };
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on('line', (line) => {
    if (line.length > 1 << 20) return;
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      return;
    }
    if (m.type === 'load') {
      credentials = m.credentials ?? [];
      out({
        type: 'ready',
        protocol: PROTOCOL,
        runtime: RUNTIME,
        version: VERSION,
        pid: process.pid,
        tools: [],
      });
    } else if (m.type === 'ping') out({ type: 'pong', busy: !!job });
    else if (m.type === 'job') {
      if (job)
        return out({
          type: 'done',
          id: m.id,
          ok: false,
          error: { type: 'Busy', message: 'a job is already running', frames: [] },
        });
      const self = new URL(import.meta.url).pathname;
      const heapMb = m.max_old_space_mb ?? 192;
      const child =
        RUNTIME === 'deno'
          ? // deno's fork() gives the child every permission (-A): spawn it with only what a job needs
            // (its credentials' variables), the same flags as the parent and an IPC channel.
            spawn(
              process.execPath,
              [
                'run',
                '--no-prompt',
                '--no-config',
                '--no-lock',
                `--v8-flags=--disallow-code-generation-from-strings,--max-old-space-size=${heapMb}`,
                '--allow-env=TOOLSMITH_CRED_*',
                self,
                '--job',
              ],
              {
                stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
                env: Object.fromEntries(
                  credentials
                    .map((name) => [credentialEnv(name), process.env[credentialEnv(name)]])
                    .filter(([, v]) => v !== undefined),
                ),
              },
            )
          : fork(self, ['--job'], {
              execArgv: [
                '--no-warnings',
                '--disallow-code-generation-from-strings',
                `--max-old-space-size=${heapMb}`,
              ],
              stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
              env: process.env,
            });
      const maxOutput = m.max_output_bytes ?? 51200;
      job = { id: m.id, child, bytes: 0, finished: false };
      const current = job;
      const count = (n) => {
        current.bytes += n;
        if (current.bytes > maxOutput)
          finish(current, {
            type: 'done',
            ok: false,
            reason: 'output_limit',
            error: {
              type: 'OutputLimit',
              message: `the script's output exceeded ${maxOutput} bytes`,
              frames: [],
            },
          });
        return current.finished;
      };
      job.timer = setTimeout(
        () =>
          finish(current, {
            type: 'done',
            ok: false,
            reason: 'timeout',
            error: { type: 'Timeout', message: 'the script ran past its time limit', frames: [] },
          }),
        Math.min(m.timeout_ms ?? 300000, 600000),
      );
      const onOutput = (d) => {
        if (count(d.length)) return;
        for (const l of d.toString().split('\n'))
          if (l) out({ type: 'emit', id: current.id, kind: 'log', data: l });
      };
      child.stdout.on('data', onOutput);
      child.stderr.on('data', onOutput);
      child.on('message', (msg) => {
        if (current.finished || typeof msg !== 'object' || msg === null) return;
        if (msg.type === 'done') return finish(current, msg);
        if (msg.type === 'emit' && count(JSON.stringify(msg.data ?? null).length)) return;
        out({ ...msg, id: current.id });
      });
      // 'close' comes after every IPC message and output of the child has been delivered.
      child.on('close', (code, sig) =>
        finish(current, {
          type: 'done',
          ok: false,
          reason: 'crashed',
          error: { type: 'Crashed', message: `the script process died (${sig ?? code})`, frames: [] },
        }),
      );
      child.send({
        type: 'job',
        code: m.code,
        language: m.language,
        tools: m.tools,
        inputs: m.inputs,
        credentials,
      });
    } else if (m.type === 'tool_result' && job && m.id === job.id) job.child.send(m);
    else if (m.type === 'cancel' && job && m.id === job.id)
      finish(job, {
        type: 'done',
        ok: false,
        reason: 'cancelled',
        error: { type: 'Cancelled', message: 'cancelled by the host', frames: [] },
      });
  });
  rl.on('close', () => {
    if (job) job.child.kill('SIGKILL');
    process.exit(0);
  });
}

/**
 * Between jobs (docs/sandboxes.md, "Between jobs"). Where the sandbox has its own pid namespace and mounts
 * (a container or bubblewrap: TOOLSMITH_PRIVATE_TMP=1), after every job: every process but init and this
 * parent is killed with one kill(-1, SIGKILL) (a fork cannot slip past it), the namespace is proven
 * empty (a scan of /proc during which no pid was handed out; where the kernel does not say, two empty
 * scans), and every writable mount is emptied back to what it held when the worker started. Elsewhere
 * (a plain process on the host) nothing of this runs. The job processes cannot read this one's memory:
 * the binary is execute-only in the images, and the kernel makes a process of an unreadable binary
 * non-dumpable.
 */
function betweenJobs() {
  // deno: the worker and its job processes have no read, write or run permission but deno itself (the
  // runtime's command line), so a job can neither start a process nor write a file, and the worker could
  // not look: nothing to clean.
  if (RUNTIME === 'deno' || process.env.TOOLSMITH_PRIVATE_TMP !== '1') return { clean: () => true };
  const me = process.pid;
  const wipe = [];
  const points = [];
  try {
    for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
      const [head, tail] = line.split(' - ');
      const f = (head ?? '').split(' ');
      if (f.length < 6 || !tail) continue;
      const point = f[4].replace(/\\(\d{3})/g, (_, o) => String.fromCharCode(parseInt(o, 8)));
      const fstype = tail.split(' ')[0];
      if (!f[5].split(',').includes('rw')) continue;
      if (['proc', 'sysfs', 'cgroup', 'cgroup2', 'devpts', 'devtmpfs'].includes(fstype)) continue;
      if (/^\/(proc|sys)(\/|$)/.test(point)) continue;
      points.push(point);
    }
  } catch {}
  points.push(process.cwd());
  const mounts = new Set(points);
  for (const dir of new Set(points)) {
    try {
      if (!statSync(dir).isDirectory()) continue;
      // Writable by this user? (an empty write probe would itself leave something)
      if ((statSync(dir).mode & 0o002) === 0 && statSync(dir).uid !== process.getuid?.()) continue;
      wipe.push([dir, new Set(readdirSync(dir))]);
    } catch {}
  }
  const nap = new Int32Array(new SharedArrayBuffer(4));
  let lastPidFd = -1;
  try {
    lastPidFd = openSync('/proc/sys/kernel/ns_last_pid', 'r');
  } catch {}
  const buf = Buffer.alloc(32);
  const lastPid = () => {
    if (lastPidFd < 0) return undefined;
    try {
      return Number(buf.toString('latin1', 0, readSync(lastPidFd, buf, 0, 32, 0)).trim());
    } catch {
      return undefined;
    }
  };
  const live = () => {
    const found = [];
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      const pid = Number(name);
      if (pid === 1 || pid === me) continue;
      let stat;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      } catch {
        continue; // gone
      }
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z' && state !== 'X') found.push(pid);
    }
    return found;
  };
  const clean = () => {
    try {
      return sweep();
    } catch {
      return false; // what cannot be checked is not clean
    }
  };
  const sweep = () => {
    const end = Date.now() + 2000;
    for (;;) {
      try {
        process.kill(-1, 'SIGKILL'); // every process of this user but this one and init
      } catch {}
      const before = lastPid();
      const left = live();
      if (left.length === 0) {
        const after = lastPid();
        if (before !== undefined ? before === after : live().length === 0) break;
      }
      if (Date.now() > end) return false;
      Atomics.wait(nap, 0, 0, 1);
    }
    for (const [dir, keep] of wipe) {
      let names;
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      for (const name of names) {
        const p = `${dir === '/' ? '' : dir}/${name}`;
        if (keep.has(name) || mounts.has(p)) continue;
        try {
          rmSync(p, { recursive: true, force: true });
        } catch {}
      }
    }
    return true;
  };
  return { clean };
}
