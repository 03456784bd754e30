/**
 * "Make a skill" from lines of a Python run: what the proposed function returns is told as it is, what
 * the lines passed to emit_result when they emit (each call became its `return`), else the names the rest
 * of the script used. (The proposal said it returned nothing of a function that returns what was emitted.)
 */
import { describe, expect, it } from 'vitest';
import { parsePython } from '../../../src-main/core/lang/python/pyright.ts';
import { proposeSkill } from '../../../src-main/core/skills/propose.ts';

const BODY = [
  'orders = get_orders().data',
  'mine = [o for o in orders if o["user_id"] == "u2"]',
  'spent = sum(o["total"] for o in mine)',
  'emit_result(spent)',
].join('\n');

describe('proposing a Python skill from lines of a run', () => {
  it('lines that emit: the function returns what they emitted, and its docstring says so', () => {
    const p = proposeSkill({ body: BODY, start: 1, end: 4, task: 'spent by "u2"', tools: ['get_orders'] });
    expect(p.returns).toEqual([]);
    expect(p.emitted).toEqual(['spent']);
    expect(p.source).toContain('\n    return spent\n');
    expect(p.source).toContain('    Returns:\n        What the script emitted: spent.\n');
  });

  it('lines that do not emit: the names the rest of the script used are returned', () => {
    const p = proposeSkill({ body: BODY, start: 1, end: 3, task: 'spent by "u2"', tools: ['get_orders'] });
    expect(p.returns).toEqual(['spent']);
    expect(p.emitted).toEqual([]);
    expect(p.source).toContain('\n    return spent\n');
  });
});

describe('what is emitted, quoted in the docstring', () => {
  it('a triple-quoted string or a backslash emitted: the docstring still ends where it should and the function parses', () => {
    const body = ['u = get_user(user_id="u1").data', 'emit_result(f"""<b>{u["name"]}</b>""" + "\\\\")'].join(
      '\n',
    );
    const p = proposeSkill({ body, start: 1, end: 2, task: 'the name in bold', tools: ['get_user'] });
    expect(p.emitted).toEqual(['f"""<b>{u["name"]}</b>""" + "\\\\"']);
    // Before: the docstring ended at the emitted `"""` and the proposal did not parse.
    expect(parsePython(p.source).syntaxErrors).toEqual([]);
    expect(p.source).toContain('\n    return f"""<b>{u["name"]}</b>""" + "\\\\"\n');
    expect(p.source).toContain(
      'What the script emitted: f\\"\\"\\"<b>{u["name"]}</b>\\"\\"\\" + "\\\\\\\\".',
    );
  });
});
