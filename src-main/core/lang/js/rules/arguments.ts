/**
 * Tool-call arguments (`tool-arguments`, `tool-argument-type`), as the Python rule (core/lang/signature.ts):
 * a tool takes one object of named arguments (`await get_user({user_id: "u1"})`), whose written-out keys
 * are checked against the tool's parameters; a JS/TS skill takes positional arguments. A call that
 * spreads (`f(...xs)`, `f({...o})`), computes a key, or passes anything but an object literal (a
 * variable) is left alone: only what is statically certain is judged.
 */
import * as t from '@babel/types';
import { checkArguments } from '../../signature.ts';
import type { CallArgs, LiteralType } from '../../signature.ts';
import type { JsRuleContext, JsRuleModule } from './context.ts';

/** The type of a literal argument, as the checker compares it with a parameter's. */
function literalType(n: t.Node | undefined): LiteralType | undefined {
  if (!n) return undefined;
  if (t.isStringLiteral(n) || t.isTemplateLiteral(n)) return 'str';
  if (t.isNumericLiteral(n)) return Number.isInteger(n.value) ? 'int' : 'float';
  if (t.isUnaryExpression(n) && (n.operator === '-' || n.operator === '+') && t.isNumericLiteral(n.argument))
    return Number.isInteger(n.argument.value) ? 'int' : 'float';
  if (t.isBooleanLiteral(n)) return 'bool';
  if (t.isNullLiteral(n)) return 'none';
  if (t.isArrayExpression(n)) return 'list';
  if (t.isObjectExpression(n)) return 'dict';
  return undefined;
}

/** The object literal's keys and their values' literal types; undefined when a key is not certain. */
function objectKeys(o: t.ObjectExpression): CallArgs['keywords'] | undefined {
  const out: CallArgs['keywords'] = [];
  for (const p of o.properties) {
    if (!t.isObjectProperty(p)) return undefined; // {...o}, methods
    let key: string;
    if (t.isIdentifier(p.key) && !p.computed) key = p.key.name;
    else if (t.isStringLiteral(p.key)) key = p.key.value;
    else if (t.isNumericLiteral(p.key)) key = String(p.key.value);
    else return undefined;
    out.push({ name: key, type: literalType(p.value) });
  }
  return out;
}

function checkCall(n: t.CallExpression | t.OptionalCallExpression, ctx: JsRuleContext): void {
  const callee = n.callee;
  if (!t.isIdentifier(callee) || !ctx.tools.has(callee.name) || !ctx.shapes) return;
  const name = callee.name;
  const shape = Object.hasOwn(ctx.shapes, name) ? ctx.shapes[name] : undefined;
  if (!shape) return;
  const args = n.arguments;
  if (args.some((a) => t.isSpreadElement(a))) return;
  let call: CallArgs;
  const sig = ` (${shape.text})`;
  if (shape.objectArgument) {
    const [first, second] = args;
    if (second) {
      ctx.at(
        second,
        'tool-arguments',
        `${name}() takes one object of named arguments, e.g. await ${name}({...}), not ${args.length} arguments${sig}`,
      );
      return;
    }
    if (first === undefined) call = { positional: [], keywords: [] };
    else if (t.isObjectExpression(first)) {
      const keywords = objectKeys(first);
      if (!keywords) return;
      call = { positional: [], keywords };
    } else {
      if (literalType(first) !== undefined)
        ctx.at(
          first,
          'tool-arguments',
          `${name}() takes one object of named arguments, e.g. await ${name}({${shape.params[0]?.name ?? 'name'}: ...}), not a bare value${sig}`,
        );
      return; // a variable or an expression: its keys are not known
    }
  } else call = { positional: args.map((a) => literalType(a)), keywords: [] };
  for (const p of checkArguments(name, shape, call, 'js')) {
    let at: t.Node = n;
    if (p.positional !== undefined) at = args[p.positional] ?? n;
    else if (p.keyword !== undefined && shape.objectArgument && t.isObjectExpression(args[0]))
      at = args[0].properties[p.keyword] ?? n;
    ctx.at(at, p.rule, p.message);
  }
}

export const argumentRules: JsRuleModule = {
  CallExpression: checkCall,
  OptionalCallExpression: checkCall,
};
