/**
 * "Make a skill" from lines of a successful JS/TS script, as propose.ts does for Python: the selected
 * lines become the body of an async function; literals that came from the task become parameters (named
 * by their property key when they are one, as `{ user_id: "u1" }`), names the lines read but do not
 * define become the rest of the signature, names they define that the rest of the script reads become
 * the return value, `emitResult(x)` becomes `return x`, and the run's values become the first test case.
 */
import { parse } from '@babel/parser';
import * as t from '@babel/types';
import { JS_FRAMEWORK_NAMES, JS_SAFE_GLOBALS } from '../lang/builtins.ts';
import { proposePattern } from '../templates/template.ts';
import type { JsonValue } from '../tools/model.ts';
import type { JsSkillLanguage } from './js-skill.ts';
import type { SkillProposal } from './propose.ts';
import { dedent, selectLines, valueType } from './proposal-parts.ts';

type Lit = { value: JsonValue; start: number; end: number };

function literal(n: t.Node): Lit | undefined {
  if ((t.isStringLiteral(n) || t.isNumericLiteral(n)) && n.start != null && n.end != null)
    return { value: n.value, start: n.start, end: n.end };
  return undefined;
}

const TS_TYPE: Record<string, string> = {
  str: 'string',
  int: 'number',
  float: 'number',
  bool: 'boolean',
  list: 'unknown[]',
  dict: 'Record<string, unknown>',
  any: 'any',
};
const DOC_TYPE: Record<string, string> = {
  str: 'string',
  int: 'number',
  float: 'number',
  bool: 'boolean',
  list: 'Array',
  dict: 'Object',
  any: '*',
};

const parseJs = (code: string, language: JsSkillLanguage) =>
  parse(code, {
    sourceType: 'script',
    allowAwaitOutsideFunction: true,
    allowReturnOutsideFunction: true,
    plugins: language === 'ts' ? ['typescript'] : [],
  });

/** Keys that hold no code a name is read or written in (types, locations, comments). */
const SKIP_KEYS = new Set([
  'loc',
  'extra',
  'leadingComments',
  'trailingComments',
  'innerComments',
  'typeAnnotation',
  'returnType',
  'typeParameters',
  'typeArguments',
  'superTypeParameters',
]);

/** The Identifier nodes a binding pattern stores to. */
function targets(p: t.Node | null | undefined, out: Set<t.Node>): void {
  if (!p) return;
  if (t.isIdentifier(p)) out.add(p);
  else if (t.isObjectPattern(p))
    for (const prop of p.properties) targets(t.isRestElement(prop) ? prop.argument : prop.value, out);
  else if (t.isArrayPattern(p)) for (const el of p.elements) targets(el, out);
  else if (t.isRestElement(p)) targets(p.argument, out);
  else if (t.isAssignmentPattern(p)) targets(p.left, out);
  else if (t.isTSParameterProperty(p)) targets(p.parameter, out);
}

/**
 * Walks the names of a tree in the order they take effect, telling reads from writes: a declaration's
 * or assignment's value is read before its target is written, a loop's iterable before its variable.
 */
function names(root: t.Node, on: (name: string, store: boolean) => void): void {
  const stores = new Set<t.Node>();
  const visit = (n: t.Node, parent: t.Node | undefined, grand: t.Node | undefined): void => {
    if (t.isIdentifier(n)) {
      if (stores.has(n)) on(n.name, true);
      else if (!parent || t.isReferenced(n, parent, grand)) on(n.name, false);
      return;
    }
    // Type-only nodes: only an expression they wrap (`x as T`, `x!`) is code.
    if (n.type.startsWith('TS')) {
      const e = (n as { expression?: t.Node }).expression;
      if (e && typeof e === 'object') visit(e, n, parent);
      return;
    }
    const order: string[] = [];
    if (t.isVariableDeclarator(n)) {
      targets(n.id, stores);
      order.push('init', 'id');
    } else if (t.isAssignmentExpression(n)) {
      targets(n.left, stores);
      if (n.operator !== '=' && t.isIdentifier(n.left)) on(n.left.name, false);
      order.push('right', 'left');
    } else if (t.isUpdateExpression(n) && t.isIdentifier(n.argument)) {
      on(n.argument.name, false);
      on(n.argument.name, true);
      return;
    } else if (t.isForOfStatement(n) || t.isForInStatement(n)) {
      if (!t.isVariableDeclaration(n.left)) targets(n.left, stores);
      order.push('right', 'left', 'body');
    } else if (t.isFunction(n)) {
      if ((t.isFunctionDeclaration(n) || t.isFunctionExpression(n)) && n.id) stores.add(n.id);
      for (const p of n.params) targets(p, stores);
    } else if (t.isCatchClause(n)) targets(n.param, stores);
    else if (t.isClass(n) && n.id) stores.add(n.id);
    const keys = [...order, ...Object.keys(n).filter((k) => !order.includes(k))];
    for (const k of keys) {
      if (SKIP_KEYS.has(k)) continue;
      const v = (n as unknown as Record<string, unknown>)[k];
      for (const c of Array.isArray(v) ? v : [v])
        if (c && typeof c === 'object' && typeof (c as { type?: unknown }).type === 'string')
          visit(c as t.Node, n, parent);
    }
  };
  visit(root, undefined, undefined);
}

/**
 * Proposes a JS/TS skill from lines `start`..`end` (1-based, inclusive) of a script body, for a run's
 * task. `tools` are the names the script could call (they are not parameters).
 */
export function proposeJsSkill(req: {
  body: string;
  start: number;
  end: number;
  task: string;
  tools: readonly string[];
  language: JsSkillLanguage;
  name?: string;
}): SkillProposal {
  const { all, start, end, selected } = selectLines(req.body, req.start, req.end);
  let program: t.Program;
  try {
    program = parseJs(selected, req.language).program;
  } catch (e) {
    throw new Error(`lines ${start}-${end} are not whole statements: ${(e as Error).message}`);
  }
  const isKnown = new Set<string>([...JS_SAFE_GLOBALS, ...JS_FRAMEWORK_NAMES, ...req.tools]);

  // Literals that came from the task (as template slots): parameters, named by their property key.
  const fromTask = new Set(Object.values(proposePattern(req.task).values).map((v) => JSON.stringify(v)));
  const params: SkillProposal['parameters'] = [];
  const edits: { start: number; end: number; text: string }[] = [];
  const walkLits = (n: t.Node, parent?: t.Node): void => {
    const lit = literal(n);
    if (lit && fromTask.has(JSON.stringify(lit.value)) && !(t.isObjectProperty(parent) && parent.key === n)) {
      const same = params.find(
        (p) => p.from === 'task' && JSON.stringify(p.value) === JSON.stringify(lit.value),
      );
      let pname = same?.name;
      if (!pname) {
        const key =
          t.isObjectProperty(parent) && !parent.computed && t.isIdentifier(parent.key)
            ? parent.key.name
            : undefined;
        pname =
          key && !params.some((p) => p.name === key) && !isKnown.has(key) ? key : `value${params.length + 1}`;
        params.push({ name: pname, type: valueType(lit.value), value: lit.value, from: 'task' });
      }
      edits.push({ start: lit.start, end: lit.end, text: pname });
      return;
    }
    for (const [k, v] of Object.entries(n))
      if (!SKIP_KEYS.has(k))
        for (const c of Array.isArray(v) ? v : [v])
          if (c && typeof c === 'object' && typeof (c as { type?: unknown }).type === 'string')
            walkLits(c as t.Node, n);
  };
  walkLits(program);

  // Names used before the lines define them: the rest of the signature (the value known when an earlier
  // top-level `const x = <literal>` set it).
  const earlier = new Map<string, JsonValue>();
  try {
    for (const st of parseJs(all.slice(0, start - 1).join('\n') + '\n', req.language).program.body)
      if (t.isVariableDeclaration(st))
        for (const d of st.declarations)
          if (t.isIdentifier(d.id)) {
            const lit = d.init ? literal(d.init) : undefined;
            if (lit) earlier.set(d.id.name, lit.value);
            else earlier.delete(d.id.name);
          }
  } catch {
    // The lines before do not parse on their own (the selection starts inside a block): no values.
  }
  const defined = new Set<string>();
  names(program, (nm, store) => {
    if (store) defined.add(nm);
    else if (!defined.has(nm) && !isKnown.has(nm) && !params.some((p) => p.name === nm)) {
      const v = earlier.get(nm);
      params.push({
        name: nm,
        type: v === undefined ? 'any' : valueType(v),
        ...(v !== undefined ? { value: v } : {}),
        from: 'script',
      });
    }
  });

  // Names the lines define that the rest of the script reads: the return value.
  const usedAfter = new Set<string>();
  try {
    names(parseJs(dedent(all.slice(end)).join('\n') + '\n', req.language).program, (nm, store) => {
      if (!store) usedAfter.add(nm);
    });
  } catch {
    // The lines after do not parse on their own: nothing is known to be used later.
  }
  const returns = [...defined].filter((n) => usedAfter.has(n));

  // The script's output becomes the function's value: `emitResult(x);` -> `return x;`.
  let hasReturn = false;
  const emitted: string[] = [];
  for (const st of program.body)
    if (
      t.isExpressionStatement(st) &&
      t.isCallExpression(st.expression) &&
      t.isIdentifier(st.expression.callee, { name: 'emitResult' }) &&
      st.expression.arguments.length === 1
    ) {
      const arg = st.expression.arguments[0] as t.Node;
      emitted.push(selected.slice(arg.start ?? 0, arg.end ?? 0));
      edits.push({ start: st.start ?? 0, end: arg.start ?? 0, text: 'return ' });
      edits.push({ start: arg.end ?? 0, end: st.end ?? 0, text: ';' });
      hasReturn = true;
    } else if (t.isReturnStatement(st)) hasReturn = true;
  let text = selected;
  for (const e of [...edits].sort((a, b) => b.start - a.start))
    text = text.slice(0, e.start) + e.text + text.slice(e.end);
  const tail = hasReturn
    ? ''
    : returns.length === 1
      ? `return ${returns[0]};\n`
      : returns.length > 1
        ? `return { ${returns.join(', ')} };\n`
        : '';

  const name = req.name ?? 'new_skill';
  const ts = req.language === 'ts';
  const doc = [
    '/**',
    ' * TODO: say what this does.',
    ...params.map(
      (p) =>
        ` * @param ${ts ? '' : `{${DOC_TYPE[p.type] ?? '*'}} `}${p.name} ${p.from === 'task' ? 'From the task' : 'Used by the steps'}.`,
    ),
    ` * @returns ${emitted.length ? `What the script emitted: ${inComment(emitted.join(' or '))}` : returns.length ? returns.join(', ') : 'the value of the last step'}.`,
    ' */',
  ];
  const sig = params.map((p) => (ts ? `${p.name}: ${TS_TYPE[p.type] ?? 'any'}` : p.name)).join(', ');
  const bodyLines = (text + tail)
    .replace(/\s+$/, '')
    .split('\n')
    .map((l) => (l ? `  ${l}` : l));
  const source = `${doc.join('\n')}\nasync function ${name}(${sig}) {\n${bodyLines.join('\n')}\n}\n`;
  const args: Record<string, JsonValue> = {};
  for (const p of params) if (p.value !== undefined) args[p.name] = p.value;
  return {
    name,
    language: req.language,
    source,
    parameters: params,
    returns,
    emitted,
    tests: [{ args, assert: [] }],
  };
}

/**
 * Code quoted in the proposal's doc comment, on its line: a star and slash that would close the comment
 * escaped (a string emitted that holds them closed it there, and the proposed skill did not parse), its lines joined (an object emitted over several lines ran on without the comment's stars).
 */
const inComment = (code: string): string => code.replace(/\s*\n\s*/g, ' ').replace(/\*\//g, '*\\/');
