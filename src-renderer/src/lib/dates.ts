/**
 * One way to show a point in time everywhere in the workbench: the date and the time, in the user's
 * locale (the browser's or Electron's language, and its 12/24-hour convention), local time zone. The
 * runs list, the run view, templates and suites all use it, so a run reads the same in the list and in
 * its view. `seconds` adds seconds (the run view, where runs a few seconds apart must differ).
 */
const cache = new Map<string, Intl.DateTimeFormat>();

function formatter(locale: string | undefined, seconds: boolean, timeZone?: string): Intl.DateTimeFormat {
  const key = `${locale ?? ''}|${seconds ? 1 : 0}|${timeZone ?? ''}`;
  let f = cache.get(key);
  if (!f) {
    // 24-hour locales read `00:30`, 12-hour ones `12:30 AM` (a 2-digit hour there would read `08:30 AM`).
    const cycle = new Intl.DateTimeFormat(locale, {
      hour: 'numeric',
      ...(timeZone ? { timeZone } : {}),
    }).resolvedOptions().hourCycle;
    f = new Intl.DateTimeFormat(locale, {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: cycle === 'h23' || cycle === 'h24' ? '2-digit' : 'numeric',
      minute: '2-digit',
      ...(seconds ? { second: '2-digit' } : {}),
      ...(timeZone ? { timeZone } : {}),
    });
    cache.set(key, f);
  }
  return f;
}

/** The user's locale: the first of `navigator.languages` where there is a navigator. */
export function userLocale(): string | undefined {
  const nav = (globalThis as { navigator?: { languages?: readonly string[]; language?: string } }).navigator;
  return nav?.languages?.[0] ?? nav?.language ?? undefined;
}

export interface DateOptions {
  seconds?: boolean;
  /** For tests: a fixed locale and zone. */
  locale?: string;
  timeZone?: string;
}

export function formatDateTime(ts: number, opts: DateOptions = {}): string {
  if (!Number.isFinite(ts)) return '—';
  return formatter(opts.locale ?? userLocale(), opts.seconds ?? false, opts.timeZone).format(new Date(ts));
}
