/**
 * The Python parser (pyright) must see the same calls, imports and attribute names as CPython's own `ast`
 * on a sample of the installed standard library: the validator's rules are only as good as this.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  field,
  fieldList,
  parsePython,
  parsePythonTree,
  walk,
} from '../../../src-main/core/lang/python/pyright.ts';
import { HEAVY_PARSE_MS } from '../../support/budgets.ts';

const PY = '/usr/bin/python3';
const probe = spawnSync(
  PY,
  [
    '-c',
    'import sysconfig,sys; print(sysconfig.get_paths()["stdlib"]); print("%d.%d" % sys.version_info[:2])',
  ],
  { encoding: 'utf8' },
);
if (probe.status !== 0) throw new Error(`${PY} is needed for this test (Debian: apt-get install python3)`);
const [stdlib = '', version = ''] = probe.stdout.split('\n');

function sample(n: number): string[] {
  const all: string[] = [];
  const visit = (dir: string, depth: number) => {
    for (const e of readdirSync(dir).sort()) {
      if (/^(test|tests|idlelib|tkinter|turtledemo|lib2to3|site-packages|dist-packages|__pycache__)$/.test(e))
        continue;
      const p = join(dir, e);
      const st = statSync(p);
      if (st.isDirectory() && depth < 2) visit(p, depth + 1);
      else if (e.endsWith('.py') && st.size < 400_000) all.push(p);
    }
  };
  visit(stdlib, 0);
  const step = Math.max(1, Math.floor(all.length / n));
  return all.filter((_f, i) => i % step === 0).slice(0, n);
}

const CPYTHON = `
import ast, json, sys
out = {}
for path in sys.argv[1:]:
    try:
        tree = ast.parse(open(path, encoding="utf-8").read())
    except Exception:
        continue
    calls, imports, attrs = [], [], []
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            f = n.func
            calls.append(f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else "?")
        elif isinstance(n, ast.Import):
            imports += [a.name for a in n.names]
        elif isinstance(n, ast.ImportFrom):
            imports.append("." * n.level + (n.module or ""))
        elif isinstance(n, ast.Attribute):
            attrs.append(n.attr)
    out[path] = {"calls": sorted(calls), "imports": sorted(imports), "attrs": sorted(attrs)}
print(json.dumps(out))
`;

function fromPyright(source: string) {
  const calls: string[] = [];
  const imports: string[] = [];
  const attrs: string[] = [];
  walk(parsePython(source).module, (n) => {
    if (n.kind === 'Call') {
      const f = field(n, 'leftExpr');
      calls.push(f?.kind === 'Name' || f?.kind === 'MemberAccess' ? (f.value ?? '?') : '?');
    } else if (n.kind === 'ImportAs') {
      imports.push(
        fieldList(field(n, 'module') ?? n, 'nameParts')
          .map((p) => p.value)
          .join('.'),
      );
    } else if (n.kind === 'ImportFrom') {
      // Leading dots of relative imports are not nodes in pyright's tree; both sides are compared without them.
      const m = field(n, 'module');
      imports.push(
        m
          ? fieldList(m, 'nameParts')
              .map((p) => p.value)
              .join('.')
          : '',
      );
    } else if (n.kind === 'MemberAccess') {
      attrs.push(n.value ?? '');
    }
  });
  return { calls: calls.sort(), imports: imports.sort(), attrs: attrs.sort() };
}

describe('pyright parser vs CPython ast on the standard library', () => {
  const files = sample(150);
  const r = spawnSync(PY, ['-c', CPYTHON, ...files], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const expected = JSON.parse(r.stdout) as Record<
    string,
    { calls: string[]; imports: string[]; attrs: string[] }
  >;

  it('samples at least 100 files that CPython parses', () => {
    expect(Object.keys(expected).length).toBeGreaterThanOrEqual(100);
  });

  it(
    'agrees on every call, import and attribute name',
    () => {
      const mismatches: string[] = [];
      for (const [path, want] of Object.entries(expected)) {
        const got = fromPyright(readFileSync(path, 'utf8'));
        const stripDots = (xs: string[]) => xs.map((x) => x.replace(/^\.+/, '')).sort();
        if (JSON.stringify(got.calls) !== JSON.stringify(want.calls))
          mismatches.push(`${path}: calls differ`);
        if (JSON.stringify(stripDots(got.imports)) !== JSON.stringify(stripDots(want.imports)))
          mismatches.push(`${path}: imports differ`);
        if (JSON.stringify(got.attrs) !== JSON.stringify(want.attrs))
          mismatches.push(`${path}: attributes differ`);
      }
      expect(mismatches).toEqual([]);
    },
    HEAVY_PARSE_MS,
  );
});

/**
 * f-string conversions, which pyright checks only loosely: the sandbox worker's Python (Debian 12's 3.11)
 * takes exactly `!r`, `!s` or `!a`, right after the `!` and right before `:` or `}`. The table is 3.11's
 * answer; where the host's python3 is 3.11 it is asked too.
 */
const CONVERSIONS: [string, 'ok' | 'error'][] = [
  ['f"{x!r}"', 'ok'],
  ['f"{x!s}"', 'ok'],
  ['f"{x!a}"', 'ok'],
  ['f"{x!r:>3}"', 'ok'],
  ['f"{x=!r}"', 'ok'],
  ['f"{ x !r}"', 'ok'],
  ['f"{x!=y}"', 'ok'],
  ['f"{x != y}"', 'ok'],
  ['f"{x:{y!s}}"', 'ok'],
  ['rf"{x!a}"', 'ok'],
  ['f"{x!z}"', 'error'],
  ['f"{x!R}"', 'error'],
  ['f"{x=!z}"', 'error'],
  ['rf"{x!z}"', 'error'],
  ['f"{x!z:{y}}"', 'error'],
  ['f"{x:{y!z}}"', 'error'],
  ['f"{x!r:{y!z}}"', 'error'],
  ['f"{x!\u00e9}"', 'error'],
  ['f"{x!\uff52}"', 'error'], // a fullwidth r: Python 3.11 compares the character, not its NFKC form
  ['f"{x!}"', 'error'],
  ['f"{x!:}"', 'error'],
  ['f"{x!:>3}"', 'error'],
  ['f"{x!1}"', 'error'],
  [`f"{x!'r'}"`, 'error'],
  ['f"{x!"', 'error'],
  ['f"{x!rr}"', 'error'],
  ['f"{x!ra}"', 'error'],
  ['f"{x!r!s}"', 'error'],
  ['f"{x!r=}"', 'error'],
  ['f"{x! r}"', 'error'],
  ['f"{x!r }"', 'error'],
  ['f"{x!s }"', 'error'],
  ['f"{x!r :>3}"', 'error'],
  ['f"{x!a :}"', 'error'],
  ['f"{x!r\t}"', 'error'],
  ['f"{x!r#}"', 'error'],
  ['f"""{x!r\n}"""', 'error'],
];

describe('f-string conversions: the host accepts and refuses what Python 3.11 does', () => {
  it.each(CONVERSIONS)('%j: %s', (code, want) => {
    const got = parsePythonTree(`${code}\n`).syntaxErrors;
    expect(got.length === 0 ? 'ok' : 'error', got[0]?.message).toBe(want);
  });

  it.runIf(version === '3.11')("the table is CPython 3.11's own answer", () => {
    const check = [
      'import ast, json, sys',
      'out = []',
      'for c in json.load(sys.stdin):',
      '    try:',
      '        ast.parse(c + "\\n")',
      '        out.append("ok")',
      '    except SyntaxError:',
      '        out.append("error")',
      'print(json.dumps(out))',
    ].join('\n');
    const r = spawnSync(PY, ['-I', '-c', check], {
      encoding: 'utf8',
      input: JSON.stringify(CONVERSIONS.map(([c]) => c)),
    });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(CONVERSIONS.map(([, want]) => want));
  });
});
