/** Syntax scripts do not need: with, debugger, generators, getters and setters, tagged templates. */
import * as t from '@babel/types';
import type { JsRuleContext, JsRuleModule } from './context.ts';

function noGenerator(n: t.Function | t.Class, ctx: JsRuleContext): void {
  if (t.isFunction(n) && n.generator)
    ctx.at(n, 'forbidden-syntax', 'generators are not available: build an array');
}

function noAccessor(n: t.ObjectMethod | t.ClassMethod | t.ClassPrivateMethod, ctx: JsRuleContext): void {
  if (n.kind === 'get' || n.kind === 'set')
    ctx.at(n, 'forbidden-syntax', 'getters and setters are not available: use plain properties');
}

export const syntaxRules: JsRuleModule = {
  WithStatement: (n, ctx) => ctx.at(n, 'forbidden-syntax', 'with is not available'),
  DebuggerStatement: (n, ctx) => ctx.at(n, 'forbidden-syntax', 'debugger is not available'),
  FunctionDeclaration: noGenerator,
  FunctionExpression: noGenerator,
  ArrowFunctionExpression: noGenerator,
  ClassDeclaration: noGenerator,
  ClassExpression: noGenerator,
  ObjectMethod: noAccessor,
  ClassMethod: noAccessor,
  ClassPrivateMethod: noAccessor,
  TaggedTemplateExpression: (n, ctx) =>
    ctx.at(n, 'forbidden-syntax', 'tagged templates are not available: use a plain template string'),
};
