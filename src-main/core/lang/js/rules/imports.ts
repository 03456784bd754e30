/** Imports: no import or export declaration, no dynamic import(), no import.meta. */
import * as t from '@babel/types';
import type { JsRuleContext, JsRuleModule } from './context.ts';

/** Reports the declaration once and skips its children (the names in it are not references). */
function noModule(n: t.Node, ctx: JsRuleContext): false {
  ctx.at(
    n,
    'no-import',
    'modules are not available: no import or export; JSON, Math, Date, Map and Set are built in',
  );
  return false;
}

function noDynamicImport(n: t.Node, ctx: JsRuleContext): void {
  ctx.at(n, 'no-import', 'dynamic import() is not available');
}

export const importRules: JsRuleModule = {
  ImportDeclaration: noModule,
  ExportNamedDeclaration: noModule,
  ExportDefaultDeclaration: noModule,
  ExportAllDeclaration: noModule,
  Import: noDynamicImport,
  ImportExpression: noDynamicImport,
  // new.target is forbidden-syntax's, but both read the same.
  MetaProperty: (n, ctx) =>
    ctx.at(
      n,
      t.isIdentifier(n.meta, { name: 'import' }) ? 'no-import' : 'forbidden-syntax',
      'import.meta and new.target are not available',
    ),
  CallExpression: (n, ctx) => {
    if (t.isImport(n.callee)) noDynamicImport(n, ctx);
  },
  OptionalCallExpression: (n, ctx) => {
    if (t.isImport(n.callee)) noDynamicImport(n, ctx);
  },
  NewExpression: (n, ctx) => {
    if (t.isImport(n.callee)) noDynamicImport(n, ctx);
  },
};
