/**
 * Suite results (pure): the matrix case x column (a model, with or without templates), per-cell pass
 * rates over repeats, totals, and the comparison of two suite runs.
 */
import type { AssertionVerdict } from './assert.ts';
import type { RunRecord } from '../records/records.ts';

/** A matrix column: one model (provider + model), with the template tier on or off. */
export interface SuiteColumn {
  id: string;
  provider: string;
  model: string;
  templates: boolean;
}

/** One repeat of one case instance in one column: a recorded run and its verdicts. */
export interface CaseResult {
  caseId: string;
  column: string;
  rep: number;
  runId: string | null;
  /** The run's status; `error` when the case could not run at all. */
  status: string;
  passed: boolean;
  attempts: number;
  promptTokens: number;
  completionTokens: number;
  /** In the currency of the config's price table; null without a price for the model. */
  cost: number | null;
  latencyMs: number;
  verdicts: AssertionVerdict[];
  error?: string;
  /**
   * Set when the case could not be judged because the infrastructure failed (no sandbox engine, the
   * engine went away, the LLM endpoint unreachable): an error of the run, never a failure of the case.
   */
  infra?: string;
  finishedAt: number;
  /** Wall time of the case beyond the LLM's and the sandbox's own time (suite + orchestrator + store). */
  overheadMs?: number;
  /** The suite runner's own time for the case (starting it, reading its record, assertions). */
  suiteMs?: number;
}

export interface MatrixCell {
  caseId: string;
  column: string;
  runs: number;
  passes: number;
  passRate: number;
  threshold: number;
  /** The pass rate reaches the case's threshold. */
  meets: boolean;
  attempts: number;
  tokens: number;
  cost: number | null;
  latencyMs: number;
  runIds: string[];
  /** The first failing verdict or error, for a tooltip. */
  failure?: string;
  /** Repeats that could not be judged (infrastructure errors, `CaseResult.infra`). */
  errors: number;
  /**
   * met: the threshold is reached; failed: it is not, on runs that were judged; error: it is not and
   * some repeats hit an infrastructure error (the case could not be judged: an error, not a failure).
   */
  outcome: 'met' | 'failed' | 'error';
}

export interface ColumnTotals {
  column: string;
  cases: number;
  met: number;
  /** Cells that could not be judged (infrastructure errors). */
  errors: number;
  passRate: number;
  tokens: number;
  cost: number | null;
  latencyP50: number;
  latencyP95: number;
}

export interface SuiteMatrix {
  cases: string[];
  columns: SuiteColumn[];
  cells: MatrixCell[];
  totals: ColumnTotals[];
  overall: {
    cells: number;
    met: number;
    /** Cells whose outcome is `error` (infrastructure), not counted as failures. */
    errors: number;
    runs: number;
    passes: number;
    tokens: number;
    cost: number | null;
  };
}

export const percentile = (values: number[], p: number): number => {
  if (!values.length) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] as number;
};

const sumCost = (xs: (number | null)[]): number | null =>
  xs.some((x) => x !== null) ? xs.reduce<number>((a, x) => a + (x ?? 0), 0) : null;

/** Builds the matrix; `thresholds` gives each case instance's pass threshold. */
export function buildMatrix(
  cases: string[],
  columns: SuiteColumn[],
  results: CaseResult[],
  thresholds: Record<string, number>,
): SuiteMatrix {
  const by = new Map<string, CaseResult[]>();
  for (const r of results) {
    const k = `${r.caseId}\u0000${r.column}`;
    const list = by.get(k);
    if (list) list.push(r);
    else by.set(k, [r]);
  }
  const cells: MatrixCell[] = [];
  for (const c of cases)
    for (const col of columns) {
      const rs = by.get(`${c}\u0000${col.id}`) ?? [];
      if (!rs.length) continue;
      const passes = rs.filter((r) => r.passed).length;
      const threshold = thresholds[c] ?? 1;
      const fail = rs.find((r) => !r.passed);
      const errors = rs.filter((r) => r.infra !== undefined).length;
      const meets = passes / rs.length >= threshold - 1e-9;
      cells.push({
        caseId: c,
        column: col.id,
        runs: rs.length,
        passes,
        passRate: passes / rs.length,
        threshold,
        meets,
        errors,
        outcome: meets ? 'met' : errors > 0 ? 'error' : 'failed',
        attempts: rs.reduce((a, r) => a + r.attempts, 0) / rs.length,
        tokens: rs.reduce((a, r) => a + r.promptTokens + r.completionTokens, 0),
        cost: sumCost(rs.map((r) => r.cost)),
        latencyMs: percentile(
          rs.map((r) => r.latencyMs),
          50,
        ),
        runIds: rs.flatMap((r) => (r.runId ? [r.runId] : [])),
        ...(fail
          ? {
              failure:
                fail.infra ??
                fail.error ??
                fail.verdicts.find((v) => !v.passed)?.message ??
                `run ${fail.status}`,
            }
          : {}),
      });
    }
  const totals = columns.map((col): ColumnTotals => {
    const cs = cells.filter((x) => x.column === col.id);
    const rs = results.filter((r) => r.column === col.id);
    return {
      column: col.id,
      cases: cs.length,
      met: cs.filter((x) => x.meets).length,
      errors: cs.filter((x) => x.outcome === 'error').length,
      passRate: rs.length ? rs.filter((r) => r.passed).length / rs.length : 0,
      tokens: cs.reduce((a, x) => a + x.tokens, 0),
      cost: sumCost(cs.map((x) => x.cost)),
      latencyP50: percentile(
        rs.map((r) => r.latencyMs),
        50,
      ),
      latencyP95: percentile(
        rs.map((r) => r.latencyMs),
        95,
      ),
    };
  });
  return {
    cases,
    columns,
    cells,
    totals,
    overall: {
      cells: cells.length,
      met: cells.filter((x) => x.meets).length,
      errors: cells.filter((x) => x.outcome === 'error').length,
      runs: results.length,
      passes: results.filter((r) => r.passed).length,
      tokens: cells.reduce((a, x) => a + x.tokens, 0),
      cost: sumCost(cells.map((x) => x.cost)),
    },
  };
}

export interface CellChange {
  caseId: string;
  column: string;
  before: { passRate: number; meets: boolean; tokens: number; latencyMs: number } | null;
  after: { passRate: number; meets: boolean; tokens: number; latencyMs: number } | null;
  /** `error`: the head's cell could not be judged (infrastructure), neither a failure nor a fix. */
  change: 'new_failure' | 'fixed' | 'still_failing' | 'still_passing' | 'added' | 'removed' | 'error';
}

export interface SuiteComparison {
  base: string;
  head: string;
  cells: CellChange[];
  newFailures: number;
  fixed: number;
  tokens: { before: number; after: number; delta: number };
  latencyP50: { before: number; after: number; delta: number };
  cost: { before: number | null; after: number | null };
  /** Hashes of the sandbox's tools.py at each run (set by the service): tool versions compared. */
  tools?: { before: string; after: string };
}

/** The difference from `base` (an earlier suite run's matrix) to `head`. */
export function compareMatrices(
  base: { id: string; matrix: SuiteMatrix },
  head: { id: string; matrix: SuiteMatrix },
): SuiteComparison {
  const key = (c: MatrixCell) => `${c.caseId}\u0000${c.column}`;
  const before = new Map(base.matrix.cells.map((c) => [key(c), c]));
  const after = new Map(head.matrix.cells.map((c) => [key(c), c]));
  const view = (c: MatrixCell | undefined) =>
    c ? { passRate: c.passRate, meets: c.meets, tokens: c.tokens, latencyMs: c.latencyMs } : null;
  const cells: CellChange[] = [];
  for (const k of new Set([...before.keys(), ...after.keys()])) {
    const b = before.get(k);
    const a = after.get(k);
    const ref = (a ?? b) as MatrixCell;
    const change: CellChange['change'] = !b
      ? 'added'
      : !a
        ? 'removed'
        : a.outcome === 'error'
          ? 'error'
          : b.meets && !a.meets
            ? 'new_failure'
            : !b.meets && a.meets
              ? 'fixed'
              : a.meets
                ? 'still_passing'
                : 'still_failing';
    cells.push({ caseId: ref.caseId, column: ref.column, before: view(b), after: view(a), change });
  }
  const lat = (m: SuiteMatrix) =>
    percentile(
      m.cells.map((c) => c.latencyMs),
      50,
    );
  const tb = base.matrix.overall.tokens;
  const ta = head.matrix.overall.tokens;
  return {
    base: base.id,
    head: head.id,
    cells,
    newFailures: cells.filter((c) => c.change === 'new_failure').length,
    fixed: cells.filter((c) => c.change === 'fixed').length,
    tokens: { before: tb, after: ta, delta: ta - tb },
    latencyP50: {
      before: lat(base.matrix),
      after: lat(head.matrix),
      delta: lat(head.matrix) - lat(base.matrix),
    },
    cost: { before: base.matrix.overall.cost, after: head.matrix.overall.cost },
  };
}

/** Cost of a run from a per-million-token price table; null when the model has no price. */
export function costOf(
  prices: Record<string, { prompt: number; completion: number }>,
  model: string,
  promptTokens: number,
  completionTokens: number,
): number | null {
  const p = prices[model];
  if (!p) return null;
  return (promptTokens * p.prompt + completionTokens * p.completion) / 1_000_000;
}

/**
 * Why a run that did not succeed could not be judged, when the cause is the infrastructure rather than
 * the script: the sandbox (no engine, the engine went away, a pool that could not start), the LLM
 * endpoint (no answer at all), or the run's process dying. Undefined for a run that succeeded or that
 * failed on its own (a script error, a failed assertion, an invalid script).
 */
export function infraErrorOf(rec: Pick<RunRecord, 'status' | 'attempts' | 'error'>): string | undefined {
  if (rec.status === 'succeeded' || rec.status === 'running' || rec.status === 'cancelled') return undefined;
  if (rec.status === 'interrupted') return `the run was interrupted: ${rec.error ?? 'its process ended'}`;
  const last = rec.attempts.at(-1);
  if (!last) return undefined;
  if (last.execution?.exitReason === 'infra')
    return `the sandbox could not run the script: ${last.execution.error?.message ?? 'infrastructure error'}`;
  if (!last.llm && !last.script && last.llmErrors.length > 0)
    return `the LLM provider did not answer: ${last.llmErrors.at(-1)?.message ?? ''}`;
  return undefined;
}
