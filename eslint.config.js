// @ts-check
import tseslint from 'typescript-eslint';

/** Node built-ins and process-bound packages that the pure core must never import. */
const nodeOnly = [
  'node:*',
  'fs',
  'fs/*',
  'path',
  'os',
  'child_process',
  'net',
  'http',
  'https',
  'crypto',
  'stream',
  'events',
  'url',
  'util',
  'worker_threads',
  'electron',
  'dockerode',
  'ws',
  'pino',
  'smol-toml',
  '@modelcontextprotocol/*',
];

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

/** @type {import('eslint').Rule.RuleModule} */
const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'imports between src-main layers follow the allow-list LAYERS' },
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
    /** @param {import('estree').Node} node */
    const check = (node, /** @type {unknown} */ spec) => {
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
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
      }
    };
    return {
      Program(node) {
        if (!allowed) context.report({ node, message: unknown(own) });
      },
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
      // `import('../x.ts').T` in a type position
      /** @param {any} node */
      TSImportType(node) {
        const lit = node.source ?? node.argument?.literal;
        if (lit?.type === 'Literal') check(node, lit.value);
      },
    };
  },
};

/**
 * Packages (and, for electron, one module of an allowed layer) a folder may not import.
 * @param {string} message
 * @param {string[]} packages bare module names or path globs
 */
const forbid = (message, packages) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: packages, message }] }],
});

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
    files: ['src-main/**/*.ts', 'src-preload/**/*.ts', 'src-renderer/**/*.ts', 'src-renderer/**/*.tsx'],
    plugins: { toolsmith: { rules: { layers: layersRule } } },
    rules: { 'toolsmith/layers': 'error' },
  },
  {
    files: ['src-main/core/**/*.ts'],
    rules: forbid('core is pure: no Node, Electron, Docker or network imports', [...nodeOnly]),
  },
  {
    files: ['src-main/contract/**/*.ts'],
    rules: forbid('contract is shared with the renderer: no Node imports', [...nodeOnly]),
  },
  {
    files: ['src-main/electron/**/*.ts'],
    rules: forbid('the desktop reaches the service through app/ (only web/csp.ts is shared)', [
      '**/web/server*',
    ]),
  },
  {
    files: ['src-preload/**/*.ts', 'src-renderer/**/*.ts', 'src-renderer/**/*.tsx'],
    rules: forbid(
      'preload and renderer import only types from src-main/contract (and pure core)',
      nodeOnly.filter((p) => p !== 'electron'),
    ),
  },
);
