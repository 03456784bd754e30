/**
 * The `bidi-control` rule ("Trojan Source", CVE-2021-42574): every bidirectional control character is
 * refused anywhere in a Python, JS or TS script (code, comment, string), with its line, column and code
 * point and the escape to write instead; the escape itself is accepted. Scripts the host writes from data
 * (template slots, skill test arguments and results) hold the escapes, so they still validate.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BIDI_CONTROLS, escapeBidi } from '../../../src-main/core/lang/bidi.ts';
import { validateScript } from '../../../src-main/core/lang/validate.ts';
import { describeViolations } from '../../../src-main/core/lang/violation.ts';
import type { ScriptLanguage } from '../../../src-main/core/lang/violation.ts';
import { jsSkillCallScript } from '../../../src-main/core/skills/js-skill.ts';
import { predicateScriptOf } from '../../../src-main/core/skills/shape.ts';
import { pythonLiteral } from '../../../src-main/core/suites/assert.ts';
import { instantiate } from '../../../src-main/core/templates/slots.ts';
import type { Template } from '../../../src-main/core/templates/template.ts';

const CODE_POINTS = [
  0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c,
];
const hex = (cp: number) => cp.toString(16).padStart(4, '0');

/** A valid script of the language with `c` put in a string, a comment or code, on line 2. */
function scripts(language: ScriptLanguage, c: string): Record<'string' | 'comment' | 'code', string> {
  if (language === 'python')
    return {
      string: `x = 1\ny = "ab${c}cd"\nemit_result(y)\n`,
      comment: `x = 1\ny = 2  # ab${c}cd\nemit_result(y)\n`,
      code: `x = 1\ny = 2 ${c}\nemit_result(y)\n`,
    };
  const t = language === 'ts' ? ': string' : '';
  return {
    string: `const x = 1;\nconst y${t} = "ab${c}cd";\nemitResult(y);\n`,
    comment: `const x = 1;\nconst y = 2; // ab${c}cd\nemitResult(y);\n`,
    code: `const x = 1;\nconst y = 2; ${c}\nemitResult(y);\n`,
  };
}

/** Where `c` stands in scripts(): line 2, at this 1-based column. */
function columnOf(script: string, c: string): number {
  const line2 = script.split('\n')[1] as string;
  return line2.indexOf(c) + 1;
}

describe('bidi-control', () => {
  it('covers exactly the twelve controls of CVE-2021-42574', () => {
    expect(Object.keys(BIDI_CONTROLS).map(Number).sort()).toEqual([...CODE_POINTS].sort());
  });

  for (const language of ['python', 'js', 'ts'] as const)
    describe(language, () => {
      it.each(CODE_POINTS.map((cp) => [`U+${hex(cp).toUpperCase()}`, cp] as const))(
        '%s is refused in a string, a comment and code, at its line and column',
        (name, cp) => {
          const c = String.fromCharCode(cp);
          for (const [where, script] of Object.entries(scripts(language, c))) {
            const r = validateScript(script, language, { tools: [] });
            expect(r.valid, `${where}: ${JSON.stringify(r.violations)}`).toBe(false);
            const v = r.violations.filter((x) => x.rule === 'bidi-control');
            expect(v, where).toHaveLength(1);
            expect(v[0]).toMatchObject({ line: 2, column: columnOf(script, c) });
            expect(v[0]?.message).toContain(`${name} (${BIDI_CONTROLS[cp]})`);
            expect(v[0]?.message).toContain(`write it as the escape "\\u${hex(cp)}"`);
            // What a person reads (run errors, the CLI) keeps the code point and the escape.
            expect(describeViolations(r.violations)).toContain(
              `line 2:${columnOf(script, c)} bidi-control (${name} (${BIDI_CONTROLS[cp]}), a bidirectional control character, is refused anywhere in a script (if a string really needs it, write it as the escape "\\u${hex(cp)}" inside the string))`,
            );
          }
        },
      );

      it('accepts the escaped form in a string', () => {
        for (const cp of CODE_POINTS) {
          const script = scripts(language, `\\u${hex(cp)}`).string;
          expect(validateScript(script, language, { tools: [] })).toEqual({ valid: true, violations: [] });
        }
      });

      it('reports every one, also after a syntax error and in an otherwise empty script', () => {
        const broken =
          language === 'python'
            ? 'x = (\u202e\n# \u2066\nemit_result(x)\n'
            : 'const x = (\u202e;\n// \u2066\nemitResult(x);\n';
        const v = validateScript(broken, language, { tools: [] }).violations;
        expect(v.filter((x) => x.rule === 'bidi-control').map((x) => [x.line, x.column])).toEqual([
          [1, language === 'python' ? 6 : 12],
          [2, language === 'python' ? 3 : 4],
        ]);
        const empty = language === 'python' ? '# \u200f\n' : '// \u200f\n';
        expect(validateScript(empty, language, { tools: [] }).violations.map((x) => x.rule)).toContain(
          'bidi-control',
        );
      });
    });

  it('counts lines as each language does (CRLF, CR; U+2028 is a line break in JS only)', () => {
    const py = validateScript('x = 1\r\ny = 2\rz = "\u202e"\nemit_result(z)\n', 'python', { tools: [] });
    expect(py.violations.map((v) => [v.rule, v.line, v.column])).toEqual([['bidi-control', 3, 6]]);
    const js = validateScript('const x = "a\u2028b";\nconst z = "\u202e";\nemitResult(z);\n', 'js', {
      tools: [],
    });
    expect(js.violations.map((v) => [v.rule, v.line, v.column])).toEqual([['bidi-control', 3, 12]]);
  });
});

describe('scripts the host writes from data hold the escapes, not the characters', () => {
  const rtl = 'שלום\u200f \u202eevil\u2066';
  it('template slots (Python, JS, TS)', () => {
    const tmpl = (language: ScriptLanguage, body: string): Template => ({
      name: 'greet',
      language,
      sandbox: 'ecommerce',
      pattern: 'greet {who}',
      slots: { who: 'str' },
      body,
      examples: [],
    });
    for (const t of [
      tmpl('python', 'emit_result({{who}})\n'),
      tmpl('js', 'emitResult({{who}});\n'),
      tmpl('ts', 'const w: string = {{who}};\nemitResult(w);\n'),
    ]) {
      const script = instantiate(t, { who: rtl });
      expect(validateScript(script, t.language, { tools: [] })).toEqual({ valid: true, violations: [] });
    }
  });
  it("a JS skill test's arguments, a predicate's result (Python and JS), a suite's result literal", () => {
    const call = jsSkillCallScript('greet', { who: rtl }, [{ name: 'who' }]);
    expect(validateScript(call, 'js', { tools: ['greet'] }).violations).toEqual([]);
    const py = predicateScriptOf('python', 'emit_result(result)', {
      python: pythonLiteral({ [rtl]: [rtl] }),
      json: '',
    });
    expect(validateScript(py, 'python', { tools: [] }).violations).toEqual([]);
    const js = predicateScriptOf('js', 'emitResult(result);', { python: '', json: JSON.stringify(rtl) });
    expect(validateScript(js, 'js', { tools: [] }).violations).toEqual([]);
  });
  it('escapeBidi keeps the value: the JSON text parses back to the same string', () => {
    expect(JSON.parse(escapeBidi(JSON.stringify(rtl)))).toBe(rtl);
    expect(escapeBidi(JSON.stringify(rtl))).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
  });
});

describe("the JS workers' own table (sandbox-images/node/worker.mjs: the image cannot import the host's code)", () => {
  it('lists the same code points with the same names as the host', () => {
    const source = readFileSync(new URL('../../../sandbox-images/node/worker.mjs', import.meta.url), 'utf8');
    const table = /const BIDI_CONTROLS = \{([^}]*)\}/.exec(source)?.[1];
    expect(table, 'worker.mjs has no BIDI_CONTROLS table').toBeDefined();
    const entries = [...table!.matchAll(/0x([0-9a-f]{4}): '([^']+)'/g)].map((m) => [
      parseInt(m[1]!, 16),
      m[2],
    ]);
    expect(Object.fromEntries(entries)).toEqual(BIDI_CONTROLS);
    // The worker's character class finds exactly those.
    const cls = /const bidi = \/(\[[^\]]+\])\/g/.exec(source)?.[1];
    expect(cls, 'worker.mjs has no bidi character class').toBeDefined();
    const re = new RegExp(cls!);
    const differ: string[] = [];
    for (let cp = 0; cp < 0x10000; cp++)
      if (re.test(String.fromCharCode(cp)) !== cp in BIDI_CONTROLS) differ.push(cp.toString(16));
    expect(differ).toEqual([]);
  });
});
