/**
 * Whether a script fits the one message a worker reads, as the host writes it: JSON, UTF-8, with U+2028
 * and U+2029 escaped as `\u2028` (6 bytes where JSON.stringify leaves 3). The MCP tools refuse one that
 * does not at once (huge-script.test.ts); a count of characters, or of JSON.stringify's bytes, let some
 * through to be validated for seconds and then refused by the worker.
 */
import { describe, expect, it } from 'vitest';
import { MAX_SCRIPT_CHARS, scriptFitsWorker } from '../../../src-main/core/records/vocabulary.ts';

describe('scriptFitsWorker', () => {
  it('counts the escapes of line breaks, quotes and backslashes', () => {
    expect(scriptFitsWorker('x=1\n'.repeat(200_000))).toBe(true); // 1.0 MB as JSON
    expect(scriptFitsWorker('x=1\n'.repeat(250_000))).toBe(false); // 1.25 MB as JSON
    expect(scriptFitsWorker('"'.repeat(MAX_SCRIPT_CHARS / 2 + 1))).toBe(false);
  });

  it('counts UTF-8 bytes, and U+2028/U+2029 as the 6 bytes the host sends', () => {
    // (é is 2 bytes as UTF-8, € 3)
    expect(scriptFitsWorker('é'.repeat(500_000))).toBe(true); // 1,000,002 bytes
    expect(scriptFitsWorker('€'.repeat(340_000))).toBe(true); // 1,020,002 bytes
    // The same count of U+2028 goes as 2,040,002 bytes: refused, though JSON.stringify's were 1,020,002.
    expect(scriptFitsWorker('\u2028'.repeat(340_000))).toBe(false);
    expect(scriptFitsWorker('\u2028'.repeat(170_000))).toBe(true); // 1,020,002
  });
});
