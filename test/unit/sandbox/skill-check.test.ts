/**
 * The node worker's re-check of a job's skills (sandbox-images/node/skill-check.mjs) against the host's
 * JS validator: the same lists, and the same answer on skills that escape and skills that do not.
 */
import { readFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  JS_EMIT_NAMES,
  JS_FORBIDDEN_NAMES,
  JS_FORBIDDEN_PROPERTIES,
} from '../../../src-main/core/lang/builtins.ts';
import {
  HOOK_KEYS,
  OBJECT_METHODS,
  SYMBOL_MEMBERS,
} from '../../../src-main/core/lang/js/rules/definitions.ts';
import { validateJs } from '../../../src-main/core/lang/js/validate.ts';
import { jsSkillShape } from '../../../src-main/core/skills/js-skill.ts';
import * as worker from '../../../sandbox-images/node/skill-check.mjs';

const sorted = (xs: Iterable<string>) => [...xs].sort();

/** A skill with `body` as its function's body, then a script that calls it. */
const job = (body: string, name = 'sneaky') =>
  `/**\n * Does a thing.\n * @param {number} x Anything.\n */\nasync function ${name}(x) {\n${body}\n}\nemitResult(await ${name}(1));\n`;

const host = (code: string) => validateJs(code, { tools: ['get_user'] }).violations.map((v) => v.rule);

describe("the node worker's skill check", () => {
  it("carries acorn unchanged, the version the project's lock file installs (copy it again on an upgrade)", () => {
    const read = (p: string) => readFileSync(new URL(p, import.meta.url), 'utf8');
    const vendored = read('../../../sandbox-images/node/acorn.mjs');
    const installed = read('../../../node_modules/acorn/dist/acorn.mjs');
    const { version } = JSON.parse(read('../../../node_modules/acorn/package.json')) as { version: string };
    expect(vendored.startsWith(`// acorn ${version} `)).toBe(true);
    expect(vendored.slice(vendored.indexOf('// This file was generated.'))).toBe(installed);
  });

  it('keeps the lists of the host validator', () => {
    expect(sorted(worker.FORBIDDEN_NAMES)).toEqual(sorted(Object.keys(JS_FORBIDDEN_NAMES)));
    // (`__proto__:` in an object literal sets its prototype: the host's map has no such key, and both
    // sides refuse every `__x__` name anyway.)
    expect(sorted(worker.FORBIDDEN_PROPERTIES)).toEqual(
      sorted([...Object.keys(JS_FORBIDDEN_PROPERTIES), '__proto__']),
    );
    expect(sorted(worker.OBJECT_METHODS)).toEqual(sorted(OBJECT_METHODS));
    expect(sorted(worker.SYMBOL_MEMBERS)).toEqual(sorted(SYMBOL_MEMBERS));
    expect(sorted(worker.HOOK_KEYS)).toEqual(sorted(HOOK_KEYS));
    expect(sorted(worker.EMIT_NAMES)).toEqual(sorted(JS_EMIT_NAMES));
  });

  it('refuses in a skill what the host refuses, naming the skill and the line', () => {
    const escapes = [
      'return globalThis.process.pid + x;',
      'return (() => {}).constructor("return process")().pid + x;',
      'const k = "con" + "structor";\n  return x[k] ?? x["con" + "structor"];',
      'const { constructor: C } = x;\n  return C;',
      'return Object.getPrototypeOf(x);',
      'return Object.create(x);',
      'Math.max = () => 0;\n  return x;',
      'return { then(r) { r(x); } };',
      'const o = {};\n  o.toJSON = () => 1;\n  return o;',
      'return import("node:fs");',
      'return this;',
      'return ({ get y() { return x; } }).y;',
      'return Symbol.iterator;',
      'return Reflect.ownKeys(x);',
    ];
    for (const body of escapes) {
      const code = job(body);
      expect(host(code).length, body).toBeGreaterThan(0);
      const problems = worker.checkSkills(code, ['sneaky']);
      expect(problems.length, body).toBeGreaterThan(0);
      expect(problems[0], body).toMatch(/^skill sneaky:(2|3): /);
    }
  });

  it("refuses an emit in a skill, as the host's shape check does", () => {
    const code = job('emitResult(x);\n  return x;');
    const source = code.slice(0, code.indexOf('emitResult(await'));
    expect(jsSkillShape('sneaky', source, 'js').problems.join(' ')).toMatch(/returns its value/);
    expect(worker.checkSkills(code, ['sneaky'])).toEqual([
      'skill sneaky:2: a skill returns its value; emitResult belongs to the script that calls it',
    ]);
  });

  it('accepts clean skills (JS, and TS once its types are stripped) and leaves the body to the runtime', () => {
    const clean = [
      'const orders = (await get_user({ user_id: "u1" })).data;\n  const byId = Object.create(null);\n  byId[x] = orders;\n  return Object.keys(byId).map((k) => ({ k, n: byId[k] })).filter((o) => o.k === String(x));',
      'class Box {\n    constructor(v) { this.v = v; }\n    get2() { return this.v * 2; }\n  }\n  const s = Symbol("k");\n  return new Box(x).get2() + String(s).length;',
      'const o = { then: 1, toJSON: "x" };\n  return o.then;',
      'let total = 0;\n  for (const n of [1, 2, 3]) total += n;\n  try { JSON.parse("{"); } catch (e) { total += 1; }\n  return total;',
    ];
    for (const body of clean) {
      const code = job(body);
      expect(host(code), body).toEqual([]);
      expect(worker.checkSkills(code, ['sneaky']), body).toEqual([]);
    }
    const ts = stripTypeScriptTypes(
      '/** Name. */\nasync function user_name(user_id: string, upper: boolean = false): Promise<string> {\n  const n: string = (await get_user({ user_id })).data.name;\n  return upper ? n.toUpperCase() : n;\n}\nemitResult(await user_name("u1"));\n',
      { mode: 'strip' },
    );
    expect(worker.checkSkills(ts, ['user_name'])).toEqual([]);
    // Only the functions named as skills are checked: the body is the runtime wall's.
    expect(worker.checkSkills(job('return x;') + 'emitResult(globalThis);\n', ['sneaky'])).toEqual([]);
    expect(worker.checkSkills('emitResult(globalThis);\n', [])).toEqual([]);
  });

  it('checks the skills the script defines (the job may name more), each defined once', () => {
    expect(worker.checkSkills('emitResult(1);\n', ['ghost'])).toEqual([]);
    expect(worker.checkSkills(job('return x;') + job('return globalThis;'), ['sneaky'])).toEqual([
      'skill sneaky: defined more than once',
    ]);
    // A function of the script not named as a skill is the body's (the runtime wall's).
    expect(worker.checkSkills(job('return globalThis;', 'helper'), ['sneaky'])).toEqual([]);
    expect(worker.checkSkills(job('return globalThis;', 'helper'), ['sneaky', 'helper'])).toEqual([
      'skill helper:2: globalThis is not available to a skill',
    ]);
  });
});
