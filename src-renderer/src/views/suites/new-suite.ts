/**
 * The New suite form as data: its fields, and what a reload keeps of it (lib/session-draft.ts). Pure
 * (tested in node); the form is SuitesParts.tsx's NewSuiteForm, its draft kept by useSuites.ts.
 */
export interface NewSuiteFields {
  name: string;
  sandbox: string;
  task: string;
  description: string;
}

export const emptyNewSuite = (sandbox = ''): NewSuiteFields => ({
  name: '',
  sandbox,
  task: '',
  description: '',
});

/**
 * The form as the tab's sessionStorage kept it while it was open, or undefined for anything else (another
 * version's shape, a hand edit), which is dropped. (A reload, F5 or the page restarted, closed the form
 * and lost what was typed in it.)
 */
export function restoreNewSuite(raw: unknown): NewSuiteFields | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const keys = ['name', 'sandbox', 'task', 'description'] as const;
  if (!keys.every((k) => typeof r[k] === 'string')) return undefined;
  const [name, sandbox, task, description] = keys.map((k) => r[k] as string) as [
    string,
    string,
    string,
    string,
  ];
  return { name, sandbox, task, description };
}
