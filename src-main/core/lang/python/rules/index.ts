/**
 * The Python rule modules, in the order their handlers run for a node of a kind several handle: the
 * scopes first (a node's bindings are known before the rules look at its children), strict mode last.
 */
import { mergeRules } from '../../rules.ts';
import { PY_KIND_ID } from '../pyright.ts';
import type { PyTreeNode as PyNode } from '../pyright.ts';
import type { PyHandler, PyRuleContext, PyRuleModule } from './context.ts';
import { argumentRules } from './arguments.ts';
import { attributeRules } from './attributes.ts';
import { callRules } from './calls.ts';
import { constructRules } from './constructs.ts';
import { formatRules } from './format.ts';
import { guardedRules } from './guarded.ts';
import { importRules } from './imports.ts';
import { moduleRules } from './modules.ts';
import { nameRules } from './names.ts';
import { scopeRules } from './scopes.ts';
import { strictRules } from './strict.ts';
import { stringRules } from './strings.ts';
import { toolRules } from './tools.ts';

export const PYTHON_RULE_MODULES: readonly PyRuleModule[] = [
  scopeRules,
  importRules,
  nameRules,
  moduleRules,
  toolRules,
  argumentRules,
  callRules,
  guardedRules,
  attributeRules,
  formatRules,
  stringRules,
  constructRules,
];

/** Handlers by numeric kind id (`kindIdOf`), and the handler of any other kind. */
export interface PyDispatch {
  readonly byId: readonly (PyHandler | undefined)[];
  readonly other: PyHandler | undefined;
}

function dispatch(modules: readonly PyRuleModule[]): PyDispatch {
  const merged = mergeRules<PyNode, PyRuleContext>(modules);
  const byId: (PyHandler | undefined)[] = [];
  for (const [kind, id] of Object.entries(PY_KIND_ID)) byId[id] = merged.byKind.get(kind) ?? merged.other;
  for (const kind of merged.byKind.keys())
    if (PY_KIND_ID[kind] === undefined) throw new Error(`python rules: no node kind ${kind}`);
  return { byId, other: merged.other };
}

export const PYTHON_RULES_DISPATCH: PyDispatch = dispatch(PYTHON_RULE_MODULES);
export const PYTHON_STRICT_RULES_DISPATCH: PyDispatch = dispatch([...PYTHON_RULE_MODULES, strictRules]);
