import { fileURLToPath } from 'node:url';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
// @ts-expect-error eslint.config.js is JavaScript (checked by its own // @ts-check), outside the TS project
import { LAYERS } from '../../../eslint.config.js';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
// The snippets are files that do not exist, so no TypeScript project holds them: lint them without the
// type-aware rules (this test is about the layering rule only).
const eslint = new ESLint({
  cwd: root,
  overrideConfig: {
    languageOptions: { parserOptions: { project: null } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
});

async function lint(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: `${root}${file}` });
  return (r?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'toolsmith/layers')
    .map((m) => m.message);
}

// Linting loads ESLint with typescript-eslint: seconds on a loaded machine (see budgets.ts).
describe('layering lint rule', { timeout: STARTS_PROCESSES_MS }, () => {
  it.each([
    ['src-main/core/x.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n"],
    ['src-main/core/x.ts', "import Docker from 'dockerode';\nexport const a = Docker;\n"],
    ['src-main/core/x.ts', "import { app } from 'electron';\nexport const a = app;\n"],
    ['src-main/core/x.ts', "import { a } from '../infra/workspace/files.ts';\nexport const b = a;\n"],
    ['src-main/core/x.ts', "import { a } from '../app/service.ts';\nexport const b = a;\n"],
    ['src-main/infra/x.ts', "import { a } from '../app/service.ts';\nexport const b = a;\n"],
    ['src-main/app/x.ts', "import { a } from '../cli/main.ts';\nexport const b = a;\n"],
    ['src-main/contract/x.ts', "import { a } from 'node:path';\nexport const b = a;\n"],
    ['src-renderer/src/x.ts', "import { a } from '../../src-main/app/service.ts';\nexport const b = a;\n"],
    ['src-renderer/src/x.ts', "import { a } from 'node:fs';\nexport const b = a;\n"],
    ['src-preload/x.ts', "import { a } from '../src-main/infra/workspace/files.ts';\nexport const b = a;\n"],
    // The MCP server is a front end of its own: it reaches the service through app/, never another front end.
    ['src-main/mcp/x.ts', "import { a } from '../cli/signals.ts';\nexport const b = a;\n"],
    ['src-main/mcp/x.ts', "import { a } from '../electron/main.ts';\nexport const b = a;\n"],
    ['src-main/mcp/x.ts', "import { a } from '../web/server.ts';\nexport const b = a;\n"],
    ['src-main/app/x.ts', "import { a } from '../mcp/mcp.ts';\nexport const b = a;\n"],
    ['src-main/web/x.ts', "import { a } from '../mcp/mcp.ts';\nexport const b = a;\n"],
    ['src-main/electron/x.ts', "import { a } from '../web/server.ts';\nexport const b = a;\n"],
    // Every way of naming a module: re-exports, dynamic imports and import types.
    ['src-main/core/x.ts', "export { a } from '../app/service.ts';\n"],
    ['src-main/core/x.ts', "export * from '../infra/workspace/files.ts';\n"],
    ['src-main/infra/x.ts', "export const b = () => import('../app/service.ts');\n"],
    ['src-main/core/x.ts', "export type B = import('../app/service.ts').ToolsmithService;\n"],
    // Packages are an allow-list per layer: openai in core, electron in the renderer, anything unlisted.
    ['src-main/core/x.ts', "import OpenAI from 'openai';\nexport const a = OpenAI;\n"],
    ['src-main/core/x.ts', "import { a } from 'some-new-package';\nexport const b = a;\n"],
    ['src-main/contract/x.ts', "import { a } from 'dockerode';\nexport const b = a;\n"],
    ['src-renderer/src/x.ts', "import { ipcRenderer } from 'electron';\nexport const a = ipcRenderer;\n"],
    ['src-renderer/src/x.tsx', "import { shell } from 'electron';\nexport const a = shell;\n"],
    ['src-renderer/src/x.ts', "import { describe } from 'vitest';\nexport const a = describe;\n"],
    ['src-main/app/x.ts', "import OpenAI from 'openai';\nexport const a = OpenAI;\n"],
    // Node built-ins with or without `node:`, subpaths too.
    ['src-main/core/x.ts', "import { readFileSync } from 'fs';\nexport const a = readFileSync;\n"],
    ['src-main/core/x.ts', "import { readFile } from 'fs/promises';\nexport const a = readFile;\n"],
    ['src-main/contract/x.ts', "import { join } from 'path';\nexport const a = join;\n"],
    ['src-renderer/src/x.ts', "import { EventEmitter } from 'events';\nexport const a = EventEmitter;\n"],
    ['src-main/core/x.ts', "import { readFile } from 'node:fs/promises';\nexport const a = readFile;\n"],
    // The renderer and preload take only types from contract (its values would put zod in the bundle).
    [
      'src-renderer/src/x.ts',
      "import { METHODS } from '../../src-main/contract/api.ts';\nexport const a = METHODS;\n",
    ],
    [
      'src-renderer/src/x.ts',
      "import { type Method } from '../../src-main/contract/api.ts';\nexport type B = Method;\n",
    ],
    ['src-renderer/src/x.ts', "export { METHODS } from '../../src-main/contract/api.ts';\n"],
    ['src-renderer/src/x.ts', "export const a = () => import('../../src-main/contract/api.ts');\n"],
    [
      'src-preload/x.ts',
      "import { METHODS } from '../src-main/contract/api.ts';\nexport const a = METHODS;\n",
    ],
    // A module named by an expression cannot be checked, so it is an error; so is createRequire.
    ['src-main/core/x.ts', "const m = 'service';\nexport const b = () => import(`../app/${m}.ts`);\n"],
    ['src-main/core/x.ts', 'export const b = (m: string) => import(m);\n'],
    [
      'src-main/infra/x.ts',
      "const parts = ['..', 'app'];\nexport const b = () => import(parts.join('/'));\n",
    ],
    ['src-main/core/x.ts', 'export const b = () => import(`../app/service.ts`);\n'],
    [
      'src-main/infra/x.ts',
      "import { createRequire } from 'node:module';\nconst req = createRequire(import.meta.url);\nexport const b = req('../app/service.ts');\n",
    ],
    ['src-main/infra/x.ts', "import * as m from 'node:module';\nexport const req = m.createRequire('/x');\n"],
    ['src-main/core/x.ts', "export const b = require('openai');\n"],
    ['src-main/core/x.ts', 'export const b = (m: string) => require(m);\n'],
    ['src-main/core/x.ts', "import x = require('../app/service.ts');\nexport const b = x;\n"],
    ['src-main/core/x.ts', "export const b = require.resolve('../app/service.ts');\n"],
    // Every source extension: a .mts, .cts, .js, .mjs or .cjs file is no way around the layering.
    ['src-main/core/x.mts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n"],
    ['src-main/core/x.cts', "import { a } from '../app/service.ts';\nexport const b = a;\n"],
    ['src-main/core/x.js', "import { readFileSync } from 'fs';\nexport const a = readFileSync;\n"],
    ['src-main/core/x.mjs', "export { a } from '../infra/workspace/files.ts';\n"],
    ['src-main/core/x.cjs', "module.exports = require('node:child_process');\n"],
    ['src-renderer/src/x.js', "import { app } from 'electron';\nexport const a = app;\n"],
  ])('flags a forbidden import in %s', async (file, code) => {
    expect(await lint(file, code)).not.toEqual([]);
  });

  it.each([
    ['src-main/core/x.ts', "import { z } from 'zod';\nexport const a = z;\n"],
    [
      'src-main/infra/x.ts',
      "import { readFileSync } from 'node:fs';\nimport { a } from '../core/tools/model.ts';\nexport const b = [a, readFileSync];\n",
    ],
    ['src-main/app/x.ts', "import { a } from '../infra/workspace/files.ts';\nexport const b = a;\n"],
    [
      'src-renderer/src/x.ts',
      "import type { Method } from '../../src-main/contract/api.ts';\nexport type B = Method;\n",
    ],
    ['src-main/mcp/x.ts', "import { a } from '../app/service.ts';\nexport const b = a;\n"],
    ['src-main/mcp/x.ts', "import { a } from '../infra/workspace/suite-files.ts';\nexport const b = a;\n"],
    ['src-main/cli/x.ts', "export const b = () => import('../mcp/mcp.ts');\n"],
    ['src-main/electron/x.ts', "import { CSP } from '../web/csp.ts';\nexport const b = CSP;\n"],
    ['src-main/infra/x.ts', "import { readFileSync } from 'fs';\nexport const a = readFileSync;\n"],
    ['src-main/infra/x.ts', "import OpenAI from 'openai';\nexport const a = OpenAI;\n"],
    ['src-main/infra/x.mts', "import { join } from 'node:path';\nexport const a = join;\n"],
    ['src-main/core/x.ts', "import { parse } from '@babel/parser';\nexport const a = parse;\n"],
    ['src-main/core/x.ts', 'export const b = () => import(`./y.ts`);\n'],
    ['src-preload/x.ts', "import { contextBridge } from 'electron';\nexport const a = contextBridge;\n"],
    [
      'src-preload/x.ts',
      "import type { Method } from '../src-main/contract/api.ts';\nexport type B = Method;\n",
    ],
    ['src-renderer/src/x.ts', "export type { Method } from '../../src-main/contract/api.ts';\n"],
    ['src-renderer/src/x.ts', "export type B = import('../../src-main/contract/api.ts').Method;\n"],
    [
      'src-renderer/src/x.ts',
      "import { RUN_SORT_KEYS } from '../../src-main/core/records/sort.ts';\nexport const a = RUN_SORT_KEYS;\n",
    ],
    ['src-renderer/src/x.tsx', "import { useState } from 'react';\nexport const a = useState;\n"],
    ['src-renderer/src/x.test.ts', "import { describe } from 'vitest';\nexport const a = describe;\n"],
    [
      'src-renderer/src/x.browser.test.tsx',
      "import { render } from 'vitest-browser-react';\nexport const a = render;\n",
    ],
  ])('allows a legal import in %s', async (file, code) => {
    expect(await lint(file, code)).toEqual([]);
  });

  it('flags a file in a src-main folder that is not in the layering map', async () => {
    expect(await lint('src-main/newthing/x.ts', 'export const a = 1;\n')).toEqual([
      'unknown layer newthing: add it to the layering map in eslint.config.js',
    ]);
  });

  it('flags an import into a src-main folder that is not in the layering map', async () => {
    expect(
      await lint('src-main/app/x.ts', "import { a } from '../newthing/y.ts';\nexport const b = a;\n"),
    ).toEqual(['unknown layer newthing: add it to the layering map in eslint.config.js']);
    expect(
      await lint(
        'src-main/app/x.ts',
        "import { a } from '../../src-main/newthing/y.ts';\nexport const b = a;\n",
      ),
    ).toEqual(['unknown layer newthing: add it to the layering map in eslint.config.js']);
  });

  it('names the layer, the import and what the layer may import', async () => {
    expect(
      await lint('src-main/mcp/x.ts', "import { a } from '../cli/signals.ts';\nexport const b = a;\n"),
    ).toEqual(['mcp may not import cli (../cli/signals.ts); mcp may import core, contract, infra, app']);
  });

  it('names the package and what the layer may import', async () => {
    expect(
      await lint('src-main/core/x.ts', "import OpenAI from 'openai';\nexport const a = OpenAI;\n"),
    ).toEqual([
      expect.stringMatching(/^core may not import the package openai \(openai\); core may import zod, /),
    ]);
    expect(
      await lint('src-main/contract/x.ts', "import { join } from 'path';\nexport const a = join;\n"),
    ).toEqual(['contract may not import the package node:path (path); contract may import zod']);
  });

  it('maps every folder of src-main (a new folder is placed in the layering on purpose)', () => {
    const folders = readdirSync(join(root, 'src-main'), { withFileTypes: true });
    expect(folders.filter((d) => !d.isDirectory()).map((d) => d.name)).toEqual([]);
    for (const d of folders) expect(Object.keys(LAYERS)).toContain(d.name);
  });
});

describe('type-aware lint rules', { timeout: STARTS_PROCESSES_MS }, () => {
  // With CI=true typescript-eslint infers a single run and reads files from disk, not the text given
  // here: this test asks for the usual (editor-like) program. The rules are the project's (eslint.config.js);
  // the program is a one-file tsconfig (tsconfig.typed.json) instead of the whole project's, which took
  // most of this file's time. `npm run lint` is what checks the rules over every file.
  const typed = new ESLint({
    cwd: root,
    overrideConfig: {
      languageOptions: {
        parserOptions: {
          disallowAutomaticSingleRunInference: true,
          project: ['./test/unit/layering/tsconfig.typed.json'],
          tsconfigRootDir: root,
        },
      },
    },
  });
  const rules = async (code: string) => {
    // An existing file of the project, so the TypeScript program knows it; the text is ours.
    const [r] = await typed.lintText(code, { filePath: `${root}src-main/core/records/sort.ts` });
    return (r?.messages ?? []).map((m) => m.ruleId);
  };

  // The first typed lint builds the TypeScript program (one file and the standard library).
  it('flags a floating promise and a cast the types already make', { timeout: 120_000 }, async () => {
    const found = await rules(
      'const p = (): Promise<number> => Promise.resolve(1);\nexport function f(): void {\n  p();\n}\nconst s: string = String(1);\nexport const n = s as string;\n',
    );
    expect(found).toContain('@typescript-eslint/no-floating-promises');
    expect(found).toContain('@typescript-eslint/no-unnecessary-type-assertion');
  });

  it('accepts an awaited or explicitly voided promise', { timeout: 60_000 }, async () => {
    const found = await rules(
      'const p = (): Promise<number> => Promise.resolve(1);\nexport async function f(): Promise<void> {\n  await p();\n  void p();\n}\n',
    );
    expect(found).toEqual([]);
  });
});
