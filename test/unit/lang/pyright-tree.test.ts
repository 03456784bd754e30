/**
 * The Python tree conversion walks pyright's nodes through a generated per-type field visitor
 * (src-main/core/lang/python/pyright-fields.ts). These tests check that the generated file matches the
 * installed pyright, and that the tree it yields is the one a generic walk over every node-valued field
 * of pyright's own tree yields: same nodes, same order, same parents and roles, same fields. A node type
 * or field the visitor missed would drop a subtree from validation, so this is a security test.
 */
import { fileURLToPath } from 'node:url';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { DiagnosticSink } from '@zzzen/pyright-internal/dist/common/diagnosticSink.js';
import { pythonVersion3_12 } from '@zzzen/pyright-internal/dist/common/pythonVersion.js';
import type { ParseNode } from '@zzzen/pyright-internal/dist/parser/parseNodes.js';
import { ParseOptions, Parser } from '@zzzen/pyright-internal/dist/parser/parser.js';
import {
  categoryOf,
  child,
  childList,
  endOf,
  field,
  fieldList,
  isFormatted,
  kindOf,
  parentOf,
  parsePython,
  parsePythonTree,
  startOf,
  textOf,
  walk,
  walkTree,
} from '../../../src-main/core/lang/python/pyright.ts';
import type { PyNode, PyTreeNode } from '../../../src-main/core/lang/python/pyright.ts';
import {
  PYRIGHT_NODE_FIELDS,
  PYRIGHT_NODE_TYPES,
} from '../../../src-main/core/lang/python/pyright-fields.ts';
import { generate, OUTPUT } from '../../../scripts/gen-pyright-fields.ts';
import { HEAVY_PARSE_MS } from '../../support/budgets.ts';

const NODE_KINDS: string[] = [];
for (const [name, n] of Object.entries(PYRIGHT_NODE_TYPES)) NODE_KINDS[n] = name;

const isNode = (v: unknown): v is ParseNode =>
  typeof v === 'object' && v !== null && typeof (v as ParseNode).nodeType === 'number' && 'd' in v;

interface Ref {
  start: number;
  end: number;
  role: string;
  depth: number;
}

/**
 * Pre-order over every node-valued field of pyright's tree, found by enumerating each node's fields (each
 * node once; destExpr is synthesized), siblings in the order of the declared fields.
 */
function reference(source: string): Ref[] {
  const o = new ParseOptions();
  o.pythonVersion = pythonVersion3_12;
  const root = new Parser().parseSourceFile(source, o, new DiagnosticSink()).parserOutput.parseTree;
  const seen = new Set<ParseNode>();
  const out: Ref[] = [];
  const visit = (p: ParseNode, role: string, depth: number) => {
    seen.add(p);
    out.push({ start: p.start, end: p.start + p.length, role, depth });
    const d = p.d as Record<string, unknown>;
    const children: [ParseNode, string][] = [];
    for (const key in d) {
      if (key === 'destExpr') continue;
      const v = d[key];
      for (const c of Array.isArray(v) ? (v as unknown[]) : [v])
        if (isNode(c) && !seen.has(c)) {
          seen.add(c);
          children.push([c, key]);
        }
    }
    const order = PYRIGHT_NODE_FIELDS[NODE_KINDS[p.nodeType] as string] ?? [];
    const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
    children.sort((a, b) => rank(a[1]) - rank(b[1]));
    for (const [c, key] of children) visit(c, key, depth + 1);
  };
  visit(root, '', 0);
  return out;
}

function converted(source: string): { refs: Ref[]; nodes: PyNode[] } {
  const refs: Ref[] = [];
  const nodes: PyNode[] = [];
  const depth = new Map<PyNode, number>();
  walk(parsePython(source).module, (n) => {
    const dep = n.parent ? (depth.get(n.parent) ?? 0) + 1 : 0;
    depth.set(n, dep);
    refs.push({ start: n.start, end: n.end, role: n.role, depth: dep });
    nodes.push(n);
  });
  return { refs, nodes };
}

function sources(): [string, string][] {
  const out: [string, string][] = [];
  for (const kind of ['benign', 'attack']) {
    const dir = fileURLToPath(new URL(`../../fixtures/corpus/python/${kind}/`, import.meta.url));
    for (const f of readdirSync(dir).sort()) out.push([`${kind}/${f}`, readFileSync(join(dir, f), 'utf8')]);
  }
  const stdlib = '/usr/lib/python3.11';
  const files = readdirSync(stdlib)
    .filter((f) => f.endsWith('.py') && statSync(join(stdlib, f)).size < 200_000)
    .sort();
  for (const f of files.filter((_f, i) => i % 4 === 0)) out.push([f, readFileSync(join(stdlib, f), 'utf8')]);
  return out;
}

describe('pyright-fields.ts', () => {
  it(
    'is what scripts/gen-pyright-fields.ts generates from the installed pyright',
    async () => {
      const config = (await prettier.resolveConfig(OUTPUT)) ?? {};
      const expected = await prettier.format(generate(), { ...config, filepath: OUTPUT });
      expect(readFileSync(OUTPUT, 'utf8'), 'run: node scripts/gen-pyright-fields.ts').toBe(expected);
    },
    HEAVY_PARSE_MS,
  );
});

describe('converted tree vs every node-valued field of pyright tree', () => {
  const all = sources();

  it('covers the corpus and a sample of the standard library', () => {
    expect(all.length).toBeGreaterThan(150);
  });

  it(
    'has the same nodes with the same parents and roles',
    () => {
      const mismatches: string[] = [];
      for (const [name, src] of all) {
        const want = reference(src);
        const got = converted(src).refs;
        const i = want.findIndex((w, k) => JSON.stringify(w) !== JSON.stringify(got[k]));
        if (i >= 0 || got.length !== want.length)
          mismatches.push(
            `${name}: node ${i} is ${JSON.stringify(got[i])}, reference ${JSON.stringify(want[i])}`,
          );
      }
      expect(mismatches).toEqual([]);
    },
    HEAVY_PARSE_MS,
  );

  it(
    'field() and fieldList() return the children held by each field',
    () => {
      for (const [, src] of all.slice(0, 60)) {
        for (const n of converted(src).nodes) {
          const roles = new Set(n.children.map((c) => c.role));
          for (const role of roles) {
            const held = n.children.filter((c) => c.role === role);
            expect(fieldList(n, role)).toEqual(held);
            expect(field(n, role)).toBe(held[0]);
          }
          expect(field(n, 'noSuchField')).toBeUndefined();
          expect(fieldList(n, 'noSuchField')).toEqual([]);
        }
      }
    },
    HEAVY_PARSE_MS,
  );

  it('keeps the values the rules read (names, strings, numbers, categories)', () => {
    const { nodes } = converted(
      'x = f(a, *b, k=1, **c)\ns = "a" "__" f"{x}b"\nn = 10**3\ndef g(p, *q, **r): pass\nt = o.attr\n',
    );
    const byKind = (k: string) => nodes.filter((n) => n.kind === k);
    expect(byKind('Argument').map((a) => [a.category, a.value])).toEqual([
      ['simple', undefined],
      ['list', undefined],
      ['simple', 'k'],
      ['dict', undefined],
    ]);
    expect(byKind('StringList').map((s) => [s.value, s.formatted])).toEqual([['a__b', true]]);
    expect(byKind('Number').map((x) => x.num)).toEqual([1, 10, 3]);
    expect(byKind('Parameter').map((p) => [p.value, p.category])).toEqual([
      ['p', 'simple'],
      ['q', 'args'],
      ['r', 'kwargs'],
    ]);
    expect(byKind('MemberAccess').map((m) => [m.value, field(m, 'member')?.value])).toEqual([
      ['attr', 'attr'],
    ]);
  });
});

/** Both views of one parse, in walk order, with each node's position in that order. */
function bothViews(src: string) {
  const converted: PyNode[] = [];
  walk(parsePython(src).module, (n) => void converted.push(n));
  const raw: PyTreeNode[] = [];
  walkTree(parsePythonTree(src).root, (n) => void raw.push(n));
  return {
    converted,
    raw,
    index: new Map(raw.map((n, i) => [n, i])),
    convIndex: new Map(converted.map((n, i) => [n, i])),
  };
}

describe('parsePythonTree (what the validator reads) vs parsePython (the converted tree)', () => {
  const all = sources();
  const FIELDS = [...new Set(Object.values(PYRIGHT_NODE_FIELDS).flat())];

  it(
    'visits the same nodes in the same order with the same kinds, ranges, values and parents',
    () => {
      const mismatches: string[] = [];
      for (const [name, src] of all) {
        const { converted, raw, index, convIndex } = bothViews(src);
        const describe = (i: number) => {
          const a = converted[i] as PyNode;
          const b = raw[i] as PyTreeNode;
          const pa = a.parent ? convIndex.get(a.parent) : -1;
          const pb = parentOf(b) ? index.get(parentOf(b) as PyTreeNode) : -1;
          return [
            JSON.stringify([a.kind, a.start, a.end, a.value, a.category, !!a.formatted, pa]),
            JSON.stringify([kindOf(b), startOf(b), endOf(b), textOf(b), categoryOf(b), isFormatted(b), pb]),
          ];
        };
        if (raw.length !== converted.length) {
          mismatches.push(`${name}: ${raw.length} nodes vs ${converted.length}`);
          continue;
        }
        for (let i = 0; i < raw.length; i++) {
          const [a, b] = describe(i);
          if (a !== b) {
            mismatches.push(`${name} node ${i}: ${b} vs ${a}`);
            break;
          }
        }
      }
      expect(mismatches).toEqual([]);
    },
    HEAVY_PARSE_MS,
  );

  it(
    'child() and childList() agree with field() and fieldList() for every field name',
    () => {
      for (const [, src] of all.slice(0, 40)) {
        const { converted, raw, index, convIndex } = bothViews(src);
        converted.forEach((n, i) => {
          const r = raw[i] as PyTreeNode;
          for (const f of FIELDS) {
            const a = field(n, f);
            const b = child(r, f);
            expect(b === undefined ? -1 : index.get(b)).toBe(a === undefined ? -1 : convIndex.get(a));
            expect(childList(r, f).map((x) => index.get(x))).toEqual(
              fieldList(n, f).map((x) => convIndex.get(x)),
            );
          }
        });
      }
    },
    HEAVY_PARSE_MS,
  );
});
