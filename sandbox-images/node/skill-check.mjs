// The node worker's own re-check of a job's skills (docs/skills.md, "The worker's check"): the host
// validates every skill with the JS validator before it offers it; this is the same core rules again,
// in the sandbox, on the exact text that runs (after TypeScript's types are stripped), so a skill that
// reached a job without the host's check (a file edited by hand, a host bug) is refused before any of
// the job's code runs. The worker's persistent parent runs it (where no script code ever runs), before
// it makes the job's child. Script bodies are left to the runtime wall (docs/decisions.md, "JavaScript
// validation limits"): only the functions the job names as skills are checked here. The lists mirror
// src-main/core/lang/builtins.ts and js/rules/definitions.ts; test/unit/sandbox/skill-check.test.ts
// asks both sides the same questions.
import { parse } from './acorn.mjs';

export const FORBIDDEN_NAMES = [
  'eval',
  'Function',
  'AsyncFunction',
  'GeneratorFunction',
  'process',
  'globalThis',
  'global',
  'window',
  'self',
  'require',
  'module',
  'exports',
  '__dirname',
  '__filename',
  'Deno',
  'Bun',
  'Reflect',
  'Proxy',
  'WebAssembly',
  'SharedArrayBuffer',
  'Atomics',
  'setTimeout',
  'setInterval',
  'setImmediate',
  'queueMicrotask',
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'importScripts',
  'Buffer',
  'arguments',
];
export const FORBIDDEN_PROPERTIES = [
  'constructor',
  '__proto__',
  'prototype',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  'caller',
  'callee',
  'arguments',
  'prepareStackTrace',
  'captureStackTrace',
  'stackTraceLimit',
];
export const OBJECT_METHODS = [
  'keys',
  'values',
  'entries',
  'fromEntries',
  'assign',
  'freeze',
  'isFrozen',
  'seal',
  'isSealed',
  'hasOwn',
  'groupBy',
  'is',
  'getOwnPropertyNames',
  'create',
];
export const SYMBOL_MEMBERS = ['for', 'keyFor'];
export const HOOK_KEYS = ['then', 'toJSON'];
export const EMIT_NAMES = ['emitResult', 'emitIntermediate'];

const forbiddenName = new Set(FORBIDDEN_NAMES);
const forbiddenProperty = new Set(FORBIDDEN_PROPERTIES);
const objectMethods = new Set(OBJECT_METHODS);
const symbolMembers = new Set(SYMBOL_MEMBERS);
const hookKeys = new Set(HOOK_KEYS);
const emits = new Set(EMIT_NAMES);
const DUNDER = /^__.*__$/;

/** A key that folds to a constant string: 'a', `a`, 'a' + 'b'. */
function staticString(n) {
  if (!n) return undefined;
  if (n.type === 'Literal' && typeof n.value === 'string') return n.value;
  if (n.type === 'TemplateLiteral' && n.expressions.length === 0)
    return n.quasis[0]?.value.cooked ?? undefined;
  if (n.type === 'BinaryExpression' && n.operator === '+') {
    const a = staticString(n.left);
    const b = staticString(n.right);
    return a !== undefined && b !== undefined ? a + b : undefined;
  }
  return undefined;
}

const keyOf = (owner, keyNode) =>
  owner.computed
    ? staticString(keyNode)
    : keyNode?.type === 'Identifier'
      ? keyNode.name
      : staticString(keyNode);

/** The Identifier nodes a binding pattern declares. */
function bindings(p, out) {
  if (!p) return;
  if (p.type === 'Identifier') out.add(p);
  else if (p.type === 'ObjectPattern')
    for (const prop of p.properties) bindings(prop.type === 'RestElement' ? prop.argument : prop.value, out);
  else if (p.type === 'ArrayPattern') for (const el of p.elements) bindings(el, out);
  else if (p.type === 'RestElement') bindings(p.argument, out);
  else if (p.type === 'AssignmentPattern') bindings(p.left, out);
}

/** The problems of one skill's function: what the script rules refuse, each with its line in the function. */
function skillProblems(fn) {
  const problems = [];
  // `<skill>:<line>` with lines counted in the function (its `function` line is 1), where the skill's
  // own source has it (not "line N": the host maps that form to lines of the script's body).
  const first = fn.loc?.start.line ?? 1;
  const at = (n, what) => problems.push(`${(n.loc?.start.line ?? first) - first + 1}: ${what}`);
  const declared = new Set();
  if (fn.generator) at(fn, 'a skill is not a generator');
  const visit = (n, parent, key, inClass) => {
    if (!n || typeof n.type !== 'string') return;
    switch (n.type) {
      case 'VariableDeclarator':
        bindings(n.id, declared);
        break;
      case 'FunctionDeclaration':
      case 'FunctionExpression':
      case 'ArrowFunctionExpression':
        if (n.id) declared.add(n.id);
        for (const p of n.params) bindings(p, declared);
        if (n.generator) at(n, 'generators are not available');
        break;
      case 'ClassDeclaration':
      case 'ClassExpression':
        if (n.id) declared.add(n.id);
        break;
      case 'CatchClause':
        bindings(n.param, declared);
        break;
      case 'Identifier': {
        const notReference =
          declared.has(n) ||
          (key === 'property' && parent.type === 'MemberExpression' && !parent.computed) ||
          (key === 'key' && !parent.computed && parent.type !== 'AssignmentPattern') ||
          key === 'label';
        if (notReference) return;
        if (forbiddenName.has(n.name)) at(n, `${n.name} is not available to a skill`);
        if (n.name === 'Object' && !(parent.type === 'MemberExpression' && key === 'object'))
          at(n, 'Object is used only as Object.<method>(...)');
        if (
          n.name === 'Symbol' &&
          !(key === 'callee' || (parent.type === 'MemberExpression' && key === 'object'))
        )
          at(n, 'Symbol is used only as Symbol(...) or Symbol.for/keyFor');
        return;
      }
      case 'MemberExpression': {
        const k = keyOf(n, n.property);
        if (k !== undefined && (forbiddenProperty.has(k) || DUNDER.test(k))) at(n, `.${k} is not available`);
        if (n.object.type === 'Identifier' && n.object.name === 'Object') {
          if (k === undefined || !objectMethods.has(k)) at(n, `Object.${k ?? '[...]'} is not available`);
          else if (
            k === 'create' &&
            !(
              parent.type === 'CallExpression' &&
              key === 'callee' &&
              parent.arguments.length === 1 &&
              parent.arguments[0].type === 'Literal' &&
              parent.arguments[0].value === null
            )
          )
            at(n, 'Object.create is available only as Object.create(null)');
        }
        if (
          n.object.type === 'Identifier' &&
          n.object.name === 'Symbol' &&
          (k === undefined || !symbolMembers.has(k))
        )
          at(n, `Symbol.${k ?? '[...]'} is not available (well-known symbols)`);
        break;
      }
      case 'Property':
      case 'MethodDefinition':
      case 'PropertyDefinition': {
        const k = keyOf(n, n.key);
        if (n.kind === 'get' || n.kind === 'set') at(n, 'getters and setters are not available');
        if (
          k !== undefined &&
          (DUNDER.test(k) || (parent.type === 'ObjectPattern' && forbiddenProperty.has(k)))
        )
          at(n, `the key ${k} is not available`);
        const fn =
          n.method ||
          n.type === 'MethodDefinition' ||
          n.value?.type === 'FunctionExpression' ||
          n.value?.type === 'ArrowFunctionExpression';
        if (k !== undefined && hookKeys.has(k) && fn)
          at(n, `a ${k} method would run the skill's code when the value is used`);
        break;
      }
      case 'AssignmentExpression':
      case 'UpdateExpression': {
        let target = n.type === 'UpdateExpression' ? n.argument : n.left;
        if (target.type === 'MemberExpression' && hookKeys.has(keyOf(target, target.property)))
          at(n, `setting .${keyOf(target, target.property)} is not available`);
        if (target.type === 'MemberExpression') {
          while (target.type === 'MemberExpression') target = target.object;
          if (target.type === 'Identifier' && !isLocal(target.name))
            at(n, `writing to a member of ${target.name} is not available`);
        }
        break;
      }
      case 'CallExpression':
        if (n.callee.type === 'Identifier' && emits.has(n.callee.name))
          at(n, `a skill returns its value; ${n.callee.name} belongs to the script that calls it`);
        break;
      case 'ThisExpression':
      case 'Super':
        if (!inClass) at(n, `${n.type === 'Super' ? 'super' : 'this'} is available only inside a class`);
        break;
      case 'ImportExpression':
        at(n, 'import() is not available');
        break;
      case 'MetaProperty':
        at(n, `${n.meta.name}.${n.property.name} is not available`);
        return;
      case 'WithStatement':
        at(n, 'with is not available');
        break;
      case 'DebuggerStatement':
        at(n, 'debugger is not available');
        break;
      case 'TaggedTemplateExpression':
        at(n, 'tagged templates are not available');
        break;
    }
    const classBody = n.type === 'ClassBody';
    for (const k of Object.keys(n)) {
      if (k === 'loc' || k === 'start' || k === 'end' || k === 'type') continue;
      const v = n[k];
      if (Array.isArray(v)) for (const c of v) visit(c, n, k, inClass || classBody);
      else if (v && typeof v === 'object') visit(v, n, k, inClass || classBody);
    }
  };
  // A name the skill declares is its own: writing to its members is the skill's business.
  const isLocal = (name) => [...declared].some((d) => d.name === name);
  for (const p of fn.params) bindings(p, declared);
  for (const p of fn.params) visit(p, fn, 'params', false);
  visit(fn.body, fn, 'body', false);
  return problems;
}

/**
 * Checks the job's skills in its code (plain JS): every top-level function declaration named as one of
 * the job's skills (at most one each), that none of them does what the script rules refuse. Returns the problems ([] when clean).
 * Called once the runtime compiled the code (a syntax error has the compiler's own message).
 */
/**
 * `found`, when given, gets each skill the job defines, for the worker to record its calls: its name, its
 * parameters' names, and where its body's braces are (string offsets in `code`).
 */
export function checkSkills(code, skills, found) {
  if (!skills.length) return [];
  let program;
  try {
    program = parse(code, {
      ecmaVersion: 'latest',
      sourceType: 'script',
      allowAwaitOutsideFunction: true,
      allowReturnOutsideFunction: true,
      locations: true,
    });
  } catch (e) {
    // The runtime compiled it, so the check's parser should read it too: what it cannot read is refused.
    return [`the job's skills could not be checked: ${e instanceof Error ? e.message : String(e)}`];
  }
  const problems = [];
  for (const name of skills) {
    // The host names every skill the script may call; the script defines those its body calls.
    const defs = program.body.filter((s) => s.type === 'FunctionDeclaration' && s.id?.name === name);
    if (defs.length === 0) continue;
    if (defs.length > 1) {
      problems.push(`skill ${name}: defined more than once`);
      continue;
    }
    for (const p of skillProblems(defs[0])) problems.push(`skill ${name}:${p}`);
    if (found) {
      const def = defs[0];
      const params = def.params.map((p) =>
        p.type === 'Identifier'
          ? p.name
          : p.type === 'AssignmentPattern' && p.left.type === 'Identifier'
            ? p.left.name
            : undefined,
      );
      if (def.body?.type === 'BlockStatement' && params.every((p) => p !== undefined))
        found.push({ name, params, open: def.body.start, close: def.body.end - 1 });
    }
  }
  return problems;
}
