/**
 * The run store's one face: RunStoreCore (run-store-core.ts: opening, reads, writes, close) and the
 * import of an exported run, whose check is the records' zod schemas (core/records/schemas.ts). Only
 * this module loads them: a verb that lists runs or templates opens a RunStoreCore and loads neither zod
 * nor those schemas (cli/store-verbs.ts; docs/scaling.md, "Issue 29: runs list and template list").
 */
import { checkRunExport } from '../../core/records/schemas.ts';
import { RunStoreCore } from './run-store-core.ts';

export * from './run-store-core.ts';

export class RunStore extends RunStoreCore {
  /** Imports an exported run, checked whole first; returns its id here. */
  import(doc: unknown): string {
    return this.log.import(checkRunExport(doc));
  }
}
