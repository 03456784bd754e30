/**
 * Validating a script in parts (`splitPython` + `validatePythonPart` per part + `finishPython`) must give
 * exactly the answer of validating it in one piece whenever every part parses on its own; a split inside
 * a bracket, a multi-line string or after a backslash must leave a part that does not parse (so that
 * `validatePython`, which validates long scripts in pieces, falls back to one piece). Checked on every
 * candidate split point of the corpus scripts, of concatenations of them, and of a sample of the
 * installed standard library; and `validatePython` itself against one-piece validation on long inputs.
 */
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pythonSplitCandidates, splitPython } from '../../../src-main/core/lang/python/split.ts';
import type { PythonCut } from '../../../src-main/core/lang/python/split.ts';
import {
  finishPython,
  PYTHON_CHUNK_CHARS,
  validatePython,
  validatePythonChunked,
  validatePythonPart,
} from '../../../src-main/core/lang/python/validate.ts';
import type { ValidateOptions } from '../../../src-main/core/lang/violation.ts';
import { HEAVY_PARSE_MS } from '../../support/budgets.ts';

const corpusDir = fileURLToPath(new URL('../../fixtures/corpus/python/', import.meta.url));
const read = (sub: string) =>
  readdirSync(join(corpusDir, sub))
    .sort()
    .map((f) => ({ name: `${sub}/${f}`, code: readFileSync(join(corpusDir, sub, f), 'utf8') }));
const benign = read('benign');
const attack = read('attack');
const OPTIONS: ValidateOptions[] = [
  { tools: ['get_orders', 'get_user', 'check_inventory', 'get_product'] },
  { tools: ['get_orders', 'get_user'], strict: true },
];

/**
 * Every line start a cut could be tried at, lexical context ignored: column 0, a letter, `_` or `@`
 * (a superset of `pythonSplitCandidates`, which also skips lines inside brackets, strings and after a
 * backslash continuation).
 */
function everyLineStart(code: string): PythonCut[] {
  const out: PythonCut[] = [];
  let line = 1;
  for (const m of code.matchAll(/\r\n|\r|\n/g)) {
    line++;
    const at = m.index + m[0].length;
    if (/[A-Za-z_@]/.test(code[at] ?? '')) out.push({ offset: at, line });
  }
  return out;
}

/** The reference: the whole script parsed and checked in one piece. */
const onePiece = (code: string, options: ValidateOptions) =>
  finishPython(code, options, [validatePythonPart(code, options)]);

/** Validates `code` split at the given offsets; undefined when a part does not parse on its own. */
function validateAt(code: string, cuts: number[], options: ValidateOptions) {
  const starts = [0, ...cuts];
  const parts = starts.map((s, i) => {
    const firstLine = code.slice(0, s).split(/\r\n|\r|\n/).length;
    return validatePythonPart(code.slice(s, starts[i + 1] ?? code.length), options, firstLine);
  });
  if (parts.some((p) => p.syntaxErrors > 0)) return undefined;
  return finishPython(code, options, parts);
}

function checkEveryCandidate(code: string, options: ValidateOptions): { compared: number } {
  const whole = onePiece(code, options);
  let compared = 0;
  for (const c of everyLineStart(code)) {
    const split = validateAt(code, [c.offset], options);
    if (split === undefined) continue;
    compared++;
    expect(split, `split at line ${c.line}`).toEqual(whole);
  }
  return { compared };
}

describe('splitPython', () => {
  it('cuts only before column-0 statement lines, never after a backslash or before else/except', () => {
    const code = [
      'x = 1', // 1
      '', // 2
      'def f(a):', // 3
      '    return a', // 4
      'if x:', // 5
      '    pass', // 6
      'else:', // 7
      '    pass', // 8
      'y = 1 + \\', // 9
      'z', // 10
      '# comment', // 11
      '@dec', // 12
      'class C: pass', // 13
      '    ', // 14
      ')', // 15
      '_private = 2', // 16
    ].join('\n');
    expect(pythonSplitCandidates(code).map((c) => c.line)).toEqual([3, 5, 9, 12, 13, 16]);
    const crlf = code.replace(/\n/g, '\r\n');
    expect(pythonSplitCandidates(crlf).map((c) => c.line)).toEqual([3, 5, 9, 12, 13, 16]);
    expect(pythonSplitCandidates(code.replace(/\n/g, '\r')).map((c) => c.line)).toEqual([
      3, 5, 9, 12, 13, 16,
    ]);
  });

  it('makes parts of about equal size that together are the script', () => {
    const code = Array.from({ length: 400 }, (_v, i) => `def f${i}():\n    return ${i}\n`).join('');
    for (const n of [1, 2, 3, 4]) {
      const parts = splitPython(code, n);
      expect(parts.length).toBe(n);
      expect(parts.map((p) => p.code).join('')).toBe(code);
      for (const p of parts) {
        expect(p.code.length).toBeGreaterThan(code.length / n - 40);
        expect(p.code.length).toBeLessThan(code.length / n + 40);
        // firstLine is where the part starts in the script.
        expect(code.split('\n')[p.firstLine - 1]).toBe(p.code.split('\n')[0]);
      }
    }
    expect(splitPython('x = 1\n', 4)).toEqual([{ code: 'x = 1\n', firstLine: 1 }]);
    expect(splitPython('', 2)).toEqual([{ code: '', firstLine: 1 }]);
  });
});

describe('validating in parts equals validating whole', () => {
  it(
    'on every candidate split of each corpus script (benign and attack, normal and strict)',
    () => {
      let compared = 0;
      for (const options of OPTIONS)
        for (const { code } of [...benign, ...attack])
          compared += checkEveryCandidate(code, options).compared;
      expect(compared).toBeGreaterThan(200);
    },
    HEAVY_PARSE_MS,
  );

  it(
    'on concatenations of attack and benign scripts split into 2-4 parts',
    () => {
      const all = [...attack, ...benign];
      for (let i = 0; i < all.length; i += 3) {
        const code = all
          .slice(i, i + 6)
          .map((s) => s.code)
          .join('\n');
        for (const options of OPTIONS)
          for (const n of [2, 3, 4]) {
            const parts = splitPython(code, n);
            expect(parts.map((p) => p.code).join('')).toBe(code);
            const offsets: number[] = [];
            let at = 0;
            for (const p of parts) {
              if (at > 0) offsets.push(at);
              at += p.code.length;
            }
            const split = validateAt(code, offsets, options);
            if (split) expect(split).toEqual(onePiece(code, options));
          }
      }
    },
    HEAVY_PARSE_MS,
  );

  it('a cut inside a bracket, a multi-line string or after a backslash leaves a part that does not parse', () => {
    const cases = [
      'x = [\ny,\nexec("1")]\n',
      'x = (1 +\nexec("1"))\n',
      's = """\nabc\n__import__("os")\n"""\n',
      "s = '''\nx'''+eval('1')+'''\n'''\n",
      's = f"""{\nopen("x")\n}"""\n',
      'x = {\n"a": 1,\nb: 2}\n',
      'x = f"{(\nexec(1))}"\n',
      'x = 1 + \\\neval("1")\n',
      'x = 1 \\\nif_ = 2\n',
    ];
    for (const body of cases) {
      const code = `${body}emit_result(x)\n`;
      const end = code.lastIndexOf('emit_result(x)');
      const inner = everyLineStart(code).filter((c) => c.offset !== end);
      // The scan does not offer these cuts (but for the line inside an f-string's braces); tried anyway,
      // each leaves a part that does not parse.
      if (!body.includes('f"{(')) expect(pythonSplitCandidates(code).map((c) => c.offset)).toEqual([end]);
      expect(inner.length, code).toBeGreaterThan(0);
      for (const c of inner)
        expect(validateAt(code, [c.offset], OPTIONS[0] as ValidateOptions), code).toBeUndefined();
      // The cut before the last statement is a real boundary: the answer of the whole script (which for
      // `x = 1 \<newline>if_ = 2` is a syntax error, so the cut leaves a part that does not parse).
      const whole = onePiece(code, OPTIONS[0] as ValidateOptions);
      const atEnd = validateAt(code, [end], OPTIONS[0] as ValidateOptions);
      if (whole.violations.some((v) => v.rule === 'syntax')) expect(atEnd).toBeUndefined();
      else expect(atEnd).toEqual(whole);
    }
  });

  it('a backslash in a comment continues nothing; one after a string does', () => {
    const code = '# a comment \\\nx = f"{x["a"]}" + \\\nzed\nemit_result(x)\n';
    expect(pythonSplitCandidates(code).map((c) => c.line)).toEqual([2, 4]);
    const opts = OPTIONS[0] as ValidateOptions;
    expect(validateAt(code, [code.indexOf('x = f')], opts)).toEqual(onePiece(code, opts));
    expect(validateAt(code, [code.indexOf('zed')], opts)).toBeUndefined();
  });

  it('on every candidate split of a sample of the installed standard library', () => {
    const probe = spawnSync(
      '/usr/bin/python3',
      ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'],
      {
        encoding: 'utf8',
      },
    );
    if (probe.status !== 0)
      throw new Error('/usr/bin/python3 is needed for this test (apt-get install python3)');
    const stdlib = probe.stdout.trim();
    const files = readdirSync(stdlib)
      .filter((f) => f.endsWith('.py'))
      .sort()
      .filter((_f, i) => i % 6 === 0)
      .map((f) => join(stdlib, f))
      .filter((p) => statSync(p).size < 60_000);
    expect(files.length).toBeGreaterThan(8);
    let compared = 0;
    for (const f of files) {
      const code = readFileSync(f, 'utf8');
      const cands = everyLineStart(code);
      const whole = onePiece(code, OPTIONS[0] as ValidateOptions);
      // Every 3rd candidate keeps the test fast; the corpus tests above take every one.
      for (let i = 0; i < cands.length; i += 3) {
        const split = validateAt(
          code,
          [(cands[i] as { offset: number }).offset],
          OPTIONS[0] as ValidateOptions,
        );
        if (split === undefined) continue;
        compared++;
        expect(split, `${f} split at line ${(cands[i] as { line: number }).line}`).toEqual(whole);
      }
    }
    expect(compared).toBeGreaterThan(100);
  }, 120_000);

  it(
    'validatePython validates long scripts in pieces and answers as one piece would',
    () => {
      const opts = OPTIONS[0] as ValidateOptions;
      const parses = (code: string) => !onePiece(code, opts).violations.some((v) => v.rule === 'syntax');
      const attacks = attack.map((x) => x.code).filter(parses);
      const all = [...attacks, ...benign.map((x) => x.code)];
      // Long scripts made of corpus scripts (attacks included), with and without a syntax error in the middle.
      const long = [...all, ...all, ...all].join('\n');
      expect(long.length).toBeGreaterThan(PYTHON_CHUNK_CHARS * 3);
      const broken = [long.slice(0, long.length / 2), 'x = (1,\n', long.slice(long.length / 2)].join('\n');
      const unterminated = `${long}\ns = '''\n${long}`;
      for (const code of [long, broken, unterminated, long.replace(/\n/g, '\r\n')]) {
        expect(validatePythonChunked(code, opts).pieces).toBeGreaterThan(2);
        expect(validatePython(code, opts)).toEqual(onePiece(code, opts));
      }
      // The long script's answer came from the pieces (none had a syntax error), and caught every attack.
      expect(validatePythonChunked(long, opts).syntaxErrors).toBe(0);
      expect(parses(long)).toBe(true);
      expect(validatePython(long, opts).violations.length).toBeGreaterThanOrEqual(attacks.length * 3);
      expect(validatePython(broken, opts).violations.some((v) => v.rule === 'syntax')).toBe(true);
      // Short scripts are one piece.
      expect(validatePythonChunked(benign[0]?.code ?? '', opts).pieces).toBe(1);
    },
    HEAVY_PARSE_MS,
  );

  it(
    'carries names across pieces: helpers defined in one piece and called in another, unknown calls, emits',
    () => {
      const opts = OPTIONS[0] as ValidateOptions;
      const filler = (i: number) =>
        `def filler_${i}(rows):\n` +
        Array.from(
          { length: 40 },
          (_v, j) => `    rows = [r for r in rows if r.get("k${j}") != ${j}]\n`,
        ).join('') +
        '    return rows\n';
      const pieces = [
        'def early(x):\n    return later(x) + 1\n', // calls a helper defined in a later piece
        ...Array.from({ length: 12 }, (_v, i) => filler(i)),
        'def later(x):\n    return x * 2\n',
        ...Array.from({ length: 12 }, (_v, i) => filler(100 + i)),
        'total = early(1) + nowhere(2)\n', // nowhere() is defined by no piece
        'emit_result(total)\n',
      ];
      const code = pieces.join('');
      expect(validatePythonChunked(code, opts).pieces).toBeGreaterThan(2);
      const result = validatePython(code, opts);
      expect(result).toEqual(onePiece(code, opts));
      expect(result.violations.map((v) => `${v.rule}:${v.line}`)).toEqual([
        `unknown-function:${code.split('\n').findIndex((l) => l.startsWith('total =')) + 1}`,
      ]);
      // Without the emit (in the last piece) the script is refused, pointing at its last statement.
      const noEmit = pieces.slice(0, -1).join('');
      expect(validatePython(noEmit, opts).violations.map((v) => v.rule)).toEqual([
        'missing-emit',
        'unknown-function',
      ]);
      expect(validatePython(noEmit, opts)).toEqual(onePiece(noEmit, opts));
    },
    HEAVY_PARSE_MS,
  );
});
