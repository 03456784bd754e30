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

/**
 * A relative import that walks into one of these src-main layers (`../infra/x.ts`, `../../app/y.ts`,
 * `../src-main/cli/z.ts`).
 * @param {string[]} dirs
 */
const layerRegex = (dirs) => `^\\.{1,2}/(?:.*/)?(?:${dirs.join('|')})(?:/|$)`;

/**
 * The layering of DESIGN.md: lower never imports higher.
 * core <- infra <- app <- (electron | web | cli); contract is types shared by front ends.
 * @param {string} message
 * @param {string[]} packages bare module names (globs)
 * @param {string[]} layers src-main layers that may not be imported
 */
const forbid = (message, packages, layers) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        ...(packages.length ? [{ group: packages, message }] : []),
        ...(layers.length ? [{ regex: layerRegex(layers), message }] : []),
      ],
    },
  ],
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
    files: ['src-main/core/**/*.ts'],
    rules: forbid(
      'core is pure: no Node, Electron, Docker or network imports, and no higher layer',
      [...nodeOnly],
      ['infra', 'app', 'electron', 'web', 'cli'],
    ),
  },
  {
    files: ['src-main/infra/**/*.ts'],
    rules: forbid('infra may import core only', [], ['app', 'electron', 'web', 'cli']),
  },
  {
    files: ['src-main/app/**/*.ts'],
    rules: forbid('app may import core and infra only', [], ['electron', 'web', 'cli']),
  },
  {
    files: ['src-main/contract/**/*.ts'],
    rules: forbid(
      'contract is shared with the renderer: no Node or higher layers',
      [...nodeOnly],
      ['infra', 'app', 'electron', 'web', 'cli'],
    ),
  },
  {
    files: ['src-main/electron/**/*.ts'],
    rules: forbid(
      'a front end reaches the service through app/ (web/csp.ts is shared)',
      ['**/web/server*'],
      ['cli'],
    ),
  },
  {
    files: ['src-main/web/**/*.ts'],
    rules: forbid('a front end reaches the service through app/', [], ['electron', 'cli']),
  },
  {
    files: ['src-main/cli/**/*.ts'],
    rules: forbid('the CLI may start the web front end, never Electron', [], ['electron']),
  },
  {
    files: ['src-preload/**/*.ts', 'src-renderer/**/*.ts', 'src-renderer/**/*.tsx'],
    rules: forbid(
      'preload and renderer import only types from src-main/contract (and pure core)',
      nodeOnly.filter((p) => p !== 'electron'),
      ['infra', 'app', 'web', 'cli', 'electron'],
    ),
  },
);
