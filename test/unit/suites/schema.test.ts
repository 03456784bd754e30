import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expandCases } from '../../../src-main/core/suites/schema.ts';
import { parseSuite } from '../../../src-main/infra/workspace/suite-toml.ts';
import { repoRoot } from '../../support/workspace.ts';

describe('suite files', () => {
  it('the sample suites parse and expand to at least 12 cases with multi-call and tool-call expectations', () => {
    const all = ['ecommerce', 'support'].flatMap((name) => {
      const r = parseSuite(readFileSync(`${repoRoot}resources/workspace/suites/${name}.toml`, 'utf8'));
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
      return expandCases(r.suite);
    });
    expect(all.length).toBeGreaterThanOrEqual(12);
    expect(all.some((c) => c.assert.some((a) => a.type === 'tool_not_called'))).toBe(true);
    expect(all.some((c) => c.assert.some((a) => a.type === 'tool_called' && (a.min ?? 1) >= 2))).toBe(true);
  });

  it('rows of variables fill the task and the assertions, keeping value types', () => {
    const r = parseSuite(
      'sandbox = "s"\nrepeat = 3\n[[cases]]\nid = "t"\ntask = "ticket {n}: {name}"\nvars = [{ n = 101, name = "a" }, { n = 7, name = "b" }]\nthreshold = 0.5\n[[cases.assert]]\ntype = "tool_called"\ntool = "get"\nargs = { id = "{n}", label = "#{n}" }\n',
    );
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const cases = expandCases(r.suite);
    expect(cases.map((c) => [c.id, c.task, c.repeat, c.threshold])).toEqual([
      ['t[0]', 'ticket 101: a', 3, 0.5],
      ['t[1]', 'ticket 7: b', 3, 0.5],
    ]);
    expect(cases[0]?.assert[0]).toMatchObject({ args: { id: 101, label: '#101' } });
  });

  it('TOML and schema errors carry the line of the problem', () => {
    const toml = parseSuite('sandbox = "s"\ncases = [\n');
    expect(toml.ok).toBe(false);
    if (!toml.ok) expect(toml.problems[0]?.line).toBe(3);
    const text = [
      'sandbox = "s"', // 1
      'bogus = 1', // 2
      '', // 3
      '[[cases]]', // 4
      'id = "a"', // 5
      'task = "x"', // 6
      '', // 7
      '[[cases]]', // 8
      'id = "b"', // 9
      'task = "y"', // 10
      'repeat = 0', // 11
      '[[cases.assert]]', // 12
      'type = "equals"', // 13
      'value = 1', // 14
      '[[cases.assert]]', // 15
      'type = "matches"', // 16
      'pattern = ""', // 17
    ].join('\n');
    const r = parseSuite(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const at = Object.fromEntries(r.problems.map((p) => [p.path, p.line]));
    expect(at).toMatchObject({ '(root)': 1, 'cases[1].repeat': 11, 'cases[1].assert[1].pattern': 17 });
    expect(r.problems.find((p) => p.path === '(root)')?.message).toMatch(/bogus/);
  });

  it('duplicate case ids and task placeholders without a value are refused', () => {
    const r = parseSuite(
      'sandbox = "s"\n[[cases]]\nid = "a"\ntask = "x {v}"\n[[cases]]\nid = "a"\ntask = "y"\n',
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => [p.path, p.line, p.message])).toEqual([
      ['cases[0].task', 4, '{v} in the task needs a value in every vars row'],
      ['cases[1].id', 6, 'duplicate case id a'],
    ]);
  });
});
