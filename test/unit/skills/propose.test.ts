/**
 * "Make a skill" from lines of a Python run: what the proposed function returns is told as it is, what
 * the lines passed to emit_result when they emit (each call became its `return`), else the names the rest
 * of the script used. (The proposal said it returned nothing of a function that returns what was emitted.)
 */
import { describe, expect, it } from 'vitest';
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
