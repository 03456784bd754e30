import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assembleScript, bodyLine } from '../../../src-main/core/script/assemble.ts';
import { skillsPrelude, skillsUsed } from '../../../src-main/core/skills/offered.ts';
import type { OfferedSkill } from '../../../src-main/core/skills/offered.ts';
import {
  pyValue,
  skillCallScript,
  skillFileText,
  skillFromParts,
  skillGrade,
  skillShape,
  splitSkillFile,
} from '../../../src-main/core/skills/skill.ts';
import { validateScript } from '../../../src-main/core/lang/validate.ts';
import { parseSkillText, SkillFiles, skillText } from '../../../src-main/infra/workspace/skill-files.ts';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { cli } from '../../support/cli.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const TOTAL = `def order_total(user_id: str, status: str = "shipped") -> float:
    """The total of a customer's orders.

    Args:
        user_id: The customer's id.
        status: Only orders with this status.

    Returns:
        The sum of their totals.
    """
    return sum(o["total"] for o in get_orders().data if o["user_id"] == user_id and o["status"] == status)
`;

const offered = (name: string, source: string): OfferedSkill => ({
  name,
  source,
  tool: { ...skillShape(name, source).tool, grade: { w: 0, d: 0 } },
});

describe('a skill is one typed, documented function', () => {
  it('derives its manual entry as a tool does, and the names it calls', () => {
    const s = skillShape('order_total', TOTAL);
    expect(s.problems).toEqual([]);
    expect(s.tool).toMatchObject({
      name: 'order_total',
      location: 'skill',
      description: "The total of a customer's orders.",
      returns: 'The sum of their totals.',
    });
    expect(s.tool.parameters).toMatchObject([
      { name: 'user_id', type: 'str', required: true, description: "The customer's id." },
      { name: 'status', type: 'str', required: false, default: 'shipped' },
    ]);
    expect(s.calls).toEqual(['get_orders', 'sum']);
  });

  it.each([
    ['x = 1\n', /exactly one function definition/],
    ['def other(a: int) -> int:\n    """Doc."""\n    return a\n', /named other; it must be f/],
    ['def f(a) -> int:\n    """Doc."""\n    return a\n', /parameter a needs a type/],
    ['def f(*a: int) -> int:\n    """Doc."""\n    return 1\n', /named parameters only/],
    ['def f(a: int) -> int:\n    return a\n', /needs a docstring/],
    ['async def f(a: int) -> int:\n    """Doc."""\n    return a\n', /not async/],
    ['@x\ndef f(a: int) -> int:\n    """Doc."""\n    return a\n', /no decorators/],
    ['def f(a: int) -> None:\n    """Doc."""\n    emit_result(a)\n', /emit_result belongs to the script/],
    ['def f(a: int) -> int:\n    """Doc."""\n    return (\n', /does not parse/],
  ])('refuses %j', (source, why) => {
    expect(skillShape('f', source).problems.join('; ')).toMatch(why);
  });

  it('refuses names that are not skill names', () => {
    expect(skillShape('Bad-Name', TOTAL).problems.join()).toMatch(/not a skill name/);
    // Names scripts already have (a builtin, a module, a helper, a JS global) or keywords.
    for (const name of ['len', 'print', 'json', 'credential', 'console', 'constructor'])
      expect(skillShape(name, TOTAL.replace('def order_total', `def ${name}`)).problems).toEqual([
        `the name "${name}" is a name scripts already have (a builtin, module, helper or global): a skill named so would replace it in every script that uses it; name the skill after what it does`,
      ]);
    expect(skillShape('lambda', TOTAL).problems[0]).toMatch(/"lambda" is a keyword/);
  });

  it('its grade is the highest of the tools it calls', () => {
    const tools = [
      { name: 'a', grade: { w: 1, d: 0 } },
      { name: 'b', grade: { w: 0, d: 2 } },
    ];
    expect(skillGrade(['a', 'b', 'len'], tools)).toEqual({ w: 1, d: 2 });
    expect(skillGrade(['len'], tools)).toEqual({ w: 0, d: 0 });
  });
});

describe('the skill file', () => {
  it('is valid Python: TOML front matter in comments, then the function; round-trips', () => {
    const s = skillFromParts(
      {
        version: 3,
        origin: 'r1',
        tests: [{ args: { user_id: 'u1' }, assert: [{ type: 'equals', value: 201 }] }],
      },
      TOTAL,
      { sandbox: 'ecommerce', name: 'order_total' },
    );
    const text = skillText(s);
    expect(text.startsWith('# +++\n# version = 3\n')).toBe(true);
    expect(text).toContain('\n# +++\ndef order_total(');
    // The whole file parses as Python and its body is the function alone.
    expect(skillShape('order_total', splitSkillFile(text).source).problems).toEqual([]);
    expect(validateScript(text, 'python', { tools: ['get_orders'], requireEmit: false }).valid).toBe(true);
    const back = parseSkillText(text, { sandbox: 'ecommerce', name: 'order_total', file: 'f' });
    expect(back).toEqual(s);
  });

  it('writes a bidi control in test arguments as a TOML escape, and refuses one written raw', () => {
    // "Trojan Source" in a test's arguments: U+202E and the isolates reorder how the line is displayed
    const trick = 'u1\u202e\u2066 # admin\u2069\u2066';
    const s = skillFromParts(
      { version: 1, tests: [{ args: { user_id: trick, status: 'a\u200fb\u061c' } }] },
      TOTAL,
      { sandbox: 'ecommerce', name: 'order_total' },
    );
    const text = skillText(s);
    expect(text).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    expect(text).toContain('user_id = "u1\\u202e\\u2066 # admin\\u2069\\u2066"');
    expect(text).toContain('status = "a\\u200fb\\u061c"');
    // the value read back is the one saved, control characters and all
    expect(parseSkillText(text, { sandbox: 'ecommerce', name: 'order_total', file: 'f' })).toEqual(s);
    // written raw (by hand, or by an older writer): refused, naming the file, line, character and fix
    const raw = `# +++\n# version = 1\n#\n# [[tests]]\n# args = { user_id = "u1${'\u202e'}" }\n# +++\n${TOTAL}`;
    expect(() =>
      parseSkillText(raw, {
        sandbox: 'ecommerce',
        name: 'order_total',
        file: 'skills/ecommerce/order_total.py',
      }),
    ).toThrow(
      'skills/ecommerce/order_total.py: front matter line 5, column 25: U+202E (RIGHT-TO-LEFT OVERRIDE), a ' +
        "bidirectional control character, is refused raw in a skill file's front matter",
    );
    expect(() => splitSkillFile(raw, 'f')).toThrow(/write it as the escape "\\u202e" inside the TOML string/);
    // a raw one in a comment line of the front matter too (every line a reader sees)
    expect(() => splitSkillFile(`# +++\n# version = 1 # ok${'\u2067'}\n# +++\n${TOTAL}`, 'f')).toThrow(
      /line 2, column 19: U\+2067 \(RIGHT-TO-LEFT ISOLATE\)/,
    );
  });

  it('lists every problem: bad version, a test argument that is not a parameter, a missing one', () => {
    expect(() =>
      skillFromParts({ version: 0, tests: [{ args: { nope: 1 } }] }, TOTAL, {
        sandbox: 's',
        name: 'order_total',
      }),
    ).toThrow(/version must be .*; test 1: nope is not a parameter.*; test 1: argument user_id is missing/);
    expect(() =>
      skillFromParts({ tests: [{ args: { user_id: 'u1' }, assert: [{ type: 'nope' }] }] }, TOTAL, {
        sandbox: 's',
        name: 'order_total',
      }),
    ).toThrow(/test 1 assertion 1/);
    expect(() => splitSkillFile('# +++\n# version = 1\ndef f(): pass\n')).toThrow(/not closed/);
    expect(() => splitSkillFile('# +++\nversion = 1\n# +++\n')).toThrow(/starts with "#"/);
  });

  it(
    'keeps earlier versions and refuses path tricks in names',
    () => {
      const ws = tempWorkspace();
      try {
        const files = new SkillFiles(ws);
        const s = skillFromParts({}, TOTAL, { sandbox: 'ecommerce', name: 'order_total' });
        files.write(s);
        files.write({ ...s, version: 2, source: TOTAL.replace('"shipped"', '"pending"') });
        expect(files.versions('ecommerce', 'order_total')).toEqual([1]);
        expect(files.version('ecommerce', 'order_total', 1)).toContain('"shipped"');
        expect(files.get('ecommerce', 'order_total')?.skill?.version).toBe(2);
        // A deleted skill's last version stays in the history too (it was lost, and a skill saved
        // later under the name took its number again).
        expect(files.delete('ecommerce', 'order_total')).toBe(true);
        expect(files.get('ecommerce', 'order_total')).toBeUndefined();
        expect(files.versions('ecommerce', 'order_total')).toEqual([1, 2]);
        expect(files.version('ecommerce', 'order_total', 2)).toContain('"pending"');
        expect(() => files.file('../x', 'a')).toThrow(/invalid sandbox name/);
        mkdirSync(join(ws, 'skills/ecommerce'), { recursive: true });
        writeFileSync(join(ws, 'skills/ecommerce/bad.py'), 'x = 1\n');
        expect(files.get('ecommerce', 'bad')?.error).toMatch(/exactly one function/);
      } finally {
        removeWorkspace(ws);
      }
    },
    STARTS_PROCESSES_MS,
  );
});

describe('skills in a script', () => {
  it('a test case calls the skill with its arguments as literals, strings escaped', () => {
    expect(skillCallScript('f', { a: 'x"\n\u2028', b: -2, c: [true, null, { k: 1.5 }] })).toBe(
      'emit_result(f(a="x\\"\\n\\u2028", b=(-2), c=[True, None, {"k": 1.5}]))\n',
    );
    expect(() => pyValue(Number.NaN)).toThrow(/finite/);
  });

  it('only the skills a body names are defined ahead of it; body lines still map', () => {
    const skills = [
      offered('order_total', TOTAL),
      offered('other', 'def other(a: int) -> int:\n    """D."""\n    return a\n'),
    ];
    expect(skillsUsed('x = order_total(user_id="u1")\nemit_result(x)\n', skills).map((s) => s.name)).toEqual([
      'order_total',
    ]);
    expect(skillsUsed('order_totals = 1\n', skills)).toEqual([]);
    const body = 'x = order_total(user_id="u1")\nemit_result(x)\n';
    const a = assembleScript(body, { sandbox: 'ecommerce', tools: ['get_orders'], helpers: [], skills });
    expect(a.code).toContain(
      `# skills: order_total\n${skillsPrelude([skills[0] as OfferedSkill])}# --- body ---\n${body}`,
    );
    expect(a.code).not.toContain('def other');
    const lines = a.code.split('\n');
    expect(lines[a.bodyStartLine - 1]).toBe('x = order_total(user_id="u1")');
    expect(bodyLine(a, a.bodyStartLine + 1)).toBe(2);
    expect(validateScript(a.code, 'python', { tools: ['get_orders'] }).valid).toBe(true);
    // JS/TS scripts get no Python skills.
    expect(
      assembleScript(body, { sandbox: 'e', tools: [], helpers: [], skills, language: 'js' }).code,
    ).not.toContain('def ');
  });

  it('the front matter is comments: an edit of the text by another tool keeps it Python', () => {
    expect(skillFileText('version = 1\n\n[[tests]]\nargs = { a = 1 }', 'def f(): pass')).toBe(
      '# +++\n# version = 1\n#\n# [[tests]]\n# args = { a = 1 }\n# +++\ndef f(): pass\n',
    );
  });
});

describe('toolsmith skill (no sandbox needed)', () => {
  it(
    'list, show, delete; usage errors exit 2 with one line',
    async () => {
      const ws = tempWorkspace();
      try {
        new SkillFiles(ws).write(skillFromParts({}, TOTAL, { sandbox: 'ecommerce', name: 'order_total' }));
        const list = await cli('-w', ws, 'skill', 'list');
        expect(list.code).toBe(0);
        expect(list.out).toMatch(
          /ecommerce\/order_total\s+python\s+v1\s+untested .*order_total\(user_id: str, status: str = "shipped"\)/,
        );
        const show = await cli('-w', ws, 'skill', 'show', 'order_total', '--sandbox', 'ecommerce', '--json');
        expect(JSON.parse(show.out)).toMatchObject({
          name: 'order_total',
          tools: ['get_orders'],
          status: 'untested',
        });
        const missing = await cli('-w', ws, 'skill', 'show', 'order_total');
        expect(missing.code).toBe(2);
        expect(missing.err.trim().split('\n')).toHaveLength(1);
        const badCase = await cli(
          '-w',
          ws,
          'skill',
          'create',
          'x',
          '--sandbox',
          'ecommerce',
          '--file',
          '-',
          '--case',
          '{',
        );
        expect(badCase.code).toBe(2);
        expect(badCase.err).toMatch(/--case takes JSON/);
        // A misspelt key or an `assert` that is not a list is refused (it was dropped: the case had no
        // assertion and passed on any result).
        const create = (c: string) =>
          cli('-w', ws, 'skill', 'create', 'x', '--sandbox', 'ecommerce', '--file', '-', '--case', c);
        const typo = await create('{"args": {}, "expected": 3}');
        expect(typo.code).toBe(2);
        expect(typo.err).toMatch(/--case takes "args", "expect" and "assert" .*not "expected"/);
        const notList = await create('{"args": {}, "assert": {"type": "equals", "value": 3}}');
        expect(notList.code).toBe(2);
        expect(notList.err).toMatch(/"assert" takes a list of assertions/);
        const noVersion = await cli(
          '-w',
          ws,
          'skill',
          'show',
          'order_total',
          '--sandbox',
          'ecommerce',
          '--revision',
          '4',
        );
        expect(noVersion.code).toBe(2);
        // An untested skill is not in the manual.
        const tools = await cli('-w', ws, 'tools', '--sandbox', 'ecommerce');
        expect(tools.out).not.toContain('order_total');
        const del = await cli('-w', ws, 'skill', 'delete', 'order_total', '--sandbox', 'ecommerce');
        expect(del.out).toBe('deleted skill ecommerce/order_total\n');
        expect(
          (await cli('-w', ws, 'skill', 'delete', 'order_total', '--sandbox', 'ecommerce')).code,
        ).not.toBe(0);
        const help = await cli('skill', '--help');
        expect(help.out).toMatch(/create.*\n[\s\S]*list[\s\S]*show[\s\S]*test[\s\S]*delete/);
      } finally {
        removeWorkspace(ws);
      }
    },
    STARTS_PROCESSES_MS,
  );
});
