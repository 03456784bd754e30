/**
 * Strict mode (`options.strict`): only the node types of the restricted subset, arrow functions only as
 * callbacks of array methods, calls only to tools, helpers, safe globals and listed methods, `new` only
 * of Map, Set and Date.
 */
import * as t from '@babel/types';
import { JS_FRAMEWORK_NAMES, JS_SAFE_GLOBALS } from '../../builtins.ts';
import { isCallLike, isMemberLike } from './context.ts';
import type { JsRuleContext, JsRuleModule } from './context.ts';

const FRAMEWORK: ReadonlySet<string> = new Set(JS_FRAMEWORK_NAMES);
const SAFE_GLOBALS: ReadonlySet<string> = new Set(JS_SAFE_GLOBALS);
const STRICT_CALLBACK_METHODS: ReadonlySet<string> = new Set([
  'sort',
  'map',
  'filter',
  'reduce',
  'find',
  'findIndex',
  'some',
  'every',
  'flatMap',
  'forEach',
]);
const STRICT_METHODS: ReadonlySet<string> = new Set([
  ...STRICT_CALLBACK_METHODS,
  'push',
  'pop',
  'slice',
  'concat',
  'includes',
  'indexOf',
  'join',
  'keys',
  'values',
  'entries',
  'get',
  'set',
  'has',
  'add',
  'toFixed',
  'toLowerCase',
  'toUpperCase',
  'trim',
  'split',
  'startsWith',
  'endsWith',
  'replace',
  'padStart',
  'padEnd',
  'stringify',
  'parse',
  'round',
  'floor',
  'ceil',
  'max',
  'min',
  'abs',
  'sqrt',
  'isArray',
  'from',
  'all',
  'toISOString',
  'now',
]);
/**
 * The node types of the subset. Every node the walk reaches is checked, comments included (the File's
 * `comments`): a comment in a strict script is reported as CommentLine / CommentBlock.
 */
const STRICT_NODES: ReadonlySet<string> = new Set([
  'File',
  'Program',
  'ExpressionStatement',
  'VariableDeclaration',
  'VariableDeclarator',
  'Identifier',
  'StringLiteral',
  'NumericLiteral',
  'BooleanLiteral',
  'NullLiteral',
  'TemplateLiteral',
  'TemplateElement',
  'ArrayExpression',
  'ObjectExpression',
  'ObjectProperty',
  'SpreadElement',
  'MemberExpression',
  'OptionalMemberExpression',
  'CallExpression',
  'OptionalCallExpression',
  'AwaitExpression',
  'BinaryExpression',
  'LogicalExpression',
  'UnaryExpression',
  'ConditionalExpression',
  'AssignmentExpression',
  'UpdateExpression',
  'IfStatement',
  'BlockStatement',
  'ForOfStatement',
  'BreakStatement',
  'ContinueStatement',
  'ArrowFunctionExpression',
  'ObjectPattern',
  'ArrayPattern',
  'RestElement',
  'AssignmentPattern',
  'NewExpression',
  'ParenthesizedExpression',
  'EmptyStatement',
  'TSTypeAnnotation',
  'TSStringKeyword',
  'TSNumberKeyword',
  'TSBooleanKeyword',
  'TSAnyKeyword',
  'TSUnknownKeyword',
  'TSArrayType',
  'TSTypeReference',
  'TSAsExpression',
  'TSTypeLiteral',
  'TSPropertySignature',
  'TSUnionType',
  'TSLiteralType',
]);

/** The name of a non-computed or identifier property (`a.b`, `a[b]`), else ''. */
function propertyName(m: t.MemberExpression | t.OptionalMemberExpression): string {
  return t.isIdentifier(m.property) ? m.property.name : '';
}

function checkCall(n: t.CallExpression | t.OptionalCallExpression, ctx: JsRuleContext): void {
  const c = n.callee;
  if (t.isIdentifier(c)) {
    const name = c.name;
    if (!ctx.tools.has(name) && !FRAMEWORK.has(name) && !SAFE_GLOBALS.has(name))
      ctx.at(c, 'strict-call', `${name}() is not callable in strict mode`);
  } else if (isMemberLike(c)) {
    const m = propertyName(c);
    if (!STRICT_METHODS.has(m))
      ctx.at(c.property, 'strict-call', `.${m}() is not in the strict-mode method list`);
  } else ctx.at(n, 'strict-call', 'in strict mode only named functions and methods can be called');
}

export const strictRules: JsRuleModule = {
  // Comments are not in t.Node's union but the walk reaches them: only their `type` is read here.
  '*': (n, ctx) => {
    if (!STRICT_NODES.has(n.type))
      ctx.at(
        n,
        'strict-node',
        `${n.type} is not allowed in strict mode: use straight-line code, if/for...of and array methods`,
      );
  },
  ArrowFunctionExpression: (n, ctx) => {
    const call = ctx.parent;
    const callee = call && (isCallLike(call) || t.isNewExpression(call)) ? call.callee : undefined;
    const method = callee && isMemberLike(callee) ? propertyName(callee) : '';
    if (!(call && ctx.key === 'arguments' && STRICT_CALLBACK_METHODS.has(method)))
      ctx.at(
        n,
        'strict-node',
        'arrow functions are only allowed as callbacks of sort/map/filter/reduce/find/some/every',
      );
  },
  NewExpression: (n, ctx) => {
    const c = n.callee;
    if (!(t.isIdentifier(c) && ['Map', 'Set', 'Date'].includes(c.name)))
      ctx.at(n, 'strict-call', 'only new Map(), new Set() and new Date() are allowed in strict mode');
  },
  CallExpression: checkCall,
  OptionalCallExpression: checkCall,
};
