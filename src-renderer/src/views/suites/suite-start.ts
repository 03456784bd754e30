/**
 * The Suites view's start form as data: its three optional fields and the options `startSuite` gets
 * (models split on commas, empty fields left to the suite's own values). Pure (tested in node).
 */
export interface SuiteStartFields {
  /** Comma-separated model names; empty: the suite's. */
  models: string;
  repeat: string;
  concurrency: string;
}

export const initialSuiteStart: SuiteStartFields = { models: '', repeat: '', concurrency: '' };

export interface SuiteStartOptions {
  models?: string[];
  repeat?: number;
  concurrency?: number;
}

export function suiteStartOptions(f: SuiteStartFields): SuiteStartOptions {
  const models = f.models
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  return {
    ...(models.length ? { models } : {}),
    ...(f.repeat ? { repeat: Number(f.repeat) } : {}),
    ...(f.concurrency ? { concurrency: Number(f.concurrency) } : {}),
  };
}
