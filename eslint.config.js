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

/** @param {string[]} dirs @returns {string[]} */
const layer = (dirs) => dirs.flatMap((d) => [`**/src-main/${d}/**`, `**/src-main/${d}`]);

/**
 * The layering of DESIGN.md: lower never imports higher.
 * core <- infra <- app <- (electron | web | cli); contract is types shared by front ends.
 * @param {string} message
 * @param {string[]} groups
 */
const forbid = (message, groups) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: groups, message }] }],
});

export default tseslint.config(
  { ignores: ['node_modules', 'out', 'dist', 'test-results', 'resources/workspace', 'sandbox-images/**/*.py'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src-main/core/**/*.ts'],
    rules: forbid('core is pure: no Node, Electron, Docker or network imports, and no higher layer', [
      ...nodeOnly,
      ...layer(['infra', 'app', 'electron', 'web', 'cli']),
    ]),
  },
  {
    files: ['src-main/infra/**/*.ts'],
    rules: forbid('infra may import core only', layer(['app', 'electron', 'web', 'cli'])),
  },
  {
    files: ['src-main/app/**/*.ts'],
    rules: forbid('app may import core and infra only', layer(['electron', 'web', 'cli'])),
  },
  {
    files: ['src-main/contract/**/*.ts'],
    rules: forbid('contract is shared with the renderer: no Node or higher layers', [
      ...nodeOnly,
      ...layer(['infra', 'app', 'electron', 'web', 'cli']),
    ]),
  },
  {
    files: ['src-main/electron/**/*.ts'],
    rules: forbid('a front end reaches the service through app/ (web/csp.ts is shared)', ['**/src-main/web/server*', ...layer(['cli'])]),
  },
  {
    files: ['src-main/web/**/*.ts'],
    rules: forbid('a front end reaches the service through app/', layer(['electron', 'cli'])),
  },
  {
    files: ['src-main/cli/**/*.ts'],
    rules: forbid('the CLI may start the web front end, never Electron', layer(['electron'])),
  },
  {
    files: ['src-preload/**/*.ts', 'src-renderer/**/*.ts', 'src-renderer/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [...nodeOnly.filter((p) => p !== 'electron'), ...layer(['infra', 'app', 'web', 'cli', 'electron'])],
              message: 'preload and renderer import only types from src-main/contract (and pure core)',
            },
          ],
        },
      ],
    },
  },
);
