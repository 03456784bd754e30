/**
 * The JS/TS validator: @babel/parser with error recovery, one walk over the tree, every violation
 * collected with its range and an instruction for the LLM.
 */
import { parse } from '@babel/parser';
import type { Node } from '@babel/types';
import {
  JS_EMIT_NAMES,
  JS_FORBIDDEN_NAMES,
  JS_FORBIDDEN_PROPERTIES,
  JS_FRAMEWORK_NAMES,
  JS_SAFE_GLOBALS,
} from '../builtins.ts';
import { sortViolations } from '../violation.ts';
import type { ValidateOptions, ValidationResult, Violation } from '../violation.ts';

export const JS_RULES: Readonly<Record<string, string>> = {
  syntax: 'the script does not parse',
  'empty-script': 'the script has no statements',
  'no-import': 'import/export declarations, require(), dynamic import(), import.meta',
  'forbidden-name':
    'a reference to eval, Function, process, globalThis, require, Reflect, timers, fetch and the like',
  'forbidden-property': 'constructor, prototype, __proto__ and other properties that reach the runtime',
  'forbidden-syntax': 'with, debugger, new.target, getters/setters, labels on internals',
  'rebind-framework': 'rebinding emitResult, emitIntermediate, emitLog, credential, collected or a tool name',
  'tool-not-called': 'a tool referenced without being called',
  'tool-not-awaited': 'a tool call that is not awaited',
  'missing-emit': 'no call to emitResult or emitIntermediate',
  'strict-node': 'strict mode: a construct outside the restricted subset',
  'strict-call': 'strict mode: a call to something other than a tool, a helper or a whitelisted method',
};

const FRAMEWORK = new Set(JS_FRAMEWORK_NAMES);
const EMIT = new Set(JS_EMIT_NAMES);
const SAFE_GLOBALS = new Set(JS_SAFE_GLOBALS);
const STRICT_CALLBACK_METHODS = new Set([
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
const STRICT_METHODS = new Set([
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
const STRICT_NODES = new Set([
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

type AnyNode = Node & Record<string, unknown>;

function isNode(v: unknown): v is AnyNode {
  return (
    typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string' && 'loc' in v
  );
}

/** Children with the key they sit under, in source order. */
function children(n: AnyNode): [string, AnyNode][] {
  const out: [string, AnyNode][] = [];
  for (const [k, v] of Object.entries(n)) {
    if (
      k === 'loc' ||
      k === 'leadingComments' ||
      k === 'trailingComments' ||
      k === 'innerComments' ||
      k === 'extra'
    )
      continue;
    if (Array.isArray(v)) {
      for (const x of v) if (isNode(x)) out.push([k, x]);
    } else if (isNode(v)) out.push([k, v]);
  }
  return out;
}

/** Folds a string-valued expression made of literals (`"con" + "structor"`, `` `proto` ``). */
export function staticString(n: AnyNode | undefined): string | undefined {
  if (!n) return undefined;
  if (n.type === 'StringLiteral') return String(n['value']);
  if (n.type === 'TemplateLiteral') {
    const exprs = n['expressions'] as AnyNode[];
    if (exprs.length) return undefined;
    return (n['quasis'] as AnyNode[])
      .map((q) => String((q['value'] as { cooked?: string }).cooked ?? ''))
      .join('');
  }
  if (n.type === 'BinaryExpression' && n['operator'] === '+') {
    const l = staticString(n['left'] as AnyNode);
    const r = staticString(n['right'] as AnyNode);
    return l !== undefined && r !== undefined ? l + r : undefined;
  }
  return undefined;
}

export function validateJs(
  code: string,
  options: ValidateOptions & { typescript?: boolean },
): ValidationResult {
  const violations: Violation[] = [];
  const tools = new Set(options.tools);
  const push = (
    n: { loc?: { start: { line: number; column: number }; end: { line: number; column: number } } | null },
    rule: string,
    message: string,
  ) => {
    const loc = n.loc;
    if (!loc) return;
    violations.push({
      rule,
      message,
      line: loc.start.line,
      column: loc.start.column + 1,
      endLine: loc.end.line,
      endColumn: loc.end.column + 1,
    });
  };
  let file: ReturnType<typeof parse>;
  try {
    file = parse(code, {
      sourceType: 'script',
      errorRecovery: true,
      allowAwaitOutsideFunction: true,
      allowReturnOutsideFunction: false,
      plugins: options.typescript ? ['typescript'] : [],
    });
  } catch (e) {
    const err = e as { message?: string; loc?: { line: number; column: number } };
    const line = err.loc?.line ?? 1;
    const column = (err.loc?.column ?? 0) + 1;
    return {
      valid: false,
      violations: [
        {
          rule: 'syntax',
          message: `syntax error: ${err.message ?? String(e)}`,
          line,
          column,
          endLine: line,
          endColumn: column + 1,
        },
      ],
    };
  }
  for (const e of file.errors) {
    const loc = (e as unknown as { loc: { line: number; column: number } }).loc;
    violations.push({
      rule: 'syntax',
      message:
        `syntax error: ${e.reasonCode}: ${(e as unknown as { message?: string }).message ?? ''}`.trim(),
      line: loc.line,
      column: loc.column + 1,
      endLine: loc.line,
      endColumn: loc.column + 2,
    });
  }
  const body = file.program.body;
  if (body.length === 0) {
    violations.push({
      rule: 'empty-script',
      message: 'the script is empty: write the code that solves the task and ends with emitResult(...)',
      line: 1,
      column: 1,
      endLine: 1,
      endColumn: 1,
    });
    return { valid: false, violations };
  }
  const stores = new Set<AnyNode>();
  const patternTargets = (p: AnyNode | undefined): void => {
    if (!p) return;
    switch (p.type) {
      case 'Identifier':
        stores.add(p);
        break;
      case 'ObjectPattern':
        for (const prop of p['properties'] as AnyNode[])
          patternTargets((prop.type === 'RestElement' ? prop['argument'] : prop['value']) as AnyNode);
        break;
      case 'ArrayPattern':
        for (const el of p['elements'] as (AnyNode | null)[]) if (el) patternTargets(el);
        break;
      case 'RestElement':
        patternTargets(p['argument'] as AnyNode);
        break;
      case 'AssignmentPattern':
        patternTargets(p['left'] as AnyNode);
        break;
      case 'TSParameterProperty':
        patternTargets(p['parameter'] as AnyNode);
        break;
      default:
        break;
    }
  };
  let emits = 0;
  const visit = (n: AnyNode, parent: AnyNode | undefined, key: string, ancestors: AnyNode[]): void => {
    switch (n.type) {
      case 'ImportDeclaration':
      case 'ExportNamedDeclaration':
      case 'ExportDefaultDeclaration':
      case 'ExportAllDeclaration':
        push(
          n,
          'no-import',
          'modules are not available: no import or export; JSON, Math, Date, Map and Set are built in',
        );
        return;
      case 'Import':
      case 'ImportExpression':
        push(n, 'no-import', 'dynamic import() is not available');
        break;
      case 'MetaProperty':
        push(
          n,
          n['meta'] && (n['meta'] as AnyNode)['name'] === 'import' ? 'no-import' : 'forbidden-syntax',
          'import.meta and new.target are not available',
        );
        break;
      case 'WithStatement':
      case 'DebuggerStatement':
        push(n, 'forbidden-syntax', `${n.type === 'WithStatement' ? 'with' : 'debugger'} is not available`);
        break;
      case 'VariableDeclarator':
        patternTargets(n['id'] as AnyNode);
        break;
      case 'FunctionDeclaration':
      case 'FunctionExpression':
      case 'ArrowFunctionExpression':
      case 'ClassDeclaration':
      case 'ClassExpression':
        if (n['id']) stores.add(n['id'] as AnyNode);
        for (const p of (n['params'] as AnyNode[] | undefined) ?? []) patternTargets(p);
        if (n['generator']) push(n, 'forbidden-syntax', 'generators are not available: build an array');
        break;
      case 'CatchClause':
        patternTargets(n['param'] as AnyNode | undefined);
        break;
      case 'AssignmentExpression':
        patternTargets(n['left'] as AnyNode);
        break;
      case 'UpdateExpression':
        patternTargets(n['argument'] as AnyNode);
        break;
      case 'ForOfStatement':
      case 'ForInStatement': {
        const left = n['left'] as AnyNode;
        if (left.type !== 'VariableDeclaration') patternTargets(left);
        break;
      }
      case 'ObjectMethod':
      case 'ClassMethod':
      case 'ClassPrivateMethod':
        if (n['kind'] === 'get' || n['kind'] === 'set')
          push(n, 'forbidden-syntax', 'getters and setters are not available: use plain properties');
        break;
      case 'ObjectProperty': {
        const k = n['key'] as AnyNode;
        const name = n['computed']
          ? staticString(k)
          : k.type === 'Identifier'
            ? String(k['name'])
            : staticString(k);
        if (name !== undefined && JS_FORBIDDEN_PROPERTIES[name] !== undefined && name === '__proto__')
          push(k, 'forbidden-property', `${name}: ${JS_FORBIDDEN_PROPERTIES[name]}`);
        if (
          parent?.type === 'ObjectPattern' &&
          name !== undefined &&
          Object.hasOwn(JS_FORBIDDEN_PROPERTIES, name)
        )
          push(k, 'forbidden-property', `destructuring ${name}: ${JS_FORBIDDEN_PROPERTIES[name]}`);
        break;
      }
      case 'MemberExpression':
      case 'OptionalMemberExpression': {
        const prop = n['property'] as AnyNode;
        const name = n['computed']
          ? staticString(prop)
          : prop.type === 'Identifier' || prop.type === 'PrivateName'
            ? String(prop['name'] ?? '')
            : undefined;
        if (name !== undefined && Object.hasOwn(JS_FORBIDDEN_PROPERTIES, name))
          push(prop, 'forbidden-property', `.${name}: ${JS_FORBIDDEN_PROPERTIES[name]}`);
        else if (name !== undefined && /^__\w*__$/.test(name))
          push(prop, 'forbidden-property', `.${name}: double-underscore properties are not available`);
        break;
      }
      case 'CallExpression':
      case 'OptionalCallExpression':
      case 'NewExpression': {
        const callee = n['callee'] as AnyNode;
        if (callee.type === 'Identifier') {
          const name = String(callee['name']);
          if (EMIT.has(name)) emits++;
          if (tools.has(name) && n.type !== 'NewExpression') {
            const awaited = parent?.type === 'AwaitExpression' || ancestors.some((a) => isPromiseAll(a));
            if (!awaited) push(n, 'tool-not-awaited', `tools are async: write await ${name}(...)`);
          }
        }
        if (callee.type === 'Import') push(n, 'no-import', 'dynamic import() is not available');
        break;
      }
      case 'TaggedTemplateExpression':
        push(n, 'forbidden-syntax', 'tagged templates are not available: use a plain template string');
        break;
      case 'LabeledStatement':
        break;
      case 'Identifier': {
        const name = String(n['name']);
        if (isLabel(n, parent, key)) break;
        if (Object.hasOwn(JS_FORBIDDEN_NAMES, name))
          push(n, 'forbidden-name', `${name} is not available: ${JS_FORBIDDEN_NAMES[name]}`);
        if (stores.has(n)) {
          if (FRAMEWORK.has(name))
            push(
              n,
              'rebind-framework',
              `do not rebind ${name}: it is provided by the framework; use another name`,
            );
          else if (tools.has(name))
            push(
              n,
              'rebind-framework',
              `do not rebind the tool ${name}: use another name, e.g. ${name}Result`,
            );
        } else if (
          tools.has(name) &&
          !(
            parent &&
            (parent.type === 'CallExpression' || parent.type === 'OptionalCallExpression') &&
            key === 'callee'
          )
        ) {
          push(
            n,
            'tool-not-called',
            `the tool ${name} is referenced without being called: const r = await ${name}({...}) and use r.data`,
          );
        }
        break;
      }
      default:
        break;
    }
    if (options.strict) strictCheck(n, parent, key, tools, push);
    const next = [...ancestors, n];
    for (const [k, c] of children(n)) visit(c, n, k, next);
  };
  visit(file as unknown as AnyNode, undefined, '', []);
  if (options.requireEmit !== false && emits === 0 && file.errors.length === 0) {
    push(
      body[body.length - 1] as AnyNode,
      'missing-emit',
      'the script never calls emitResult(...) or emitIntermediate(...): end it with emitResult(answer)',
    );
  }
  const sorted = sortViolations(violations);
  return { valid: sorted.length === 0, violations: sorted };
}

function isPromiseAll(n: AnyNode): boolean {
  if (n.type !== 'CallExpression') return false;
  const c = n['callee'] as AnyNode;
  return (
    c.type === 'MemberExpression' &&
    (c['object'] as AnyNode).type === 'Identifier' &&
    (c['object'] as AnyNode)['name'] === 'Promise' &&
    (c['property'] as AnyNode)['name'] === 'all'
  );
}

/** Identifiers that are property names or labels, not variable references. */
function isLabel(_n: AnyNode, parent: AnyNode | undefined, key: string): boolean {
  if (!parent) return false;
  if (
    (parent.type === 'MemberExpression' || parent.type === 'OptionalMemberExpression') &&
    key === 'property' &&
    !parent['computed']
  )
    return true;
  if (
    (parent.type === 'ObjectProperty' ||
      parent.type === 'ObjectMethod' ||
      parent.type === 'ClassMethod' ||
      parent.type === 'ClassProperty') &&
    key === 'key' &&
    !parent['computed']
  ) {
    return !(
      parent.type === 'ObjectProperty' &&
      parent['shorthand'] &&
      (parent['value'] as AnyNode)?.type === 'Identifier' &&
      false
    );
  }
  if (
    (parent.type === 'LabeledStatement' ||
      parent.type === 'BreakStatement' ||
      parent.type === 'ContinueStatement') &&
    key === 'label'
  )
    return true;
  if (
    parent.type.startsWith('TS') &&
    parent.type !== 'TSAsExpression' &&
    parent.type !== 'TSNonNullExpression' &&
    parent.type !== 'TSSatisfiesExpression'
  )
    return true;
  return false;
}

type Push = (n: AnyNode, rule: string, message: string) => void;

function strictCheck(
  n: AnyNode,
  parent: AnyNode | undefined,
  key: string,
  tools: Set<string>,
  push: Push,
): void {
  if (!STRICT_NODES.has(n.type)) {
    push(
      n,
      'strict-node',
      `${n.type} is not allowed in strict mode: use straight-line code, if/for...of and array methods`,
    );
    return;
  }
  if (n.type === 'ArrowFunctionExpression') {
    const call = parent;
    const callee = call?.['callee'] as AnyNode | undefined;
    const method =
      callee && (callee.type === 'MemberExpression' || callee.type === 'OptionalMemberExpression')
        ? String((callee['property'] as AnyNode)['name'] ?? '')
        : '';
    if (!(call && key === 'arguments' && STRICT_CALLBACK_METHODS.has(method)))
      push(
        n,
        'strict-node',
        'arrow functions are only allowed as callbacks of sort/map/filter/reduce/find/some/every',
      );
  }
  if (n.type === 'NewExpression') {
    const c = n['callee'] as AnyNode;
    if (!(c.type === 'Identifier' && ['Map', 'Set', 'Date'].includes(String(c['name']))))
      push(n, 'strict-call', 'only new Map(), new Set() and new Date() are allowed in strict mode');
  }
  if (n.type === 'CallExpression' || n.type === 'OptionalCallExpression') {
    const c = n['callee'] as AnyNode;
    if (c.type === 'Identifier') {
      const name = String(c['name']);
      if (!tools.has(name) && !FRAMEWORK.has(name) && !SAFE_GLOBALS.has(name))
        push(c, 'strict-call', `${name}() is not callable in strict mode`);
    } else if (c.type === 'MemberExpression' || c.type === 'OptionalMemberExpression') {
      const m = String((c['property'] as AnyNode)['name'] ?? '');
      if (!STRICT_METHODS.has(m))
        push(c['property'] as AnyNode, 'strict-call', `.${m}() is not in the strict-mode method list`);
    } else push(n, 'strict-call', 'in strict mode only named functions and methods can be called');
  }
}
