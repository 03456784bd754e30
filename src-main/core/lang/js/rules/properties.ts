/**
 * Properties: constructor, prototype, __proto__ and the other properties that reach the runtime, read
 * (`x.constructor`, `x["con" + "structor"]`), destructured (`{ constructor } = x`) or set as `__proto__`
 * in an object literal.
 */
import * as t from '@babel/types';
import { JS_FORBIDDEN_PROPERTIES } from '../../builtins.ts';
import { staticString } from './context.ts';
import type { JsRuleContext, JsRuleModule } from './context.ts';

function checkMember(n: t.MemberExpression | t.OptionalMemberExpression, ctx: JsRuleContext): void {
  const prop = n.property;
  // A private name (`this.#x`) is the class's own field: it is read as '', which no rule matches.
  const name = n.computed
    ? staticString(prop)
    : t.isIdentifier(prop)
      ? prop.name
      : t.isPrivateName(prop)
        ? ''
        : undefined;
  if (name !== undefined && Object.hasOwn(JS_FORBIDDEN_PROPERTIES, name))
    ctx.at(prop, 'forbidden-property', `.${name}: ${JS_FORBIDDEN_PROPERTIES[name]}`);
  else if (name !== undefined && /^__\w*__$/.test(name))
    ctx.at(prop, 'forbidden-property', `.${name}: double-underscore properties are not available`);
}

export const propertyRules: JsRuleModule = {
  ObjectProperty: (n, ctx) => {
    const k = n.key;
    const name = n.computed ? staticString(k) : t.isIdentifier(k) ? String(k.name) : staticString(k);
    if (name !== undefined && JS_FORBIDDEN_PROPERTIES[name] !== undefined && name === '__proto__')
      ctx.at(k, 'forbidden-property', `${name}: ${JS_FORBIDDEN_PROPERTIES[name]}`);
    if (t.isObjectPattern(ctx.parent) && name !== undefined && Object.hasOwn(JS_FORBIDDEN_PROPERTIES, name))
      ctx.at(k, 'forbidden-property', `destructuring ${name}: ${JS_FORBIDDEN_PROPERTIES[name]}`);
  },
  MemberExpression: checkMember,
  OptionalMemberExpression: checkMember,
};
