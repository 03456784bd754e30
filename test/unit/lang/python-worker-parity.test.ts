/**
 * The sandbox worker (sandbox-images/python/toolsmith_worker/checks.py) keeps its own copy of the language surface: the
 * safe builtins, the forbidden names and attributes, each pre-imported module's allowed attributes and the
 * str.format field pattern. They must equal the host's data in builtins.ts, and its own AST re-check must
 * refuse what the host refuses for modules and format templates. checks.py is read with CPython's `ast`
 * (literal constants, never executed) and its check_script is called in a separate python3 process.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  PYTHON_FORBIDDEN_ATTRIBUTES,
  PYTHON_FORBIDDEN_NAMES,
  PYTHON_MODULE_ATTRIBUTES,
  PYTHON_PREIMPORTED_MODULES,
  PYTHON_SAFE_BUILTINS,
} from '../../../src-main/core/lang/builtins.ts';
import { FORMAT_FIELD } from '../../../src-main/core/lang/python/validate.ts';
import { repoRoot } from '../../support/workspace.ts';

const PY = '/usr/bin/python3';
const WORKER = join(repoRoot, 'sandbox-images/python/toolsmith_worker/checks.py');
const CORPUS = join(repoRoot, 'test/fixtures/corpus/python');

function python(script: string, args: string[] = [], input?: string): string {
  const r = spawnSync(PY, ['-I', '-B', '-c', script, ...args], { encoding: 'utf8', input, cwd: '/tmp' });
  if (r.status !== 0) throw new Error(`${PY} failed (Debian: apt-get install python3): ${r.stderr}`);
  return r.stdout;
}

/** The worker's top-level literal constants, by name. */
const CONSTANTS = `
import ast, json, sys
tree = ast.parse(open(sys.argv[1], encoding="utf-8").read())
out = {}
for node in tree.body:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        name, value = node.targets[0].id, node.value
        if name == "FORMAT_FIELD":
            out[name] = value.args[0].value
            continue
        if name == "MODULES":
            out[name] = [e.elts[0].value for e in value.generators[0].iter.elts]
            continue
        try:
            v = ast.literal_eval(value)
        except ValueError:
            continue
        out[name] = sorted(v) if isinstance(v, (set, frozenset)) else v
print(json.dumps(out))
`;
const worker = JSON.parse(python(CONSTANTS, [WORKER])) as {
  FORBIDDEN_NAMES: string[];
  FORBIDDEN_ATTRS: string[];
  SAFE_BUILTIN_NAMES: string[];
  MODULE_ATTRS: Record<string, string[]>;
  MODULES: string[];
  FORMAT_METHODS: string[];
  FORMAT_FIELD: string;
};
const sorted = (xs: Iterable<string>) => [...xs].sort();

describe("the worker's checks.py and builtins.ts hold the same lists", () => {
  it('module allow-lists (same modules, same attributes, same order)', () => {
    expect(worker.MODULE_ATTRS).toEqual(PYTHON_MODULE_ATTRIBUTES);
    expect(worker.MODULES).toEqual(PYTHON_PREIMPORTED_MODULES);
  });

  it('safe builtins (getattr/hasattr/type/print are added guarded; True/False/None are keywords)', () => {
    const added = ['getattr', 'hasattr', 'type', 'print', 'True', 'False', 'None'];
    expect(sorted(new Set([...worker.SAFE_BUILTIN_NAMES, ...added]))).toEqual(sorted(PYTHON_SAFE_BUILTINS));
    expect(worker.SAFE_BUILTIN_NAMES.length + added.length).toBe(PYTHON_SAFE_BUILTINS.length);
  });

  it('forbidden names and attributes', () => {
    expect(worker.FORBIDDEN_NAMES).toEqual(sorted(Object.keys(PYTHON_FORBIDDEN_NAMES)));
    expect(worker.FORBIDDEN_ATTRS).toEqual(sorted(PYTHON_FORBIDDEN_ATTRIBUTES));
  });

  it('the str.format field pattern', () => {
    expect(worker.FORMAT_FIELD).toBe(FORMAT_FIELD.source);
    expect(sorted(worker.FORMAT_METHODS)).toEqual(['format', 'format_map']);
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
  // Imports checks.py as a module (stdlib only, loadable on its own) and reports, per file, whether check_script refused it.
  const CHECK = `
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("toolsmith_worker_checks", sys.argv[1])
w = importlib.util.module_from_spec(spec)
spec.loader.exec_module(w)
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
  const attacks = files('attack').filter((f) =>
    /^# expect: (module-attribute|format-attribute-walk)/.test(readFileSync(f, 'utf8')),
  );

  it('refuses every module-attribute and format-attribute-walk attack in the corpus', () => {
    expect(attacks.length).toBeGreaterThanOrEqual(20);
    const r = JSON.parse(python(CHECK, [WORKER, ...attacks])) as Record<string, string | null>;
    const passed = Object.entries(r)
      .filter(([, v]) => v === null)
      .map(([f]) => f);
    expect(passed).toEqual([]);
  });

  it('accepts every benign script in the corpus', () => {
    const r = JSON.parse(python(CHECK, [WORKER, ...files('benign')])) as Record<string, string | null>;
    expect(Object.entries(r).filter(([, v]) => v !== null)).toEqual([]);
  });

  it('scripts get stand-ins holding only the allowed attributes, read-only', () => {
    const out = python(
      `
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("toolsmith_worker_checks", sys.argv[1])
w = importlib.util.module_from_spec(spec)
spec.loader.exec_module(w)
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
      [WORKER],
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
