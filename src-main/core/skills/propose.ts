/**
 * "Make a skill" from lines of a successful script: the selected lines become the body of a function.
 * Literals that came from the task become parameters (as template slots do), names the lines use but do
 * not define become the signature, names they define that the rest of the script uses become the return
 * value, and the run's values become the first test case. A proposal to review, never saved as is.
 */
import {
  PYTHON_FRAMEWORK_NAMES,
  PYTHON_PREIMPORTED_MODULES,
  PYTHON_SAFE_BUILTINS,
} from '../lang/builtins.ts';
import { parsePython } from '../lang/python/pyright.ts';
import type { PyNode } from '../lang/python/pyright.ts';
import { proposePattern } from '../templates/template.ts';
import type { JsonValue } from '../tools/model.ts';
import type { SkillLanguage, SkillTest } from './skill.ts';
import { dedent, selectLines, valueType } from './proposal-parts.ts';

export interface SkillProposal {
  name: string;
  /** The script's language, the skill's: Python, or JS/TS (propose-js.ts). */
  language: SkillLanguage;
  /** The function, ready for the editor. */
  source: string;
  parameters: { name: string; type: string; value?: JsonValue; from: 'task' | 'script' }[];
  /** The names the lines define that the rest of the script used (returned when nothing is emitted). */
  returns: string[];
  /**
   * What the lines passed to `emit_result` (`emitResult` in JS and TS), as written: the function returns
   * that instead (each call became a `return`), and the names in `returns` are then not returned.
   */
  emitted: string[];
  /** The run's values as the first case (parameters whose value is not known are left out). */
  tests: SkillTest[];
}

type Lit = { value: JsonValue; type: 'str' | 'int' | 'float'; start: number; end: number };

function literal(n: PyNode): Lit | undefined {
  if (n.kind === 'StringList' && !n.formatted && n.children.length === 1 && n.children[0]?.kind === 'String')
    return { value: n.children[0].value ?? '', type: 'str', start: n.start, end: n.end };
  if (n.kind === 'Number' && typeof n.num === 'number')
    return {
      value: n.num,
      type: Number.isInteger(n.num) && !/[.eE]/.test(String(n.num)) ? 'int' : 'float',
      start: n.start,
      end: n.end,
    };
  return undefined;
}

/** Names a script sees without defining them: builtins, helpers, modules, tools, skills. */
const known = (tools: readonly string[]) =>
  new Set([
    ...PYTHON_SAFE_BUILTINS,
    ...PYTHON_FRAMEWORK_NAMES,
    ...PYTHON_PREIMPORTED_MODULES,
    ...tools,
    'True',
    'False',
    'None',
  ]);

/** Walks names in source order, telling loads from stores (the stores after the loads of a statement). */
function names(n: PyNode, on: (name: string, store: boolean, node: PyNode) => void, store = false): void {
  switch (n.kind) {
    case 'Name':
      if (n.value !== undefined && n.role !== 'member' && n.role !== 'name') on(n.value, store, n);
      return;
    case 'Assignment':
    case 'AugmentedAssignment': {
      const left = n.children.find((c) => c.role === 'leftExpr');
      for (const c of n.children) if (c !== left) names(c, on);
      if (left) {
        if (n.kind === 'AugmentedAssignment') names(left, on);
        names(left, on, true);
      }
      return;
    }
    case 'For':
    case 'ComprehensionFor': {
      const target = n.children.find((c) => c.role === 'targetExpr');
      const iter = n.children.find((c) => c.role === 'iterableExpr');
      if (iter) names(iter, on);
      if (target) names(target, on, true);
      for (const c of n.children) if (c !== target && c !== iter) names(c, on);
      return;
    }
    case 'Comprehension': {
      // The for clauses bind before the element expression reads.
      const fors = n.children.filter((c) => c.role === 'forIfNodes');
      for (const c of fors) names(c, on);
      for (const c of n.children) if (!fors.includes(c)) names(c, on);
      return;
    }
    case 'MemberAccess': {
      const base = n.children.find((c) => c.role === 'leftExpr');
      if (base) names(base, on, false);
      return;
    }
    default:
      for (const c of n.children) names(c, on, store && (n.kind === 'Tuple' || n.kind === 'List'));
  }
}

/**
 * Proposes a skill from lines `start`..`end` (1-based, inclusive) of a script body, for a run's task.
 * `tools` are the names the script could call (they are not parameters).
 */
export function proposeSkill(req: {
  body: string;
  start: number;
  end: number;
  task: string;
  tools: readonly string[];
  name?: string;
}): SkillProposal {
  const { all, start, end, selected } = selectLines(req.body, req.start, req.end);
  const tree = parsePython(selected);
  if (tree.syntaxErrors.length)
    throw new Error(`lines ${start}-${end} are not whole statements: ${tree.syntaxErrors[0]?.message ?? ''}`);
  const isKnown = known(req.tools);

  // Literals that came from the task (as template slots): parameters, named by their keyword if any.
  const taskValues = proposePattern(req.task).values;
  const fromTask = new Set(Object.values(taskValues).map((v) => JSON.stringify(v)));
  const params: SkillProposal['parameters'] = [];
  const edits: { start: number; end: number; text: string }[] = [];
  const walkLits = (n: PyNode, parent?: PyNode) => {
    const lit = literal(n);
    if (lit && fromTask.has(JSON.stringify(lit.value))) {
      const existing = params.find(
        (p) => p.from === 'task' && JSON.stringify(p.value) === JSON.stringify(lit.value),
      );
      let pname = existing?.name;
      if (!pname) {
        const label = parent?.kind === 'Argument' && parent.value ? parent.value : undefined;
        pname = label && !params.some((p) => p.name === label) ? label : `value${params.length + 1}`;
        params.push({ name: pname, type: lit.type, value: lit.value, from: 'task' });
      }
      edits.push({ start: lit.start, end: lit.end, text: pname });
      return;
    }
    for (const c of n.children) walkLits(c, n);
  };
  walkLits(tree.module);

  // Names used before the lines define them: the rest of the signature (value known from a literal
  // assignment earlier in the script, when there is one).
  const before = parsePython(all.slice(0, start - 1).join('\n') + '\n');
  const earlier = new Map<string, JsonValue>();
  for (const st of before.module.children)
    for (const a of st.kind === 'StatementList' ? st.children : [])
      if (a.kind === 'Assignment') {
        const left = a.children.find((c) => c.role === 'leftExpr');
        const right = a.children.find((c) => c.role === 'rightExpr');
        const lit = right && literal(right);
        if (left?.kind === 'Name' && left.value) {
          if (lit) earlier.set(left.value, lit.value);
          else earlier.delete(left.value);
        }
      }
  const defined = new Set<string>();
  names(tree.module, (nm, store) => {
    if (store) defined.add(nm);
    else if (!defined.has(nm) && !isKnown.has(nm) && !params.some((p) => p.name === nm)) {
      const v = earlier.get(nm);
      params.push({
        name: nm,
        type: v === undefined ? 'dict' : valueType(v),
        ...(v !== undefined ? { value: v } : {}),
        from: 'script',
      });
    }
  });

  // Names the lines define that the rest of the script reads: the return value.
  const after = parsePython(dedent(all.slice(end)).join('\n') + '\n');
  const usedAfter = new Set<string>();
  if (!after.syntaxErrors.length) names(after.module, (nm, store) => !store && usedAfter.add(nm));
  const returns = [...defined].filter((n) => usedAfter.has(n));

  let text = selected;
  for (const e of [...edits].sort((a, b) => b.start - a.start))
    text = text.slice(0, e.start) + e.text + text.slice(e.end);
  // The script's output becomes the function's value.
  const emitted: string[] = [];
  text = text.replace(/^emit_result\((.*)\)[ \t]*$/gm, (_all, value: string) => {
    emitted.push(value.trim());
    return `return ${value}`;
  });
  const hasReturn = /^return\b/m.test(text);
  const tail = hasReturn
    ? ''
    : returns.length === 1
      ? `return ${returns[0]}\n`
      : returns.length > 1
        ? `return {${returns.map((r) => `"${r}": ${r}`).join(', ')}}\n`
        : '';
  const name = req.name ?? 'new_skill';
  const sig = params.map((p) => `${p.name}: ${p.type}`).join(', ');
  const argsDoc = params.map(
    (p) => `        ${p.name}: ${p.from === 'task' ? 'From the task' : 'Used by the steps'}.`,
  );
  const doc = [
    `    """TODO: say what this does.`,
    ...(params.length ? ['', '    Args:', ...argsDoc] : []),
    '',
    '    Returns:',
    `        ${emitted.length ? `What the script emitted: ${inDocstring(emitted.join(' or '))}` : returns.length ? returns.join(', ') : 'the value of the last step'}.`,
    '    """',
  ];
  const bodyLines = (text + tail)
    .replace(/\s+$/, '')
    .split('\n')
    .map((l) => (l ? `    ${l}` : l));
  const source = `def ${name}(${sig}):\n${doc.join('\n')}\n${bodyLines.join('\n')}\n`;
  const args: Record<string, JsonValue> = {};
  for (const p of params) if (p.value !== undefined) args[p.name] = p.value;
  return {
    name,
    language: 'python',
    source,
    parameters: params,
    returns,
    emitted,
    tests: [{ args, assert: [] }],
  };
}

/**
 * Code quoted in the proposal's docstring as it reads: its backslashes and triple quotes escaped (an
 * `emit_result(f"""...""")` ended the docstring there, and the proposed skill did not parse).
 */
const inDocstring = (code: string): string => code.replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"');
