/**
 * The run store's own errors (infra/store/connection.ts), by name: main and store-verbs.ts say them as
 * one line (exit 3) without loading a store module.
 */
export const STORE_ERRORS = new Set([
  'RunStoreError',
  'DiskFullError',
  'StoreDamagedError',
  'StoreUnwritableError',
  'StoreOverwrittenError',
  // (and the workspace's files: infra/workspace/atomic.ts)
  'WorkspaceError',
  'WorkspaceFileError',
]);
