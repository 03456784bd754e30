/**
 * Feature objects, not a facade: the composition root (app/service.ts) builds each feature once with a
 * plain deps object and never hands itself to one. Checked twice: in its source (no `this` passed,
 * spread, aliased or stored as a value) and at run time (no feature object, nor the deps the sandbox
 * factory receives, reaches the service). The root keeps no one-line forwarders either: its methods are
 * the lifecycle and the lazily opened stores, a fixed list.
 */
import { fileURLToPath } from 'node:url';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { SandboxFactoryDeps } from '../../../src-main/app/sandbox-factory.ts';
import type { Logger } from '../../../src-main/core/ports/executor.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const serviceFile = fileURLToPath(new URL('../../../src-main/app/service.ts', import.meta.url));

/** Each place where `this` itself (not a member of it) leaves the class as a value. */
function thisLeaks(text: string): string[] {
  const sf = ts.createSourceFile('service.ts', text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const isThis = (n: ts.Node | undefined) => n?.kind === ts.SyntaxKind.ThisKeyword;
  const at = (n: ts.Node) => `${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}: ${n.getText()}`;
  const visit = (n: ts.Node): void => {
    if ((ts.isCallExpression(n) || ts.isNewExpression(n)) && (n.arguments ?? []).some(isThis))
      out.push(at(n));
    if ((ts.isSpreadAssignment(n) || ts.isSpreadElement(n)) && isThis(n.expression)) out.push(at(n));
    if (ts.isPropertyAssignment(n) && isThis(n.initializer)) out.push(at(n));
    if (ts.isVariableDeclaration(n) && isThis(n.initializer)) out.push(at(n));
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken && isThis(n.right))
      out.push(at(n));
    if (ts.isReturnStatement(n) && isThis(n.expression)) out.push(at(n));
    if (ts.isArrayLiteralExpression(n) && n.elements.some(isThis)) out.push(at(n));
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** Whether `target` is reachable from `root` through object properties (not closures), `depth` deep. */
function reaches(root: unknown, target: object, depth = 4, seen = new Set<unknown>()): boolean {
  if (root === target) return true;
  if (depth === 0 || root === null || typeof root !== 'object' || seen.has(root)) return false;
  seen.add(root);
  if (root instanceof Map || root instanceof Set) return false;
  return Object.getOwnPropertyNames(root).some((k) => {
    const d = Object.getOwnPropertyDescriptor(root, k);
    return d !== undefined && 'value' in d && reaches(d.value, target, depth - 1, seen);
  });
}

const quiet: Logger = { info() {}, warn() {}, error() {}, child: () => quiet };

const workspaces: string[] = [];
const services: ToolsmithService[] = [];
afterAll(async () => {
  await Promise.all(services.map((s) => s.close()));
  workspaces.forEach(removeWorkspace);
});

describe('feature objects and the composition root', () => {
  it.each([
    'f(this);',
    'new Feature(this);',
    'const deps = { ...this };',
    'const deps = { svc: this };',
    'const self = this;',
    'let s; s = this;',
    'function f() { return this; }',
    'g([this]);',
  ])('the source check sees %s', (code) => {
    expect(thisLeaks(code)).toHaveLength(1);
  });

  it('the source check ignores members of this', () => {
    expect(thisLeaks('f(this.config); const x = { c: this.files }; g(() => this.push(e));')).toEqual([]);
  });

  it('service.ts hands `this` to no feature', () => {
    expect(thisLeaks(readFileSync(serviceFile, 'utf8')), 'give the feature a plain deps object').toEqual([]);
  });

  it('no feature object, nor the sandbox factory deps, reaches the service at run time', async () => {
    const ws = tempWorkspace();
    workspaces.push(ws);
    let factoryDeps: SandboxFactoryDeps | undefined;
    const svc = ToolsmithService.open(ws, {
      sandboxFactory: (deps) => {
        factoryDeps = deps;
        return Promise.reject(new Error('no backend in this test'));
      },
      log: quiet,
    });
    services.push(svc);
    await svc.execution.sandbox().catch(() => {});
    expect(factoryDeps).toBeDefined();
    expect(factoryDeps).not.toBeInstanceOf(ToolsmithService);
    expect(reaches(factoryDeps, svc)).toBe(false);
    // The deps really work: a feature reads the running config through them.
    expect(factoryDeps!.config).toBe(svc.config);

    const features = {
      catalog: svc.catalog,
      execution: svc.execution,
      tools: svc.tools,
      kits: svc.kits,
      settings: svc.settings,
      system: svc.system,
      workspace: svc.workspace,
      admin: svc.admin,
      mcpServers: svc.mcpServers,
      runActions: svc.runActions,
      runs: await svc.runs(),
      templates: await svc.templates(),
      suites: await svc.suites(),
      skills: svc.skills(),
    };
    for (const [name, feature] of Object.entries(features)) {
      expect(feature, name).not.toBe(svc);
      expect(reaches(feature, svc), `${name} holds the service`).toBe(false);
    }
    // The probe sees a feature that does hold it.
    expect(reaches({ deps: { svc } }, svc)).toBe(true);
  });

  it('the root keeps no forwarders: its methods are its lifecycle and the stores it opens lazily', () => {
    const methods = Object.getOwnPropertyNames(ToolsmithService.prototype)
      .filter((k) => k !== 'constructor')
      .sort();
    expect(methods).toEqual(
      [
        'beginShutdown',
        'close',
        'mcp',
        'onPush',
        'openOther',
        'prepareMcp',
        'push',
        'reloadConfig',
        'runs',
        'skills',
        'suites',
        'templates',
        'watch',
        'workspaceDir',
      ].sort(),
    );
  });

  it("front ends (CLI, MCP server, Electron, web) read features, never the root's config, files or generator", () => {
    const root = fileURLToPath(new URL('../../../src-main/', import.meta.url));
    const sources = ['cli', 'mcp', 'electron', 'web'].flatMap((dir) =>
      (readdirSync(join(root, dir), { recursive: true }) as string[])
        .filter((f) => /\.(ts|tsx|mts)$/.test(f))
        .map((f) => join(root, dir, f)),
    );
    expect(sources.length).toBeGreaterThan(10);
    // `svc.config`, `svc?.files`, `ctx.service(cmd).generator`, `service.files` ...
    const reach = /\b(?:svc|service(?:\([^)]*\))?)\??\.(?:config|files|generator)\b/;
    const found = sources.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          reach.test(line) ? [`${file.slice(root.length)}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(found, 'read svc.workspace / svc.execution instead').toEqual([]);
    // The probe sees a front end that does.
    expect(reach.test('const n = svc.files.sandboxNames();')).toBe(true);
    expect(reach.test('ctx.service(cmd).files.dataDir')).toBe(true);
  });
});
