/**
 * The runtime wall of JS/TS scripts, written as attacks and run with validation OFF in the real node, bun
 * and deno workers (Docker): no object of the worker's realm is reachable from a script (helpers, tool
 * results, errors, promises, call sites, arguments, the global), top-level `this` is undefined even in
 * code that leaves the wrapper, and a script that poisons its own prototypes (toJSON, then, setters,
 * JSON.stringify) cannot change or forge a message: the record holds exactly the calls it made.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxManager, imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { buildImage } from '../../../src-main/infra/sandbox/images.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const RUNTIMES = ['node', 'bun', 'deno'] as const;
/** The tool calls a script starts and never awaits (see the case). */
const FIRED = 40;
type Runtime = (typeof RUNTIMES)[number];
let ws: string;
let svc: ToolsmithService;

beforeAll(async () => {
  const docker = new Docker();
  for (const rt of ['bun', 'deno'] as const) await buildImage(docker, rt, imagePaths(), () => {});
  ws = tempWorkspace('toolsmith-js-realm-');
  const cfg = join(ws, '.toolsmith/config.toml');
  const text = readFileSync(cfg, 'utf8')
    .replace('[runtimes.bun]\nenabled = false', '[runtimes.bun]\nenabled = true')
    .replace('[runtimes.deno]\nenabled = false', '[runtimes.deno]\nenabled = true');
  expect(text).toMatch(/\[runtimes\.deno\]\nenabled = true/);
  writeFileSync(cfg, text);
  svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
}, 300_000);
afterAll(async () => {
  await svc?.close();
  if (ws) removeWorkspace(ws);
});

const run = (runtime: Runtime, body: string, language: 'js' | 'ts' = 'js') =>
  svc.execution.executeScript({
    sandbox: 'ecommerce',
    runtime,
    language,
    body,
    validate: false,
    timeoutMs: 30_000,
  });

/**
 * Walks every object reachable (own properties, accessors, prototypes) from what the runtime hands a
 * script; an object whose prototype chain does not end at the context's Object.prototype is of another
 * realm. Call sites come from Error.prepareStackTrace when the runtime lets the script set it.
 */
const REALM_PROBE = `
const ROOT = Object.prototype;
const foreign = [];
const seen = new Set();
const end = (o) => { let p = o; let last = o; while (p !== null) { last = p; p = Object.getPrototypeOf(p); } return last; };
function visit(o, path, depth) {
  if ((typeof o !== 'object' && typeof o !== 'function') || o === null || seen.has(o) || depth > 6) return;
  seen.add(o);
  if (Object.getPrototypeOf(o) !== null && end(o) !== ROOT) foreign.push(path);
  visit(Object.getPrototypeOf(o), path + '.[[Prototype]]', depth + 1);
  for (const k of Reflect.ownKeys(o)) {
    let d;
    try { d = Object.getOwnPropertyDescriptor(o, k); } catch { continue; }
    if (!d) continue;
    for (const f of ['value', 'get', 'set']) if (Object.hasOwn(d, f)) visit(d[f], path + '.' + String(k) + (f === 'value' ? '' : '<' + f + '>'), depth + 1);
  }
}
const caught = (f) => { try { f(); } catch (e) { return e; } };
const user = await get_user({ user_id: 'u3' });
const pending = get_user({ user_id: 'u1' });
await pending;
const toolError = await get_user(5).catch((e) => e);
const emitError = caught(() => emitResult(new Map()));
const credentialError = caught(() => credential('undeclared'));
let sites = [];
const pstRefused = caught(() => { Error.prepareStackTrace = (e, s) => { sites = s; return ''; }; }) !== undefined;
void new Error('probe').stack;
const trapArgs = [];
const proxy = new Proxy({ a: 1 }, {
  ownKeys(t) { trapArgs.push(t); return Reflect.ownKeys(t); },
  getOwnPropertyDescriptor(t, k) { trapArgs.push(t); return Reflect.getOwnPropertyDescriptor(t, k); },
});
emitIntermediate(proxy);
// Errors the engine or the runtime's hooks make: import() (node and bun rejected it with an error of
// the worker's realm), code generation from strings, WebAssembly compilation.
const hostErrors = [
  await import('node:fs').catch((e) => e),
  await import('data:text/javascript,export default 1').catch((e) => e),
  caught(() => eval('1')),
  caught(() => Function('return 1')),
  await WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])).catch((e) => e),
  caught(() => new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))),
];
const overflow = [];
(function deep() { try { deep(); } catch { overflow.push(caught(() => emitLog('at the stack limit'))); } })();
const self = this;
visit({ emitResult, emitIntermediate, emitLog, credential, console, get_user, user, pending, toolError, emitError,
  credentialError, sites, trapArgs, overflow, hostErrors, args: arguments, global: globalThis }, '$', 0);
emitResult({ foreign, visited: seen.size, thisType: typeof self, pstRefused, traps: trapArgs.length,
  hostErrors: hostErrors.map((e) => typeof e === 'object' && e !== null) });
`;

/** Everything a script can poison in its own realm, then the ordinary work: one call, one of each emit. */
const POISON = `
const root = Object.getPrototypeOf(Object.getPrototypeOf(emitLog));
root.toJSON = function () { return { type: 'tool_call', call_id: 'x', name: 'get_orders', alias: 'get_orders', args: { forged: true } }; };
Object.defineProperty(root, 'then', { configurable: true, get() { return undefined; } });
Object.defineProperty(root, 'get', { configurable: true, get() { return () => 'forged'; } });
Object.defineProperty(root, 'type', { configurable: true, set(v) {}, get() { return 'trace'; } });
Object.defineProperty(Array.prototype, '0', { configurable: true, set(v) {}, get() { return 'forged'; } });
JSON.stringify = () => '{"type":"tool_call","name":"get_orders","args":{}}';
JSON.parse = () => ({ forged: true });
String.prototype.slice = () => '+forged';
Map.prototype.get = () => undefined;
Set.prototype.has = () => false;
Function.prototype.call = function () { return 'forged'; };
Promise.prototype.then = function () { return this; };
const u = await get_user({ user_id: 'u3' });
emitIntermediate({ step: [1, 2] });
console.log('looked up', { id: 1 });
emitResult(u.data.email);
`;

describe.each(RUNTIMES)('%s: scripts never reach the worker realm (validation off)', (rt) => {
  it('no object of the worker realm is reachable; this is undefined; prepareStackTrace cannot be set', async () => {
    const r = await run(rt, REALM_PROBE);
    expect(r.error).toBeUndefined();
    expect(r.data).toMatchObject({ foreign: [], thisType: 'undefined', pstRefused: true });
    expect((r.data as { hostErrors: boolean[] }).hostErrors).toEqual([true, true, true, true, true, true]);
    expect((r.data as { visited: number }).visited).toBeGreaterThan(300);
    expect((r.data as { traps: number }).traps).toBeGreaterThan(0);
    expect(r.toolCalls.map((c) => [c.name, c.args])).toEqual([
      ['get_user', { user_id: 'u3' }],
      ['get_user', { user_id: 'u1' }],
    ]);
  }, 120_000);

  it('poisoned prototypes and globals change no message: the record holds exactly the real call and emits', async () => {
    const r = await run(rt, POISON);
    expect(r).toMatchObject({
      success: true,
      data: 'grace@example.com',
      intermediates: [{ step: [1, 2] }],
      logs: ['looked up {"id":1}'],
    });
    expect(r.toolCalls.map((c) => [c.name, c.args])).toEqual([['get_user', { user_id: 'u3' }]]);
  }, 60_000);

  it('code that closes the wrapper still runs in strict mode with this undefined', async () => {
    // The wrapper is `return (async function () {<body>\n}).call(undefined);`: this body closes it and
    // runs its own expression in the return statement.
    const r = await run(rt, '}).call(undefined), emitResult(typeof this), (async function () {');
    expect(r).toMatchObject({ success: true, data: 'undefined' });
  }, 60_000);

  it('getters on tool arguments and emitted data are refused without running, nothing is called', async () => {
    const r = await run(
      rt,
      'let ran = 0;\nconst a = {};\nObject.defineProperty(a, "user_id", { enumerable: true, get() { ran++; return "u3"; } });\nconst e = await get_user(a).catch((x) => x.message);\nemitResult({ e, ran });\n',
    );
    expect(r.data).toEqual({ e: 'get_user takes JSON-safe data; $.user_id (a getter) is not', ran: 0 });
    expect(r.toolCalls).toEqual([]);
  }, 60_000);

  it("a thenable left as the completion of code outside the wrapper is never called with the worker's functions", async () => {
    // Ends the wrapper, then leaves a thenable as what the compiled code returns or completes with: a
    // worker that awaited it would call then() with resolve functions of its own realm.
    const r = await run(
      rt,
      '}), 0; (() => { return { then(resolve) { emitLog(String(Object.getPrototypeOf(resolve) === Object.getPrototypeOf(() => 0))); resolve(1); } };',
    );
    expect(r.exitReason).toBe('ok');
    expect(r.logs).not.toContain('false');
  }, 60_000);

  // Each call is a job of the Python sandbox (the ecommerce tools), whose pool has at most two workers:
  // forty calls are twenty times what it runs at once, so most of them still wait in its queue when the
  // script ends (200 took 10-16 s per runtime, for the same outcome).
  it(`${FIRED} tool calls started through an async helper and never awaited: the job ends when all have settled, each in the record`, async () => {
    const r = await svc.execution.executeScript({
      sandbox: 'ecommerce',
      runtime: rt,
      language: 'js',
      validate: false,
      timeoutMs: 240_000,
      body: `async function fire(i) { return get_user({ user_id: "u" + ((i % 3) + 1) }); }\nfor (let i = 0; i < ${FIRED}; i++) fire(i);\nemitResult("started");\n`,
    });
    expect(r, JSON.stringify(r.error)).toMatchObject({ success: true, exitReason: 'ok', data: 'started' });
    expect(r.toolCalls).toHaveLength(FIRED);
    const errors = [...new Set(r.toolCalls.map((c) => c.error ?? ''))];
    expect(
      r.toolCalls.every((c) => c.name === 'get_user' && !/cancelled/.test(c.error ?? '')),
      errors.join(' | '),
    ).toBe(true);
    // The next job is not delayed by calls of this one: it starts at once and sees only its own call.
    const next = await run(rt, 'const u = await get_user({ user_id: "u1" });\nemitResult(u.success);\n');
    expect(next).toMatchObject({ success: true, data: true });
    expect(next.toolCalls).toHaveLength(1);
  }, 300_000);

  it('a call started after the script ended is never made; the one it started before is awaited and recorded', async () => {
    const r = await run(
      rt,
      'get_user({ user_id: "u1" }).then(() => get_user({ user_id: "u2" }).then(() => emitLog("late ran"), (e) => emitLog("refused: " + e.message)));\nemitResult(1);\n',
    );
    expect(r).toMatchObject({ success: true, exitReason: 'ok', data: 1 });
    expect(r.toolCalls.map((c) => c.args)).toEqual([{ user_id: 'u1' }]);
    expect(r.toolCalls[0]?.result).toMatchObject({ success: true });
  }, 60_000);

  it.each([
    ['ValidationError', 'rejected'],
    ['MemoryError', 'oom'],
    ['OutOfMemory', 'oom'],
  ])(
    'a script that throws {name: %j} after a tool call is an error, never %s',
    async (name, not) => {
      const r = await run(
        rt,
        `await get_user({ user_id: "u1" });\nthrow { name: ${JSON.stringify(name)}, message: "chosen by the script" };\n`,
      );
      expect(r.exitReason).toBe('error');
      expect(r.exitReason).not.toBe(not);
      expect(r.error).toMatchObject({ type: name, message: 'chosen by the script' });
      expect(r.toolCalls.map((c) => c.name)).toEqual(['get_user']);
      // The worker was not replaced as if it had run out of memory: the next job runs as usual.
      expect((await run(rt, 'emitResult(2);\n')).data).toBe(2);
    },
    60_000,
  );

  it('an emitted value over the output limit ends the job with output_limit', async () => {
    const r = await run(rt, 'emitResult("x".repeat(200000));\n');
    expect(r.exitReason).toBe('output_limit');
  }, 60_000);
});
