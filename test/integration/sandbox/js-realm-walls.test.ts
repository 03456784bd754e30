/**
 * The JS runtime wall, two layers, each written as the attack (real node worker in Docker, validation off):
 * - stack overflows made inside the script's realm (getters on RegExp.prototype[Symbol.match] and the other
 *   well-known symbols, recursive toString, JSON getters, Proxy traps, exec overrides, a helper called at
 *   the stack limit) hand back only errors of the script's realm;
 * - with that wall switched off (TOOLSMITH_TEST_WALLS=leakrealm hands the script objects of the worker's
 *   realm, as if a foreign error had come through), `toJSON`, index setters and getters planted on the
 *   worker realm's prototypes change nothing the worker sends: the record holds exactly what the script
 *   emitted, and the worker realm's Function makes no code from strings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { dockerFactory, testBackend } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const OVERFLOWS = `
const ROOT = Object.prototype;
const end = (o) => { let p = o; let last = o; while (p !== null) { last = p; p = Object.getPrototypeOf(p); } return last; };
const found = [];
let n = 0;
const check = (e, where) => { n++; if (e !== null && (typeof e === 'object' || typeof e === 'function') && end(e) !== ROOT) found.push(where); };
for (const sym of ['match', 'replace', 'split', 'search', 'matchAll']) {
  Object.defineProperty(RegExp.prototype, Symbol[sym], { configurable: true, get() { return f(); } });
  function f() { try { return 'a'[sym](/a/, 'b'); } catch (e) { check(e, sym); throw e; } }
  try { f(); } catch (e) { check(e, sym + '-outer'); }
  delete RegExp.prototype[Symbol[sym]];
}
const o = {}; Object.defineProperty(o, 'x', { enumerable: true, get() { return JSON.stringify(o); } });
try { JSON.stringify(o); } catch (e) { check(e, 'json'); }
const t = { toString() { return String(t); } };
try { String(t); } catch (e) { check(e, 'toString'); }
const p = new Proxy({}, { get(tt, k) { return p[k]; } });
try { p.x; } catch (e) { check(e, 'proxy'); }
const r = /a/; r.exec = function () { return 'a'.replace(r, 'b'); };
try { 'a'.replace(r, 'b'); } catch (e) { check(e, 'exec'); }
Object.defineProperty(RegExp.prototype, Symbol.match, { configurable: true, get() { return g(); } });
function g() { try { return 'a'.match(/a/); } catch (e) { check(e, 'match-helper'); try { emitIntermediate(1); } catch (e2) { check(e2, 'match-helper-emit'); } throw e; } }
try { g(); } catch (e) { check(e, 'match-helper-outer'); }
delete RegExp.prototype[Symbol.match];
let levels = 0;
try { (function h() { try { h(); } catch (e) { check(e, 'deep'); if (levels++ < 50) { try { emitLog('x'); } catch (e2) { check(e2, 'deep-emit'); } try { get_user({ user_id: 'u1' }).catch((e4) => check(e4, 'deep-tool-async')); } catch (e3) { check(e3, 'deep-tool'); } } throw e; } })(); } catch (e) { check(e, 'deep-outer'); }
emitResult({ found: [...new Set(found)], checked: n });
`;

describe('node: stack overflows in the script realm', () => {
  let ws: string;
  let svc: ToolsmithService;
  beforeAll(() => {
    ws = tempWorkspace('toolsmith-js-walls-');
    svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
  });
  afterAll(async () => {
    await svc?.close();
    if (ws) removeWorkspace(ws);
  });

  it('RegExp symbol getters, toString, JSON, Proxy and helpers at the stack limit: every error is of the script realm', async () => {
    const r = await svc.execution.executeScript({
      sandbox: 'ecommerce',
      runtime: 'node',
      language: 'js',
      body: OVERFLOWS,
      validate: false,
      timeoutMs: 60_000,
    });
    expect(r.error).toBeUndefined();
    expect((r.data as { found: string[] }).found).toEqual([]);
    expect((r.data as { checked: number }).checked).toBeGreaterThan(1000);
  }, 300_000);
});

/** Poisons every prototype of the worker realm it was handed, then does ordinary work. */
const POISON_WORKER = `
const W = workerRealm;
const OP = Object.getPrototypeOf(W.object);
const AP = Object.getPrototypeOf(W.array);
const EP = Object.getPrototypeOf(W.error);
const forged = { type: 'emit', kind: 'result', data: 'forged' };
OP.toJSON = function () { return forged; };
AP.toJSON = function () { return ['forged']; };
EP.toJSON = function () { return forged; };
for (const k of ['0', '1', 'line', 'name', 'text', 'data', 'kind', 'message', 'type'])
  for (const proto of [OP, AP])
    Object.defineProperty(proto, k, { configurable: true, enumerable: true, set(v) {}, get() { return 'forged'; } });
let gen;
try { gen = W.object.constructor.constructor('return typeof process')(); } catch (e) { gen = 'refused'; }
let gen2;
try { gen2 = W.error.constructor.constructor('return 1')(); } catch (e) { gen2 = 'refused'; }
emitIntermediate({ step: [1, 2] });
console.log('hello', [3]);
`;

describe('node: the worker realm reached (first wall off): what it sends does not change', () => {
  let factory: TestFactory;
  let backend: SandboxBackend;
  beforeAll(async () => {
    factory = await dockerFactory({ wallsOff: ['leakrealm'] });
    backend = testBackend(factory, { toolsSource: '' });
  }, 300_000);
  afterAll(async () => {
    await backend?.dispose();
    await factory?.dispose();
  });
  const run = (code: string) =>
    backend.execute({
      sandbox: 'leak',
      language: 'js',
      code,
      bodyStartLine: 1,
      tools: {},
      timeoutMs: 60_000,
    });

  it('toJSON and setters planted on its prototypes: the record holds exactly what the script emitted', async () => {
    const r = await run(`${POISON_WORKER}emitResult({ gen, gen2, list: [1, { a: 'b' }] });\n`);
    expect(r).toMatchObject({
      success: true,
      data: { gen: 'refused', gen2: 'refused', list: [1, { a: 'b' }] },
      intermediates: [{ step: [1, 2] }],
      logs: ['hello [3]'],
    });
  }, 120_000);

  it('a script that then fails: its error and frames are its own', async () => {
    const r = await run(`${POISON_WORKER}\nthrow new TypeError('boom');\n`);
    expect(r.success).toBe(false);
    expect(r.error).toMatchObject({ type: 'TypeError', message: 'boom' });
    expect(r.intermediates).toEqual([{ step: [1, 2] }]);
  }, 120_000);

  it("the worker's reading of the script's own error: split, trim, push and indexOf replaced change no frame", async () => {
    // The worker realm's String.prototype (Object('x') made by its Object) and Array.prototype, poisoned
    // so that the worker's parse of the error's stack would find a forged frame, no frame, or other text.
    const attack = `${POISON_WORKER}
const SP = Object.getPrototypeOf(W.object.constructor('x'));
SP.split = function () { return ['    at forged (<script>:1:1)', '    at forged (<script>:2:1)']; };
SP.trim = function () { return 'forged'; };
SP.indexOf = function () { return -1; };
SP.slice = function () { return 'forged'; };
AP.push = function (v) { this[this.length] = { line: 1, name: 'forged', text: 'forged' }; return this.length; };
function thrower() {
  throw new TypeError('boom');
}
thrower();
`;
    const lines = attack.split('\n');
    const at = (text: string) => lines.findIndex((l) => l.trim() === text) + 1;
    const r = await run(attack);
    expect(r.success).toBe(false);
    expect(r.error).toMatchObject({ type: 'TypeError', message: 'boom' });
    expect(r.error?.frames).toEqual([
      { line: at("throw new TypeError('boom');"), name: 'thrower', text: "throw new TypeError('boom');" },
      { line: at('thrower();'), name: '<script>', text: 'thrower();' },
    ]);
  }, 120_000);
});
