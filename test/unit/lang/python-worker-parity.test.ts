/**
 * The sandbox worker (sandbox-images/python/toolsmith_worker/) applies the same language surface as the
 * host: its lists are surface.py, generated from builtins.ts (this test fails when the file is stale),
 * its attribute table answers every name as the host's does, and its own AST re-check refuses what the
 * host refuses for every escape in the attack corpus. The worker's checks are imported in a separate
 * python3 process and only asked to parse (never to run) the corpus.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  pythonAttributeRefusal,
  PYTHON_FORBIDDEN_ATTRIBUTE_PREFIXES,
  PYTHON_FORBIDDEN_ATTRIBUTES,
  PYTHON_MODULE_ATTRIBUTES,
  PYTHON_SAFE_BUILTINS,
  PYTHON_TEMPLATE_METHODS,
} from '../../../src-main/core/lang/builtins.ts';
import { BIDI_CONTROLS, bidiViolations } from '../../../src-main/core/lang/bidi.ts';
import { pythonSurfaceSource } from '../../../src-main/core/lang/python/surface.ts';
import { repoRoot } from '../../support/workspace.ts';

const PY = '/usr/bin/python3';
const PACKAGE_DIR = join(repoRoot, 'sandbox-images/python');
const SURFACE = join(PACKAGE_DIR, 'toolsmith_worker/surface.py');
const CORPUS = join(repoRoot, 'test/fixtures/corpus/python');

function python(script: string, args: string[] = [], input?: string): string {
  const r = spawnSync(PY, ['-I', '-B', '-c', script, ...args], { encoding: 'utf8', input, cwd: '/tmp' });
  if (r.status !== 0) throw new Error(`${PY} failed (Debian: apt-get install python3): ${r.stderr}`);
  return r.stdout;
}
/** A python3 prelude importing the worker's checks module as `w` (argv[1]: the package's folder). */
const IMPORT_CHECKS = `
import json, sys
sys.path.insert(0, sys.argv[1])
from toolsmith_worker import checks as w
`;

describe("the worker's surface.py is generated from builtins.ts", () => {
  it('surface.py is what scripts/gen-python-surface.ts writes (run it after changing builtins.ts)', () => {
    expect(readFileSync(SURFACE, 'utf8')).toBe(pythonSurfaceSource());
  });

  it('the attribute table answers every name the same way on both sides', () => {
    const names = [
      ...PYTHON_FORBIDDEN_ATTRIBUTES,
      ...PYTHON_TEMPLATE_METHODS,
      ...PYTHON_FORBIDDEN_ATTRIBUTE_PREFIXES.map((p) => `${p}anything`),
      ...Object.values(PYTHON_MODULE_ATTRIBUTES).flat(),
      ...PYTHON_SAFE_BUILTINS,
      '__class__',
      '_private',
      'success',
      'message',
      'data',
      'items',
      'get',
      'append',
      'upper',
      'fromisoformat',
      'frame',
      'code',
      'globals',
      'gi',
      'formats',
      'format_spec',
      'replace',
      'clear',
    ];
    const worker = JSON.parse(
      python(
        `${IMPORT_CHECKS}print(json.dumps({n: w.attribute_refusal(n) for n in json.load(sys.stdin)}))`,
        [PACKAGE_DIR],
        JSON.stringify(names),
      ),
    ) as Record<string, string | null>;
    const host = Object.fromEntries(names.map((n) => [n, pythonAttributeRefusal(n) ?? null]));
    expect(worker).toEqual(host);
    expect(host['gi_frame']).toBe('internal');
    expect(host['format']).toBe('template');
    expect(host['data']).toBeNull();
  });

  it('the bidi-control rule finds the same characters at the same lines and columns on both sides', () => {
    // every control, in code, a comment and a string; astral characters before some (UTF-16 columns),
    // CRLF, CR and LF line ends, and characters Python does not break lines at (U+2028, form feed)
    const controls = Object.keys(BIDI_CONTROLS).map((cp) => String.fromCharCode(Number(cp)));
    const code =
      controls
        .map((c, i) => `x${i} = "\u{1F600}${'\u{1D11E}'.repeat(i % 3)}${c}"  # \u2028\f${c}`)
        .map((line, i) => line + ['\n', '\r\n', '\r'][i % 3])
        .join('') + `${controls.join('')}\n`;
    const host = bidiViolations(code, 'python').map((v) => [v.line, v.column, v.message.slice(2, 6)]);
    const worker = JSON.parse(
      python(
        `${IMPORT_CHECKS}print(json.dumps([[l, c, f"{cp:04X}"] for l, c, cp in w.bidi_controls(sys.stdin.read())]))`,
        [PACKAGE_DIR],
        code,
      ),
    ) as unknown[];
    expect(host.length).toBe(controls.length * 3);
    expect(worker).toEqual(host);
    // and refused by the worker's check under the rule's name, whether or not the text parses
    const refused = python(
      `${IMPORT_CHECKS}
out = []
for code in json.load(sys.stdin):
    try:
        w.check_script(code)
        out.append(None)
    except w.ValidationError as e:
        out.append(str(e))
print(json.dumps(out))`,
      [PACKAGE_DIR],
      JSON.stringify(['emit_result(1)  # \u202e\n', 'emit_result(1\n# \u2067\n']),
    );
    const [one, two] = JSON.parse(refused) as string[];
    expect(one).toMatch(
      /^line 1, column 19: bidi-control: U\+202E \(RIGHT-TO-LEFT OVERRIDE\), a bidirectional/,
    );
    expect(two).toMatch(
      /^line 2, column 3: bidi-control: U\+2067 \(RIGHT-TO-LEFT ISOLATE\).*; line \d+: syntax error/,
    );
  });

  it("every allow-listed attribute exists in this machine's CPython", () => {
    const missing = python(
      'import importlib, json, sys\nd = json.load(sys.stdin)\nprint(json.dumps([f"{m}.{a}" for m, attrs in d.items() for a in attrs if not hasattr(importlib.import_module(m), a)]))',
      [],
      JSON.stringify(PYTHON_MODULE_ATTRIBUTES),
    );
    expect(JSON.parse(missing)).toEqual([]);
  });
});

describe("the worker's own AST re-check and module stand-ins", () => {
  // Reports, per file, whether the worker's check_script refused it (and why).
  const CHECK = `${IMPORT_CHECKS}
out = {}
for path in sys.argv[2:]:
    try:
        w.check_script(open(path, encoding="utf-8").read())
        out[path] = None
    except w.ValidationError as e:
        out[path] = str(e)
print(json.dumps(out))
`;
  const files = (sub: string) =>
    readdirSync(join(CORPUS, sub))
      .filter((f) => f.endsWith('.py'))
      .sort()
      .map((f) => join(CORPUS, sub, f));
  /**
   * Host rules the worker does not repeat: they keep scripts tidy (a missing emit, an unknown function,
   * a rebound emit_result that only breaks the script itself) or are guards at run time (type() with
   * three arguments: the worker's type takes one). Every other attack must be refused by the worker too.
   */
  const HOST_ONLY = new Set([
    'rebind-framework',
    'tool-not-called',
    'missing-emit',
    'empty-script',
    'unknown-function',
    'guarded-type',
  ]);
  const expected = (f: string) => /^# expect: ([a-z-]+)/.exec(readFileSync(f, 'utf8'))?.[1] ?? '';

  it('refuses every attack of the corpus whose rule is a core rule (all but the host-only ones)', () => {
    const attacks = files('attack').filter((f) => !HOST_ONLY.has(expected(f)));
    expect(attacks.length).toBeGreaterThanOrEqual(145);
    const r = JSON.parse(python(CHECK, [PACKAGE_DIR, ...attacks])) as Record<string, string | null>;
    const passed = Object.entries(r)
      .filter(([, v]) => v === null)
      .map(([f]) => f);
    expect(passed).toEqual([]);
  });

  it('accepts every benign script in the corpus', () => {
    const r = JSON.parse(python(CHECK, [PACKAGE_DIR, ...files('benign')])) as Record<string, string | null>;
    expect(Object.entries(r).filter(([, v]) => v !== null)).toEqual([]);
  });

  it('scripts get stand-ins holding only the allowed attributes, read-only', () => {
    const out = python(
      `${IMPORT_CHECKS}
res = {}
for expr in ["statistics.sys", "json.codecs", "re.enum", "datetime.sys", "json.__dict__", "math.__class__"]:
    m, a = expr.split(".")
    try:
        getattr(w.MODULES[m], a)
        res[expr] = "reachable"
    except AttributeError as e:
        res[expr] = str(e)
try:
    w.MODULES["json"].dumps = repr
    res["write"] = "written"
except AttributeError as e:
    res["write"] = str(e)
res["dumps"] = w.MODULES["json"].dumps([1])
res["sqrt"] = w.MODULES["math"].sqrt(16)
print(json.dumps(res))
`,
      [PACKAGE_DIR],
    );
    const r = JSON.parse(out) as Record<string, unknown>;
    expect(r['statistics.sys']).toMatch(/^statistics\.sys is not available: statistics offers only mean,/);
    for (const k of ['json.codecs', 're.enum', 'datetime.sys', 'json.__dict__', 'math.__class__'])
      expect(r[k]).toMatch(/is not available/);
    expect(r['write']).toBe('json is read-only');
    expect(r['dumps']).toBe('[1]');
    expect(r['sqrt']).toBe(4);
  });
});
