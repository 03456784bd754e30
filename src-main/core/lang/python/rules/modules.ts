/**
 * The pre-imported modules (json, math, re...): only ever the receiver of an allowed attribute
 * (`json.dumps`), never a value (their attributes are read-only: attribute-assign, attributes.ts).
 */
import { child, parentOf, textOf } from '../pyright.ts';
import type { PyTreeNode as PyNode } from '../pyright.ts';
import { isLabel, K, kindIs } from './context.ts';
import type { PyRuleContext, PyRuleModule } from './context.ts';
import { isInternalAttribute, MODULE_ATTRS, MODULES } from './known.ts';

/**
 * Used as a value (`m = json`, `getattr(json, "codecs")`, `f(json)`) a module could be walked without the
 * validator seeing which module it is.
 */
function checkModuleReference(n: PyNode, name: string, ctx: PyRuleContext): void {
  const p = parentOf(n);
  if (kindIs(p, K.MemberAccess) && child(p, 'leftExpr') === n) return;
  ctx.at(
    n,
    'module-attribute',
    `${name} can only be used as ${name}.<attribute>, never aliased, passed or inspected; ${name} offers ${MODULE_ATTRS.get(name)?.shown ?? ''}`,
  );
}

/** `json.dumps` is fine, `json.codecs` / `statistics.sys` (the module's own imports) are not. */
function checkModuleAttribute(module: string, attr: string, member: PyNode, ctx: PyRuleContext): void {
  const m = MODULE_ATTRS.get(module);
  if (!m) return;
  if (!m.allowed.has(attr)) {
    ctx.at(
      member,
      'module-attribute',
      `${module}.${attr} is not available: ${module} offers only ${m.shown}`,
    );
  }
  // Assigning one (`json.dumps = repr`) is attribute-assign's: no attribute is ever assigned.
}

export const moduleRules: PyRuleModule = {
  Name: (n, ctx) => {
    const name = textOf(n) ?? '';
    if (!MODULES.has(name) || isLabel(ctx.parent, ctx.role) || ctx.stores.has(n)) return;
    checkModuleReference(n, name, ctx);
  },
  MemberAccess: (n, ctx) => {
    const attr = textOf(n) ?? '';
    if (isInternalAttribute(attr)) return;
    const recv = child(n, 'leftExpr');
    if (kindIs(recv, K.Name) && MODULES.has(textOf(recv) ?? ''))
      checkModuleAttribute(textOf(recv) ?? '', attr, child(n, 'member') ?? n, ctx);
  },
};
