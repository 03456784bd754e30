/**
 * Feature services get only what they need: a module under src-main/app/ declares the narrow interface
 * it uses (app/deps.ts, or a `*Deps` of its own) and never imports the service facade. Only the
 * composition root and the handler table (which the front ends call with the facade) may.
 */
import { fileURLToPath } from 'node:url';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const appDir = fileURLToPath(new URL('../../../src-main/app/', import.meta.url));

/** The files under app/ that may import service.ts. */
const MAY_IMPORT_SERVICE = new Set([
  'service.ts', // the composition root itself
  'handlers.ts', // the handler table: front ends call it with the facade
  'handler-types.ts',
  'handlers-setup.ts',
  'suite-handlers.ts',
  'skill-handlers.ts',
]);

/** Whether a module's text imports, re-exports or dynamically imports `./service.ts` (types included). */
function importsService(file: string, text: string): boolean {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  let found = false;
  const isService = (n: ts.Node | undefined) =>
    n !== undefined && ts.isStringLiteralLike(n) && /^\.\/service(\.ts)?$/.test(n.text);
  const visit = (n: ts.Node): void => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && isService(n.moduleSpecifier))
      found = true;
    if (
      ts.isCallExpression(n) &&
      n.expression.kind === ts.SyntaxKind.ImportKeyword &&
      isService(n.arguments[0])
    )
      found = true;
    if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && isService(n.argument.literal))
      found = true;
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

function appFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? appFiles(join(dir, e.name), `${prefix}${e.name}/`)
      : e.name.endsWith('.ts')
        ? [`${prefix}${e.name}`]
        : [],
  );
}

describe('feature services and the service facade', () => {
  it.each([
    "import type { ToolsmithService } from './service.ts';\n",
    "import { ToolsmithService } from './service';\n",
    "export type { ToolsmithService } from './service.ts';\n",
    "export const s = () => import('./service.ts');\n",
    "export function f(svc: import('./service.ts').ToolsmithService) { return svc; }\n",
  ])('the check sees %s', (code) => {
    expect(importsService('x.ts', code)).toBe(true);
  });

  it('the check ignores other modules', () => {
    expect(importsService('x.ts', "import type { ConfigDeps } from './deps.ts';\n// './service.ts'\n")).toBe(
      false,
    );
  });

  it('no feature module under app/ imports service.ts', () => {
    const offenders = appFiles(appDir).filter(
      (f) => !MAY_IMPORT_SERVICE.has(f) && importsService(f, readFileSync(join(appDir, f), 'utf8')),
    );
    expect(offenders, 'declare the narrow interface the module needs (app/deps.ts) instead').toEqual([]);
  });
});
