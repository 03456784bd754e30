// @ts-check
import tseslint from 'typescript-eslint';

import { builtinModules } from 'node:module';
import { dirname, relative, resolve, sep } from 'node:path';

/**
 * The layering of DESIGN.md as an allow-list: each top-level folder of src-main, and the two processes
 * outside it that share its code, mapped to the src-main folders it may import (its own folder always).
 * An import into a folder not listed, or a file in a src-main folder that is not in the map, is an error:
 * a new folder is placed in the layering on purpose, never by default. docs/architecture.md says why.
 * @type {Record<string, readonly string[]>}
 */
export const LAYERS = {
  core: [],
  contract: ['core'],
  infra: ['core'],
  app: ['core', 'contract', 'infra'],
  mcp: ['core', 'contract', 'infra', 'app'],
  web: ['core', 'contract', 'infra', 'app'],
  electron: ['core', 'contract', 'infra', 'app', 'web'],
  cli: ['core', 'contract', 'infra', 'app', 'web', 'mcp'],
  // Outside src-main: the preload script and the renderer (types from contract, pure core).
  'src-preload': ['core', 'contract'],
  'src-renderer': ['core', 'contract'],
};

/** Layers that may import only types from `contract` (its values would bring zod into the bundle). */
export const CONTRACT_TYPES_ONLY = ['src-preload', 'src-renderer'];

/**
 * The packages each layer may import, as an allow-list (`node:*` is every Node built-in, written with
 * or without `node:`; `@scope/*` is every package of a scope). A package not listed is an error, so
 * `openai` in core, `electron` in the renderer or `fs` in contract never slip in by default.
 * @type {Record<string, readonly string[]>}
 */
export const PACKAGES = {
  // Pure: runs in Node and in the renderer, tested without Docker or a network.
  core: ['zod', '@babel/parser', '@babel/types', '@zzzen/pyright-internal', 'jsonpath-plus', 'minisearch'],
  contract: ['zod'],
  infra: [
    'node:*',
    'zod',
    'ajv',
    'dockerode',
    'smol-toml',
    'pino',
    'openai',
    '@anthropic-ai/sdk',
    '@modelcontextprotocol/sdk',
    '@opentelemetry/*',
  ],
  app: ['node:*', 'zod', 'dockerode', 'smol-toml', 'pino', 'minisearch', '@opentelemetry/*'],
  mcp: ['node:*', 'zod', '@modelcontextprotocol/sdk'],
  web: ['node:*', 'zod', 'ws'],
  electron: ['node:*', 'zod', 'electron'],
  // (@noble/hashes: SHA-256 in JS for the cache files' names before main loads, cli/key-parts.ts)
  cli: ['node:*', 'zod', 'commander', '@noble/hashes'],
  'src-preload': ['electron'],
  'src-renderer': [
    'react',
    'react-dom',
    'zustand',
    'monaco-editor',
    '@monaco-editor/react',
    '@tanstack/react-virtual',
  ],
};

/** What a test file beside the code (`*.test.ts`, `*.browser.test.tsx`) may import besides its layer's. */
export const TEST_PACKAGES = ['vitest', 'vitest-browser-react', '@vitest/*'];

/** Every extension of a source file the layering covers. */
export const SOURCE_EXTENSIONS = ['ts', 'tsx', 'mts', 'cts', 'js', 'mjs', 'cjs'];

const builtins = new Set(builtinModules);

/**
 * The package a bare specifier names (`node:fs/promises` and `fs/promises` are `node:fs`,
 * `@scope/pkg/sub` is `@scope/pkg`, `pkg/sub` is `pkg`).
 * @param {string} spec
 */
export const packageOf = (spec) => {
  const bare = spec.startsWith('node:') ? spec.slice(5) : spec;
  const first = bare.split('/')[0] ?? bare;
  if (spec.startsWith('node:') || builtins.has(bare) || builtins.has(first)) return `node:${first}`;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? spec);
};

/**
 * @param {readonly string[]} allowed
 * @param {string} pkg
 */
const packageAllowed = (allowed, pkg) =>
  allowed.some((p) =>
    p === 'node:*' ? pkg.startsWith('node:') : p.endsWith('/*') ? pkg.startsWith(p.slice(0, -1)) : p === pkg,
  );

/**
 * The layer a path belongs to: `src-main/<folder>/...` is `<folder>` (a file directly in src-main is
 * `src-main/<file>`, never a layer), `src-preload/...` and `src-renderer/...` are themselves; anything
 * else (tests, benches, scripts) is outside the layering.
 * @param {string} rel a path relative to the repository root
 * @returns {string | undefined}
 */
const layerOf = (rel) => {
  const parts = rel.split(sep);
  if (parts[0] === 'src-main') return parts.length > 2 ? parts[1] : rel;
  if (parts[0] === 'src-preload' || parts[0] === 'src-renderer') return parts[0];
  return undefined;
};

/**
 * The string a module argument names, when it is written out: a string literal or a template literal
 * without expressions. Anything else (`import(name)`, `` import(`../${x}`) ``) cannot be checked.
 * @param {any} node
 * @returns {string | undefined}
 */
const literal = (node) => {
  if (node?.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node?.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0]?.value.cooked;
  return undefined;
};

/** @type {import('eslint').Rule.RuleModule} */
const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'imports follow the layer allow-list LAYERS and the package allow-list PACKAGES' },
    schema: [],
  },
  create(context) {
    // Paths are taken from this file's folder (the repository root), whatever folder ESLint runs in.
    const root = import.meta.dirname;
    const file = context.physicalFilename;
    const own = layerOf(relative(root, file));
    if (own === undefined) return {};
    const unknown = (/** @type {string} */ layer) =>
      `unknown layer ${layer}: add it to the layering map in eslint.config.js`;
    const allowed = LAYERS[own];
    const isTest = /\.test\.[cm]?[jt]sx?$/.test(file);
    const packages = [...(PACKAGES[own] ?? []), ...(isTest ? TEST_PACKAGES : [])];
    const typesOnlyContract = CONTRACT_TYPES_ONLY.includes(own);
    /**
     * @param {import('estree').Node} node
     * @param {string} spec
     * @param {boolean} typeOnly the import brings in types only (erased at build time)
     */
    const check = (node, spec, typeOnly) => {
      if (!spec.startsWith('.') && !spec.startsWith('/')) {
        const pkg = packageOf(spec);
        if (!packageAllowed(packages, pkg)) {
          const list = packages.length ? packages.join(', ') : 'no package';
          context.report({
            node,
            message: `${own} may not import the package ${pkg} (${spec}); ${own} may import ${list}`,
          });
        }
        return;
      }
      const target = relative(root, resolve(dirname(file), spec));
      const layer = layerOf(target);
      if (layer === own) return;
      if (layer === undefined) {
        context.report({ node, message: `${own} may not import ${target}: outside the layers` });
      } else if (!Object.hasOwn(LAYERS, layer)) {
        context.report({ node, message: unknown(layer) });
      } else if (!allowed?.includes(layer)) {
        context.report({
          node,
          message: `${own} may not import ${layer} (${spec}); ${own} may import ${allowed?.join(', ') || 'nothing outside itself'}`,
        });
      } else if (layer === 'contract' && typesOnlyContract && !typeOnly) {
        context.report({
          node,
          message: `${own} may import only types from contract (${spec}): write \`import type\``,
        });
      }
    };
    /** @param {import('estree').Node} node @param {any} source @param {boolean} typeOnly */
    const checkSource = (node, source, typeOnly) => {
      const spec = literal(source);
      if (spec === undefined) {
        context.report({
          node,
          message: `${own}: a module named by an expression cannot be checked; name it with a string`,
        });
      } else check(node, spec, typeOnly);
    };
    return {
      Program(node) {
        if (!allowed) context.report({ node, message: unknown(own) });
      },
      // Under verbatimModuleSyntax `import { type A }` still loads the module: only `import type` is types-only.
      /** @param {any} node */
      ImportDeclaration: (node) => check(node, node.source.value, node.importKind === 'type'),
      /** @param {any} node */
      ExportNamedDeclaration: (node) =>
        node.source && check(node, node.source.value, node.exportKind === 'type'),
      /** @param {any} node */
      ExportAllDeclaration: (node) => check(node, node.source.value, node.exportKind === 'type'),
      ImportExpression: (node) => checkSource(node, node.source, false),
      // `import x = require('y')`
      /** @param {any} node */
      TSImportEqualsDeclaration(node) {
        if (node.moduleReference.type === 'TSExternalModuleReference') {
          checkSource(node, node.moduleReference.expression, node.importKind === 'type');
        }
      },
      /** @param {any} node */
      CallExpression(node) {
        const callee = node.callee;
        const name =
          callee.type === 'Identifier'
            ? callee.name
            : callee.type === 'MemberExpression' && callee.property.type === 'Identifier'
              ? callee.property.name
              : undefined;
        if (name === 'createRequire') {
          context.report({
            node,
            message: `${own}: createRequire loads modules the layering cannot see; use import`,
          });
        } else if (callee.type === 'Identifier' && name === 'require') {
          checkSource(node, node.arguments[0], false);
        } else if (
          callee.type === 'MemberExpression' &&
          callee.object.type === 'Identifier' &&
          callee.object.name === 'require' &&
          name === 'resolve'
        ) {
          checkSource(node, node.arguments[0], false);
        }
      },
      // `import('../x.ts').T` in a type position
      /** @param {any} node */
      TSImportType(node) {
        const lit = node.source ?? node.argument?.literal ?? node.argument;
        checkSource(node, lit, true);
      },
    };
  },
};

/**
 * Modules of an allowed layer a folder may not import.
 * @param {string} message
 * @param {string[]} packages bare module names or path globs
 */
const forbid = (message, packages) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: packages, message }] }],
});

/** @param {string} dir */
const sources = (dir) => SOURCE_EXTENSIONS.map((e) => `${dir}/**/*.${e}`);

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      'out',
      'dist',
      'test-results',
      'resources/workspace',
      'test/fixtures',
      'sandbox-images/**/*.py',
      'sandbox-images/node/acorn.mjs',
      '.scratch',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Type-aware rules (issue 14): a forgotten await and a cast the types already make are bugs to catch.
    files: [
      'src-main/**/*.ts',
      'src-preload/**/*.ts',
      'src-renderer/**/*.ts',
      'src-renderer/**/*.tsx',
      'test/**/*.ts',
      'bench/**/*.ts',
      'scripts/**/*.ts',
    ],
    ignores: ['test/fixtures/**'],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.node.json', './tsconfig.web.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
    },
  },
  {
    // Every source file of the layers, whatever its extension (a `.mts` or `.js` file is no way around).
    files: [...sources('src-main'), ...sources('src-preload'), ...sources('src-renderer')],
    plugins: { toolsmith: { rules: { layers: layersRule } } },
    rules: { 'toolsmith/layers': 'error' },
  },
  {
    // Vitest 5's browser `toHaveTextContent` matches the element's WHOLE text (whitespace collapsed), not
    // a part of it as jest-dom's did: a part of the text that is there fails (after the poll's timeout),
    // and `.not.toHaveTextContent(part)` passes whatever the element says. A part or a RegExp:
    // `toMatchTextContent` (README, "Development").
    files: ['src-renderer/**/*.browser.test.tsx'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.property.name='not'][property.name='toHaveTextContent']",
          message:
            '.not.toHaveTextContent(x) passes whenever the whole text is not exactly x: use .not.toMatchTextContent(x)',
        },
      ],
    },
  },
  {
    files: sources('src-main/electron'),
    rules: forbid('the desktop reaches the service through app/ (only web/csp.ts is shared)', [
      '**/web/server*',
    ]),
  },
);
