/**
 * No import cycles in src-main, the renderer or the preload script: modules form a DAG, so each can be read, loaded and tested after what
 * it imports. Static imports and re-exports count, `import type` included (a type cycle is the same
 * tangle, only erased at run time); a dynamic `import()` is a deliberate lazy edge and does not.
 */
import { fileURLToPath } from 'node:url';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : /\.[cm]?[jt]sx?$/.test(e.name) && !/\.d\.[cm]?ts$/.test(e.name)
        ? [join(dir, e.name)]
        : [],
  );
}

/** The relative modules a file imports or re-exports statically, type-only ones too unless `types` is false. */
function importsOf(file: string, types = true): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  for (const st of sf.statements) {
    const typeOnly =
      (ts.isImportDeclaration(st) && st.importClause?.isTypeOnly === true) ||
      (ts.isExportDeclaration(st) && st.isTypeOnly);
    const spec =
      (ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) &&
      st.moduleSpecifier &&
      ts.isStringLiteral(st.moduleSpecifier)
        ? st.moduleSpecifier.text
        : undefined;
    if (spec?.startsWith('.') && (types || !typeOnly)) out.push(resolve(dirname(file), spec));
  }
  return out;
}

/** Every cycle of the import graph under `dir` (Tarjan's strongly connected components), as paths. */
function importCycles(dir: string, types = true): string[][] {
  const files = sourceFiles(dir);
  const graph = new Map(files.map((f) => [f, importsOf(f, types)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || graph.get(v)!.includes(v)) cycles.push(scc.map((f) => relative(dir, f)).sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return cycles;
}

describe('import cycles', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'toolsmith-cycles-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('finds a cycle, a type-only one and one through a re-export', () => {
    // (a folder of its own, as the other tests': the walk reads every folder under the one it is given)
    const dir = join(tmp, 'mixed');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.ts'), "import { b } from './b.ts';\nexport const a = b;\n");
    writeFileSync(join(dir, 'b.ts'), "import type { C } from './c.ts';\nexport const b: C = 1;\n");
    writeFileSync(join(dir, 'c.ts'), "export * from './a.ts';\nexport type C = number;\n");
    writeFileSync(
      join(dir, 'd.ts'),
      "import { a } from './a.ts';\nexport const d = () => import('./e.ts');\n",
    );
    writeFileSync(join(dir, 'e.ts'), "import { d } from './d.ts';\nexport const e = d;\n");
    // d -> e is dynamic (lazy): e -> d alone is no cycle.
    expect(importCycles(dir)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it.each(['src-main', 'src-preload'])('%s has none', { timeout: 60_000 }, (dir) => {
    expect(importCycles(join(root, dir))).toEqual([]);
  });

  // The one type-only cycle allowed: zustand's slice pattern, where `store/index.ts` composes the `Store`
  // type from the slices and each slice types `get()` with `import type { Store }` (erased at run time).
  it("src-renderer has none but the store's slice types", { timeout: 60_000 }, () => {
    const dir = join(root, 'src-renderer');
    expect(importCycles(dir, false)).toEqual([]);
    for (const cycle of importCycles(dir)) {
      expect(cycle).toContain('src/store/index.ts');
      for (const f of cycle) expect(f).toMatch(/^src\/store\/[a-z-]+\.ts$/);
    }
  });

  it('tells a value cycle from a type-only one', () => {
    const dir = join(tmp, 'types');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.ts';\nexport type A = B;\n");
    writeFileSync(
      join(dir, 'b.ts'),
      "import { f } from './a.ts';\nexport type B = number;\nexport const g = f;\n",
    );
    expect(importCycles(dir)).toEqual([['a.ts', 'b.ts']]);
    expect(importCycles(dir, false)).toEqual([]);
  });

  it('reads every source extension', () => {
    const dir = join(tmp, 'ext');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.mts'), "import { b } from './b.js';\nexport const a = b;\n");
    writeFileSync(join(dir, 'b.js'), "import { c } from './c.tsx';\nexport const b = c;\n");
    writeFileSync(join(dir, 'c.tsx'), "import { a } from './a.mts';\nexport const c = a;\n");
    expect(importCycles(dir)).toEqual([['a.mts', 'b.js', 'c.tsx']]);
  });
});
