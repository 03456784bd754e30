/**
 * The CLI's main knows the run store's and the workspace files' errors by name (it loads no store
 * module): each is reported as a store error (exit 3, `"kind": "store"` with --json), not as an internal
 * one. Every error class those modules export must carry a name of its own that main's list holds; an
 * error that kept its parent's name was reported under the parent's (a store overwritten in place read
 * as a DiskFullError), and one missing from the list would be an internal error.
 */
import { describe, expect, it } from 'vitest';
import * as connection from '../../../src-main/infra/store/connection.ts';
import * as atomic from '../../../src-main/infra/workspace/atomic.ts';
import { STORE_ERRORS } from '../../../src-main/cli/main.ts';

type ErrorClass = new (...args: string[]) => Error;
const errorClasses = ([...Object.values(connection), ...Object.values(atomic)] as unknown[]).filter(
  (v): v is ErrorClass => typeof v === 'function' && (v as ErrorClass).prototype instanceof Error,
);

describe("the store's errors as the CLI's main knows them", () => {
  it('finds the error classes (a guard of the test itself)', () => {
    expect(errorClasses.map((c) => c.name)).toEqual(
      expect.arrayContaining(['RunStoreError', 'DiskFullError', 'StoreOverwrittenError', 'WorkspaceError']),
    );
  });

  it.each(errorClasses.map((c) => [c.name, c] as const))("%s: its own name, in main's list", (name, C) => {
    const e = new C('/tmp/x/runs.db', 'a write', 'a cause');
    expect(e.name).toBe(name);
    expect(STORE_ERRORS.has(e.name)).toBe(true);
  });
});
