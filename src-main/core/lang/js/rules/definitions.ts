/**
 * Property definition and the objects behind a script: what changes how the runtime treats an object
 * (getters and setters in any form, prototypes, `then` / `toJSON`, well-known symbols), what writes to a
 * built-in or framework object (`JSON.stringify = ...`, `Object.assign(Math, ...)`), and what names the
 * global object or the function being run (`this` outside a class, `super` outside a class).
 * docs/decisions.md, "JavaScript validation limits", lists the rule set and why.
 */
import * as t from '@babel/types';
import { JS_FRAMEWORK_NAMES, JS_SAFE_GLOBALS } from '../../builtins.ts';
import { isCallLike, isLabel, isMemberLike, staticString } from './context.ts';
import type { JsRuleContext, JsRuleModule } from './context.ts';

/** `Object.<name>` a script may use: none of them defines an accessor or reaches a prototype. */
export const OBJECT_METHODS: ReadonlySet<string> = new Set([
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
]);
/** `Symbol.<name>` a script may use: the registry, never a well-known symbol. */
export const SYMBOL_MEMBERS: ReadonlySet<string> = new Set(['for', 'keyFor']);
/** Keys that make the runtime call the object's own code: a thenable, a JSON replacement. */
export const HOOK_KEYS: ReadonlySet<string> = new Set(['then', 'toJSON']);
/** Objects a script never writes to: the built-ins, the framework's helpers (tools are added per script). */
const BUILTIN_OBJECTS: ReadonlySet<string> = new Set([
  ...JS_SAFE_GLOBALS.filter((n) => !['undefined', 'NaN', 'Infinity'].includes(n)),
  ...JS_FRAMEWORK_NAMES,
  'Intl',
  'Iterator',
  'ArrayBuffer',
  'DataView',
  'WeakMap',
  'WeakSet',
  'WeakRef',
  'FinalizationRegistry',
  'AggregateError',
  'EvalError',
  'ReferenceError',
  'SyntaxError',
  'URIError',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int8Array',
  'Uint16Array',
  'Int16Array',
  'Uint32Array',
  'Int32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
]);

const DEFINE = 'property-definition';

/** The key of `a.b` / `a["b"]` / `a["b" + ""]`, or undefined when it is computed at run time. */
function memberKey(m: t.MemberExpression | t.OptionalMemberExpression): string | undefined {
  if (!m.computed) return t.isIdentifier(m.property) ? m.property.name : undefined;
  return staticString(m.property);
}

/** The identifier a member chain starts from (`JSON` in `JSON.parse.x`), if any. */
function rootName(n: t.Node): string | undefined {
  let cur: t.Node = n;
  while (isMemberLike(cur) || t.isTSNonNullExpression(cur) || t.isTSAsExpression(cur))
    cur = isMemberLike(cur) ? cur.object : cur.expression;
  return t.isIdentifier(cur) ? cur.name : undefined;
}

function isBuiltinRoot(name: string | undefined, ctx: JsRuleContext): name is string {
  return name !== undefined && (BUILTIN_OBJECTS.has(name) || ctx.tools.has(name));
}

/** A write target (assignment, update, delete, loop target, destructuring): members of built-ins refused. */
function checkTarget(n: t.Node | null | undefined, ctx: JsRuleContext): void {
  if (!n) return;
  if (isMemberLike(n)) {
    const root = rootName(n);
    if (isBuiltinRoot(root, ctx))
      ctx.at(n, DEFINE, `do not modify ${root}: built-in and framework objects are read-only`);
    const key = memberKey(n);
    if (key !== undefined && HOOK_KEYS.has(key))
      ctx.at(n, DEFINE, `do not set .${key}: it changes how the runtime treats the object`);
  } else if (t.isObjectPattern(n)) {
    for (const p of n.properties) checkTarget(t.isRestElement(p) ? p.argument : p.value, ctx);
  } else if (t.isArrayPattern(n)) {
    for (const el of n.elements) checkTarget(el, ctx);
  } else if (t.isRestElement(n)) checkTarget(n.argument, ctx);
  else if (t.isAssignmentPattern(n)) checkTarget(n.left, ctx);
}

/** The static name of an object-literal or class member key. */
function keyName(n: t.ObjectMember | t.ClassMethod | t.ClassProperty): string | undefined {
  const k = n.key;
  if (!n.computed) return t.isIdentifier(k) ? k.name : staticString(k);
  return staticString(k);
}

function checkMember(n: t.MemberExpression | t.OptionalMemberExpression, ctx: JsRuleContext): void {
  if (!t.isIdentifier(n.object)) return;
  const obj = n.object.name;
  if (obj !== 'Object' && obj !== 'Symbol') return;
  const key = memberKey(n);
  if (key === undefined) {
    ctx.at(n, DEFINE, `${obj}[...] with a key computed at run time is not available`);
    return;
  }
  if (obj === 'Object' && !OBJECT_METHODS.has(key))
    ctx.at(
      n.property,
      DEFINE,
      `Object.${key} is not available: properties are plain values (no getters, setters or prototypes); use Object.keys/values/entries/assign`,
    );
  if (obj === 'Symbol' && !SYMBOL_MEMBERS.has(key))
    ctx.at(n.property, DEFINE, `Symbol.${key}: well-known symbols change how the runtime treats an object`);
  if (obj === 'Object' && key === 'create') {
    const call = ctx.parent;
    const ok =
      isCallLike(call) &&
      ctx.key === 'callee' &&
      call.arguments.length === 1 &&
      t.isNullLiteral(call.arguments[0]);
    if (!ok) ctx.at(n, DEFINE, 'Object.create is only available as Object.create(null) (a plain dictionary)');
  }
}

function checkCall(n: t.CallExpression | t.OptionalCallExpression, ctx: JsRuleContext): void {
  const c = n.callee;
  if (!isMemberLike(c) || !t.isIdentifier(c.object, { name: 'Object' }) || memberKey(c) !== 'assign') return;
  const target = n.arguments[0];
  if (target && isBuiltinRoot(rootName(target), ctx))
    ctx.at(target, DEFINE, `do not modify ${rootName(target)}: built-in and framework objects are read-only`);
}

/** `Object` and `Symbol` only as `Object.keys(...)` / `Symbol(...)`, never as values to pass or alias. */
function checkIdentifier(n: t.Identifier, ctx: JsRuleContext): void {
  if (n.name !== 'Object' && n.name !== 'Symbol') return;
  if (isLabel(ctx.parent, ctx.key) || ctx.stores.has(n)) return;
  const p = ctx.parent;
  if (isMemberLike(p) && ctx.key === 'object') return;
  if (n.name === 'Symbol' && isCallLike(p) && ctx.key === 'callee') return;
  ctx.at(n, DEFINE, `${n.name} is only available through its listed methods (e.g. Object.keys(x))`);
}

function checkKey(
  n: t.ObjectMethod | t.ObjectProperty | t.ClassMethod | t.ClassProperty,
  ctx: JsRuleContext,
) {
  const name = keyName(n);
  if (name === undefined || !HOOK_KEYS.has(name)) return;
  const fn =
    t.isObjectMethod(n) ||
    t.isClassMethod(n) ||
    t.isFunctionExpression(n.value) ||
    t.isArrowFunctionExpression(n.value);
  if (fn)
    ctx.at(n.key, DEFINE, `do not define a ${name}() method: it changes how the runtime treats the object`);
}

/** True inside a class body (class code is always strict: `this` is the instance or undefined). */
const inClass = (ctx: JsRuleContext): boolean => ctx.ancestors.some((a) => t.isClassBody(a));

export const definitionRules: JsRuleModule = {
  ThisExpression: (n, ctx) => {
    if (!inClass(ctx))
      ctx.at(n, 'forbidden-syntax', '`this` is only available inside a class: use a variable or a parameter');
  },
  Super: (n, ctx) => {
    if (!inClass(ctx)) ctx.at(n, 'forbidden-syntax', '`super` is only available inside a class');
  },
  ClassAccessorProperty: (n, ctx) =>
    ctx.at(n, 'forbidden-syntax', 'accessor properties are not available: use plain properties'),
  Decorator: (n, ctx) => ctx.at(n, 'forbidden-syntax', 'decorators are not available'),
  MemberExpression: checkMember,
  OptionalMemberExpression: checkMember,
  CallExpression: checkCall,
  OptionalCallExpression: checkCall,
  Identifier: checkIdentifier,
  ObjectMethod: checkKey,
  ObjectProperty: checkKey,
  ClassMethod: checkKey,
  ClassProperty: checkKey,
  AssignmentExpression: (n, ctx) => checkTarget(n.left, ctx),
  UpdateExpression: (n, ctx) => checkTarget(n.argument, ctx),
  UnaryExpression: (n, ctx) => {
    if (n.operator === 'delete') checkTarget(n.argument, ctx);
  },
  ForOfStatement: (n, ctx) => checkTarget(n.left, ctx),
  ForInStatement: (n, ctx) => checkTarget(n.left, ctx),
};
