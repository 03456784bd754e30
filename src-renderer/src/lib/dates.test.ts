import { describe, expect, it } from 'vitest';
import { formatDateTime as raw } from './dates.ts';
import type { DateOptions } from './dates.ts';

// (ICU puts a narrow no-break space before AM/PM)
const formatDateTime = (ts: number, o?: DateOptions) => raw(ts, o).replace(/\u202f/g, ' ');

const ts = Date.UTC(2026, 10, 27, 0, 30, 8); // 2026-11-27 00:30:08 UTC

describe('formatDateTime', () => {
  it('shows the date and the time in the locale given: 24-hour for en-GB and de-DE, 12-hour for en-US', () => {
    expect(formatDateTime(ts, { locale: 'en-GB', timeZone: 'UTC' })).toBe('27 Nov 2026, 00:30');
    expect(formatDateTime(ts, { locale: 'en-US', timeZone: 'UTC' })).toBe('Nov 27, 2026, 12:30 AM');
    expect(formatDateTime(ts, { locale: 'de-DE', timeZone: 'UTC' })).toBe('27. Nov. 2026, 00:30');
  });
  it('adds seconds when asked, in the same format (the run view)', () => {
    expect(formatDateTime(ts, { locale: 'en-US', timeZone: 'UTC', seconds: true })).toBe(
      'Nov 27, 2026, 12:30:08 AM',
    );
    expect(formatDateTime(ts, { locale: 'en-GB', timeZone: 'UTC', seconds: true })).toBe(
      '27 Nov 2026, 00:30:08',
    );
  });
  it('always shows the date, also for today (the list and the run view agree)', () => {
    const now = Date.now();
    expect(formatDateTime(now, { locale: 'en-US' })).toMatch(/\d{4}/);
  });
  it('a missing time reads as a dash, not "Invalid Date"', () => {
    expect(formatDateTime(Number.NaN)).toBe('—');
  });
});
