/**
 * String escapes: the host's decoded value of every Python string-literal escape form equals CPython's
 * (the sandbox worker parses with CPython's `ast`), so no rule on the host reads a different text than
 * the worker's re-check does. `\N{...}` used to decode as "-" on the host (pyright's decoder).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateScript } from '../../../src-main/core/lang/validate.ts';
import { decodePythonEscapes } from '../../../src-main/core/lang/python/escapes.ts';
import { parsePython, walk } from '../../../src-main/core/lang/python/pyright.ts';
import { repoRoot } from '../../support/workspace.ts';

const PY = '/usr/bin/python3';

function python(script: string, args: string[] = [], input?: string): string {
  const r = spawnSync(PY, ['-I', '-B', '-c', script, ...args], { encoding: 'utf8', input, cwd: '/tmp' });
  if (r.status !== 0) throw new Error(`${PY} failed (Debian: apt-get install python3): ${r.stderr}`);
  return r.stdout;
}

/** Every escape form, in plain, bytes, raw, triple-quoted and f-string literals. */
const LITERALS = [
  String.raw`"\\ \' \" \a \b \f \n \r \t \v"`,
  String.raw`"\0 \7 \12 \101 \1010 \777 \8 \9"`,
  String.raw`"\x41\x5f\x5F \xe9"`,
  String.raw`"\u005f\u005fclass\u005F\u005f \u00e9 \u20ac"`,
  String.raw`"\U0000005f\U0001F600 \U0010FFFF"`,
  String.raw`"\N{LOW LINE}\N{low line}\N{Latin Small Letter A}\N{LATIN CAPITAL LETTER E WITH ACUTE}"`,
  String.raw`"\N{NULL}\N{LINE FEED}\N{LF}\N{NEL}\N{NBSP}\N{SPACE}\N{DIGIT ZERO}\N{TILDE}\N{DELETE}"`,
  String.raw`"\q \d \w \% \{ \}"`,
  '"a\\\nb"',
  '"""x\\\ny\nz"""',
  String.raw`r"\N{LOW LINE}\x41\n\\"`,
  String.raw`R"\u005f"`,
  String.raw`b"\x41\101\n\\\q \u005f \N{LOW LINE}"`,
  String.raw`rb"\x41"`,
  String.raw`f"\N{LOW LINE}\N{LOW LINE}{1}\x41\u005f\U0000005f\101"`,
  String.raw`f"{{}}\t"`,
  String.raw`"\N{LOW LINE}" "\x5f" '\137' u"\u005f"`,
];

/** CPython's value of each literal (bytes as latin-1 text, f-strings with their fields as written). */
const CPYTHON = `
import ast, json, sys
out = []
for src in json.load(sys.stdin):
    node = ast.parse(src, mode="eval").body
    if isinstance(node, ast.JoinedStr):
        out.append("".join(v.value if isinstance(v, ast.Constant) else "" for v in node.values))
    else:
        v = node.value
        out.append(v.decode("latin-1") if isinstance(v, bytes) else v)
print(json.dumps(out))
`;

/** The host's value: the text the validator's rules read (StringList values; f-string literal parts). */
function hostValue(src: string): string {
  const { module, syntaxErrors } = parsePython(`x = ${src}\n`);
  expect(syntaxErrors, src).toEqual([]);
  let value: string | undefined;
  walk(module, (n) => {
    if (value === undefined && n.kind === 'StringList') value = n.value ?? '';
  });
  if (src.startsWith('f')) {
    value = '';
    walk(module, (n) => {
      if (n.kind === 'FormatString') value += n.value ?? '';
    });
  }
  return value ?? '';
}

describe('string escapes: host = CPython', () => {
  const expected = JSON.parse(python(CPYTHON, [], JSON.stringify(LITERALS))) as string[];

  it.each(LITERALS.map((l, i) => [l, i] as const))('%s', (lit, i) => {
    const host = hostValue(lit);
    // f-strings: "{{" stays doubled in pyright's middle tokens; compare with the braces folded.
    expect(lit.startsWith('f') ? host.replace(/\{\{/g, '{').replace(/\}\}/g, '}') : host).toBe(expected[i]);
  });

  it('\\N{...} names decode case-insensitively, as in CPython; bytes and raw strings keep them', () => {
    expect(decodePythonEscapes(String.raw`\N{LOW LINE}\N{low line}\N{Low Line}`)).toBe('___');
    expect(decodePythonEscapes(String.raw`\N{LOW LINE}`, { raw: true })).toBe(String.raw`\N{LOW LINE}`);
    expect(decodePythonEscapes(String.raw`\N{LOW LINE}`, { bytes: true })).toBe(String.raw`\N{LOW LINE}`);
    // Outside U+0000..U+00FF: a character no rule's ASCII text can contain.
    expect(decodePythonEscapes(String.raw`\N{SNOWMAN}`)).toBe('\ufffd');
  });
});

describe('a dunder spelled with \\N{...}: refused by the host as by the worker', () => {
  const script = 'emit_result(getattr(1, "\\N{LOW LINE}\\N{LOW LINE}class\\N{LOW LINE}\\N{LOW LINE}"))\n';

  it('the host validator refuses it (dunder-string)', () => {
    const r = validateScript(script, 'python', { tools: [] });
    expect(r.valid).toBe(false);
    expect(r.violations.map((v) => v.rule)).toContain('dunder-string');
  });

  it("the worker's check_script refuses it", () => {
    const out = python(
      `
import sys
sys.path.insert(0, sys.argv[1])
from toolsmith_worker import checks as w
try:
    w.check_script(sys.stdin.read())
    print("accepted")
except w.ValidationError as e:
    print("refused:", e)
`,
      [join(repoRoot, 'sandbox-images/python')],
      script,
    );
    expect(out).toMatch(/^refused:/);
  });
});
