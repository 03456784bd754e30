/**
 * The saved templates as `template list` shows them, read from the workspace's `templates/` folder and
 * the run store's counters: used by the template service (app/templates.ts) and by the read-only opener
 * of the listing verbs (app/workspace-reader.ts), which loads none of the service's other modules.
 */
import type { TemplateView } from '../core/templates/template.ts';
import type { RunStore } from '../infra/store/run-store.ts';
import type { TemplateEntry, TemplateFiles } from '../infra/workspace/files.ts';

/** The saved templates with their counters (files that do not parse are in `templateProblems`). */
export function templateViews(files: TemplateFiles, store: Pick<RunStore, 'templateStats'>): TemplateView[] {
  const stats = store.templateStats();
  return files.list().flatMap((e: TemplateEntry) =>
    e.template
      ? [
          {
            ...e.template,
            file: e.file,
            successes: stats.get(e.template.name)?.successes ?? 0,
            failures: stats.get(e.template.name)?.failures ?? 0,
            lastUsed: stats.get(e.template.name)?.lastUsed ?? null,
          },
        ]
      : [],
  );
}

/** The template files that do not parse, each with the reason. */
export function templateProblems(files: TemplateFiles): { file: string; error: string }[] {
  return files.list().flatMap((e) => (e.error ? [{ file: e.file, error: e.error }] : []));
}
