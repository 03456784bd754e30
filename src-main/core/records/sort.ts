/** The run list's sort columns (shared by the run store, the contract and the workbench). */
export const RUN_SORT_KEYS = [
  'created',
  'status',
  'task',
  'sandbox',
  'mode',
  'model',
  'tier',
  'attempts',
  'tokens',
  'duration',
] as const;
export type RunSortKey = (typeof RUN_SORT_KEYS)[number];
