/**
 * The JS rule modules, in the order their handlers run for a node of a type several handle: the scopes
 * first (a node's bindings are known before the rules look at its children), strict mode last.
 */
import type * as t from '@babel/types';
import { mergeRules } from '../../rules.ts';
import type { MergedRules } from '../../rules.ts';
import { asRuleModules } from './context.ts';
import type { JsRuleContext, JsRuleModule } from './context.ts';
import { argumentRules } from './arguments.ts';
import { callRules } from './calls.ts';
import { definitionRules } from './definitions.ts';
import { importRules } from './imports.ts';
import { nameRules } from './names.ts';
import { propertyRules } from './properties.ts';
import { scopeRules } from './scopes.ts';
import { strictRules } from './strict.ts';
import { syntaxRules } from './syntax.ts';
import { toolRules } from './tools.ts';

export const JS_RULE_MODULES: readonly JsRuleModule[] = [
  scopeRules,
  importRules,
  syntaxRules,
  propertyRules,
  definitionRules,
  nameRules,
  toolRules,
  argumentRules,
  callRules,
];

export const JS_RULES_DISPATCH: MergedRules<t.Node, JsRuleContext> = mergeRules(
  asRuleModules(JS_RULE_MODULES),
);
export const JS_STRICT_RULES_DISPATCH: MergedRules<t.Node, JsRuleContext> = mergeRules(
  asRuleModules([...JS_RULE_MODULES, strictRules]),
);
