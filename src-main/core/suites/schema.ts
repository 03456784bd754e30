/**
 * Test suites (`suites/NAME.toml`): the schema, parsing with line numbers for TOML and schema errors, and
 * the expansion of cases (table rows feeding one task pattern) into concrete case instances.
 */
import { z } from 'zod';
import { MAX_TASK_CHARS, RUN_BUDGETS, TASK_LIMIT_MESSAGE } from '../records/events.ts';

const { maxRetries: RETRIES, maxSteps: STEPS } = RUN_BUDGETS;

const json = z.unknown();
const jsonPath = z.string().min(1).startsWith('$', 'a JSONPath starts with $');

/** Assertions on a case's outcome; `path` (JSONPath) narrows the result first. */
export const assertionSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('equals'), value: json, path: jsonPath.optional() }).strict(),
  z.object({ type: z.literal('contains'), value: json, path: jsonPath.optional() }).strict(),
  z
    .object({
      type: z.literal('matches'),
      pattern: z.string().min(1),
      flags: z
        .string()
        .regex(/^[imsu]*$/, 'flags among i, m, s, u')
        .optional(),
      path: jsonPath.optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('predicate'),
      /** A short Python script: `result` holds the run's result; it ends with emit_result(True|False). */
      script: z.string().min(1).max(20_000),
    })
    .strict(),
  z
    .object({
      type: z.literal('tool_called'),
      tool: z.string().min(1),
      /** Each call counted must carry these arguments (a subset match). */
      args: z.record(z.string(), json).optional(),
      min: z.number().int().min(0).default(1),
      max: z.number().int().min(0).optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('tool_not_called'),
      tool: z.string().min(1),
      args: z.record(z.string(), json).optional(),
    })
    .strict(),
  z.object({ type: z.literal('max_attempts'), value: z.number().int().min(1) }).strict(),
  z.object({ type: z.literal('max_tokens'), value: z.number().int().min(0) }).strict(),
  z.object({ type: z.literal('max_ms'), value: z.number().int().min(1) }).strict(),
  z.object({ type: z.literal('served_by_template'), template: z.string().min(1).optional() }).strict(),
  z.object({ type: z.literal('no_validation_failure') }).strict(),
]);
export type Assertion = z.infer<typeof assertionSchema>;
export type AssertionType = Assertion['type'];

const caseId = z
  .string()
  .min(1)
  .max(80)
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/, 'letters, digits, _ . - only');

export const caseSchema = z
  .object({
    id: caseId,
    task: z.string().min(1).max(MAX_TASK_CHARS, TASK_LIMIT_MESSAGE),
    /** Rows of variables: one case instance per row, `{name}` in the task and assertions filled in. */
    vars: z.array(z.record(z.string(), json)).min(1).optional(),
    assert: z.array(assertionSchema).default([]),
    repeat: z.number().int().min(1).max(100).optional(),
    /** The pass rate (0..1) this case needs over its repeats; the suite's threshold by default. */
    threshold: z.number().min(0).max(1).optional(),
    max_retries: z.number().int().min(RETRIES.min).max(RETRIES.max).optional(),
    timeout_s: z.number().int().min(1).max(600).optional(),
  })
  .strict();
export type SuiteCase = z.infer<typeof caseSchema>;

export const suiteSchema = z
  .object({
    name: z.string().min(1).max(80).optional(),
    description: z.string().default(''),
    sandbox: z.string().min(1),
    kit: z.string().min(1).optional(),
    mode: z.enum(['plan', 'interactive']).default('plan'),
    language: z.enum(['python', 'js', 'ts']).default('python'),
    /** Provider ids, `provider:model`, or a model name for the first provider. */
    models: z.array(z.string().min(1)).default([]),
    /** The template tier: off (LLM only), on, or both (a matrix axis). */
    templates: z.enum(['off', 'on', 'both']).default('off'),
    repeat: z.number().int().min(1).max(100).default(1),
    concurrency: z.number().int().min(1).max(64).default(4),
    threshold: z.number().min(0).max(1).default(1),
    defaults: z
      .object({
        max_retries: z.number().int().min(RETRIES.min).max(RETRIES.max).default(2),
        max_steps: z.number().int().min(STEPS.min).max(STEPS.max).optional(),
        timeout_s: z.number().int().min(1).max(600).default(60),
      })
      .strict()
      .default({ max_retries: 2, timeout_s: 60 }),
    cases: z.array(caseSchema).min(1, 'a suite needs at least one [[cases]]'),
  })
  .strict()
  .superRefine((s, ctx) => {
    const seen = new Set<string>();
    s.cases.forEach((c, i) => {
      if (seen.has(c.id))
        ctx.addIssue({ code: 'custom', path: ['cases', i, 'id'], message: `duplicate case id ${c.id}` });
      seen.add(c.id);
      for (const name of placeholders(c.task)) {
        if (!c.vars?.every((row) => name in row))
          ctx.addIssue({
            code: 'custom',
            path: ['cases', i, c.vars ? 'vars' : 'task'],
            message: `{${name}} in the task needs a value in every vars row`,
          });
      }
    });
  });
export type Suite = z.infer<typeof suiteSchema>;

/** A problem in a suite file, at a 1-based line and column. */
export interface SuiteProblem {
  line: number;
  column: number;
  path: string;
  message: string;
}

export type SuiteParse = { ok: true; suite: Suite } | { ok: false; problems: SuiteProblem[] };

const placeholders = (s: string): string[] =>
  [...s.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1] as string);

/**
 * Validates a suite's parsed TOML (`raw`); `text` is the file's text, for the line of each problem.
 * Parsing the TOML itself is infra's (infra/workspace/suite-toml.ts).
 */
export function validateSuite(raw: unknown, text: string): SuiteParse {
  const r = suiteSchema.safeParse(raw);
  if (r.success) return { ok: true, suite: r.data };
  const locate = locator(text);
  return {
    ok: false,
    problems: r.error.issues.map((i) => {
      const path = i.path.filter((p): p is string | number => typeof p !== 'symbol');
      const pos = locate(path);
      return { ...pos, path: formatPath(path), message: i.message };
    }),
  };
}

export const formatPath = (path: (string | number)[]): string =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i ? `.${p}` : p)).join('') || '(root)';

/** The line and column that define `path` in a suite file's text. */
export const locateInSuite = (text: string, path: (string | number)[]): { line: number; column: number } =>
  locator(text)(path);

/**
 * Maps a schema path (`cases[2].assert[0].value`) to the line that defines it: the n-th `[[cases]]`
 * header, then the n-th `[[cases.assert]]` inside it (or an inline array item), then the key's line.
 */
function locator(text: string): (path: (string | number)[]) => { line: number; column: number } {
  const lines = text.split('\n');
  const header = (l: string) => /^\s*\[\[?\s*([A-Za-z0-9_."-]+?)\s*\]\]?\s*(#.*)?$/.exec(l)?.[1];
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return (path) => {
    let from = 0;
    let to = lines.length;
    let table = '';
    let best = { line: 1, column: 1 };
    // The lines of the current table before its first sub-table header hold its own keys.
    const ownEnd = () => {
      for (let i = from; i < to; i++) if (header(lines[i] ?? '') !== undefined) return i;
      return to;
    };
    for (let k = 0; k < path.length; k++) {
      const seg = path[k];
      if (typeof seg !== 'string') return best;
      const name = table ? `${table}.${seg}` : seg;
      const next = path[k + 1];
      const key = new RegExp(`^\\s*"?${escape(seg)}"?\\s*=`);
      const end = ownEnd();
      const keyLine = lines.slice(from, end).findIndex((l) => key.test(l));
      if (keyLine >= 0) {
        const l = lines[from + keyLine] ?? '';
        return { line: from + keyLine + 1, column: l.search(/\S/) + 1 };
      }
      const starts: number[] = [];
      for (let i = from; i < to; i++) if (header(lines[i] ?? '') === name) starts.push(i);
      const start = typeof next === 'number' ? starts[next] : starts[0];
      if (start === undefined) return best;
      let stop = to;
      for (let i = start + 1; i < to; i++) {
        const h = header(lines[i] ?? '');
        if (h !== undefined && !h.startsWith(`${name}.`)) {
          stop = i;
          break;
        }
      }
      best = { line: start + 1, column: 1 };
      from = start + 1;
      to = stop;
      table = name;
      if (typeof next === 'number') k++;
    }
    return best;
  };
}

/** One concrete case: a case, or one row of a case with `vars`. */
export interface CaseInstance {
  /** `id`, or `id[row]` for a row of variables. */
  id: string;
  caseId: string;
  task: string;
  vars: Record<string, unknown>;
  assert: Assertion[];
  repeat: number;
  threshold: number;
  maxRetries: number;
  timeoutS: number;
}

/** Expands cases into instances, filling `{var}` in the task and in assertion values. */
export function expandCases(suite: Suite): CaseInstance[] {
  return suite.cases.flatMap((c) => {
    const rows = c.vars ?? [{}];
    return rows.map((vars, i) => ({
      id: c.vars ? `${c.id}[${i}]` : c.id,
      caseId: c.id,
      task: fillString(c.task, vars),
      vars,
      assert: c.assert.map((a) => fill(a, vars) as Assertion),
      repeat: c.repeat ?? suite.repeat,
      threshold: c.threshold ?? suite.threshold,
      maxRetries: c.max_retries ?? suite.defaults.max_retries,
      timeoutS: c.timeout_s ?? suite.defaults.timeout_s,
    }));
  });
}

const fillString = (s: string, vars: Record<string, unknown>): string =>
  s.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (m, name: string) =>
    name in vars ? (typeof vars[name] === 'string' ? vars[name] : JSON.stringify(vars[name])) : m,
  );

/** A string that is exactly `{name}` takes the variable's value with its type; others are filled in. */
function fill(v: unknown, vars: Record<string, unknown>): unknown {
  if (typeof v === 'string') {
    const whole = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(v);
    if (whole && (whole[1] as string) in vars) return vars[whole[1] as string];
    return fillString(v, vars);
  }
  if (Array.isArray(v)) return v.map((x) => fill(x, vars));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'script' ? x : fill(x, vars)]));
  return v;
}
