/**
 * The rules tier: deterministic scripts for intents that need no LLM. The built-in rule serves a task
 * that is itself a tool call with literal arguments (`get_user(user_id="u1")`, as people type when
 * trying a tool): the script is rebuilt from the parsed call, arguments re-rendered as literals.
 */
import { field, fieldList, parsePython } from '../lang/python/pyright.ts';
import { literalValue } from '../tools/extract.ts';
import type { JsonValue, Tool } from '../tools/model.ts';
import { pyLiteral } from '../tools/prompt.ts';
import type { ScriptSource } from '../orchestrator/orchestrator.ts';

function directCall(
  task: string,
  tools: readonly Tool[],
): { tool: string; args: JsonValue[]; kwargs: [string, JsonValue][] } | undefined {
  const text = task.trim();
  if (!/^[A-Za-z_][A-Za-z0-9_]*\s*\(/.test(text) || text.includes('\n')) return undefined;
  const parsed = parsePython(text);
  if (parsed.syntaxErrors.length) return undefined;
  const stmts = fieldList(parsed.module, 'statements');
  const inner =
    stmts.length === 1 && stmts[0]?.kind === 'StatementList' ? fieldList(stmts[0], 'statements') : [];
  const call = inner.length === 1 ? inner[0] : undefined;
  if (call?.kind !== 'Call') return undefined;
  const fn = field(call, 'leftExpr');
  if (fn?.kind !== 'Name' || !tools.some((t) => t.name === fn.value)) return undefined;
  const args: JsonValue[] = [];
  const kwargs: [string, JsonValue][] = [];
  for (const a of fieldList(call, 'args')) {
    if (a.category !== 'simple') return undefined;
    const v = literalValue(field(a, 'valueExpr'));
    if (typeof v === 'symbol') return undefined;
    if (a.value) kwargs.push([a.value, v]);
    else if (kwargs.length) return undefined;
    else args.push(v);
  }
  return { tool: fn.value ?? '', args, kwargs };
}

export const directCallRule: ScriptSource = {
  tier: 'rule',
  propose(task, ctx) {
    if (ctx.language !== 'python') return undefined;
    const c = directCall(task, ctx.tools);
    if (!c) return undefined;
    const argText = [...c.args.map(pyLiteral), ...c.kwargs.map(([k, v]) => `${k}=${pyLiteral(v)}`)].join(
      ', ',
    );
    return {
      name: 'direct-call',
      body: `r = ${c.tool}(${argText})\nif r.success:\n    emit_result(r.data)\nelse:\n    emit_result({"error": r.message})\n`,
    };
  },
};
