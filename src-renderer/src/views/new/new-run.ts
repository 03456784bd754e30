/**
 * The New run form as data: its fields, the reducer that edits them, what stops a start and the
 * `runs.start` request it sends. Pure (tested in node); `useNewRun.ts` binds it to React and the store.
 */
import type { Request } from '../../../../src-main/contract/api.ts';

export type Mode = 'plan' | 'interactive';
export type Language = 'python' | 'js' | 'ts';

export interface NewRunFields {
  task: string;
  sandbox: string;
  /** A kit of the sandbox, or '' for all its tools. */
  kit: string;
  mode: Mode;
  language: Language;
  /** A provider id, or '' for all in config order. */
  provider: string;
  model: string;
  maxRetries: number;
  maxSteps: number;
  timeoutS: number;
  noTemplates: boolean;
}

export interface NewRunState extends NewRunFields {
  /** `runs.start` is on its way. */
  busy: boolean;
}

export const initialNewRun: NewRunState = {
  task: '',
  sandbox: '',
  kit: '',
  mode: 'plan',
  language: 'python',
  provider: '',
  model: '',
  maxRetries: 3,
  maxSteps: 8,
  timeoutS: 60,
  noTemplates: false,
  busy: false,
};

const MODES: readonly Mode[] = ['plan', 'interactive'];
const LANGUAGES: readonly Language[] = ['python', 'js', 'ts'];

/**
 * The form's fields from a stored draft (lib/session-draft.ts): each field of the right type is taken,
 * anything else is the default's; a whole number out of its range is kept as typed, and the form says
 * why it cannot start (newRunProblem: it was put back to the default silently); never busy (a start
 * that was on its way when the page went is not resumed). Undefined for what is no draft at all.
 */
export function restoreNewRun(raw: unknown): NewRunState | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const text = (k: 'task' | 'sandbox' | 'kit' | 'provider' | 'model') =>
    typeof r[k] === 'string' ? r[k] : initialNewRun[k];
  const whole = (k: 'maxRetries' | 'maxSteps' | 'timeoutS') => {
    const n = r[k];
    return typeof n === 'number' && Number.isInteger(n) ? n : initialNewRun[k];
  };
  return {
    task: text('task'),
    sandbox: text('sandbox'),
    kit: text('kit'),
    mode: MODES.includes(r['mode'] as Mode) ? (r['mode'] as Mode) : initialNewRun.mode,
    language: LANGUAGES.includes(r['language'] as Language) ? (r['language'] as Language) : 'python',
    provider: text('provider'),
    model: text('model'),
    maxRetries: whole('maxRetries'),
    maxSteps: whole('maxSteps'),
    timeoutS: whole('timeoutS'),
    noTemplates: r['noTemplates'] === true,
    busy: false,
  };
}

/** What is kept of the form: its fields while they differ from an empty form, else nothing. */
export function newRunDraft(s: NewRunState): NewRunFields | undefined {
  const { busy: _busy, ...fields } = s;
  const { busy: _b, sandbox: _s, ...empty } = initialNewRun;
  const { sandbox: _t, ...rest } = fields;
  return JSON.stringify(rest) === JSON.stringify(empty) ? undefined : fields;
}

export type NewRunAction =
  | { type: 'set'; patch: Partial<Omit<NewRunFields, 'sandbox'>> }
  /** Another sandbox: its kits differ, so the kit goes back to "all tools". */
  | { type: 'sandbox'; sandbox: string }
  /** The sandbox list arrived: the first one is picked while none is. */
  | { type: 'sandboxes'; names: string[] }
  | { type: 'busy'; busy: boolean }
  /** The run started: the form is empty again for the next one. */
  | { type: 'started' };

export function newRunReducer(s: NewRunState, a: NewRunAction): NewRunState {
  switch (a.type) {
    case 'set':
      return { ...s, ...a.patch };
    case 'sandbox':
      return { ...s, sandbox: a.sandbox, kit: '' };
    case 'sandboxes':
      return !s.sandbox && a.names[0] ? { ...s, sandbox: a.names[0] } : s;
    case 'busy':
      return { ...s, busy: a.busy };
    case 'started':
      return initialNewRun;
  }
}

/** Why the run cannot start yet, in words (the button's title), or undefined. */
/** The whole-number fields as the form labels them, and the ranges `runs.start` takes. */
export const NEW_RUN_NUMBERS = [
  ['maxRetries', 'Max retries', 0, 20],
  ['maxSteps', 'Max steps', 1, 50],
  ['timeoutS', 'Timeout (s)', 1, 600],
] as const;

/**
 * Why the form cannot start a run, in the form's words. A number out of its range is one: Ctrl+Enter
 * started past the browser's own check and the service answered with its field names ("maxSteps: Too
 * big: expected number to be <=50"), and the Start button took it.
 */
export const newRunProblem = (s: NewRunFields): string | undefined => {
  if (!s.task.trim()) return 'Describe the task.';
  if (!s.sandbox) return 'Pick a sandbox.';
  for (const [key, label, min, max] of NEW_RUN_NUMBERS) {
    const n = s[key];
    if (!Number.isInteger(n) || n < min || n > max)
      return `${label} must be a whole number from ${min} to ${max}.`;
  }
  return undefined;
};

/** The `runs.start` request: trimmed text, empty choices left out. */
export const newRunRequest = (s: NewRunFields): Request<'runs.start'> => ({
  task: s.task.trim(),
  sandbox: s.sandbox,
  ...(s.kit ? { kit: s.kit } : {}),
  mode: s.mode,
  language: s.language,
  ...(s.provider ? { provider: s.provider } : {}),
  ...(s.model.trim() ? { model: s.model.trim() } : {}),
  maxRetries: s.maxRetries,
  maxSteps: s.maxSteps,
  timeoutS: s.timeoutS,
  ...(s.noTemplates ? { noTemplates: s.noTemplates } : {}),
});
