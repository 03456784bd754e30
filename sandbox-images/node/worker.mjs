// Toolsmith sandbox worker (Node, and unchanged under bun and deno). The same NDJSON protocol as the
// Python worker (docs/protocol.md). Each job runs in a fresh child process, in a vm context whose every
// object (helpers, tool results, errors, promises) is made inside it by `contextRuntime`, talking to this
// realm through one string-only function; code generation from strings is disabled. Tools are called
// through the host (tool_call), which runs sandbox tools in the sandbox's Python pool and host tools on
// the host. docs/decisions.md, "JavaScript validation limits", has the runtime wall and its reasons.
import { fork, spawn, spawnSync } from 'node:child_process';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import * as nodeModule from 'node:module';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const PROTOCOL = 1;
const isChild = process.argv[2] === '--job';
// A job's process made ahead of its job (the worker's `makeSpare`): it says when it waits and when it took
// its job; one started for a job already there says neither.
const madeAhead = isChild && process.argv[3] === '--ahead';

/**
 * A job's message as the text that goes to the parent, made with intrinsics taken when this module loads
 * (before any script code) from a copy on null prototypes: nothing planted on this realm's prototypes by
 * a script that reached them (a `toJSON`, an index setter on Array.prototype, a getter) runs or changes
 * the text. Node's IPC would otherwise serialize the message object itself, with `toJSON` looked up through
 * Object.prototype and Array.prototype. The parent parses the text (childMessage checks its shape).
 */
const wireText = (() => {
  const { stringify } = JSON;
  const { setPrototypeOf, keys } = Object;
  const { isArray } = Array;
  const copy = (v, depth) => {
    if (typeof v !== 'object' || v === null) return typeof v === 'function' ? null : v;
    if (depth > 1000) return null;
    if (isArray(v)) {
      const a = setPrototypeOf([], null);
      const n = v.length;
      for (let i = 0; i < n; i++) a[i] = copy(v[i], depth + 1);
      return a;
    }
    const o = { __proto__: null };
    const ks = keys(v);
    const n = ks.length;
    for (let i = 0; i < n; i++) o[ks[i]] = copy(v[ks[i]], depth + 1);
    return o;
  };
  return (m) => stringify(copy(m, 0));
})();
/**
 * What the worker reads from the script's error to build its frames (the stack text, the job's lines),
 * with intrinsics taken when this module loads, before any script code: a script that reached this realm
 * (a leaked object) and replaced String.prototype.split or .trim, Array.prototype.push, an index setter on
 * Array.prototype or a getter on Object.prototype changes nothing the worker reads or the frames it sends.
 * Lines are cut with indexOf/slice, the frames are built on null prototypes, the error's fields read as
 * own data properties only.
 */
const errorFrames = (() => {
  const uncurry = (f) => Function.prototype.bind.call(Function.prototype.call, f);
  const exec = uncurry(RegExp.prototype.exec);
  const indexOf = uncurry(String.prototype.indexOf);
  const slice = uncurry(String.prototype.slice);
  const trim = uncurry(String.prototype.trim);
  const { setPrototypeOf, getOwnPropertyDescriptor } = Object;
  const parse = JSON.parse;
  const AT = /<script>:(\d+):(\d+)/;
  const NAME = /at (\S+) \(/;
  const lines = (text) => {
    const out = setPrototypeOf([], null);
    let at = 0;
    for (;;) {
      const nl = indexOf(text, '\n', at);
      out[out.length] = nl < 0 ? slice(text, at) : slice(text, at, nl);
      if (nl < 0) return out;
      at = nl + 1;
    }
  };
  /** The frames of the script's code in `stack` (lines of `code`, lines counted from `offset`). */
  const frames = (stack, code, offset) => {
    const out = setPrototypeOf([], null);
    if (typeof stack !== 'string' || typeof code !== 'string') return out;
    const source = lines(code);
    const rows = lines(stack);
    for (let i = 0; i < rows.length; i++) {
      const m = exec(AT, rows[i]);
      if (m === null) continue;
      const line = +m[1] - offset;
      if (!(line >= 1 && line <= source.length)) continue;
      const name = exec(NAME, rows[i])?.[1];
      out[out.length] = {
        __proto__: null,
        line,
        name: typeof name === 'string' && name !== '<anonymous>' ? name : '<script>',
        text: trim(source[line - 1]),
      };
    }
    return out;
  };
  /** An own string field of a parsed object ('' otherwise): nothing inherited is consulted. */
  const field = (o, k) => {
    const d = typeof o === 'object' && o !== null ? getOwnPropertyDescriptor(o, k) : undefined;
    return d !== undefined && typeof d.value === 'string' ? d.value : '';
  };
  /** The context's error text ({"type","message","stack"}) parsed; null when it is no JSON. */
  const parsed = (text) => {
    try {
      return parse(text);
    } catch {
      return null;
    }
  };
  /** The context's error text as the error the worker sends. */
  const fromText = (text, code, offset) => {
    const e = parsed(text);
    return {
      __proto__: null,
      type: field(e, 'type') || 'Error',
      message: field(e, 'message'),
      frames: frames(field(e, 'stack'), code, offset),
    };
  };
  const FRAME_OF = /^\s*at (?:async )?([A-Za-z_$][\w$]*) \(<script>:\d+:\d+\)/;
  // (V8, node and deno: no full stop; JavaScriptCore, bun: "Maximum call stack size exceeded.")
  const OVERFLOW = /^Maximum call stack size exceeded\.?$/;
  /**
   * What a stack overflow says when a skill recursed (`skills`: the job's skill names): the skill with the
   * most frames on the error's stack and how many ("skill 'f' called itself 2891 deep: recursion limit
   * reached"); '' for any other error, or when no skill is on the stack twice. The stack is whole: a job
   * that names skills runs with no limit on the frames its errors keep (`deepStacks`).
   */
  const recursion = (text, skills) => {
    const e = parsed(text);
    if (field(e, 'type') !== 'RangeError' || exec(OVERFLOW, field(e, 'message')) === null) return '';
    const depth = { __proto__: null };
    for (let i = 0; i < skills.length; i++) depth[skills[i]] = 0;
    const rows = lines(field(e, 'stack'));
    for (let i = 0; i < rows.length; i++) {
      const name = exec(FRAME_OF, rows[i])?.[1];
      if (typeof name === 'string' && typeof depth[name] === 'number') depth[name]++;
    }
    let top = '';
    let most = 1;
    for (const name in depth)
      if (depth[name] > most) {
        top = name;
        most = depth[name];
      }
    return top ? `skill '${top}' called itself ${most} deep: recursion limit reached` : '';
  };
  return { frames, fromText, recursion };
})();
/** How many frames an error's stack keeps by default (V8's Error.stackTraceLimit). */
const DEFAULT_STACK_FRAMES = 10;
/** The job's IPC send, taken when this module loads. */
const ipcSend = typeof process.send === 'function' ? process.send.bind(process) : undefined;
/**
 * The walls a test leaves out (TOOLSMITH_TEST_WALLS, comma-separated; never set outside the tests):
 * `leakrealm` hands the script objects of this realm, as if the first wall had fallen, `nojobns` runs JS jobs in plain child processes (no namespaces of their own),
 * `noahead` starts each job's process on the job's arrival (not made ahead while the worker is idle),
 * `nosweep` skips the kill and check of the sandbox's processes after a job, `nowipe` the wipe of its
 * writable mounts, `noseccomp` the job's seccomp filter (the launcher reads it, and `jobskip-pid`,
 * `jobskip-uid`: a job's process made without that wall, the probe's with it), `jsescape` hands the
 * script `escaped(op, ...)`, this job process's own powers (its /proc, signals, files, programs), as if
 * every wall of the language had fallen (deno: the job's process then runs with every permission, `-A`,
 * as if deno's own had fallen too): the kernel's walls are then what is attacked; `launcherstall`
 * makes the JS jobs' launcher never end its job (jobns-launch.c; betweenJobs' awaitLauncher); `readlate`
 * keeps this worker off its event loop for 1 s after it hands a job over (its done is read late);
 * `launchplain` makes the launcher start each job's process as a plain fork (no namespace, mount or
 * tree; its filter and, rooted, its uid kept), so the sweep and wipe behind them hold alone (deno: the
 * launcher's, `--clean`).
 */
// (deno: only where the variable is granted: to its worker (runtimes.ts), and to a job's process only
// under `jsescape`, which runs it with every permission (startChild); a job's process may not read it.)
const WALLS_OFF = new Set(
  !globalThis.Deno ||
    globalThis.Deno.permissions.querySync({ name: 'env', variable: 'TOOLSMITH_TEST_WALLS' }).state ===
      'granted'
    ? (process.env.TOOLSMITH_TEST_WALLS ?? '').split(',').filter(Boolean)
    : [],
);
const LEAK_REALM = WALLS_OFF.has('leakrealm');
const JS_ESCAPE = WALLS_OFF.has('jsescape');
// The runtime this file runs on: node, or bun / deno through their node compatibility.
const RUNTIME = globalThis.Deno ? 'deno' : globalThis.Bun ? 'bun' : 'node';
const VERSION =
  RUNTIME === 'deno'
    ? globalThis.Deno.version.deno
    : RUNTIME === 'bun'
      ? globalThis.Bun.version
      : process.versions.node;
const EMIT_HELPERS = { result: 'emitResult', intermediate: 'emitIntermediate', log: 'emitLog' };
const EMIT_KINDS = new Set(Object.keys(EMIT_HELPERS));
const credentialEnv = (name) => `TOOLSMITH_CRED_${name.replace(/\W/g, '_').toUpperCase()}`;

/**
 * Where a value of this realm (parsed from the context's JSON text) is not JSON-safe: the second wall
 * behind the context's own encoder. Only plain objects of this realm, arrays and JSON primitives pass.
 */
function jsonSafe(v, path = '$', depth = 0) {
  if (depth > 1000) return `${path} (nested too deep)`;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return undefined;
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : `${path} (${v})`;
  if (typeof v !== 'object') return `${path} (${typeof v})`;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const bad = jsonSafe(v[i], `${path}[${i}]`, depth + 1);
      if (bad) return bad;
    }
    return undefined;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype) return `${path} (object)`;
  for (const k of Object.keys(v)) {
    const bad = jsonSafe(v[k], `${path}.${k}`, depth + 1);
    if (bad) return bad;
  }
  return undefined;
}

/**
 * The script's runtime, made inside its vm context from this function's source text (never called in the
 * worker's realm): every helper, result, error and promise the script sees is an object of the context.
 * It reaches the worker only through `host(op, a, b)`: string arguments, a string answer ('+value' or
 * '-error message'). What it needs later (JSON, Promise, property reflection...) it takes now, before the
 * script runs, so a script that rewrites a prototype or a global cannot change what it sends.
 */
function contextRuntime(host, inputsJson, aliasesJson, limitJson, deepStacks) {
  'use strict';
  const { Object: O, Array: A, JSON: J, Promise: P, Error: E, TypeError: TE, Reflect: R } = globalThis;
  // A job that names skills keeps every frame of its errors' stacks, so the worker can say how deep a
  // skill recursed when the stack overflows (errorFrames.recursion); the frames it sends stay the innermost.
  if (deepStacks === true) E.stackTraceLimit = Infinity;
  const { Set: S, Map: M, String: Str, Number: N, Function: F } = globalThis;
  const uncurry = F.prototype.bind.bind(F.prototype.call);
  const { getPrototypeOf, getOwnPropertyDescriptor: own, hasOwn, defineProperty, freeze, keys } = O;
  const { ownKeys } = R;
  const { isArray } = A;
  const { isFinite } = N;
  const { stringify, parse } = J;
  const then = uncurry(P.prototype.then);
  const slice = uncurry(Str.prototype.slice);
  const setHas = uncurry(S.prototype.has);
  const setAdd = uncurry(S.prototype.add);
  const setDelete = uncurry(S.prototype.delete);
  const mapGet = uncurry(M.prototype.get);
  const mapSet = uncurry(M.prototype.set);
  const mapDelete = uncurry(M.prototype.delete);
  const OBJECT = O.prototype;
  const limit = parse(limitJson);
  const pending = new M();
  let closed = false;

  /** A call to the worker; its errors (even one of its realm, e.g. a stack overflow) never get through. */
  function call(op, a, b) {
    let r;
    try {
      r = host(op, a, b);
    } catch {
      r = undefined;
    }
    if (typeof r !== 'string' || r.length === 0) throw new E('the worker did not answer');
    if (r[0] === '+') return slice(r, 1);
    throw new E(slice(r, 1));
  }
  function live(what) {
    if (closed) throw new E(`${what}: the script has already finished`);
  }

  // JSON text of a value, read only through own data properties (no getter, toJSON or toString runs):
  // strict for emitted data and tool arguments, lenient (like JSON.stringify) for console logs.
  const OVER = {};
  const bads = new WeakSet();
  const badAdd = uncurry(WeakSet.prototype.add);
  const isBad = uncurry(WeakSet.prototype.has);
  /** Where a value is not JSON-safe (thrown through encode, recognised by identity). */
  function bad(where) {
    const b = { __proto__: null, where };
    badAdd(bads, b);
    return b;
  }
  function nameOf(proto) {
    const c = proto === null ? undefined : own(proto, 'constructor');
    const f = c !== undefined && hasOwn(c, 'value') ? c.value : undefined;
    const n = typeof f === 'function' ? own(f, 'name') : undefined;
    return n !== undefined && hasOwn(n, 'value') && typeof n.value === 'string' && n.value
      ? n.value
      : 'object';
  }
  function encode(v, lenient) {
    let size = 0;
    const seen = new S();
    const add = (s) => {
      size += s.length;
      if (size > limit) throw OVER;
      return s;
    };
    const value = (v, path) => {
      if (v === null) return add('null');
      const t = typeof v;
      if (t === 'string' || t === 'boolean') return add(stringify(v));
      if (t === 'number') {
        if (isFinite(v)) return add(stringify(v));
        if (lenient) return add('null');
        throw bad(`${path} (${Str(v)})`);
      }
      if (t !== 'object') {
        if (lenient) return undefined;
        throw bad(`${path} (${t})`);
      }
      if (setHas(seen, v)) {
        if (lenient) return add('"[circular]"');
        throw bad(`${path} (circular)`);
      }
      setAdd(seen, v);
      let out;
      if (isArray(v)) {
        const d = own(v, 'length');
        const n = d !== undefined && hasOwn(d, 'value') ? d.value : 0;
        out = add('[');
        for (let i = 0; i < n; i++) {
          const e = own(v, `${i}`);
          let x;
          if (e === undefined) {
            if (!lenient) throw bad(`${path}[${i}] (undefined)`);
          } else if (!hasOwn(e, 'value')) {
            if (!lenient) throw bad(`${path}[${i}] (a getter)`);
          } else x = value(e.value, `${path}[${i}]`);
          out += (i ? add(',') : '') + (x === undefined ? add('null') : x);
        }
        out += add(']');
      } else {
        const proto = getPrototypeOf(v);
        if (!lenient && proto !== OBJECT && proto !== null) throw bad(`${path} (${nameOf(proto)})`);
        const ks = ownKeys(v);
        out = add('{');
        let first = true;
        for (let i = 0; i < ks.length; i++) {
          const k = ks[i];
          if (typeof k !== 'string') continue;
          const e = own(v, k);
          if (e === undefined || !e.enumerable) continue;
          if (!hasOwn(e, 'value')) {
            if (lenient) continue;
            throw bad(`${path}.${k} (a getter)`);
          }
          const x = value(e.value, `${path}.${k}`);
          if (x === undefined) continue;
          out += (first ? '' : add(',')) + add(stringify(k)) + add(':') + x;
          first = false;
        }
        out += add('}');
      }
      setDelete(seen, v);
      return out;
    };
    return value(v, '$');
  }
  /** The JSON text of data a helper takes, or the error the script gets. */
  function data(v, what) {
    try {
      return encode(v, false);
    } catch (e) {
      if (e === OVER) {
        closed = true;
        call('done', 'output_limit', 'emits');
        throw new E(`${what}: the script's output exceeded its limit`);
      }
      if (isBad(bads, e)) throw new TE(`${what} takes JSON-safe data; ${e.where} is not`);
      throw e;
    }
  }
  function logText(args) {
    let s = '';
    for (let i = 0; i < args.length; i++) {
      const x = args[i];
      let t;
      if (typeof x === 'string') t = x;
      else {
        try {
          t = encode(x, true);
        } catch (e) {
          if (e === OVER) t = '';
          else t = '[unserializable]';
        }
        if (t === undefined) t = typeof x === 'symbol' ? '' : Str(x);
      }
      s += (i ? ' ' : '') + t;
    }
    return s;
  }
  const emit = (kind, text) => {
    if (text.length > limit) {
      closed = true;
      call('done', 'output_limit', kind === 'log' ? 'prints' : 'emits');
      throw new E(`the script's output exceeded its limit`);
    }
    call('emit', kind, text);
  };
  const log = (...args) => {
    live('console.log');
    emit('log', logText(args));
  };
  const helpers = {
    emitResult: (v) => {
      live('emitResult');
      emit('result', data(v, 'emitResult'));
    },
    emitIntermediate: (v) => {
      live('emitIntermediate');
      emit('intermediate', data(v, 'emitIntermediate'));
    },
    emitLog: (t) => {
      live('emitLog');
      emit('log', Str(t));
    },
    credential: (name) => {
      live('credential');
      return call('credential', Str(name), '');
    },
    console: freeze({ __proto__: null, log, info: log, warn: log, error: log, debug: log }),
  };
  // The run-time tool lookups: tool_calls the host answers from this job's tools; they resolve with the
  // answer's data (made here, by parse), and reject with the host's reason.
  const lookup = (op, what, args) =>
    new P((resolve, reject) => {
      live(what);
      const id = call('lookup', op, data(args, what));
      const ok = (r) => {
        const d = r !== null && typeof r === 'object' ? own(r, 'success') : undefined;
        if (d !== undefined && hasOwn(d, 'value') && d.value === true) {
          const v = own(r, 'data');
          resolve(v !== undefined && hasOwn(v, 'value') ? v.value : null);
        } else {
          const m = r !== null && typeof r === 'object' ? own(r, 'message') : undefined;
          const text =
            m !== undefined && hasOwn(m, 'value') && typeof m.value === 'string' ? m.value : 'failed';
          reject(new E(`${what}: ${text}`));
        }
      };
      mapSet(pending, id, { __proto__: null, resolve: ok, reject });
    });
  helpers.searchTools = (query, limit = 20) => {
    if (typeof query !== 'string') throw new TE('searchTools(query) takes a string of words');
    if (typeof limit !== 'number') throw new TE('searchTools(query, limit) takes a number limit');
    return lookup('search_tools', 'searchTools', { __proto__: null, query, limit });
  };
  helpers.describeTool = (name) => {
    if (typeof name !== 'string') throw new TE('describeTool(name) takes a tool name (a string)');
    return lookup('describe_tool', 'describeTool', { __proto__: null, name });
  };
  for (const alias of parse(aliasesJson)) {
    helpers[alias] = (args = {}) =>
      new P((resolve, reject) => {
        live(alias);
        const id = call('tool', alias, data(args, alias));
        mapSet(pending, id, { __proto__: null, resolve, reject });
      });
  }
  // bun and deno hand Error.prepareStackTrace call sites of the worker's realm: the script never sets it.
  const fixed = (o, k, value) =>
    defineProperty(o, k, { __proto__: null, value, writable: false, enumerable: false, configurable: false });
  fixed(E, 'prepareStackTrace', undefined);
  fixed(globalThis, 'Error', E);
  const inputs = parse(inputsJson);
  for (const k of keys(inputs))
    defineProperty(globalThis, k, {
      __proto__: null,
      value: inputs[k],
      writable: true,
      enumerable: false,
      configurable: true,
    });
  for (const k of keys(helpers))
    defineProperty(globalThis, k, {
      __proto__: null,
      value: helpers[k],
      writable: false,
      enumerable: false,
      configurable: false,
    });

  function deliver(id, text) {
    const p = mapGet(pending, id);
    if (p === undefined) return;
    mapDelete(pending, id);
    if (text[0] === '+') p.resolve(parse(slice(text, 1)));
    else p.reject(new E(slice(text, 1)));
  }
  function done() {
    if (closed) return;
    closed = true;
    call('done', 'ok', '');
  }
  /** A string property of a thrown value ('' when it has none, or reading it throws: a getter of the script's). */
  const thrownField = (e, k) => {
    try {
      const v = e[k];
      return typeof v === 'string' ? v : '';
    } catch {
      return '';
    }
  };
  function failed(e) {
    if (closed) return;
    closed = true;
    const object = (typeof e === 'object' && e !== null) || typeof e === 'function';
    const type = object ? thrownField(e, 'name') : '';
    let message = object ? thrownField(e, 'message') : '';
    if (!object) {
      try {
        message = Str(e);
      } catch {
        message = '';
      }
    }
    const stack = object ? thrownField(e, 'stack') : '';
    call(
      'done',
      'error',
      `{"type":${stringify(type)},"message":${stringify(message)},"stack":${stringify(stack)}}`,
    );
  }
  function start(script) {
    let p;
    try {
      p = script(skillHooks);
    } catch (e) {
      return failed(e);
    }
    // The script's own promise, through the captured then (a script that replaced Promise.prototype.then
    // cannot keep its job from ending); anything else is code that left the wrapper and returned.
    try {
      then(p, done, failed);
    } catch {
      done();
    }
  }
  const importRefused = () => new TE('import() is not available: scripts have no modules');
  const apply = R.apply;
  // A skill call's record (docs/skills.md, "How a skill runs"): the worker's parent puts, in each skill the
  // job defines, `const <c> = <hooks>.s(name, [params], [values]); try { body } catch (<e>) { <hooks>.f(<c>,
  // <e>); throw <e> } finally { <hooks>.e(<c>) }`, and after it `<name> = <hooks>.w(<name>);`, under a name
  // made at random for the job. None of them throws: a call the worker did not record (past the bound, or a
  // stack too deep to ask) is number 0. Once the worker answers a call past the job's bound (number 0),
  // every later call is only counted: nothing is encoded.
  // The skill call a tool call belongs to follows the async context (the worker's AsyncLocalStorage): `s`
  // makes the new call the current one, for the rest of the skill's body and every continuation it
  // schedules (its awaits, callbacks); `w` gives the caller back its own when the skill returns to it (an
  // async skill at its first await), so calls running at once (Promise.all) each keep their own.
  let skillsRecorded = true;
  const skillHooks = freeze({
    __proto__: null,
    w: (fn) =>
      function (...a) {
        let t;
        try {
          t = host('skill', 'enter', '');
        } catch {
          t = undefined;
        }
        try {
          return apply(fn, this, a);
        } finally {
          try {
            if (typeof t === 'string') host('skill', 'leave', t);
          } catch {}
        }
      },
    s: (name, params, values) => {
      if (!skillsRecorded) {
        try {
          host('skill', 'over', Str(name));
        } catch {}
        return { __proto__: null, n: 0, type: undefined, message: '' };
      }
      let args;
      try {
        const o = { __proto__: null };
        for (let i = 0; i < params.length; i++) o[params[i]] = values[i];
        args = encode(o, true);
      } catch (e) {
        args = e === OVER ? '{"…":"arguments past the output limit, not kept in the trace"}' : '{}';
      }
      let r;
      try {
        r = host('skill', 'start', `{"name":${stringify(Str(name))},"args":${args}}`);
      } catch {
        r = undefined;
      }
      const n = typeof r === 'string' && r[0] === '+' ? N(slice(r, 1)) : 0;
      if (r === '+0') skillsRecorded = false;
      return { __proto__: null, n: n > 0 ? n : 0, type: undefined, message: '' };
    },
    f: (c, e) => {
      if (!c.n) return;
      const object = (typeof e === 'object' && e !== null) || typeof e === 'function';
      c.type = object ? thrownField(e, 'name') || 'Error' : 'Error';
      let message = object ? thrownField(e, 'message') : '';
      if (!object)
        try {
          message = Str(e);
        } catch {
          message = '';
        }
      c.message = message;
    },
    e: (c) => {
      if (!c.n) return;
      const error =
        c.type === undefined
          ? ''
          : `,"error":{"type":${stringify(c.type)},"message":${stringify(c.message)}}`;
      try {
        host('skill', 'end', `{"call":${c.n}${error}}`);
      } catch {}
    },
  });
  return freeze({ __proto__: null, deliver, start, importRefused, skillHooks });
}

/**
 * The shapes a job process may send (the second wall behind its trusted runtime): emit of a known kind,
 * tool_call of a string name with an object of arguments, done. Anything else is dropped.
 */
function childMessage(m) {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return false;
  const keys = Object.keys(m).sort().join(',');
  if (m.type === 'emit') return keys === 'data,kind,type' && EMIT_KINDS.has(m.kind);
  const count = (v) => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
  if (m.type === 'skill') {
    if (!count(m.call)) return false;
    if (m.phase === 'start')
      return (
        (keys === 'args,at,call,name,phase,type' ||
          (keys === 'args,at,call,name,parent,phase,type' && count(m.parent))) &&
        typeof m.at === 'number' &&
        typeof m.name === 'string' &&
        /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(m.name) &&
        typeof m.args === 'object' &&
        m.args !== null &&
        !Array.isArray(m.args)
      );
    return (
      m.phase === 'end' &&
      typeof m.ms === 'number' &&
      (keys === 'call,ms,phase,type' ||
        (keys === 'call,error,ms,phase,type' &&
          typeof m.error === 'object' &&
          m.error !== null &&
          typeof m.error.type === 'string' &&
          typeof m.error.message === 'string'))
    );
  }
  if (m.type === 'tool_call')
    return (
      (keys === 'alias,args,call_id,name,type' ||
        ((keys === 'alias,args,call_id,name,skill,type' ||
          (keys === 'alias,args,call_id,name,skill,skill_call,type' && count(m.skill_call))) &&
          typeof m.skill === 'string' &&
          /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(m.skill))) &&
      typeof m.call_id === 'string' &&
      typeof m.name === 'string' &&
      typeof m.alias === 'string' &&
      typeof m.args === 'object' &&
      m.args !== null &&
      !Array.isArray(m.args)
    );
  if (m.type === 'done') {
    // Skill calls the job's child made past its bound (counted, not sent).
    if ('skills_over' in m && !count(m.skills_over)) return false;
    const own = keys.replace(',skills_over', '');
    return (
      typeof m.ok === 'boolean' &&
      (m.ok
        ? own === 'ok,type'
        : typeof m.error === 'object' &&
          m.error !== null &&
          typeof m.error.type === 'string' &&
          typeof m.error.message === 'string' &&
          Array.isArray(m.error.frames) &&
          (m.reason === undefined || m.reason === 'output_limit'))
    );
  }
  return false;
}

/**
 * Tests only (TOOLSMITH_TEST_WALLS=jsescape): what a script that escaped every wall of the language could
 * do from its job's process, as one function of strings in, JSON text out (an error as {"error": code}).
 */
function escapedPowers() {
  const fs = process.getBuiltinModule('node:fs');
  const ops = {
    pid: () => process.pid,
    ppid: () => process.ppid,
    uid: () => process.getuid(),
    gid: () => process.getgid(),
    list: (dir) => fs.readdirSync(dir),
    read: (path) => fs.readFileSync(path, 'latin1'),
    write: (path, text) => (fs.writeFileSync(path, text), true),
    kill: (pid, sig) => (process.kill(Number(pid), sig === undefined ? 0 : sig), true),
    run: (cmd, ...args) => {
      const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 10_000 });
      return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, error: r.error?.code };
    },
    leave: (cmd, ...args) => {
      // a survivor: detached (its own session), output nowhere, never waited for
      const c = spawn(cmd, args, { detached: true, stdio: 'ignore' });
      c.unref();
      return c.pid ?? null;
    },
  };
  return (op, ...args) => {
    try {
      if (!Object.hasOwn(ops, op)) return JSON.stringify({ error: 'no such op' });
      return JSON.stringify({ ok: ops[op](...args.map(String)) });
    } catch (e) {
      return JSON.stringify({ error: String(e?.code ?? e?.message ?? e) });
    }
  };
}

if (isChild) {
  // ---------------------------------------------------------------- one job
  // Nothing of this realm (the worker's) may reach the script: its helpers, their results, the errors and
  // promises it sees are all made inside the script's vm context by `contextRuntime` (below), which talks
  // to this realm only through `bridge`: strings in, strings out. This realm never reads a property of a
  // value made in the context (a getter, a Proxy trap, `toJSON`, `then`, `Error.prepareStackTrace` would
  // run the script with this realm's objects as arguments); it builds every message it sends from
  // primitives, with its own JSON.
  const send = (m, cb) => ipcSend(wireText(m), cb);
  // The script's floating promises: its own business, never read here (reading a rejection's reason
  // would format its stack with the script's prepareStackTrace and this realm's arrays).
  process.on('unhandledRejection', () => {});
  // The worker may make this process ahead of its job (docs/scaling.md, "JS jobs: the next job's process
  // made ahead"): it says once it waits, and when its job comes it says it has it before running any of
  // it (the write done first), so a process that ends before that ran no job code and the worker gives the
  // job to a fresh one. (One started for a job already there, not `madeAhead`, says neither.)
  let taking = false;
  process.on('message', (m) => {
    if (m?.type === 'tool_result') deliverResult(m);
    else if (m?.type === 'job' && !taking) {
      taking = true;
      if (madeAhead) send({ type: 'taken' }, () => run(m));
      else run(m);
    }
  });
  // Its first message, before it can be given a job: the walls it is in (ownWalls; wallsRefused).
  send(ownWalls());
  let job;
  let deliver; // the context's deliver(call_id, text): resolves or rejects a pending tool call
  let calls = 0;
  const pending = new Map(); // call_id -> alias
  let finished = false;
  let lineOffset = 0;
  // The script's end, held while tool calls it started are still open: the job ends only when every call
  // has been answered (so each is in the record and none runs on after the job). The context refuses new
  // calls once the script has ended, so the wait is bounded by the calls already made (and the timeout).
  let ending;
  // The job's skill calls (docs/skills.md): recorded at most `max_skill_calls`, the rest counted; those
  // still running, in the order they started.
  let skillCount = 0;
  let skillsOver = 0;
  let jobT0 = 0; // performance.now() when the job arrived (a skill call's `at` counts from it)
  const openSkills = new Map(); // call number -> { name, t0 }
  // The skill call running in the current async context: { n, name } (n 0 for a call past the bound,
  // counted only), undefined in the script's own code. Set by the call's start (`enterWith`: the rest of
  // the skill's body and every continuation it schedules), given back to the caller when the skill returns
  // to it (`enter`/`leave` around each call, contextRuntime's skillHooks.w). It follows awaits, promise
  // callbacks and Promise.all through the vm context, under node, bun and deno (bun-deno.test.ts).
  const currentSkill = new AsyncLocalStorage();
  const saved = new Map(); // enter's token -> the caller's skill call, until its leave
  let tokens = 0;
  const finish = (m, now = false) => {
    if (finished) return;
    if (pending.size > 0 && !now) {
      ending = m;
      return;
    }
    finished = true;
    // node reads a child's IPC channel to its end whenever it notices the exit, so the process may end
    // once its done is written. bun and deno drop a message whose sender exited before the parent read
    // it (bun: where it has no pidfd, as on gVisor, oven-sh/bun#37849; deno: denoland/deno#33085): the
    // job then read "the script process died (0)" (twice in ~60 gVisor jobs, once in a CI run). There
    // the process stays until the worker, which ends it on that done, does (at most 10 s).
    send(skillsOver > 0 ? { ...m, skills_over: skillsOver } : m, () =>
      RUNTIME === 'node' ? process.exit(0) : setTimeout(() => process.exit(0), 10_000),
    );
  };
  function deliverResult(m) {
    const alias = pending.get(m.call_id);
    if (alias === undefined || finished) return;
    pending.delete(m.call_id);
    let text;
    if (m.error) text = `-${alias}: ${String(m.error)}`;
    else {
      try {
        text = `+${JSON.stringify(m.response ?? null)}`;
      } catch {
        text = `-${alias}: the tool's response is not JSON`;
      }
    }
    try {
      deliver(String(m.call_id), text);
    } catch {}
    // After the script's reactions to this answer have run (they may log, or try another call).
    if (ending !== undefined && pending.size === 0)
      setImmediate(() => {
        if (pending.size === 0) finish(ending);
      });
  }
  const frames = (stack, code) => errorFrames.frames(stack, code, lineOffset);
  const str = (v) => (typeof v === 'string' ? v : '');
  /** The job's skill names (every skill the script may call). */
  const skillNames = () =>
    Array.isArray(job?.skills) ? job.skills.filter((x) => typeof x === 'string') : [];
  /** How many of the job's skill calls are recorded at most (the host's limits.tool_calls). */
  const maxSkillCalls = () => {
    const v = Number(job?.max_skill_calls);
    return Number.isSafeInteger(v) && v > 0 ? v : 1000;
  };
  // The one function of this realm the context holds (closed over by contextRuntime, never exposed): its
  // arguments are read only as strings, it returns only strings and never throws.
  function bridge(op, a, b) {
    try {
      if (finished) return '-the script has finished';
      op = str(op);
      a = str(a);
      b = str(b);
      if (op === 'emit') {
        if (!EMIT_KINDS.has(a)) return '-unknown emit kind';
        const data = a === 'log' ? b : JSON.parse(b);
        const bad = jsonSafe(data);
        if (bad) return `-${EMIT_HELPERS[a]} takes JSON-safe data; ${bad} is not`;
        send({ type: 'emit', kind: a, data });
        return '+';
      }
      if (op === 'tool') {
        const name = Object.hasOwn(job.tools ?? {}, a) ? job.tools[a] : undefined;
        if (typeof name !== 'string') return `-${a} is not a tool of this sandbox`;
        const args = JSON.parse(b);
        if (typeof args !== 'object' || args === null || Array.isArray(args))
          return `-${a} takes one object of arguments`;
        const bad = jsonSafe(args);
        if (bad) return `-${a} takes JSON-safe data; ${bad} is not`;
        const call_id = `c${++calls}`;
        pending.set(call_id, a);
        // The skill call this tool call belongs to: the one of its async context (above).
        const current = currentSkill.getStore();
        const skill = current?.name;
        const skill_call = current?.n || undefined;
        send({
          type: 'tool_call',
          call_id,
          name,
          alias: a,
          args,
          ...(skill ? { skill } : {}),
          ...(skill_call ? { skill_call } : {}),
        });
        return `+${call_id}`;
      }
      if (op === 'lookup') {
        // search_tools / describe_tool: framework calls every job has (answered by the host).
        if (a !== 'search_tools' && a !== 'describe_tool') return '-unknown lookup';
        const args = JSON.parse(b);
        if (typeof args !== 'object' || args === null || Array.isArray(args)) return '-bad lookup arguments';
        const bad = jsonSafe(args);
        if (bad) return `-${a} takes JSON-safe data; ${bad} is not`;
        const call_id = `c${++calls}`;
        pending.set(call_id, a);
        send({ type: 'tool_call', call_id, name: a, alias: a, args });
        return `+${call_id}`;
      }
      if (op === 'skill') {
        if (a === 'start') {
          const m = JSON.parse(b);
          if (!skillNames().includes(m?.name)) return '-not a skill of this job';
          if (skillCount >= maxSkillCalls()) {
            skillsOver++;
            currentSkill.enterWith({ n: 0, name: m.name });
            return '+0';
          }
          const n = ++skillCount;
          // The caller's skill call is the current one still (the call's own starts here).
          const parent = currentSkill.getStore()?.n || undefined;
          const t0 = performance.now();
          openSkills.set(n, { name: m.name, t0 });
          currentSkill.enterWith({ n, name: m.name });
          const args = typeof m.args === 'object' && m.args !== null && !Array.isArray(m.args) ? m.args : {};
          send({
            type: 'skill',
            phase: 'start',
            call: n,
            name: m.name,
            args,
            at: Math.round((t0 - jobT0) * 1000) / 1000,
            ...(parent ? { parent } : {}),
          });
          return `+${n}`;
        }
        if (a === 'end') {
          const m = JSON.parse(b);
          const o = openSkills.get(m?.call);
          if (o === undefined) return '+';
          openSkills.delete(m.call);
          const e = m.error;
          send({
            type: 'skill',
            phase: 'end',
            call: m.call,
            ms: Math.round((performance.now() - o.t0) * 1000) / 1000,
            ...(e && typeof e === 'object' ? { error: { type: str(e.type), message: str(e.message) } } : {}),
          });
          return '+';
        }
        if (a === 'over') {
          skillsOver++;
          if (skillNames().includes(b)) currentSkill.enterWith({ n: 0, name: b });
          return '+';
        }
        if (a === 'enter') {
          // A skill is called: keep the caller's skill call to give back when the skill returns to it.
          const t = ++tokens;
          saved.set(t, currentSkill.getStore());
          return `+${t}`;
        }
        if (a === 'leave') {
          const t = Number(b.slice(1));
          if (!saved.has(t)) return '+';
          const caller = saved.get(t);
          saved.delete(t);
          currentSkill.enterWith(caller);
          return '+';
        }
        return '-unknown skill operation';
      }
      if (op === 'credential') {
        if (!(job.credentials ?? []).includes(a))
          return `-credential ${JSON.stringify(a)} is not declared for this sandbox`;
        const v = process.env[credentialEnv(a)];
        if (typeof v !== 'string') return `-credential ${JSON.stringify(a)} has no value on the host`;
        return `+${v}`;
      }
      if (op === 'done') {
        if (a === 'ok') finish({ type: 'done', ok: true });
        else if (a === 'output_limit')
          finish(
            {
              type: 'done',
              ok: false,
              reason: 'output_limit',
              // (b: what went over, prints or emits, for the host's advice: explainOutputLimit)
              error: {
                type: 'OutputLimit',
                message: `the script's output exceeded its limit${b === 'prints' || b === 'emits' ? ` (its ${b})` : ''}`,
                frames: [],
              },
            },
            true,
          );
        else {
          const error = errorFrames.fromText(b, job.code, lineOffset);
          const skills = skillNames();
          if (skills.length > 0) {
            const recursed = errorFrames.recursion(b, skills);
            if (recursed) error.message = recursed;
            // (the stack was kept whole: send as many frames as the default limit kept)
            if (error.frames.length > DEFAULT_STACK_FRAMES) error.frames.length = DEFAULT_STACK_FRAMES;
          }
          finish({ type: 'done', ok: false, error });
        }
        return '+';
      }
      return '-unknown operation';
    } catch {
      return '-the worker could not handle the call';
    }
  }
  function run(m) {
    if (job) return;
    job = m;
    jobT0 = performance.now();
    let start;
    try {
      let code = String(job.code);
      if (job.language === 'ts') {
        // bun has no stripTypeScriptTypes: its host strips the types and sends plain JS.
        if (typeof nodeModule.stripTypeScriptTypes !== 'function')
          throw new Error(`TypeScript must be stripped by the host on ${RUNTIME}`);
        code = nodeModule.stripTypeScriptTypes(code, { mode: 'strip' });
      }
      // The parent's edits that make each skill record its calls (at offsets of this very text: stripping
      // keeps every offset), last first; the script's frames still read the job's own text.
      const hooks = typeof job.skill_hooks === 'string' ? job.skill_hooks : undefined;
      if (hooks && Array.isArray(job.skill_edits))
        for (const [at, text] of [...job.skill_edits].sort((x, y) => y[0] - x[0]))
          code = code.slice(0, at) + text + code.slice(at);
      const params = hooks ? [hooks] : [];
      const context = vm.createContext(vm.constants?.DONT_CONTEXTIFY ?? {}, {
        codeGeneration: { strings: false, wasm: false },
      });
      let api;
      // import() would reject with an error of this realm (node's and bun's "no dynamic import
      // callback"): refuse it with an error made in the context.
      const importModuleDynamically = () => {
        throw api.importRefused();
      };
      const compile = (body, filename, ps = []) =>
        vm.compileFunction(body, ps, { parsingContext: context, filename, importModuleDynamically });
      // Where line 1 of a compiled body is in its frames (bun puts a header line first). Read before any
      // script code ran: the context's Error.prepareStackTrace is still the default.
      const probe = compile('return new Error()', '<script>', params)();
      lineOffset = Number(/<script>:(\d+)/.exec(String(probe.stack))?.[1] ?? 1) - 1;
      const inputs = JSON.stringify(job.inputs ?? {});
      const aliases = JSON.stringify(Object.keys(job.tools ?? {}));
      const limit = JSON.stringify(Number(job.max_output_bytes) || 51200);
      const runtime = compile(`return (${contextRuntime});`, '<runtime>')();
      // The script: the body of a strict async function called with `this` undefined, compiled as a
      // function body; code that closes the wrapper (`}), ...`) still runs inside that outer strict
      // function, so even code that skipped validation has no top-level `this`, no sloppy-mode function
      // and no `arguments.callee`.
      let script;
      try {
        script = compile(
          `'use strict'; return (async function () {${code}\n}).call(undefined);`,
          '<script>',
          params,
        );
      } catch (e) {
        // bun's compileFunction says only "Failed to compile function": compile (never run) the same
        // code as a script for the parser's own message.
        if (RUNTIME === 'bun') new vm.Script(`(async function () {${code}\n})`, { filename: '<script>' });
        throw e;
      }
      api = runtime(bridge, inputs, aliases, limit, skillNames().length > 0);
      if (LEAK_REALM)
        context.workerRealm = { object: {}, array: [], error: new RangeError('of the worker realm') };
      if (JS_ESCAPE) context.escaped = escapedPowers();
      deliver = api.deliver;
      start = () => api.start(script);
    } catch (e) {
      // Setup and compilation (a syntax error is an error of the context): no script code has run yet,
      // so reading the error runs nothing of the script.
      const err = e && typeof e === 'object' && typeof e.message === 'string' ? e : undefined;
      return finish({
        type: 'done',
        ok: false,
        error: {
          type: typeof err?.name === 'string' ? err.name : 'Error',
          message: err ? err.message : 'the job could not start',
          frames: frames(String(err?.stack ?? ''), String(job.code)),
        },
      });
    }
    // From here on the script runs: whatever it throws stays in the context (start catches it there).
    try {
      start();
    } catch {
      finish({
        type: 'done',
        ok: false,
        error: { type: 'Error', message: 'the script could not start', frames: [] },
      });
    }
  }
  // Loaded: waiting for the job (the worker then tells the host its next job's process is ready).
  if (madeAhead) send({ type: 'waiting' });
} else {
  // ---------------------------------------------------------------- the persistent parent
  /**
   * The host's bidi-control rule (src-main/core/lang/bidi.ts, "Trojan Source") again, on the exact text
   * the job's child would run: every bidirectional control character anywhere (code, comments, strings),
   * by line and column (1-based, UTF-16 code units, lines broken as JavaScript breaks them), worded as
   * the host words it. A script sent with the host's validation off (`exec --no-validate`) meets it here.
   */
  const BIDI_CONTROLS = {
    0x061c: 'ARABIC LETTER MARK',
    0x200e: 'LEFT-TO-RIGHT MARK',
    0x200f: 'RIGHT-TO-LEFT MARK',
    0x202a: 'LEFT-TO-RIGHT EMBEDDING',
    0x202b: 'RIGHT-TO-LEFT EMBEDDING',
    0x202c: 'POP DIRECTIONAL FORMATTING',
    0x202d: 'LEFT-TO-RIGHT OVERRIDE',
    0x202e: 'RIGHT-TO-LEFT OVERRIDE',
    0x2066: 'LEFT-TO-RIGHT ISOLATE',
    0x2067: 'RIGHT-TO-LEFT ISOLATE',
    0x2068: 'FIRST STRONG ISOLATE',
    0x2069: 'POP DIRECTIONAL ISOLATE',
  };
  const bidiProblems = (code) => {
    const bidi = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
    if (!bidi.test(code)) return [];
    bidi.lastIndex = 0;
    const breaks = /\r\n|\r|\n|\u2028|\u2029/g;
    const problems = [];
    let line = 1;
    let lineStart = 0;
    let next = breaks.exec(code);
    for (let m = bidi.exec(code); m !== null; m = bidi.exec(code)) {
      while (next !== null && next.index < m.index) {
        line++;
        lineStart = next.index + next[0].length;
        next = breaks.exec(code);
      }
      const cp = m[0].charCodeAt(0);
      const hex = cp.toString(16).toUpperCase().padStart(4, '0');
      problems.push(
        `line ${line}, column ${m.index - lineStart + 1}: bidi-control: U+${hex} (${BIDI_CONTROLS[cp]}), ` +
          `a bidirectional control character, is refused anywhere in a script (if a string really needs ` +
          `it, write it as the escape "\\u${hex.toLowerCase()}" inside the string). It makes a line read ` +
          `other than it runs ("Trojan Source"), in code, comments and strings alike: remove it`,
      );
    }
    return problems;
  };
  const out = (m) => process.stdout.write(JSON.stringify(m) + '\n');
  // The second wall for skills (skill-check.mjs): loaded once, here, where no script code ever runs; a
  // job's child never loads it. If it cannot load, jobs that name skills are refused.
  let skillCheck;
  try {
    skillCheck = (await import('./skill-check.mjs')).checkSkills;
  } catch (e) {
    const why = `the skill check could not load: ${e?.message ?? e}`;
    skillCheck = () => [why];
  }
  /**
   * The problems of the job's skills, checked on the exact text its child will run (a TS job's types
   * stripped as the child strips them; text that does not strip fails in the child with its own error).
   */
  const skillProblems = (m, found) => {
    const skills = Array.isArray(m.skills) ? m.skills.filter((x) => typeof x === 'string') : [];
    if (!skills.length) return [];
    let code = String(m.code ?? '');
    if (m.language === 'ts' && typeof nodeModule.stripTypeScriptTypes === 'function') {
      try {
        code = nodeModule.stripTypeScriptTypes(code, { mode: 'strip' });
      } catch {
        return [];
      }
    }
    return skillCheck(code, skills, found);
  };
  /**
   * The edits that make each skill the job defines record its calls (contextRuntime's skillHooks), under
   * a name made at random for the job (the script cannot name what it cannot know): text inserted after
   * the body's `{`, before its `}` and after it (the name bound to the wrapper that gives a caller back its
   * skill call), on the lines they are on, so every line keeps its number.
   */
  const skillEdits = (found) => {
    if (!found.length) return {};
    const h = `$ts${randomBytes(8).toString('hex')}`;
    const edits = [];
    for (const f of found) {
      edits.push([
        f.open + 1,
        `const ${h}c=${h}.s(${JSON.stringify(f.name)},${JSON.stringify(f.params)},[${f.params.join(',')}]);try{`,
      ]);
      edits.push([
        f.close,
        `}catch(${h}e){try{${h}.f(${h}c,${h}e)}catch{}throw ${h}e}finally{try{${h}.e(${h}c)}catch{}}`,
      ]);
      // (after the declaration: every call, the script's and the skill's own, goes through the wrapper)
      edits.push([f.close + 1, `;${f.name}=${h}.w(${f.name});`]);
    }
    return { skill_hooks: h, skill_edits: edits };
  };
  const hygiene = betweenJobs();
  const launcher = jobLauncher();
  const DEFAULT_HEAP_MB = 192;
  /**
   * The next job's process, made ahead (docs/scaling.md, "JS jobs: the next job's process made ahead"):
   * only where the launcher's walls hold (its own user, pid, mount and IPC namespaces), and never beside
   * a job: it is made once the worker has loaded, and after each job's end, sweep and wipe, so at any
   * moment either a job runs or one process waits for the next, never both. It loads this file and waits
   * for its job on the IPC channel, running no job code until the job arrives; it is started with the
   * default heap, and a job asking for another gets a fresh process, as before. A load discards it (and
   * makes another). `noahead` (TOOLSMITH_TEST_WALLS, tests and bench) keeps the old way: each job's process
   * started on the job's arrival. Rooted jobs (bun on gVisor) too: the waiting process's tree under /mnt
   * and its uid are made after the last job's sweep and wipe, so neither ever meets a job but its own
   * (docs/scaling.md, "JS jobs: the next job's process made ahead", gVisor). Not deno's rooted jobs
   * (deno on gVisor): under load its waiting process there lost jobs to its 30 s limit and ended its worker
   * in tests; each of its jobs' processes starts on its arrival, as before.
   */
  const AHEAD =
    launcher !== undefined && !(launcher.rooted && RUNTIME === 'deno') && !WALLS_OFF.has('noahead');
  /** { child, heapMb, waiting, early }: the process waiting for the next job, if any. */
  let spare;
  // Waiting processes that ended before their job since the last job or load: at the second, none is made
  // again until then (the next job starts its own, on its path, and its output says why it could not).
  let spareDeaths = 0;
  let lastJob = null; // the id of the last job (the `next_ready` it is about)
  /**
   * A job's process: the launcher (its walls, then this runtime) where it is used, else a plain child;
   * `ahead`: made before its job (it then says when it waits and when it took its job).
   */
  const spawnChild = (heapMb, ahead = false) =>
    RUNTIME === 'deno'
      ? // deno's fork() gives the child every permission (-A): spawn it with only what a job needs (its
        // credentials' variables; for its walls message, ownWalls, the launcher's variable and its uid),
        // the same flags as the parent and an IPC channel; through the launcher where it is used, as fork()
        // does for node and bun (the channel's descriptor and NODE_CHANNEL_FD inherited through its exec).
        // `jsescape` (tests only): every permission, as if deno's had fallen (escapedPowers needs them).
        spawn(
          launcher ? launcher.path : process.execPath,
          [
            ...(launcher ? [...launcher.args(), '--', process.execPath] : []),
            'run',
            '--no-prompt',
            '--no-config',
            '--no-lock',
            `--v8-flags=--disallow-code-generation-from-strings,--max-old-space-size=${heapMb}`,
            ...(JS_ESCAPE ? ['-A'] : ['--allow-env=TOOLSMITH_CRED_*,TOOLSMITH_JOB_WALLS', '--allow-sys=uid']),
            fileURLToPath(import.meta.url),
            '--job',
            ...(ahead ? ['--ahead'] : []),
          ],
          {
            // (fd 4: the launcher's report of its cleanup after the job, launcherSays)
            stdio: ['ignore', 'pipe', 'pipe', 'ipc', ...(launcher ? ['pipe'] : [])],
            env: {
              ...Object.fromEntries(
                credentials
                  .map((name) => [credentialEnv(name), process.env[credentialEnv(name)]])
                  .filter(([, v]) => v !== undefined),
              ),
              // (deno's cache folder, the image's, in the job's own /tmp: without it deno looks for its
              // home by uid, and a rooted job's uid on gVisor has none: "Could not resolve global Deno
              // cache directory")
              DENO_DIR: '/tmp/.deno',
              ...denoTestWalls(),
            },
          },
        )
      : fork(fileURLToPath(import.meta.url), ['--job', ...(ahead ? ['--ahead'] : [])], {
          // In namespaces of its own where the launcher's walls hold here (jobLauncher): the launcher
          // makes them and execs this runtime, the IPC channel's descriptor inherited.
          ...(launcher ? { execPath: launcher.path } : {}),
          execArgv: [
            ...(launcher ? [...launcher.args(), '--', process.execPath] : []),
            '--no-warnings',
            '--disallow-code-generation-from-strings',
            `--max-old-space-size=${heapMb}`,
            // node calls the job's import() refusal (an error of the script's context) only with it.
            ...(RUNTIME === 'node' ? ['--experimental-vm-modules'] : []),
          ],
          stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
          env: process.env,
        });
  // (deno: its launcher's report of its cleanup after the job kept, launcherSays)
  const startChild = (heapMb, ahead = false) =>
    RUNTIME === 'deno'
      ? launcherSays(spawnChild(heapMb, ahead), launcher !== undefined)
      : spawnChild(heapMb, ahead);
  /** The child's message, parsed from the JSON text it sends (wireText); undefined when it is none. */
  const parseChild = (text) => {
    try {
      return typeof text === 'string' ? JSON.parse(text) : undefined;
    } catch {
      return undefined;
    }
  };
  const alive = (child) => child.exitCode === null && child.signalCode === null;
  /** A job whose process ended before its done: its signal or exit status. */
  const died = (how) => ({
    type: 'done',
    ok: false,
    reason: 'crashed',
    error: { type: 'Crashed', message: `the script process died (${how})`, frames: [] },
  });
  /**
   * deno: how long a job's process that ended is given for its 'close' (its last messages and output
   * read) before the worker names its crash without it (attach's 'exit').
   */
  const DENO_CLOSE_GRACE_MS = 1000;
  /**
   * deno: a launcher told to end (its job's end, a waiting process discarded; called before it is told,
   * as deno's ChildProcess takes a process it sent a signal to for ended) is waited for before the next
   * job or waiting process starts, as betweenJobs' awaitLauncher does under node and bun. deno's worker
   * may read no /proc and signal no process but once through its children's handles (deno's permissions;
   * its ChildProcess sends no second signal), so it waits for the launcher's exit event, and the lines
   * that come meanwhile wait with it. At most 2 s: then the worker stops (the container ends, and the
   * launcher and its job with it), to be replaced.
   */
  const ending = new Set();
  const heldLines = [];
  const awaitEnd = (child) => {
    // (one that ended already is waited for too: its report of its cleanup may still be on its way)
    if (RUNTIME !== 'deno' || !launcher || ending.has(child) || child.settled) return;
    child.settled = true;
    ending.add(child);
    // (stopIdle: the host hears `stopping` first, so the lines held here, jobs that never ran, go to
    // another worker)
    const timer = setTimeout(
      () =>
        stopIdle(
          lastJob,
          `the job's launcher (pid ${child.pid}) did not end its job within 2 s; the worker ` +
            `stops, to be replaced, which ends them (deno's worker can neither kill it nor look for what it ` +
            `leaves: it signals no process and reads no /proc)`,
        ),
      2000,
    );
    // (its end: its report of its sweep and wipe after the job, which it writes last; what failed there,
    // or a launcher that ended without a report, stops the worker: jobLauncher `--clean`)
    launcherEnded(child, (unclean) => {
      clearTimeout(timer);
      ending.delete(child);
      if (unclean) return stopUnclean(unclean);
      if (ending.size) return;
      // (the lines held first: a job among them may have its own process to start, and the waiting one
      // made after them, once no job runs)
      while (!ending.size && heldLines.length) onLine(heldLines.shift());
      makeSpare();
    });
  };
  const makeSpare = () => {
    if (!AHEAD || job || spare || spareDeaths >= 2 || ending.size) return;
    let child;
    try {
      child = startChild(DEFAULT_HEAP_MB, true);
    } catch (e) {
      spareDeaths = 2;
      process.stderr.write(
        `toolsmith worker: the next job's process could not be started ahead (${e?.message ?? e}); each job starts its own\n`,
      );
      return;
    }
    const s = { child, heapMb: DEFAULT_HEAP_MB, waiting: false, early: '' };
    spare = s;
    // What it writes before its job (the launcher's refusal, a runtime that cannot start): kept for the
    // worker's stderr should it end before its job.
    s.onEarly = (d) => {
      if (s.early.length < 4096) s.early += d.toString().slice(0, 4096 - s.early.length);
    };
    child.stdout.on('data', s.onEarly);
    child.stderr.on('data', s.onEarly);
    s.onMessage = (text) => {
      const msg = parseChild(text);
      if (s.walls === undefined) {
        // Its first message: the walls it is in (wallsRefused). One short of a wall is ended, never
        // given a job; none is made ahead again until the next job or load (each job's own is checked).
        const missing = wallsRefused(msg, launcher);
        s.walls = missing ?? true;
        if (missing && spare === s) {
          process.stderr.write(
            `toolsmith worker: the next job's process lacks walls it must have: ${missing}; it is ended, and the next job starts its own\n`,
          );
          dropSpare();
          spareDeaths = 2;
        }
        return;
      }
      if (msg?.type !== 'waiting' || s.waiting) return;
      s.waiting = true;
      if (spare === s) out({ type: 'next_ready', after: lastJob });
    };
    child.on('message', s.onMessage);
    s.onClose = (code, sig) => {
      // (deno: once its launcher has reported its cleanup after it; what failed there stops the worker)
      if (child.cleaning && !child.reported) return void child.once('reported', () => s.onClose(code, sig));
      if (spare !== s) return;
      const unclean = launcherUnclean(child);
      if (unclean) return stopUnclean(unclean);
      spare = undefined;
      spareDeaths++;
      const early = s.early.trim();
      process.stderr.write(
        `toolsmith worker: the next job's process ended before its job (${sig ?? `exit ${code}`})` +
          `${early ? `: ${early}` : ''}; ${spareDeaths < 2 ? 'making another' : 'the next job starts its own'}\n`,
      );
      makeSpare();
    };
    child.on('close', s.onClose);
    s.onError = (e) => {
      if (spare !== s || !String(e?.syscall ?? '').startsWith('spawn')) return;
      spare = undefined;
      spareDeaths = 2;
      process.stderr.write(
        `toolsmith worker: the next job's process could not be started ahead (${e?.message ?? e}); each job starts its own\n`,
      );
    };
    child.on('error', s.onError);
  };
  /**
   * Discards the waiting process (a load, a job it does not fit): SIGTERM to its launcher, which kills
   * the process (pid 1 of its namespace, so with everything in it) and reaps it; the worker waits for
   * the launcher to have ended (jobs.awaitLauncher), so nothing of it is left beside the next job or
   * for the next sweep.
   */
  const dropSpare = () => {
    const s = spare;
    spare = undefined;
    if (!s) return;
    awaitEnd(s.child);
    try {
      s.child.kill('SIGTERM');
    } catch {}
    hygiene.awaitLauncher(s.child.pid);
  };
  /** The waiting process, taken for a job (its listeners of a waiting process removed); or undefined. */
  const takeSpare = (heapMb) => {
    const s = spare;
    if (!s) return undefined;
    if (s.heapMb !== heapMb || !alive(s.child)) {
      if (alive(s.child)) dropSpare();
      else spare = undefined; // (ended: its close handler, next, sees it is no longer the spare)
      return undefined;
    }
    spare = undefined;
    s.child.stdout.off('data', s.onEarly);
    s.child.stderr.off('data', s.onEarly);
    s.child.off('message', s.onMessage);
    s.child.off('close', s.onClose);
    s.child.off('error', s.onError);
    return s;
  };
  let credentials = [];
  let job;
  out({ type: 'hello', protocol: PROTOCOL, runtime: RUNTIME, version: VERSION });
  // Every handler names the job it belongs to: a late event of a finished job never touches the next one.
  const finish = (which, done) => {
    if (!which || which.finished) return;
    which.finished = true;
    clearTimeout(which.timer);
    awaitEnd(which.child);
    try {
      // The launcher kills the job's pid 1 and reaps it (jobLauncher): a launcher killed outright left
      // that process to this one, which reaps only its own children (a zombie per job, holding a pid).
      which.child.kill(launcher ? 'SIGTERM' : 'SIGKILL');
    } catch {}
    if (job === which) job = undefined;
    out({ ...done, id: which.id });
    // Before the next line is read (so before the next job): nothing of this job may be left.
    const dirty = hygiene.clean(launcher ? which.child.pid : undefined);
    if (dirty !== true)
      return stopIdle(which.id, dirty || 'a job left processes that could not be ended; the worker stops');
    // Only now, swept and wiped, the next job's process (nothing of this job is left to meet it).
    lastJob = which.id;
    spareDeaths = 0;
    makeSpare();
  };
  /**
   * The worker stops between jobs (its last job's sweep failed, or its launcher had to be killed: the
   * reason on stderr). It tells the host first (`stopping`, after that job's `done`): it starts no job
   * from here on, so a job the host sent it meanwhile, read or not, never ran and may go to another
   * worker (docs/protocol.md, "worker -> host `stopping`"). Nothing read after this is acted on.
   */
  let stopped = false;
  // (deno: a launcher's cleanup after its job that did not hold, launcherUnclean)
  const stopUnclean = (why) => stopped || stopIdle(lastJob, why);
  const stopIdle = (after, why) => {
    stopped = true;
    process.stderr.write(`toolsmith worker: ${why}\n`);
    out({ type: 'stopping', after, reason: why });
    process.stdout.write('', () => process.exit(1));
    setTimeout(() => process.exit(1), 2000).unref();
  };
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  const onLine = (line) => {
    if (stopped || line.length > 1 << 20) return;
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      return;
    }
    if (m.type === 'load') {
      credentials = m.credentials ?? [];
      // A process made before this load is stale (credentials, configuration): a new one, after it.
      dropSpare();
      out({
        type: 'ready',
        protocol: PROTOCOL,
        runtime: RUNTIME,
        version: VERSION,
        pid: process.pid,
        tools: [],
      });
      spareDeaths = 0;
      makeSpare();
    } else if (m.type === 'ping') out({ type: 'pong', busy: !!job });
    else if (m.type === 'job') {
      if (job)
        return out({
          type: 'done',
          id: m.id,
          ok: false,
          error: { type: 'Busy', message: 'a job is already running', frames: [] },
        });
      // A job whose text holds a bidirectional control character, or whose skills do what the script
      // rules refuse, never starts: no child, no code run.
      const found = [];
      const refused = [...bidiProblems(String(m.code ?? '')), ...skillProblems(m, found)];
      if (refused.length) {
        out({
          type: 'done',
          id: m.id,
          ok: false,
          reason: 'rejected',
          error: { type: 'ValidationError', message: refused.join('; '), frames: [] },
        });
        // (the waiting process, untouched, is still ready: the host counts none from each job it sends)
        lastJob = m.id;
        if (spare?.waiting) out({ type: 'next_ready', after: m.id });
        return;
      }
      const heapMb = m.max_old_space_mb ?? DEFAULT_HEAP_MB;
      // deno: a waiting process of another heap is discarded, and the job waits (held) until its
      // launcher has ended: that launcher's cleanup ends every process but the worker's, so the job's
      // own process may not start beside it.
      if (RUNTIME === 'deno' && launcher && spare && spare.heapMb !== heapMb && alive(spare.child)) {
        dropSpare();
        if (ending.size) return void heldLines.unshift(line);
      }
      const ahead = takeSpare(heapMb);
      const maxOutput = m.max_output_bytes ?? 51200;
      // `taken`: the job's process said it has the job (so from here on its end is the job's); a process
      // made ahead that ends before it says so ran no job code, and the job goes to a fresh one instead.
      job = { id: m.id, child: ahead?.child ?? startChild(heapMb), bytes: 0, finished: false };
      job.taken = !ahead;
      job.sent = false;
      // Its job only once it has told the walls it is in, none missing (wallsRefused): a process made
      // ahead may have told them already.
      job.walled = ahead?.walls === true;
      const current = job;
      // (`which`: what went over, prints or emits, named in the message for the host: explainOutputLimit)
      const count = (n, which) => {
        current.bytes += n;
        if (current.bytes > maxOutput)
          finish(current, {
            type: 'done',
            ok: false,
            reason: 'output_limit',
            error: {
              type: 'OutputLimit',
              message: `the script's output exceeded ${maxOutput} bytes (its ${which})`,
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
      const jobMessage = {
        type: 'job',
        code: m.code,
        language: m.language,
        tools: m.tools,
        ...(Array.isArray(m.skills) ? { skills: m.skills.filter((x) => typeof x === 'string') } : {}),
        ...skillEdits(found),
        max_skill_calls: m.max_tool_calls ?? 1000,
        inputs: m.inputs,
        credentials,
        max_output_bytes: maxOutput,
      };
      const hand = () => {
        if (current.sent || current.finished || !current.walled) return;
        current.sent = true;
        // (a process that ended unseen, EPIPE: its 'close' follows and says what becomes of the job)
        current.child.send(jobMessage, () => {});
        // (tests only: this worker kept off its event loop while the job runs, so its done is read late)
        if (WALLS_OFF.has('readlate')) for (const until = Date.now() + 1000; Date.now() < until;);
      };
      // Made ahead, ended before it held its job (no job code ran): a fresh process runs the job.
      const fresh = (code, sig) => {
        // (deno: once its launcher has reported its cleanup after it; what failed there stops the worker)
        const dead = current.child;
        if (dead.cleaning && !dead.reported)
          return void dead.once(
            'reported',
            () => current.child === dead && !current.finished && fresh(code, sig),
          );
        const unclean = launcherUnclean(dead);
        if (unclean) return stopUnclean(unclean);
        process.stderr.write(
          `toolsmith worker: the next job's process ended before it took its job (${sig ?? `exit ${code}`}); the job starts a fresh one\n`,
        );
        current.child = startChild(heapMb);
        current.taken = true;
        current.sent = false;
        current.walled = false;
        attach(current.child);
        return hand();
      };
      const attach = (child) => {
        // A write to a process that has ended (its 'close' follows), or a process that could not start.
        child.on('error', (e) => {
          if (current.child !== child || !String(e?.syscall ?? '').startsWith('spawn')) return;
          finish(current, {
            type: 'done',
            ok: false,
            reason: 'crashed',
            error: {
              type: 'Crashed',
              message: `the script process could not start: ${e?.message ?? e}`,
              frames: [],
            },
          });
        });
        const onOutput = (d) => {
          if (current.child !== child || count(d.length, 'prints')) return;
          for (const l of d.toString().split('\n'))
            if (l) out({ type: 'emit', id: current.id, kind: 'log', data: l });
        };
        child.stdout.on('data', onOutput);
        child.stderr.on('data', onOutput);
        // deno: a process that ends with a message of the worker unread in its channel (its job, handed to
        // a process made ahead that then died; a tool's result, written while it was stopped), or after a
        // write to its channel failed, may never get its 'close' (deno 2.9.6 keeps the channel open): one
        // that had not taken its job ran none of it, so the job goes to a fresh process at its exit
        // (js-next-job-process.test.ts, docker, deno, "... dies holding its job (stopped, then killed)");
        // one that had is the job's crash, named once its 'close' has had DENO_CLOSE_GRACE_MS to come (it
        // comes after the process's last messages and output, which it would say first) and has not
        // (js-job-crash.test.ts; the job was a timeout before).
        if (RUNTIME === 'deno')
          child.on('exit', (code, sig) => {
            if (current.child !== child || current.finished) return;
            const disconnect = () => {
              try {
                if (child.connected) child.disconnect();
              } catch {}
            };
            if (!current.taken) return (disconnect(), fresh(code, sig));
            setTimeout(() => {
              if (current.child !== child || current.finished) return;
              disconnect();
              finish(current, died(sig ?? code));
            }, DENO_CLOSE_GRACE_MS);
          });
        // The child sends each message as JSON text (wireText): only text is read.
        child.on('message', (text) => {
          const msg = parseChild(text);
          if (current.child !== child || current.finished) return;
          // Its first message says the walls it is in; only then, and only if none is missing, its job.
          if (!current.walled) {
            const missing = wallsRefused(msg, launcher);
            if (missing) return finish(current, wallsMissing(missing));
            current.walled = true;
            return hand();
          }
          if (msg === undefined) return;
          // (a process made ahead: it took its job; its 'waiting' was for the worker's next_ready)
          if (msg.type === 'waiting') return;
          if (msg.type === 'taken') return void (current.taken = true);
          if (!childMessage(msg)) return;
          if (msg.type === 'done') return finish(current, msg);
          if (
            msg.type === 'emit' &&
            count(JSON.stringify(msg.data ?? null).length, msg.kind === 'log' ? 'prints' : 'emits')
          )
            return;
          out({ ...msg, id: current.id });
        });
        // 'close' comes after every IPC message and output of the child has been delivered (bun and deno:
        // where the child waited for its done to be read, the job side's finish).
        child.on('close', (code, sig) => {
          if (current.child !== child) return;
          if (!current.taken && !current.finished) return fresh(code, sig);
          finish(current, died(sig ?? code));
        });
      };
      attach(job.child);
      // Once its walls are told: at once for a process made ahead that told them, also while it still
      // loads (the channel holds the job until it reads); should it end before it says it took the job,
      // the job goes to a fresh process.
      hand();
    } else if (m.type === 'tool_result' && job && m.id === job.id) job.child.send(m, () => {});
    else if (m.type === 'cancel' && job && m.id === job.id)
      finish(job, {
        type: 'done',
        ok: false,
        reason: 'cancelled',
        error: { type: 'Cancelled', message: 'cancelled by the host', frames: [] },
      });
  };
  // (deno: held while a launcher ends, awaitEnd)
  rl.on('line', (line) => (ending.size ? heldLines.push(line) : onLine(line)));
  rl.on('close', () => {
    if (job) job.child.kill('SIGKILL');
    if (spare) spare.child.kill('SIGKILL');
    process.exit(0);
  });
}

/**
 * Each JS job alone, by the kernel (docs/sandboxes.md, "Between jobs", rule 0): the launcher beside this
 * file (jobns-launch, a static C program built with the Python fork server's `ts_enter`) starts each job's
 * process in user, pid, mount and IPC namespaces of its own, with the Python job's walls: fresh tmpfs over
 * the sandbox's writable mounts, its own /proc and devpts, no capability, its user namespace's
 * max_user_namespaces 0, the job's seccomp filter. On gVisor, which refuses mounts in a child user
 * namespace, the container starts this worker as root holding only the five capabilities of docker.ts's
 * JOB_UID_CAPS (the sandbox kernel's), and each job is "rooted" as the Python job there (`--rooted`): pid
 * and IPC namespaces of its own, a tree of its own it is chrooted into (its own /proc, fresh writable
 * mounts), a uid and gid of its own (100000 + n mod 1000), no capability, the job filter. Asked once
 * (`--probe`) which walls this level makes: used only where every wall it plans is made; then every job's
 * process reports the walls it has before it is given its job (wallsRefused). node, bun and deno alike
 * (deno's worker is granted running the launcher, reading its path, its uid and these variables: runtimes.ts).
 * Elsewhere (a kernel without user namespaces, the plain process level, no launcher built) jobs run as
 * before, in plain child processes: the sweep alone keeps them apart (under deno not even that: its
 * worker may read no /proc and signal no process but its children), and (but for the plain level and
 * `nojobns`) the reason is written once to stderr (`toolsmith worker: JS jobs run without namespaces of
 * their own: ...`). Returns { path, args(), want, rooted } or undefined.
 */
function jobLauncher() {
  if (process.env.TOOLSMITH_PRIVATE_TMP !== '1') return undefined;
  // (root: only gVisor's JS container starts its worker so, docker.ts; never a plain child process then,
  // which would run the job as root with the worker's capabilities: the worker stops instead)
  const rooted = process.getuid?.() === 0;
  const say = (why) => {
    if (!rooted)
      return process.stderr.write(`toolsmith worker: JS jobs run without namespaces of their own: ${why}\n`);
    process.stderr.write(
      `toolsmith worker: JS jobs would run as root with the worker's capabilities: ${why}; the worker stops\n`,
    );
    process.exit(70);
  };
  if (WALLS_OFF.has('nojobns')) return rooted ? say('the job launcher is switched off (nojobns)') : undefined;
  const dir = dirname(fileURLToPath(import.meta.url));
  const path = `${dir}/jobns-launch`;
  try {
    statSync(path);
  } catch {
    return (say(`no launcher at ${path} (no static C library where the image was built)`), undefined);
  }
  const base = ['--keep', dir, ...(rooted ? ['--rooted'] : [])];
  const r = spawnSync(path, [...base, '--probe'], {
    encoding: 'utf8',
    timeout: 10_000,
    env: RUNTIME === 'deno' ? denoTestWalls() : process.env,
  });
  if (r.status !== 0) {
    const why = `${r.error?.message ?? `exit ${r.status ?? r.signal}`}: ${(r.stderr ?? '').trim()}`;
    return (say(`the launcher's probe failed (${why})`), undefined);
  }
  const lines = r.stdout.split('\n').filter(Boolean);
  const made = new Set(lines.filter((l) => !l.startsWith('plan ')));
  // (`launchplain`, tests only: the launcher makes each job's process a plain fork, its probe's too: no
  // namespace, mount or tree is asked for, the uid still where the worker is root)
  const plain = WALLS_OFF.has('launchplain');
  const want = [
    ...lines.filter((l) => l.startsWith('plan ')).map((l) => l.slice(5)),
    ...(plain
      ? rooted
        ? ['uid']
        : []
      : rooted
        ? ['pid', 'ipc', ...(WALLS_OFF.has('nonetns') ? [] : ['net']), 'proc', 'root', 'uid']
        : ['user', 'pid', 'ipc', 'ids', 'mnt', 'proc', 'nouserns']),
    'nocaps',
    ...(WALLS_OFF.has('noseccomp') ? [] : ['seccomp']),
  ];
  const missing = want.filter((w) => !made.has(w));
  if (missing.length) return (say(`the kernel refused ${missing.join(', ')}`), undefined);
  // rooted: the n-th job's process under uid and gid 100000 + n mod 1000 (consecutive jobs never share one)
  let n = 0;
  // deno: the launcher sweeps and wipes after each job (`--clean`), which deno's worker cannot do itself
  // (betweenJobs); it tells how that went by its exit (launcherUnclean)
  const clean = RUNTIME === 'deno' ? ['--clean', '4'] : [];
  const args = () => [...(rooted ? [...base, '--uid', String(100000 + (n++ % 1000))] : base), ...clean];
  return { path, args, want, rooted, plain };
}

/**
 * In a job's process, before its job: the walls it is in, as its first message to the worker. The
 * launcher made them and handed their names to this runtime (TOOLSMITH_JOB_WALLS, removed here); the
 * process adds what it sees of itself: its pid (1 in a pid namespace of its own) and uid. A script can
 * only speak after this message, and no later one counts (wallsRefused).
 */
function ownWalls() {
  // (deno: the job's process is granted this variable and its uid for it, startChild)
  const told = process.env.TOOLSMITH_JOB_WALLS ?? '';
  delete process.env.TOOLSMITH_JOB_WALLS;
  return { type: 'walls', walls: told.split(',').filter(Boolean), pid: process.pid, uid: process.getuid?.() };
}

/**
 * deno: what a program the worker starts gets of its environment besides the variables it is given (deno
 * cannot copy the worker's environment: it may read only the variables it is granted): the test switches
 * (TOOLSMITH_TEST_WALLS), for the launcher and for a `jsescape` job. Nothing outside the tests.
 */
function denoTestWalls() {
  return WALLS_OFF.size ? { TOOLSMITH_TEST_WALLS: [...WALLS_OFF].join(',') } : {};
}

/**
 * In the worker: what a job's process lacks of the walls it must have (its first message, ownWalls,
 * against the walls the launcher's probe found this level makes, `launcher.want`), named, or undefined.
 * Without a launcher no wall is asked for (the plain child processes of jobLauncher's "Elsewhere").
 */
function wallsRefused(msg, launcher) {
  if (msg?.type !== 'walls' || !Array.isArray(msg.walls))
    return 'its walls (its first message was not the walls it is in)';
  if (!launcher) return undefined;
  const have = new Set(msg.walls.filter((w) => typeof w === 'string'));
  const missing = launcher.want.filter((w) => !have.has(w));
  const why = (wall, text) => {
    const i = missing.indexOf(wall);
    if (i >= 0) missing[i] = `${wall} (${text})`;
    else missing.push(`${wall} (${text})`);
  };
  if (msg.pid !== 1 && !launcher.plain)
    why('pid', `its pid is ${msg.pid}, not 1 of a pid namespace of its own`);
  if (launcher.rooted && (typeof msg.uid !== 'number' || msg.uid === process.getuid()))
    why(
      'uid',
      `it runs under ${typeof msg.uid === 'number' ? `the worker's uid ${msg.uid}` : 'no uid it told'}`,
    );
  return missing.length ? missing.join(', ') : undefined;
}

/** The worker's answer for a job whose process lacks walls (wallsRefused): the job never ran. */
function wallsMissing(missing) {
  return {
    type: 'done',
    ok: false,
    reason: 'crashed',
    error: {
      type: 'WallsMissing',
      message: `the job's process lacks walls it must have: ${missing}; it was not given the job (docs/sandboxes.md, "Between jobs")`,
      frames: [],
    },
  };
}

/**
 * deno: what the launcher reports of its cleanup after the job (jobns-launch.c `--clean 4`) on fd 4 of its
 * own, a pipe only it holds (the job's process never has it): kept on the child (`report`, and `reported`
 * once the pipe has ended, with the launcher); `cleaning`: started through the launcher.
 */
function launcherSays(child, cleaning) {
  child.cleaning = cleaning;
  child.report = '';
  const pipe = cleaning ? child.stdio?.[4] : undefined;
  if (!pipe) return ((child.reported = true), child);
  child.reported = false;
  const ended = () => {
    if (child.reported) return;
    child.reported = true;
    child.emit('reported');
  };
  pipe.on('data', (d) => {
    if (child.report.length < 4096) child.report += d.toString();
  });
  pipe.on('end', ended);
  pipe.on('close', ended);
  pipe.on('error', ended);
  return child;
}

/** deno: `cb(why the worker must stop, or undefined)` once the launcher's report has ended (launcherSays). */
function launcherEnded(child, cb) {
  if (child.reported) setImmediate(() => cb(launcherUnclean(child)));
  else child.once('reported', () => cb(launcherUnclean(child)));
}

/**
 * deno, whose launcher sweeps and wipes after each job (`--clean`, jobLauncher): undefined when it
 * reported `cleaned`, else why the worker must stop: its `failed: <why>`, or no report at all (it was
 * killed before it was done, by a process the job left among others).
 */
function launcherUnclean(child) {
  if (!child.cleaning) return undefined;
  const said = child.report.trim();
  if (said === 'cleaned') return undefined;
  return (
    `the job's launcher (pid ${child.pid}) ${said ? `could not clean up after the job (${said.slice(0, 1000)})` : 'ended without reporting its cleanup after the job'}; ` +
    `the worker stops, to be replaced, rather than run the next job beside what the job left`
  );
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
  // deno: the worker may read no /proc, write no file and signal no process but through its children's
  // handles (its permissions, runtimes.ts), so it can neither sweep nor wipe. Where the launcher is used
  // the launcher does both after each job, by these rules (`--clean`: jobns-launch.c sweep and wipe), and
  // the worker waits for its report and stops on a failure (awaitEnd, launcherUnclean). Without the
  // launcher its jobs have no read, write or run permission, and nothing else keeps them apart.
  if (RUNTIME === 'deno' || process.env.TOOLSMITH_PRIVATE_TMP !== '1')
    return { clean: () => true, awaitLauncher: () => {} };
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
      wipe.push([dir, new Set(readdirSync(dir)), statSync(dir).mode & 0o7777]);
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
  // A file or a whole tree a job left, whatever it did to it: folders it made unreadable or read-only get
  // their owner's permissions back first (jobs run as the worker's user); every folder of the tree is first
  // moved up beside `top` (no path ever grows past PATH_MAX however deep the tree, and nothing recurses);
  // links are removed and never followed; another mount is never entered.
  let flatCount = 0;
  const remove = (top) => {
    let root;
    try {
      root = lstatSync(top);
    } catch {
      return;
    }
    if (!root.isDirectory()) {
      try {
        unlinkSync(top);
      } catch {}
      return;
    }
    const folder = top.slice(0, top.lastIndexOf('/')) || '/';
    const queue = [top];
    while (queue.length) {
      const d = queue.pop();
      let names = [];
      try {
        chmodSync(d, 0o700);
        names = readdirSync(d);
      } catch {}
      for (const name of names) {
        const child = `${d}/${name}`;
        let st;
        try {
          st = lstatSync(child);
        } catch {
          continue;
        }
        if (!st.isDirectory()) {
          try {
            unlinkSync(child);
          } catch {}
        } else if (st.dev === root.dev) {
          let flat;
          do flat = `${folder === '/' ? '' : folder}/.toolsmith-wipe-${process.pid}-${++flatCount}`;
          while (exists(flat));
          try {
            chmodSync(child, 0o700);
            renameSync(child, flat);
            queue.push(flat);
          } catch {}
        }
      }
      try {
        rmdirSync(d);
      } catch {}
    }
  };
  const exists = (p) => {
    try {
      lstatSync(p);
      return true;
    } catch {
      return false;
    }
  };
  /**
   * What a job's process inherits from this one (through the launcher) that another process of this uid
   * may change from outside, no ptrace access asked (docs/security.md, "Every job alone, attacked
   * again"): the resource limits (prlimit), and the nice value, scheduling policy and CPU set of the main
   * thread (the one that starts the launcher: a process inherits them from the thread that made it). With
   * the job namespaces off a job set them on this worker (the host's prlimit, renice, chrt, taskset), and
   * every later job inherited them; nothing gives them back without a capability, so the worker stops
   * when they are no longer what they were at its start (markChanged, after the sweep). gVisor has no
   * /proc/self/limits (the read fails both times: the thread's marks alone there).
   */
  const marks = () => {
    const read = (path) => {
      try {
        return readFileSync(path, 'latin1');
      } catch {
        return '';
      }
    };
    const stat = read('/proc/self/stat');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpus = /Cpus_allowed_list:\s*(\S+)/.exec(read('/proc/self/status'))?.[1];
    return { limits: read('/proc/self/limits'), thread: `nice ${f[16]}, policy ${f[38]}, CPUs ${cpus}` };
  };
  const atStart = marks();
  /** Why the worker must stop when a job changed its marks, else undefined. */
  const markChanged = () => {
    const now = marks();
    if (now.limits !== atStart.limits)
      return 'a job changed the resource limits of the worker; the worker stops';
    if (now.thread !== atStart.thread)
      return `a job changed the priority, scheduling or CPU set of the worker (${now.thread}); the worker stops`;
    return undefined;
  };
  /** true when nothing of the job is left; else false, or why the worker must stop (leftToMe, markChanged). */
  const clean = (launcherPid) => {
    try {
      const orphans = launcherPid !== undefined ? awaitLauncher(launcherPid) : [];
      return sweep() && (leftToMe(launcherPid, orphans) ?? markChanged() ?? true);
    } catch {
      return false; // what cannot be checked is not clean
    }
  };
  /** A process's state letter and parent, or undefined when it is gone. */
  const statOf = (pid) => {
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    } catch {
      return undefined;
    }
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0], ppid: Number(rest[1]) };
  };
  /**
   * A job started by the launcher: its end, the job's pid 1 killed and reaped by the launcher, comes
   * before the sweep's kill(-1), which could kill the launcher first and leave that process to this one
   * (never reaped here). At most 2 s; then the launcher is killed (its job dies with it: PR_SET_PDEATHSIG).
   * Returns the launcher's children when it had to be killed (none when it ended by itself): the job's
   * pid 1, which the kernel then gives to this process (pid 1 of the sandbox on docker and bubblewrap;
   * no docker-init there) as a zombie this one cannot reap (node and bun wait for their own children
   * only): leftToMe looks for it after the sweep.
   */
  const awaitLauncher = (pid) => {
    const end = Date.now() + 2000;
    for (;;) {
      const st = statOf(pid);
      if (!st || st.state === 'Z' || st.state === 'X') return []; // gone (reaped), or ended
      if (Date.now() > end) {
        const children = [];
        for (const name of readdirSync('/proc')) {
          if (/^\d+$/.test(name) && statOf(name)?.ppid === pid) children.push(Number(name));
        }
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
        return children;
      }
      Atomics.wait(nap, 0, 0, 1);
    }
  };
  /**
   * After the sweep: a killed launcher's job process that the kernel gave to this one (a zombie, or a
   * process that would become one) holds a pid of the sandbox's limit for as long as this worker lives,
   * one more per such job, until no job can start a thread. The worker stops instead (the pool replaces
   * it): returns why, or undefined when nothing was left to it.
   */
  const leftToMe = (launcherPid, orphans) => {
    if (orphans.length === 0) return undefined;
    // (its children are given away once the launcher has ended: with the sweep, before it is back)
    for (const end = Date.now() + 2000; Date.now() < end; Atomics.wait(nap, 0, 0, 1)) {
      const st = statOf(launcherPid);
      if (!st || st.state === 'Z' || st.state === 'X') break;
    }
    const left = orphans.filter((p) => statOf(p)?.ppid === me);
    if (left.length === 0) return undefined;
    return (
      `the job's launcher (pid ${launcherPid}) did not end its job within 2 s and was killed; ` +
      `the job's process (pid ${left.join(', ')}) was left to this worker, which cannot reap it (a zombie ` +
      `holding a pid of the sandbox's limit): the worker stops, to be replaced`
    );
  };
  const sweep = () => {
    const end = Date.now() + 2000;
    for (;;) {
      if (WALLS_OFF.has('nosweep')) break;
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
    for (const [dir, keep, mode] of WALLS_OFF.has('nowipe') ? [] : wipe) {
      let names;
      try {
        // Its mode as at the start: a job of the folder's owner (bubblewrap's /tmp, /dev/shm: the
        // sandbox's user, the job's with its namespaces off) that made it mode 000 had this listing fail,
        // so its files stayed for the next job, which made the folder readable again.
        if ((statSync(dir).mode & 0o7777) !== mode) chmodSync(dir, mode);
      } catch {}
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      for (const name of names) {
        const p = `${dir === '/' ? '' : dir}/${name}`;
        if (keep.has(name) || mounts.has(p)) continue;
        remove(p);
      }
    }
    return true;
  };
  return { clean, awaitLauncher };
}
