/**
 * str.format / format_map: they read the attributes and keys the template names, so the template must be
 * a plain string literal whose fields walk no attribute (`"{0.__class__}"`; item look-ups such as `"{0[id]}"` pass). A computed template
 * ("{0." + u + "class" + u + "}"), an f-string receiver or a bound `t.format` passed around could walk to
 * interpreter internals.
 */
import { categoryOf, child, parentOf, textOf } from '../pyright.ts';
import type { PyTreeNode as PyNode } from '../pyright.ts';
import { isCallee, K, kindIs, literalString, positionalArgs } from './context.ts';
import type { PyRuleContext, PyRuleModule } from './context.ts';
import { isInternalAttribute, USE_FSTRING } from './known.ts';

const FORMAT_METHODS = new Set(['format', 'format_map']);

/** A str.format replacement field's name (group 1), skipping `{{` and `}}` (FORMAT_FIELD in the worker). */
export const FORMAT_FIELD = /\{\{|\}\}|\{([^{}!:]*)/g;

/**
 * A field that only looks up items (`{0[id]}`, `{row[name][0]}`): keys of plain characters, closed, nothing
 * after the last one. Item access is what `d["id"]` does; it walks no attribute. (A key holding `!` or `:`
 * would end the field early for FORMAT_FIELD while Python reads on to the closing bracket, so such keys are
 * refused with every attribute walk.) ITEM_FIELD in the worker.
 */
export const ITEM_FIELD = /^[A-Za-z0-9_]*(?:\[[^\][{}!:.]+\])+$/;

/** Replacement fields of a str.format template that walk attributes (`{0.__class__}`, `{0[a!b].x}`). */
export function formatWalks(template: string): string[] {
  const walks: string[] = [];
  for (const m of template.matchAll(FORMAT_FIELD)) {
    const name = m[1];
    if (name === undefined) continue;
    if (name.includes('.') || (name.includes('[') && !ITEM_FIELD.test(name))) walks.push(name);
  }
  return walks;
}

function checkFormat(n: PyNode, attr: string, ctx: PyRuleContext): void {
  const recv = child(n, 'leftExpr');
  const call = isCallee(n) ? (parentOf(n) as PyNode) : undefined;
  let template = literalString(recv);
  if (template === undefined && kindIs(recv, K.Name) && textOf(recv) === 'str' && call) {
    const first = positionalArgs(call)[0];
    template =
      first && categoryOf(first) === 'simple' && !textOf(first)
        ? literalString(child(first, 'valueExpr'))
        : undefined;
    if (template === undefined) {
      ctx.at(
        call,
        'format-attribute-walk',
        `str.${attr}(template, ...) needs a string literal as its first argument; ${USE_FSTRING}`,
      );
      return;
    }
  }
  if (template === undefined) {
    ctx.at(
      call ?? n,
      'format-attribute-walk',
      `.${attr}(...) is only available directly on a string literal template (a computed template can walk attributes); ${USE_FSTRING}`,
    );
    return;
  }
  const walks = formatWalks(template);
  if (walks.length)
    ctx.at(
      call ?? n,
      'format-attribute-walk',
      `format fields may not walk attributes ({${walks[0]}}); pass the values themselves: "{}".format(value), or use an f-string`,
    );
}

export const formatRules: PyRuleModule = {
  MemberAccess: (n, ctx) => {
    const attr = textOf(n) ?? '';
    if (FORMAT_METHODS.has(attr) && !isInternalAttribute(attr)) checkFormat(n, attr, ctx);
  },
};
